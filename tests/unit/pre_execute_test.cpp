// Stage 1, pre-execute (docs/design.md §2.2), and the default path.
#include "test_support.hpp"

using namespace tgtest;

TEST(DefaultPath, NothingRegisteredRunsTheToolAndRendersText) {
  Host host;
  ToolDefinition t;
  t.name = "greet";
  t.execute = [](const ToolContext& c) {
    return ToolOutput::success(
        json::string("Hello, " + std::string(c.call.arguments.at("name").as_string()) + "!"));
  };
  host.register_tool(t);
  ToolCall c;
  c.identity.tool = "greet";
  c.arguments = json::object{{"name", "World"}};
  auto r = host.call(std::move(c));
  EXPECT_EQ(
      json::serialize(r.to_json()),
      R"({"isError":false,"content":[{"type":"text","text":"Hello, World!"}],"value":"Hello, World!"})");
}

TEST(DefaultPath, NonStringValueRendersAsJsonText) {
  Fixture f;
  auto r = f.call("echo", {{"a", 1}});
  ASSERT_FALSE(r.is_error);
  EXPECT_EQ(r.content.at(0).at("text"), R"({"a":1})");
  EXPECT_EQ(*r.value, (json::object{{"a", 1}}));
}

TEST(PreExecute, KeepAndAllowLetTheCallRun) {
  Fixture f;
  f.host.add_pre_execute("t", {"keep"}, [](const HookCall&) { return PreVerdict::keep(); });
  f.host.add_pre_execute("t", {"allow"}, [](const HookCall&) { return PreVerdict::allow(); });
  auto r = f.call("echo");
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(PreExecute, DenyIsTerminalAndTheBodyNeverRuns) {
  Fixture f;
  int later = 0;
  f.host.add_pre_execute("t", {"deny"}, [](const HookCall&) { return PreVerdict::deny("no"); });
  f.host.add_pre_execute("t", {"later"}, [&](const HookCall&) {
    ++later;
    return PreVerdict::allow();
  });
  auto r = f.call("echo");
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->stage, "tools/pre-execute");
  EXPECT_EQ(r.error->source, "t/deny");
  EXPECT_EQ(r.error->message, "no");
  EXPECT_EQ(later, 0);
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(PreExecute, LaterAllowTurnsAnEarlierAskIntoAllow) {
  Fixture f;
  f.host.add_pre_execute("t", {"ask"}, [](const HookCall&) { return PreVerdict::ask("sure?"); });
  f.host.add_pre_execute("t", {"auto-approve"}, [](const HookCall& c) {
    EXPECT_EQ(c.decision, Decision::ask);
    return PreVerdict::allow();
  });
  auto r = f.call("echo");
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(PreExecute, AskWithoutApproverIsUnavailableAndDenies) {
  Fixture f;
  f.host.add_pre_execute("t", {"ask"}, [](const HookCall&) {
    return PreVerdict::ask("dangerous operation, needs human confirmation");
  });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "approval_unavailable");
  EXPECT_NE(r.error->message.find("dangerous operation"), std::string::npos);
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(PreExecute, RewritesApplyInOrderAndAreAttributed) {
  Fixture f;
  f.host.add_pre_execute("t", {"a", {}, 10}, [](const HookCall& c) {
    auto args = c.arguments;
    args["x"] = "from-a";
    return PreVerdict::keep().with_arguments(args);
  });
  f.host.add_pre_execute("t", {"b", {}, 5}, [](const HookCall& c) {
    EXPECT_EQ(c.arguments.at("x"), "from-a");  // a ran first (priority)
    EXPECT_EQ(c.original_arguments.at("x"), "orig");
    auto args = c.arguments;
    args["y"] = 2;
    return PreVerdict::allow().with_arguments(args);
  });
  auto r = f.call("echo", {{"x", "orig"}});
  ASSERT_FALSE(r.is_error);
  EXPECT_EQ(*r.value, (json::object{{"x", "from-a"}, {"y", 2}}));
  auto results = f.recorder->of_type("hook/result");
  int attributed = 0;
  for (const auto& e : results)
    if (e.data.contains("arguments_after")) {
      ++attributed;
      if (e.data.at("source") == "t/a") {
        EXPECT_EQ(e.data.at("arguments_before"), (json::object{{"x", "orig"}}));
        EXPECT_EQ(e.data.at("arguments_after"), (json::object{{"x", "from-a"}}));
      }
    }
  EXPECT_EQ(attributed, 2);
}

TEST(PreExecute, HigherPriorityRunsFirstThenRegistrationOrder) {
  Fixture f;
  std::vector<std::string> order;
  auto hook = [&](std::string n) {
    return [&order, n](const HookCall&) {
      order.push_back(n);
      return PreVerdict::keep();
    };
  };
  f.host.add_pre_execute("t", {"low", {}, 0}, hook("low"));
  f.host.add_pre_execute("t", {"high", {}, 5}, hook("high"));
  f.host.add_pre_execute("t", {"low2", {}, 0}, hook("low2"));
  f.call("echo");
  EXPECT_EQ(order, (std::vector<std::string>{"high", "low", "low2"}));
}

TEST(PreExecute, AThrowingHookEndsTheCallAsPluginErrorAndSkipsEverything) {
  Fixture f;
  int guards = 0, post = 0;
  f.host.add_pre_execute("t", {"boom"},
                         [](const HookCall&) -> PreVerdict { throw std::runtime_error("kaput"); });
  f.host.add_guard("g", {"count"}, [&](const HookCall&) -> std::optional<std::string> {
    ++guards;
    return std::nullopt;
  });
  f.host.add_post_execute("t", {"post"}, [&](const HookCall&) {
    ++post;
    return PostVerdict::accept();
  });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->stage, "tools/pre-execute");
  EXPECT_EQ(r.error->source, "t/boom");
  EXPECT_NE(r.error->message.find("kaput"), std::string::npos);
  EXPECT_EQ(*f.body_runs, 0);
  EXPECT_EQ(guards, 0);
  EXPECT_EQ(post, 0);  // a throw goes straight to normalization
}

TEST(PreExecute, AnUnknownVerdictFailsClosed) {
  Fixture f;
  f.host.add_pre_execute("t", {"weird"}, [](const HookCall&) {
    PreVerdict v;
    v.kind = static_cast<PreVerdict::Kind>(77);
    return v;
  });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(*f.body_runs, 0);
  EXPECT_EQ(r.error->message,
            "pre-execute hook t/weird failed: gave an unknown verdict 77 (a pre-execute hook "
            "answers keep, allow, ask or deny)");
}

TEST(PreExecute, ToolFilterMeansTheHookIsNeverCalledForOtherTools) {
  Fixture f;
  int calls = 0;
  f.host.register_tool([] {
    ToolDefinition t;
    t.name = "fs.read";
    t.execute = [](const ToolContext&) { return ToolOutput::success(1); };
    return t;
  }());
  f.host.add_pre_execute("t", {"fs-only", {"fs.*"}}, [&](const HookCall&) {
    ++calls;
    return PreVerdict::deny("fs is off");
  });
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(code_of(f.call("fs.read")), "denied");
  EXPECT_EQ(calls, 1);
}

TEST(Identity, NoStageCanChangeTheIdentity) {
  Fixture f;
  f.host.add_pre_execute("t", {"rewrite"}, [](const HookCall& c) {
    json::object a = c.arguments;
    a["tool"] = "other";  // only the arguments change, never the identity
    return PreVerdict::keep().with_arguments(a);
  });
  CallIdentity seen;
  f.host.add_result_observer("o", {"see"}, [&](const Outcome& o) { seen = o.identity; });
  ToolCall c;
  c.identity = {"call-1", "echo", "s-1", "parent-9"};
  f.host.call(std::move(c));
  EXPECT_EQ(seen.call_id, "call-1");
  EXPECT_EQ(seen.tool, "echo");
  EXPECT_EQ(seen.session_id, "s-1");
  EXPECT_EQ(seen.parent_token, "parent-9");
  for (const auto& e : f.recorder->events) EXPECT_EQ(e.call_id, "call-1") << e.type;
}

TEST(Registration, DuplicateHookIdsAreRefused) {
  Fixture f;
  f.host.add_guard("sec", {"g"}, [](const HookCall&) { return std::nullopt; });
  EXPECT_THROW(f.host.add_guard("sec", {"g"}, [](const HookCall&) { return std::nullopt; }),
               std::invalid_argument);
  EXPECT_THROW(
      f.host.add_pre_execute("sec", {"g"}, [](const HookCall&) { return PreVerdict::keep(); }),
      std::invalid_argument);
}
