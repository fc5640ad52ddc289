// The split-phase protocol of `toolgate serve` (docs/design.md §12), line in,
// line out, without the socket.
#include "test_support.hpp"

#include "serve/protocol.hpp"

using namespace tgtest;
using toolgate::serve::Protocol;

namespace {

json::object ask(Protocol& p, std::string_view line) {
  return json::parse(p.answer(line)).as_object();
}

std::string error_code_of(const json::object& a) {
  if (a.at("ok").as_bool()) return "";
  return std::string(a.at("error").at("code").as_string());
}

}  // namespace

TEST(ServeProtocol, BeginThenCompleteRunsTheWholePipeline) {
  Fixture f;
  f.host.add_guard("sec", {"no-rm"}, [](const HookCall& c) -> std::optional<std::string> {
    if (c.arguments.at("command").as_string().starts_with("rm")) return "no rm";
    return std::nullopt;
  });
  f.host.add_post_execute(
      "p", {"ctx"}, [](const HookCall&) { return PostVerdict::accept().add_context("checked"); });
  Protocol p(f.host);
  auto b = ask(p, R"({"id":7,"op":"begin","call":{"tool":"Bash","arguments":{"command":"ls"},
                   "call_id":"t1","session_id":"s","client":"claude-code"}})");
  EXPECT_EQ(b.at("id"), 7);
  EXPECT_EQ(b.at("verdict"), "allow");
  EXPECT_EQ(b.at("arguments"), (json::object{{"command", "ls"}}));
  auto c = ask(p, R"({"id":8,"op":"complete","call_id":"t1",
                   "result":{"isError":false,"content":[{"type":"text","text":"a"}]}})");
  EXPECT_EQ(c.at("outcome"), "accepted");
  EXPECT_EQ(c.at("additional_contexts"), (json::array{"checked"}));
  auto d = ask(p, R"({"op":"begin","call":{"tool":"Bash","arguments":{"command":"rm -rf /"}}})");
  EXPECT_EQ(d.at("verdict"), "deny");
  EXPECT_EQ(d.at("reason"), "no rm");
  EXPECT_EQ(d.at("result").at("error").at("source"), "sec/no-rm");
  auto calls = f.recorder->of_type("tool/call");
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.front().data.at("client"), "claude-code");
}

TEST(ServeProtocol, ACallWithoutAnIdIsCompletedByWhatItWasCalledWith) {
  Fixture f;
  Protocol p(f.host);
  auto b = ask(p, R"({"op":"begin","call":{"tool":"run_shell_command","session_id":"g",
                   "client":"gemini-cli","arguments":{"command":"ls"}}})");
  ASSERT_EQ(b.at("verdict"), "allow");
  auto wrong = ask(p, R"({"op":"complete","match":{"tool":"run_shell_command","session_id":"g",
                       "client":"gemini-cli","arguments":{"command":"pwd"}},
                       "result":{"isError":false,"content":[]}})");
  EXPECT_EQ(error_code_of(wrong), "unknown_call");
  auto right = ask(p, R"({"op":"complete","match":{"tool":"run_shell_command","session_id":"g",
                       "client":"gemini-cli","arguments":{"command":"ls"}},
                       "result":{"isError":false,"content":[]}})");
  EXPECT_EQ(right.at("outcome"), "accepted");
  EXPECT_EQ(right.at("call_id"), b.at("call_id"));
  EXPECT_EQ(f.host.pending_split_calls(), 0u);
}

TEST(ServeProtocol, BadRequestsGetAnErrorThatSaysWhatWasWrong) {
  Fixture f;
  Protocol p(f.host);
  struct Case {
    const char* line;
    const char* code;
    const char* says;
  } cases[] = {
      {"not json", "bad_request", "not valid JSON"},
      {"[1]", "bad_request", "JSON object"},
      {R"({"op":"launch"})", "bad_request", "unknown op \"launch\""},
      {R"({"op":"begin"})", "bad_request", "needs a \"call\" object"},
      {R"({"op":"begin","call":{"arguments":{}}})", "bad_request", "needs a string \"tool\""},
      {R"({"op":"begin","call":{"tool":"x","extra":1}})", "bad_request", "unknown key \"extra\""},
      {R"({"op":"begin","call":{"tool":"x"},"caller_approves":"yes"})", "bad_request",
       "true or false"},
      {R"({"op":"complete","call_id":"nope","result":{"isError":false,"content":[]}})",
       "unknown_call", "nope"},
      {R"({"op":"complete","call_id":"x","result":{"isError":true}})", "bad_request",
       "not a result"},
      {R"({"op":"complete","result":{"isError":false,"content":[]}})", "bad_request", "match"},
      {R"({"op":"begin","call":{"tool":"x","tool":"y"}})", "bad_request", "duplicate"},
  };
  for (const auto& c : cases) {
    auto a = ask(p, c.line);
    EXPECT_EQ(error_code_of(a), c.code) << c.line;
    if (!a.at("ok").as_bool()) {
      std::string message(a.at("error").at("message").as_string());
      EXPECT_NE(message.find(c.says), std::string::npos) << c.line << " -> " << message;
    }
  }
  // A bad argument shape is a call outcome, not a protocol error.
  auto arr = ask(p, R"({"op":"begin","call":{"tool":"x","arguments":[1]}})");
  EXPECT_EQ(arr.at("verdict"), "deny");
  EXPECT_EQ(arr.at("result").at("error").at("code"), "invalid_arguments");
}

TEST(ServeProtocol, PingReportsTheGenerationAndPendingCalls) {
  Fixture f;
  Protocol p(f.host);
  ask(p, R"({"op":"begin","call":{"tool":"Bash","call_id":"p1","arguments":{}}})");
  auto a = ask(p, R"({"id":"x","op":"ping"})");
  EXPECT_EQ(a.at("id"), "x");
  EXPECT_EQ(a.at("pending"), 1);
  EXPECT_EQ(a.at("protocol"), 1);
}
