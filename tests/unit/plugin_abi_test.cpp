// Plugins through the C ABI: every stage's failure modes arrive through the
// adapters and fail closed exactly like C++ hooks do.
#include "test_support.hpp"

#include <toolgate/json.hpp>

#include "sample_tools.hpp"

#include <toolgate/toolgate.h>

using namespace tgtest;

namespace {

struct PluginFixture : Fixture {
  TempDir dir;
  void load(const std::string& id, const std::string& path, const json::object& config = {}) {
    host.load_manifest(dir.write(id + ".json", manifest_for(id, path, config)));
  }
  void testkit(const json::object& config) { load("test.kit", test_plugin("testkit"), config); }
  void c_status(const json::object& config) {
    load("test.c-status", test_plugin("c_status"), config);
  }
};

}  // namespace

TEST(PluginAbi, ASampleCGuardDeniesThroughTheJsonPointerAccessor) {
  PluginFixture f;
  f.host.register_tool(toolgate::samples::greeting_tool());
  f.load("sample.no-world", sample_plugin("sample_no_world"));
  EXPECT_FALSE(f.call("greet", {{"name", "Ada"}}).is_error);
  auto r = f.call("greet", {{"name", "World"}});
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->source, "sample.no-world/no-world");
  // The guard's tool filter is "greet": it is not even called for echo.
  EXPECT_FALSE(f.call("echo", {{"name", "World"}}).is_error);
}

TEST(PluginAbi, PreExecuteVerdictsAndRewrites) {
  {
    PluginFixture f;
    f.testkit({{"pre", "deny"}});
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "denied");
    EXPECT_EQ(r.error->message, "testkit denies");
    EXPECT_EQ(r.error->source, "test.kit/pre");
    EXPECT_EQ(*f.body_runs, 0);
  }
  {
    PluginFixture f;
    f.testkit({{"pre", "ask"}});
    EXPECT_EQ(code_of(f.call("echo")), "approval_unavailable");
    EXPECT_EQ(*f.body_runs, 0);
  }
  {
    PluginFixture f;
    f.testkit({{"pre", "rewrite"}});
    auto r = f.call("echo", {{"a", 1}});
    EXPECT_EQ(*r.value, (json::object{{"a", 1}, {"rewritten", true}}));
  }
}

TEST(PluginAbi, EveryKindOfPreExecuteFailureIsAPluginError) {
  for (const char* mode : {"throw", "bad-verdict", "bad-json"}) {
    PluginFixture f;
    f.testkit({{"pre", mode}});
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "plugin_error") << mode;
    EXPECT_EQ(r.error->stage, "tools/pre-execute") << mode;
    EXPECT_EQ(r.error->source, "test.kit/pre") << mode;
    EXPECT_EQ(*f.body_runs, 0) << mode;
    if (std::string(mode) == "bad-verdict") {  // in words: what it answered, what it may
      EXPECT_EQ(r.error->message,
                "pre-execute hook test.kit/pre failed: answered an unknown verdict 42 (the valid "
                "ones are TG_PRE_KEEP (0), TG_PRE_ALLOW (1), TG_PRE_ASK (2), TG_PRE_DENY (3))");
    }
  }
  PluginFixture f;
  f.c_status({{"fail", "pre"}});
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_NE(r.error->message.find("c_status was told to fail here"), std::string::npos);
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(PluginAbi, AGuardThatFailsInAnyWayNeverLetsTheCallThrough) {
  for (const char* mode : {"throw", "bad-verdict"}) {
    PluginFixture f;
    f.testkit({{"guard", mode}});
    auto r = f.call("echo");
    EXPECT_TRUE(r.is_error) << mode;
    EXPECT_EQ(code_of(r), "plugin_error") << mode;
    EXPECT_EQ(r.error->stage, "guard");
    EXPECT_EQ(*f.body_runs, 0) << mode;
    if (std::string(mode) == "bad-verdict") {
      EXPECT_NE(r.error->message.find("answered an unknown verdict 7 (the valid ones are "
                                      "TG_GUARD_ABSTAIN (0), TG_GUARD_DENY (1))"),
                std::string::npos)
          << r.error->message;
    }
  }
  // An error status wins over the ABSTAIN the C guard also wrote.
  PluginFixture f;
  f.c_status({{"fail", "guard"}});
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->source, "test.c-status/guard");
  EXPECT_EQ(*f.body_runs, 0);
}

