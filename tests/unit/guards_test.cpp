// Stage 2, guards (docs/design.md §2.4): monotonic, fail closed, deterministic
// report.
#include "test_support.hpp"

#include <chrono>
#include <thread>

using namespace tgtest;

namespace {
GuardFn deny_with(std::string reason) {
  return [reason](const HookCall&) -> std::optional<std::string> { return reason; };
}
GuardFn abstain() {
  return [](const HookCall&) -> std::optional<std::string> { return std::nullopt; };
}
}  // namespace

TEST(Guards, AbstainingGuardsLetTheCallRun) {
  Fixture f;
  f.host.add_guard("a", {"one"}, abstain());
  f.host.add_guard("b", {"two"}, abstain());
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(Guards, AnyDenyDeniesAndTheBodyNeverRuns) {
  Fixture f;
  f.host.add_guard("a", {"ok"}, abstain());
  f.host.add_guard("b", {"no"}, deny_with("outside the workspace"));
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->stage, "guard");
  EXPECT_EQ(r.error->source, "b/no");
  EXPECT_EQ(r.content.at(0).at("text"), "outside the workspace");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(Guards, AllDenialsAreReportedSortedByGuardIdWhateverTheRegistrationOrder) {
  for (int flip = 0; flip < 2; ++flip) {
    Fixture f;
    if (flip) {
      f.host.add_guard("zeta", {"g"}, deny_with("z"));
      f.host.add_guard("alpha", {"g"}, deny_with("a"));
    } else {
      f.host.add_guard("alpha", {"g"}, deny_with("a"));
      f.host.add_guard("zeta", {"g"}, deny_with("z"));
    }
    auto r = f.call("echo");
    ASSERT_EQ(r.error->denials.size(), 2u);
    EXPECT_EQ(r.error->denials[0].at("source"), "alpha/g");
    EXPECT_EQ(r.error->denials[1].at("source"), "zeta/g");
    EXPECT_EQ(r.error->message, "a; z");
    EXPECT_EQ(r.error->source, "alpha/g");
  }
}

TEST(Guards, AThrowingGuardNeverLetsTheCallThrough) {
  Fixture f;
  int post = 0;
  f.host.add_guard("sec", {"broken"}, [](const HookCall&) -> std::optional<std::string> {
    throw std::runtime_error("rules file unreadable");
  });
  f.host.add_post_execute("p", {"post"}, [&](const HookCall&) {
    ++post;
    return PostVerdict::accept();
  });
  auto r = f.call("echo");
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->stage, "guard");
  EXPECT_EQ(r.error->source, "sec/broken");
  EXPECT_EQ(*f.body_runs, 0);
  EXPECT_EQ(post, 0);  // straight to normalization
}

TEST(Guards, AShadowGuardRecordsButDoesNotDeny) {
  Fixture f;
  HookOptions o{"new-rule"};
  o.shadow = true;
  f.host.add_guard("sec", o, deny_with("would block"));
  auto r = f.call("echo");
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(*f.body_runs, 1);
  bool recorded = false;
  for (const auto& e : f.recorder->of_type("hook/result"))
    if (e.data.at("source") == "sec/new-rule") {
      EXPECT_EQ(e.data.at("verdict"), "would-deny");
      EXPECT_EQ(e.data.at("reason"), "would block");
      recorded = true;
    }
  EXPECT_TRUE(recorded);
}

