// Split-phase calls (docs/design.md §3.4): begin_call decides, the caller
// runs the tool, complete_call runs the rest -- the same stages and the same
// "exactly one tool/result" as a whole call.
#include "test_support.hpp"

#include <chrono>
#include <thread>

using namespace tgtest;

namespace {

ToolCall bash(std::string command, std::string call_id = "") {
  ToolCall c;
  c.identity.tool = "Bash";  // not registered: the agent runs it
  c.identity.session_id = "s1";
  c.identity.call_id = std::move(call_id);
  c.arguments = json::object{{"command", std::move(command)}};
  return c;
}

ToolResult text_result(std::string text) {
  return ToolResult::success(nullptr, json::array{text_block(text)});
}

std::size_t count(Recorder& r, std::string_view type, const std::string& call_id) {
  std::size_t n = 0;
  for (const auto& e : r.snapshot())
    if (e.type == type && e.call_id == call_id) ++n;
  return n;
}

// Waits (bounded) until `call_id` has a tool/result; the expiry runs on the
// host's own thread.
bool wait_for_result(Recorder& r, const std::string& call_id) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < until) {
    if (count(r, "tool/result", call_id)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace

TEST(SplitCall, AllowLeavesTheCallPendingUntilCompleted) {
  Fixture f;
  auto b = f.host.begin_call(bash("ls", "c1"));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::allow);
  EXPECT_EQ(b.call_id, "c1");
  EXPECT_EQ(b.arguments, (json::object{{"command", "ls"}}));
  EXPECT_FALSE(b.rewritten);
  EXPECT_EQ(count(*f.recorder, "tool/call", "c1"), 1u);
  EXPECT_EQ(count(*f.recorder, "tool/result", "c1"), 0u);  // not before complete
  EXPECT_EQ(f.host.pending_split_calls(), 1u);

  auto o = f.host.complete_call("c1", text_result("a.txt"));
  EXPECT_EQ(o.kind, SplitOutcome::Kind::accepted);
  EXPECT_FALSE(o.result.is_error);
  EXPECT_EQ(o.result.content.at(0).at("text"), "a.txt");
  EXPECT_EQ(count(*f.recorder, "tool/result", "c1"), 1u);
  EXPECT_EQ(f.host.pending_split_calls(), 0u);
  // Completed once: a second report is refused, not a second tool/result.
  EXPECT_THROW(f.host.complete_call("c1", text_result("again")), std::out_of_range);
  EXPECT_EQ(count(*f.recorder, "tool/result", "c1"), 1u);
}

TEST(SplitCall, ARewriteReachesTheCaller) {
  Fixture f;
  f.host.add_pre_execute("p", {"safer"}, [](const HookCall& c) {
    auto args = c.arguments;
    args["command"] = "ls -la";
    return PreVerdict::keep().with_arguments(std::move(args));
  });
  auto b = f.host.begin_call(bash("ls"));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::allow);
  EXPECT_TRUE(b.rewritten);
  EXPECT_EQ(b.arguments.at("command"), "ls -la");
  EXPECT_FALSE(b.call_id.empty());  // generated
  f.host.complete_call(b.call_id, text_result("ok"));
}

TEST(SplitCall, AGuardDenialEndsTheCallAtBegin) {
  Fixture f;
  f.host.add_guard("sec", {"no-rm"}, [](const HookCall& c) -> std::optional<std::string> {
    if (c.arguments.at("command").as_string().starts_with("rm")) return "no rm";
    return std::nullopt;
  });
  int post_runs = 0;
  f.host.add_post_execute("p", {"ctx"}, [&](const HookCall& c) {
    ++post_runs;
    EXPECT_TRUE(c.denied);
    return PostVerdict::accept().add_context("the call was refused");
  });
  auto b = f.host.begin_call(bash("rm -rf /", "c2"));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::deny);
  EXPECT_EQ(b.reason, "no rm");
  EXPECT_EQ(code_of(b.result), "denied");
  EXPECT_EQ(b.result.error->source, "sec/no-rm");
  EXPECT_EQ(post_runs, 1);  // a denial still goes through post-execute
  EXPECT_EQ(b.additional_contexts, std::vector<std::string>{"the call was refused"});
  EXPECT_EQ(count(*f.recorder, "tool/result", "c2"), 1u);
  EXPECT_EQ(f.host.pending_split_calls(), 0u);
  EXPECT_THROW(f.host.complete_call("c2", text_result("ran anyway")), std::out_of_range);
  EXPECT_EQ(count(*f.recorder, "tool/result", "c2"), 1u);
}