// Guards and wrappers get read-only views (docs/design.md §7.8): every
// mutating host function is refused by stage even when a C plugin casts the
// const away.
TEST(PluginAbi, GuardsAndWrappersCannotMutateTheCall) {
  PluginFixture f;
  f.c_status({{"fail", "mutate"}});
  auto r = f.call("c_tool", {{"who", "alice"}});
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  ASSERT_TRUE(r.value);
  EXPECT_EQ(*r.value, "c_tool saw alice");  // the arguments as sent
  EXPECT_EQ(r.content.at(0).at("text"), "rendered by c_tool");
}

TEST(PluginAbi, GuardDenyFromAPlugin) {
  PluginFixture f;
  f.testkit({{"guard", "deny"}});
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->message, "testkit guard denies");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(PluginAbi, WrapperModes) {
  {
    PluginFixture f;
    f.testkit({{"wrapper", "retry"}});
    auto r = f.call("echo", {{"fail", true}});
    EXPECT_EQ(*f.body_runs, 2);
    EXPECT_EQ(code_of(r), "tool_error");
  }
  for (const char* mode : {"throw", "skip", "fabricate"}) {
    PluginFixture f;
    f.testkit({{"wrapper", mode}});
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "plugin_error") << mode;
    EXPECT_EQ(r.error->stage, "tools/execute") << mode;
  }
  PluginFixture f;
  f.c_status({{"fail", "wrapper"}});
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(PluginAbi, TheSampleTimeoutWrapperEndsTheSlowToolAsTimeout) {
  PluginFixture f;
  f.host.register_tool(toolgate::samples::slow_tool());
  f.load("sample.timeout", sample_plugin("sample_timeout_wrapper"), {{"timeout_ms", 20}});
  EXPECT_EQ(code_of(f.call("slow", {{"ms", 5000}})), "timeout");
  EXPECT_FALSE(f.call("slow", {{"ms", 1}}).is_error);
}

TEST(PluginAbi, PostExecuteModes) {
  {
    PluginFixture f;
    f.testkit({{"post", "replace"}});
    auto r = f.call("echo");
    EXPECT_FALSE(r.is_error);
    EXPECT_EQ(r.content.at(0).at("text"), "replaced");
  }
  {
    PluginFixture f;
    f.testkit({{"post", "block"}});
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "denied");
    EXPECT_EQ(r.error->message, "testkit blocks");
  }
  {
    PluginFixture f;
    f.testkit({{"post", "replace"}, {"guard", "deny"}});
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "denied");  // a denial stays a denial
    EXPECT_EQ(r.content.at(0).at("text"), "replaced");
  }
  for (const char* mode : {"throw", "bad-verdict", "bad-json"}) {
    PluginFixture f;
    f.testkit({{"post", mode}});
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "plugin_error") << mode;
    EXPECT_EQ(r.error->stage, "tools/post-execute") << mode;
    if (std::string(mode) == "bad-verdict") {
      EXPECT_NE(
          r.error->message.find("answered an unknown verdict 9 (the valid ones are "
                                "TG_POST_ACCEPT (0), TG_POST_REPLACE (1), TG_POST_BLOCK (2))"),
          std::string::npos)
          << r.error->message;
    }
  }
  PluginFixture f;
  f.c_status({{"fail", "post"}});
  EXPECT_EQ(code_of(f.call("echo")), "plugin_error");
}

TEST(PluginAbi, ObserverFailuresChangeNothing) {
  PluginFixture f;
  f.testkit({{"observer", "throw"}});
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(f.recorder->of_type("observer/failed").size(), 1u);
}

TEST(PluginAbi, TheSampleCounterObserverEmitsItsOwnEvents) {
  PluginFixture f;
  f.load("sample.counter", sample_plugin("sample_counter"));
  for (int i = 0; i < 3; ++i) f.call("echo");
  auto counted = f.recorder->of_type("sample/counted");
  ASSERT_EQ(counted.size(), 3u);
  EXPECT_EQ(counted[2].data.at("count"), 3);
  EXPECT_EQ(counted[2].data.at("plugin"), "sample.counter");
}

