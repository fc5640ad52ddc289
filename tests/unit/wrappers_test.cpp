// Stage 3, execute wrappers (docs/design.md §2.5): the onion, next 0..n
// times, signal swap, no fabricated results; and the tool body (§2.6).
#include "test_support.hpp"

#include "sample_tools.hpp"

using namespace tgtest;

TEST(Wrappers, FirstRegisteredIsOutermost) {
  Fixture f;
  std::vector<std::string> trace;
  auto wrap = [&](std::string n) {
    return [&trace, n](const HookCall&, const std::shared_ptr<Signal>& s,
                       Next& next) -> const ExecResult& {
      trace.push_back(n + ">");
      const ExecResult& r = next(s);
      trace.push_back("<" + n);
      return r;
    };
  };
  f.host.add_execute_wrapper("w", {"outer"}, wrap("outer"));
  f.host.add_execute_wrapper("w", {"inner"}, wrap("inner"));
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(trace, (std::vector<std::string>{"outer>", "inner>", "<inner", "<outer"}));
}

TEST(Wrappers, RetryCallsNextAgainAndSeesToolErrors) {
  Fixture f;
  std::vector<bool> seen_errors;
  f.host.add_execute_wrapper(
      "w", {"retry"},
      [&](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        const ExecResult* r = &next(s);
        seen_errors.push_back(r->is_error);
        if (r->is_error) r = &next(s);
        return *r;
      });
  auto r = f.call("echo", {{"fail", true}});
  EXPECT_EQ(*f.body_runs, 2);
  EXPECT_EQ(seen_errors, std::vector<bool>{true});
  EXPECT_EQ(code_of(r), "tool_error");  // the body failed both times
  EXPECT_EQ(r.error->stage, "tool/body");
  EXPECT_EQ(r.error->source, "echo");
}

TEST(Wrappers, NotCallingNextMeansFailing) {
  Fixture f;
  f.host.add_execute_wrapper(
      "w", {"breaker"},
      [](const HookCall&, const std::shared_ptr<Signal>&, Next&) -> const ExecResult& {
        throw std::runtime_error("circuit open");
      });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->stage, "tools/execute");
  EXPECT_EQ(r.error->source, "w/breaker");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(Wrappers, AFabricatedResultIsRejected) {
  Fixture f;
  f.host.add_execute_wrapper(
      "w", {"liar"},
      [](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        next(s);
        static ExecResult fake{false, json::string("all good"), {}, "", "", "", ""};
        return fake;
      });
  auto r = f.call("echo", {{"fail", true}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_NE(r.error->message.find("did not get from next"), std::string::npos);
}

TEST(Wrappers, AnOuterWrapperCannotLaunderAnInnerWrapperFailure) {
  Fixture f;
  f.host.add_execute_wrapper(
      "w", {"retry-forever"},
      [](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        const ExecResult* r = &next(s);
        for (int i = 0; i < 3 && r->is_error; ++i) r = &next(s);
        return *r;
      });
  int inner_calls = 0;
  f.host.add_execute_wrapper(
      "w", {"flaky"},
      [&](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        if (inner_calls++ == 0) throw std::runtime_error("flaky wrapper bug");
        return next(s);
      });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->source, "w/flaky");
}

TEST(Wrappers, AChildSignalWithADeadlineTimesTheSlowToolOut) {
  Fixture f;
  f.host.register_tool(toolgate::samples::slow_tool());
  f.host.add_execute_wrapper(
      "w", {"timeout"},
      [](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        return next(s->child(std::chrono::milliseconds(20)));
      });
  auto r = f.call("slow", {{"ms", 5000}});
  EXPECT_EQ(code_of(r), "timeout");
}

TEST(Wrappers, CancellingTheCallersSignalCancelsTheTool) {
  Fixture f;
  f.host.register_tool(toolgate::samples::slow_tool());
  ToolCall c;
  c.identity.tool = "slow";
  c.arguments = json::object{{"ms", 5000}};
  c.signal = Signal::make();
  auto sig = c.signal;
  std::thread canceller([sig] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sig->cancel();
  });
  auto r = f.host.call(std::move(c));
  canceller.join();
  EXPECT_EQ(code_of(r), "cancelled");
}

TEST(Wrappers, WrappersCannotChangeTheArguments) {
  Fixture f;
  f.host.add_execute_wrapper(
      "w", {"peek"},
      [](const HookCall& c, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        static_assert(std::is_const_v<std::remove_reference_t<decltype(c.arguments)>>);
        return next(s);
      });
  auto r = f.call("echo", {{"k", "v"}});
  EXPECT_EQ(*r.value, (json::object{{"k", "v"}}));
}

TEST(ToolBody, AThrowingToolIsAToolErrorThatTravelsThroughPostExecute) {
  Host host;
  ToolDefinition t;
  t.name = "explode";
  t.execute = [](const ToolContext&) -> ToolOutput { throw std::runtime_error("disk on fire"); };
  host.register_tool(t);
  bool post_saw_it = false;
  host.add_post_execute("p", {"see"}, [&](const HookCall& c) {
    post_saw_it = !c.denied && c.candidate()->at("isError").as_bool();
    return PostVerdict::accept();
  });
  ToolCall c;
  c.identity.tool = "explode";
  auto r = host.call(std::move(c));
  EXPECT_EQ(code_of(r), "tool_error");
  EXPECT_NE(r.error->message.find("disk on fire"), std::string::npos);
  EXPECT_TRUE(post_saw_it);
}

TEST(ToolBody, CustomRenderAndARenderThatThrows) {
  Host host;
  ToolDefinition t;
  t.name = "r";
  t.execute = [](const ToolContext&) { return ToolOutput::success(42); };
  t.render = [](const json::value& v) {
    return json::array{text_block("the answer is " + json::serialize(v))};
  };
  host.register_tool(t);
  ToolCall c;
  c.identity.tool = "r";
  auto r = host.call(c);
  EXPECT_EQ(r.content.at(0).at("text"), "the answer is 42");

  Host host2;
  t.render = [](const json::value&) -> json::array { throw std::runtime_error("bad template"); };
  host2.register_tool(t);
  auto r2 = host2.call(c);
  EXPECT_TRUE(r2.is_error);
  EXPECT_EQ(r2.error->stage, "render");
}

TEST(ToolBody, ContentFromTheToolSkipsRenderAndNullValueMeansNone) {
  Host host;
  ToolDefinition t;
  t.name = "mcp-like";
  t.execute = [](const ToolContext&) {
    return ToolOutput::success(nullptr, json::array{text_block("from the server")});
  };
  t.render = [](const json::value&) -> json::array { throw std::runtime_error("must not run"); };
  host.register_tool(t);
  ToolCall c;
  c.identity.tool = "mcp-like";
  auto r = host.call(c);
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(r.content.at(0).at("text"), "from the server");
  EXPECT_FALSE(r.value.has_value());
}
