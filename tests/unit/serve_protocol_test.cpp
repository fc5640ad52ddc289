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

TEST(ServeProtocol, AnotherUsersCallsCanBeNeitherCompletedNorBlocked) {
  Fixture f;
  Protocol p(f.host);
  ASSERT_EQ(ask(p, R"({"op":"begin","call":{"tool":"Bash","call_id":"t1","arguments":{}}})")
                .at("verdict"),
            "allow");
  // Another user naming the same id begins a call of its own ...
  auto theirs =
      json::parse(p.answer(R"({"op":"begin","call":{"tool":"Bash","call_id":"t1","arguments":{}}})",
                           "u1001:"))
          .as_object();
  EXPECT_EQ(theirs.at("verdict"), "allow");
  EXPECT_EQ(theirs.at("call_id"), "t1");
  // ... and completes only that one.
  const char* done = R"({"op":"complete","call_id":"t1","result":{"isError":false,"content":[]}})";
  EXPECT_EQ(json::parse(p.answer(done, "u1001:")).at("ok"), true);
  EXPECT_EQ(error_code_of(json::parse(p.answer(done, "u1001:")).as_object()), "unknown_call");
  EXPECT_EQ(ask(p, done).at("outcome"), "accepted");  // the daemon user's own t1
}

TEST(ServeProtocol, IdsItGeneratesAreRandom) {
  Fixture f;
  Protocol p(f.host);
  auto a = ask(p, R"({"op":"begin","call":{"tool":"Bash","arguments":{"n":1}}})");
  auto b = ask(p, R"({"op":"begin","call":{"tool":"Bash","arguments":{"n":2}}})");
  std::string ia(a.at("call_id").as_string()), ib(b.at("call_id").as_string());
  EXPECT_EQ(ia.size(), std::string("call-").size() + 32) << ia;
  EXPECT_NE(ia, ib);
  EXPECT_NE(ia.substr(0, 20), ib.substr(0, 20));  // not a counter
}

TEST(ServeProtocol, ARewrittenCallIsMatchedOnceWhicheverArgumentsComeBack) {
  Fixture f;
  f.host.add_pre_execute("p", {"ci"}, [](const HookCall& c) {
    if (c.arguments.at("command") != "npm install") return PreVerdict::keep();
    auto args = c.arguments;
    args["command"] = "npm ci";
    return PreVerdict::keep().with_arguments(std::move(args));
  });
  Protocol p(f.host);
  const char* begin =
      R"({"op":"begin","call":{"tool":"run_shell_command","session_id":"g","arguments":{"command":"npm install"}}})";
  auto first = ask(p, begin);
  auto second = ask(p, begin);
  ASSERT_EQ(first.at("rewritten"), true);
  auto complete = [&](const char* command) {
    return ask(
        p,
        std::string(
            R"({"op":"complete","match":{"tool":"run_shell_command","session_id":"g","arguments":{"command":")") +
            command + R"("}},"result":{"isError":false,"content":[]}})");
  };
  // The first completes by its rewritten arguments, the second by its
  // original ones: each exactly once, oldest first.
  EXPECT_EQ(complete("npm ci").at("call_id"), first.at("call_id"));
  EXPECT_EQ(complete("npm install").at("call_id"), second.at("call_id"));
  EXPECT_EQ(error_code_of(complete("npm ci")), "unknown_call");
  EXPECT_EQ(f.host.pending_split_calls(), 0u);
}