TEST(PluginAbi, ToolsFromACPluginWithRenderAndFinalize) {
  {
    PluginFixture f;
    f.c_status({});
    auto r = f.call("c_tool", {{"who", "Ada"}});
    ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
    EXPECT_EQ(*r.value, "c_tool saw Ada");
    EXPECT_EQ(r.content.at(0).at("text"), "rendered by c_tool");
  }
  {
    PluginFixture f;
    f.c_status({{"finalize", "ok"}});
    EXPECT_EQ(f.call("c_tool").content.at(0).at("text"), "finalized");
  }
  {
    PluginFixture f;
    f.c_status({{"finalize", "fail"}});
    auto r = f.call("c_tool");
    EXPECT_TRUE(r.is_error);
    EXPECT_EQ(r.error->stage, "finalizeContent");
  }
  const std::pair<const char*, const char*> outcomes[] = {{"bad-json", "snapshot_failed"},
                                                          {"no-value", "snapshot_failed"},
                                                          {"error", "tool_error"},
                                                          {"timeout", "timeout"}};
  for (const auto& [mode, code] : outcomes) {
    PluginFixture f;
    f.c_status({{"tool", mode}});
    EXPECT_EQ(code_of(f.call("c_tool")), code) << mode;
  }
}

TEST(PluginAbi, PluginsCannotForgeHostEvents) {
  PluginFixture f;
  f.testkit({{"observer", "forge"}});
  f.call("echo");
  auto status = f.recorder->of_type("testkit/forge-status");
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].data.at("status"), TG_INVALID_ARGUMENT);
  EXPECT_EQ(f.recorder->of_type("tool/result").size(), 1u);
}

// The same rule on the C++ path: a tool body or an embedder's hook that
// emits a host event type fails, and the log keeps one tool/result per call.
TEST(PluginAbi, CxxToolsAndHooksCannotForgeHostEventsEither) {
  Host host;
  auto recorder = std::make_shared<Recorder>();
  host.subscribe([recorder](const Event& e) { (*recorder)(e); });
  ToolDefinition t;
  t.name = "forger";
  t.execute = [](const ToolContext& ctx) {
    ctx.call.emit("todo/write", {{"items", 1}});  // a tool's own type: fine
    ctx.call.emit("tool/result", {{"forged", true}});
    return ToolOutput::success("never reached");
  };
  host.register_tool(t);
  ToolCall c;
  c.identity.tool = "forger";
  auto r = host.call(std::move(c));
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("reserved for the host"), std::string::npos) << r.error->message;
  EXPECT_EQ(recorder->of_type("tool/result").size(), 1u);
  EXPECT_EQ(recorder->of_type("todo/write").size(), 1u);

  host.add_post_execute("embedder", {"forge"}, [](const HookCall& call) {
    call.emit("hook/result", {{"forged", true}});
    return PostVerdict::accept();
  });
  ToolDefinition plain;
  plain.name = "plain";
  plain.execute = [](const ToolContext&) { return ToolOutput::success(1); };
  host.register_tool(plain);
  ToolCall p;
  p.identity.tool = "plain";
  auto hooked = host.call(std::move(p));
  EXPECT_EQ(code_of(hooked), "plugin_error");
  EXPECT_EQ(hooked.error->source, "embedder/forge");
  for (const auto& e : recorder->of_type("hook/result")) EXPECT_FALSE(e.data.contains("forged"));
}

namespace {

ToolCall asked_by(std::string tool, std::string client, std::string agent_id) {
  ToolCall c;
  c.identity.tool = std::move(tool);
  c.identity.session_id = "s1";
  c.identity.client = std::move(client);
  c.identity.agent_id = std::move(agent_id);
  c.arguments = json::object{};
  return c;
}

}  // namespace