TEST(Guards, AShadowGuardThatThrowsStillFailsClosed) {
  Fixture f;
  HookOptions o{"new-rule"};
  o.shadow = true;
  f.host.add_guard("sec", o, [](const HookCall&) -> std::optional<std::string> {
    throw std::runtime_error("bug");
  });
  EXPECT_EQ(code_of(f.call("echo")), "plugin_error");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(Guards, GuardsSeeTheFinalArgumentsAndTheOriginals) {
  Fixture f;
  f.host.add_pre_execute("p", {"rw"}, [](const HookCall&) {
    return PreVerdict::keep().with_arguments({{"path", "/etc/passwd"}});
  });
  f.host.add_guard("sec", {"paths"}, [](const HookCall& c) -> std::optional<std::string> {
    EXPECT_EQ(c.original_arguments.at("path"), "/tmp/ok");
    if (c.arguments.at("path") == "/etc/passwd") return "no /etc";
    return std::nullopt;
  });
  EXPECT_EQ(code_of(f.call("echo", {{"path", "/tmp/ok"}})), "denied");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(Guards, AnEmptyReasonStillDenies) {
  Fixture f;
  f.host.add_guard("sec", {"terse"}, deny_with(""));
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_NE(r.error->message.find("sec/terse"), std::string::npos);
}

TEST(Guards, APreExecuteAllowCannotSkipGuards) {
  Fixture f;
  f.host.add_pre_execute("p", {"yes", {}, 100},
                         [](const HookCall&) { return PreVerdict::allow(); });
  f.host.add_guard("sec", {"no"}, deny_with("guard says no"));
  EXPECT_EQ(code_of(f.call("echo")), "denied");
  EXPECT_EQ(*f.body_runs, 0);
}

// Reasons and messages reach the result, the trail and events: whatever
// bytes a guard or an exception gave, the result is valid UTF-8 (U+FFFD in
// place of bad bytes) and still a denial / an error.
TEST(Guards, ReasonsAndMessagesWithInvalidUtf8StayDenialsWithValidText) {
  {
    Fixture f;
    f.host.add_guard("sec", {"bytes"}, deny_with("bad \xFF\xFE path"));
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "denied");
    EXPECT_EQ(*f.body_runs, 0);
    EXPECT_EQ(r.error->message, "bad \xEF\xBF\xBD\xEF\xBF\xBD path");
    EXPECT_EQ(r.content.at(0).at("text"), "bad \xEF\xBF\xBD\xEF\xBF\xBD path");
    EXPECT_EQ(r.error->denials.at(0).at("reason"), "bad \xEF\xBF\xBD\xEF\xBF\xBD path");
  }
  {
    Fixture f;
    f.host.add_guard("sec", {"throws"}, [](const HookCall&) -> std::optional<std::string> {
      throw std::runtime_error("rules \xC0\xAF unreadable");
    });
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "plugin_error");
    EXPECT_EQ(*f.body_runs, 0);
    const std::string text(r.content.at(0).at("text").as_string());
    EXPECT_NE(text.find("rules \xEF\xBF\xBD\xEF\xBF\xBD unreadable"), std::string::npos) << text;
  }
}

// docs/design.md §2.4, §10: a guard timeout fails closed.  Whatever a guard
// answers after its deadline does not count -- an abstain included -- and
// shadow mode does not soften it; a guard within its deadline is unaffected.
TEST(Guards, AGuardOverItsDeadlineFailsTheCallClosed) {
  HostOptions o;
  o.guard_deadline = std::chrono::milliseconds(20);
  auto slow_abstain = [](const HookCall&) -> std::optional<std::string> {
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    return std::nullopt;
  };
  {
    Fixture f(o);
    f.host.add_guard("fast", {"ok"}, abstain());
    f.host.add_guard("slow", {"lookup"}, slow_abstain);
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "timeout");
    EXPECT_EQ(r.error->stage, "guard");
    EXPECT_EQ(r.error->source, "slow/lookup");
    EXPECT_NE(r.error->message.find("over its 20 ms deadline"), std::string::npos)
        << r.error->message;
    EXPECT_EQ(*f.body_runs, 0);
  }
  {
    Fixture f(o);
    HookOptions shadow;
    shadow.name = "lookup";
    shadow.shadow = true;
    f.host.add_guard("slow", shadow, slow_abstain);
    EXPECT_EQ(code_of(f.call("echo")), "timeout");
    EXPECT_EQ(*f.body_runs, 0);
  }
  {
    HostOptions none;
    none.guard_deadline = std::chrono::milliseconds(0);  // no deadline
    Fixture f(none);
    f.host.add_guard("slow", {"lookup"}, slow_abstain);
    EXPECT_FALSE(f.call("echo").is_error);
    EXPECT_EQ(*f.body_runs, 1);
  }
}