TEST(SplitCall, AnAskGoesBackToTheCallerOnlyAfterTheGuards) {
  Fixture f;
  int approver_runs = 0;
  f.host.set_approver([&](const ApprovalRequest&) {
    ++approver_runs;
    return ApprovalAnswer::allowed_once;
  });
  f.host.add_pre_execute("p", {"ask"}, [](const HookCall&) { return PreVerdict::ask("sure?"); });
  f.host.add_guard("sec", {"no-rm"}, [](const HookCall& c) -> std::optional<std::string> {
    if (c.arguments.at("command").as_string().starts_with("rm")) return "no rm";
    return std::nullopt;
  });
  SplitBeginOptions caller_asks;
  caller_asks.caller_approves = true;
  auto b = f.host.begin_call(bash("ls", "a1"), caller_asks);
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::ask);
  EXPECT_EQ(b.reason, "sure?");
  EXPECT_EQ(approver_runs, 0);
  // A guard's deny outranks the ask: the user is never asked about it.
  auto d = f.host.begin_call(bash("rm x", "a2"), caller_asks);
  EXPECT_EQ(d.verdict, SplitBegin::Verdict::deny);
  // Without caller_approves the host's approver answers, as for any call.
  auto h = f.host.begin_call(bash("ls", "a3"));
  EXPECT_EQ(h.verdict, SplitBegin::Verdict::allow);
  EXPECT_EQ(approver_runs, 1);
}

TEST(SplitCall, PostExecuteCanBlockReplaceAndAddContext) {
  Fixture f;
  f.host.add_post_execute("dlp", {"block"}, [](const HookCall& c) {
    const auto& text = c.candidate()->at("content").at(0).at("text").as_string();
    if (text.find("AKIA") != json::string::npos) return PostVerdict::block("a key in the output");
    if (text == "long")
      return PostVerdict::replace(
          json::object{{"isError", false}, {"content", json::array{text_block("short")}}});
    return PostVerdict::accept().add_context("checked by dlp");
  });
  f.host.begin_call(bash("cat key", "k"));
  auto blocked = f.host.complete_call("k", text_result("AKIAIOSFODNN7EXAMPLE"));
  EXPECT_EQ(blocked.kind, SplitOutcome::Kind::blocked);
  EXPECT_EQ(code_of(blocked.result), "denied");
  EXPECT_EQ(blocked.result.error->message, "a key in the output");

  f.host.begin_call(bash("cat long", "l"));
  auto replaced = f.host.complete_call("l", text_result("long"));
  EXPECT_EQ(replaced.kind, SplitOutcome::Kind::replaced);
  EXPECT_EQ(replaced.result.content.at(0).at("text"), "short");

  f.host.begin_call(bash("ls", "n"));
  auto accepted = f.host.complete_call("n", text_result("fine"));
  EXPECT_EQ(accepted.kind, SplitOutcome::Kind::accepted);
  EXPECT_EQ(accepted.additional_contexts, std::vector<std::string>{"checked by dlp"});
}