// ABI 1.3: call_info carries who asks -- the entry point's client and
// agent_id -- to a C plugin, through whole calls and split-phase calls.
TEST(PluginAbi, ACPluginSeesTheCallsClientAndAgentId) {
  PluginFixture f;
  f.c_status({{"guard", "who"}});
  auto r = f.host.call(asked_by("echo", "claude-code", "sub-7"));
  ASSERT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->message, "client=claude-code agent=sub-7");
  // Unknown caller, main agent: both empty.
  r = f.call("echo");
  ASSERT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->message, "client= agent=");
  EXPECT_EQ(*f.body_runs, 0);

  auto b = f.host.begin_call(asked_by("Bash", "codex", "reviewer"));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::deny);
  EXPECT_EQ(b.reason, "client=codex agent=reviewer");
  b = f.host.begin_call(asked_by("Bash", "mcp", ""));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::deny);
  EXPECT_EQ(b.reason, "client=mcp agent=");
}

// Static verdicts (ABI 1.6, toolgate.h 5.2b) from a plain C plugin: the
// verdict function gets the hook's user_data and the caller; misuse of
// set_tool_verdict fails init with the host's explanation; a verdict that
// fails or answers nonsense leaves the tool offered.
TEST(PluginAbi, ACPluginsStaticVerdictComesThroughSetToolVerdict) {
  PluginFixture f;
  f.c_status({{"verdict", "guard"}});
  CallIdentity who;
  who.tool = "c_tool";
  who.client = "mcp";
  auto why = f.host.denied_always(who);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "\"test.c-status/guard\" denies every call of c_tool");
  who.client = "codex";
  EXPECT_FALSE(f.host.denied_always(who));
  who.client = "mcp";
  who.tool = "echo";
  EXPECT_FALSE(f.host.denied_always(who));
}

TEST(PluginAbi, AFailingOrUnknownStaticVerdictLeavesTheToolOffered) {
  for (const char* mode : {"fail", "bad"}) {
    PluginFixture f;
    f.c_status({{"verdict", mode}});
    CallIdentity who;
    who.tool = "c_tool";
    who.client = "mcp";
    EXPECT_FALSE(f.host.denied_always(who)) << mode;
  }
}