// The deadline is the guard's own time: events are published synchronously
// between and around guards, and a slow event sink (an audit log on a slow
// disk) must not time out fast guards -- before this was tested, one
// clock read per boundary charged the sink to the next guard.
TEST(Guards, ASlowEventSinkIsNotChargedToTheGuards) {
  HostOptions o;
  o.guard_deadline = std::chrono::milliseconds(30);
  Fixture f(o);
  f.host.add_guard("a", {"first"}, abstain());
  f.host.add_guard("b", {"second"}, abstain());
  f.host.subscribe([](const Event& e) {
    if (e.type == "hook/invoked" || e.type == "hook/result")
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  auto r = f.call("echo");
  EXPECT_FALSE(r.is_error) << (r.error ? r.error->message : "");
  EXPECT_EQ(*f.body_runs, 1);
}

// Static verdicts (Host::denied_always): which tools a caller can never get
// through, for offering tools -- never for deciding a call.
namespace {
HookOptions denying_always(std::string name, std::vector<std::string> tools = {}) {
  HookOptions o(std::move(name), std::move(tools));
  o.denies_always = [](const CallIdentity& who) -> std::optional<std::string> {
    if (who.client == "mcp") return "not over MCP";
    return std::nullopt;
  };
  return o;
}
CallIdentity asking(std::string tool, std::string client) {
  CallIdentity who;
  who.tool = std::move(tool);
  who.client = std::move(client);
  return who;
}
}  // namespace

TEST(Guards, AStaticVerdictNamesTheHookAndHonoursItsToolFilter) {
  Fixture f;
  f.host.add_guard("sec", denying_always("mcp-off", {"fs.*"}), abstain());
  auto why = f.host.denied_always(asking("fs.write", "mcp"));
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "\"sec/mcp-off\" denies every call of fs.write: not over MCP");
  EXPECT_FALSE(f.host.denied_always(asking("echo", "mcp")));      // filter
  EXPECT_FALSE(f.host.denied_always(asking("fs.write", "cli")));  // caller
}

TEST(Guards, PreExecuteHooksHaveStaticVerdictsToo) {
  Fixture f;
  f.host.add_pre_execute("pol", denying_always("rules"),
                         [](const HookCall&) { return PreVerdict::deny("no"); });
  EXPECT_TRUE(f.host.denied_always(asking("echo", "mcp")));
}

TEST(Guards, AShadowGuardNeverCountsAsDenyingAlways) {
  Fixture f;
  auto o = denying_always("watch");
  o.shadow = true;
  f.host.add_guard("sec", std::move(o), deny_with("would deny"));
  EXPECT_FALSE(f.host.denied_always(asking("echo", "mcp")));
}

TEST(Guards, AThrowingStaticVerdictLeavesTheToolOfferedAndCallsChecked) {
  Fixture f;
  HookOptions o("flaky");
  o.denies_always = [](const CallIdentity&) -> std::optional<std::string> {
    throw std::runtime_error("boom");
  };
  f.host.add_guard("sec", std::move(o), deny_with("denied at call time"));
  EXPECT_FALSE(f.host.denied_always(asking("echo", "mcp")));
  EXPECT_EQ(code_of(f.call("echo")), "denied");  // the call still runs the guard
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(Guards, OnlyPreExecuteHooksAndGuardsTakeAStaticVerdict) {
  Fixture f;
  EXPECT_THROW(f.host.add_post_execute("x", denying_always("post"),
                                       [](const HookCall&) { return PostVerdict{}; }),
               std::invalid_argument);
}