TEST(SplitCall, WrappersDoNotRunAndTheTrailSaysSo) {
  Fixture f;
  int wrapper_runs = 0;
  f.host.add_execute_wrapper(
      "w", {"count"},
      [&](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        ++wrapper_runs;
        return next(s);
      });
  json::array trail;
  f.host.add_result_observer("o", {"trail"}, [&](const Outcome& o) { trail = o.trail_json(); });
  f.host.begin_call(bash("ls", "w1"));
  f.host.complete_call("w1", text_result("ok"));
  EXPECT_EQ(wrapper_runs, 0);
  bool not_run = false;
  for (const auto& e : trail)
    if (e.at("stage") == "tools/execute" && e.at("verdict") == "not-run") not_run = true;
  EXPECT_TRUE(not_run) << json::serialize(trail);
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(SplitCall, ACallNeverCompletedGetsItsResultWhenItExpires) {
  HostOptions o;
  o.split_call_expiry = std::chrono::milliseconds(50);
  Fixture f(o);
  int observed = 0;
  std::string code;
  f.host.add_result_observer("o", {"seen"}, [&](const Outcome& out) {
    ++observed;
    code = code_of(out.result);
  });
  auto b = f.host.begin_call(bash("sleep 100", "e1"));
  ASSERT_EQ(b.verdict, SplitBegin::Verdict::allow);
  ASSERT_TRUE(wait_for_result(*f.recorder, "e1"));
  EXPECT_EQ(count(*f.recorder, "tool/result", "e1"), 1u);
  EXPECT_EQ(code, "not_completed");
  EXPECT_EQ(observed, 1);
  EXPECT_THROW(f.host.complete_call("e1", text_result("late")), std::out_of_range);
  EXPECT_EQ(count(*f.recorder, "tool/result", "e1"), 1u);
}

TEST(SplitCall, ADuplicateIdAndAFullTableAreRefused) {
  HostOptions o;
  o.max_pending_split_calls = 2;
  Fixture f(o);
  ASSERT_EQ(f.host.begin_call(bash("ls", "d1")).verdict, SplitBegin::Verdict::allow);
  auto dup = f.host.begin_call(bash("ls", "d1"));
  EXPECT_EQ(dup.verdict, SplitBegin::Verdict::deny);
  EXPECT_EQ(code_of(dup.result), "invalid_arguments");
  EXPECT_NE(dup.reason.find("already begun"), std::string::npos) << dup.reason;
  ASSERT_EQ(f.host.begin_call(bash("ls", "d2")).verdict, SplitBegin::Verdict::allow);
  auto full = f.host.begin_call(bash("ls", "d3"));
  EXPECT_EQ(full.verdict, SplitBegin::Verdict::deny);
  EXPECT_NE(full.reason.find("limit"), std::string::npos) << full.reason;
  // The first d1 is untouched by the refused duplicate.
  EXPECT_EQ(f.host.complete_call("d1", text_result("ok")).kind, SplitOutcome::Kind::accepted);
  EXPECT_EQ(count(*f.recorder, "tool/result", "d3"), 1u);
}

TEST(SplitCall, PendingCallsGetTheirResultWhenTheHostGoes) {
  auto recorder = std::make_shared<Recorder>();
  {
    Host host;
    host.subscribe([recorder](const Event& e) { (*recorder)(e); });
    host.begin_call(bash("ls", "g1"));
  }
  ASSERT_EQ(count(*recorder, "tool/result", "g1"), 1u);
  auto results = recorder->of_type("tool/result");
  EXPECT_EQ(results.back().data.at("result").at("error").at("code"), "not_completed");
}

TEST(SplitCall, GuardsSeeTheClientAndTheSubagent) {
  Fixture f;
  f.host.add_guard("sec", {"no-subagent-shell"},
                   [](const HookCall& c) -> std::optional<std::string> {
                     if (!c.identity.agent_id.empty() && c.identity.client == "claude-code")
                       return "subagent " + c.identity.agent_id + " may not run the shell";
                     return std::nullopt;
                   });
  auto main = bash("ls");
  main.identity.client = "claude-code";
  EXPECT_EQ(f.host.begin_call(std::move(main)).verdict, SplitBegin::Verdict::allow);
  auto sub = bash("ls");
  sub.identity.client = "claude-code";
  sub.identity.agent_id = "agent-7";
  auto b = f.host.begin_call(std::move(sub));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::deny);
  EXPECT_EQ(b.reason, "subagent agent-7 may not run the shell");
  auto calls = f.recorder->of_type("tool/call");
  EXPECT_EQ(calls.back().data.at("agent_id"), "agent-7");
}

TEST(SplitCall, ARegisteredToolLendsItsAnnotationsButItsBodyNeverRuns) {
  Fixture f;
  std::uint32_t seen = 0;
  f.host.add_guard("sec", {"look"}, [&](const HookCall& c) -> std::optional<std::string> {
    seen = c.annotations;
    return std::nullopt;
  });
  ToolCall c;
  c.identity.tool = "echo";
  c.arguments = json::object{{"x", 1}};
  auto b = f.host.begin_call(std::move(c));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::allow);
  EXPECT_EQ(seen, annotation::idempotent);
  f.host.complete_call(b.call_id, text_result("done"));
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(SplitCall, AResultThatCannotBeSnapshottedIsBlockedNotAccepted) {
  // Normalization runs after post-execute: when it fails, the result is
  // the host's failure, and the caller must not be told "accepted" (it
  // would hand the model the output the host could not check).
  HostOptions o;
  o.max_result_bytes = 1024;
  Fixture f(o);
  auto b = f.host.begin_call(bash("cat big.txt", "big"));
  ASSERT_EQ(b.verdict, SplitBegin::Verdict::allow);
  auto out = f.host.complete_call("big", text_result(std::string(4096, 'x')));
  EXPECT_EQ(out.kind, SplitOutcome::Kind::blocked);
  ASSERT_TRUE(out.result.error);
  EXPECT_EQ(out.result.error->code, "snapshot_failed");
}