TEST(PluginAbi, SetToolVerdictRefusesMisuseAndSaysWhy) {
  struct Case {
    const char* mode;
    const char* says;
  };
  for (const auto& c : {Case{"wrapper", "only pre-execute hooks and guards have a static verdict"},
                        Case{"unknown", "no hook named \"nope\" is registered yet"},
                        Case{"twice", "hook \"guard\" already has a static verdict"}}) {
    PluginFixture f;
    try {
      f.c_status({{"verdict", c.mode}});
      ADD_FAILURE() << c.mode << " loaded";
    } catch (const LoadError& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
}

// A plugin built against ABI 1.2 passes the shorter tg_call_info (it ends
// at `attempt`): it still loads, call_info still answers it, and the host
// writes nothing past its struct_size.
TEST(PluginAbi, APluginBuiltForAbi12ReadsItsShorterCallInfo) {
  PluginFixture f;
  f.load("test.variant", test_plugin("variant_abi_1_2"));
  auto r = f.host.call(asked_by("echo", "claude-code", "sub-7"));
  ASSERT_EQ(code_of(r), "denied") << json::serialize(r.to_json());
  EXPECT_EQ(r.error->message, "call_info 1.2: echo, tail untouched");
  auto b = f.host.begin_call(asked_by("Bash", "codex", "reviewer"));
  EXPECT_EQ(b.verdict, SplitBegin::Verdict::deny);
  EXPECT_EQ(b.reason, "call_info 1.2: Bash, tail untouched");
}

// ---- UI cards (hooks.hpp: PresentCallFn / PresentResultFn; ABI 1.4) -----------------------

TEST(Cards, APendingCardAfterToolCallAndACompletedOneAfterToolResultNeverInTheResult) {
  Host host;
  auto recorder = std::make_shared<Recorder>();
  host.subscribe([recorder](const Event& e) { (*recorder)(e); });
  std::vector<std::string> sunk;
  host.set_card_sink([&](const Card& c) {
    sunk.push_back(std::string(c.phase) + ":" +
                   std::string(c.content.at(0).at("text").as_string()) + ":" + c.identity.tool);
  });
  ToolDefinition t;
  t.name = "cards";
  t.execute = [](const ToolContext&) { return ToolOutput::success("body ran"); };
  t.present_call = [](const json::object& args) {
    return json::array{text_block("about to greet " + std::string(args.at("who").as_string()))};
  };
  t.present_result = [](const json::object& args, const ToolResult& r) {
    return json::array{text_block(std::string(r.is_error ? "failed " : "greeted ") +
                                  std::string(args.at("who").as_string()))};
  };
  host.register_tool(t);
  host.add_pre_execute("embedder", {"rename"}, [](const HookCall&) {
    return PreVerdict::keep().with_arguments(json::object{{"who", "Grace"}});
  });
  ToolCall c;
  c.identity.tool = "cards";
  c.arguments = json::object{{"who", "Ada"}};
  auto r = host.call(std::move(c));
  ASSERT_FALSE(r.is_error);
  EXPECT_EQ(to_json_text(json::value(r.content)).find("greet"),
            std::string::npos);  // not the model's
  // The pending card sees the arguments as sent, the completed one the final ones.
  EXPECT_EQ(sunk, (std::vector<std::string>{"call:about to greet Ada:cards",
                                            "result:greeted Grace:cards"}));
  std::vector<std::string> order;
  for (const auto& e : recorder->snapshot())
    if (e.type == "tool/call" || e.type == "tool/result" || e.type == "tool/card")
      order.push_back(e.type == "tool/card" ? "card:" + std::string(e.data.at("phase").as_string())
                                            : e.type);
  EXPECT_EQ(order,
            (std::vector<std::string>{"tool/call", "card:call", "tool/result", "card:result"}));
}

TEST(Cards, AFailingCardChangesNothingButIsReported) {
  Host host;
  auto recorder = std::make_shared<Recorder>();
  host.subscribe([recorder](const Event& e) { (*recorder)(e); });
  int sunk = 0;
  host.set_card_sink([&](const Card&) { ++sunk; });
  ToolDefinition t;
  t.name = "cards";
  t.execute = [](const ToolContext&) { return ToolOutput::success("body ran"); };
  t.present_call = [](const json::object&) -> json::array { throw std::runtime_error("boom"); };
  t.present_result = [](const json::object&, const ToolResult&) {
    return json::array{json::object{{"type", "hologram"}}};
  };
  host.register_tool(t);
  ToolCall c;
  c.identity.tool = "cards";
  auto r = host.call(std::move(c));
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(r.value, json::value("body ran"));
  EXPECT_EQ(sunk, 0);
  auto cards = recorder->of_type("tool/card");
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_NE(std::string(cards[0].data.at("error").as_string()).find("boom"), std::string::npos);
  EXPECT_NE(std::string(cards[1].data.at("error").as_string()).find("unknown content block type"),
            std::string::npos);
  EXPECT_EQ(recorder->of_type("tool/result").size(), 1u);
}

TEST(Cards, ACToolsCardsComeThroughTheAbi) {
  PluginFixture f;
  std::vector<std::string> sunk;
  f.host.set_card_sink([&](const Card& c) {
    sunk.push_back(std::string(c.phase) + ":" +
                   std::string(c.content.at(0).at("text").as_string()));
  });
  f.c_status({{"card", "ok"}});
  auto r = f.call("c_tool", {{"who", "Ada"}});
  ASSERT_FALSE(r.is_error) << to_json_text(r.to_json());
  ASSERT_EQ(sunk.size(), 2u);
  EXPECT_EQ(sunk[0], R"(call:pending c_tool {"who":"Ada"})");
  EXPECT_TRUE(sunk[1].starts_with("result:done {")) << sunk[1];
  EXPECT_NE(sunk[1].find("c_tool saw Ada"), std::string::npos) << sunk[1];

  PluginFixture failing;
  int n = 0;
  failing.host.set_card_sink([&](const Card&) { ++n; });
  failing.c_status({{"card", "fail"}});
  EXPECT_FALSE(failing.call("c_tool", {{"who", "Ada"}}).is_error);  // the call is untouched
  EXPECT_EQ(n, 1);                                                  // only the completed card
}
