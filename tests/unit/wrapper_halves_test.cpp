// Execute wrappers in two halves (docs/design.md §2.5, toolgate.h 5.3b):
// around a body that answers later they hold no thread -- every before on
// the way in, every after where the answer arrives -- and in a chain with
// a one-function wrapper they run around its next().
#include "parked_tool.hpp"
#include "test_support.hpp"

#include <mutex>
#include <thread>

using namespace tgtest;

namespace {

// What the halves saw, in order: "before A", "after B error=0", ...
struct Log {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::vector<std::thread::id> after_threads;
  void add(std::string s) {
    std::lock_guard lock(mutex);
    lines.push_back(std::move(s));
  }
};

WrapperHalves logging(Log& log, const std::string& name) {
  WrapperHalves h;
  h.before = [&log, name](const HookCall&, const std::shared_ptr<Signal>&,
                          WrapperHalves::State& state) -> std::shared_ptr<Signal> {
    state = std::make_shared<std::string>("state of " + name);
    log.add("before " + name);
    return nullptr;
  };
  h.after = [&log, name](const HookCall&, const ExecResult& r, WrapperHalves::State& state) {
    log.add("after " + name + " error=" + std::to_string(r.is_error) + " " +
            *std::static_pointer_cast<std::string>(state));
    std::lock_guard lock(log.mutex);
    log.after_threads.push_back(std::this_thread::get_id());
  };
  return h;
}

// The C ABI's plugins, through a manifest.
struct PluginFixture : Fixture {
  TempDir dir;
  void load(const std::string& id, const std::string& plugin, const json::object& config = {}) {
    host.load_manifest(dir.write(id + ".json", manifest_for(id, test_plugin(plugin), config)));
  }
};

}  // namespace

TEST(WrapperHalves, AroundABodyThatAnswersLaterNoThreadWaits) {
  Fixture f;
  auto parked = register_later(f.host);
  Log log;
  f.host.add_execute_wrapper("a", {"outer"}, logging(log, "A"));
  f.host.add_execute_wrapper("b", {"inner"}, logging(log, "B"));
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(parked->size(), 1u);  // the body started ...
  EXPECT_EQ(out.size(), 0u);      // ... and nothing waits for it
  EXPECT_EQ(log.lines, (std::vector<std::string>{"before A", "before B"}));

  std::thread answering([&] { parked->take().complete(ToolOutput::success("done")); });
  const auto answering_id = answering.get_id();
  answering.join();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out.results[0].is_error);
  EXPECT_EQ(out.results[0].value, "done");
  EXPECT_EQ(log.lines,
            (std::vector<std::string>{"before A", "before B", "after B error=0 state of B",
                                      "after A error=0 state of A"}));
  EXPECT_EQ(log.after_threads, (std::vector<std::thread::id>{answering_id, answering_id}));
}

TEST(WrapperHalves, TheBodyGetsTheSignalBeforeReturnedAndItsDeadlineEndsTheCallAsTimeout) {
  Fixture f;
  auto parked = register_later(f.host);
  WrapperHalves deadline;
  deadline.before = [](const HookCall&, const std::shared_ptr<Signal>& s, WrapperHalves::State&) {
    return s->child(std::chrono::milliseconds(20));
  };
  f.host.add_execute_wrapper("t", {"deadline"}, deadline);
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(parked->size(), 1u);
  ASSERT_TRUE(parked->signals[0]->deadline().has_value());
  EXPECT_EQ(parked->signals[0]->wait_for(std::chrono::seconds(5)), SignalState::timed_out);
  // A body that gives up because its signal fired ends as timeout.
  parked->take().complete(ToolOutput::failure("gave up"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(code_of(out.results[0]), "timeout");
}

TEST(WrapperHalves, AFailingBeforeEndsTheCallBeforeTheBodyAndOuterAftersSeeTheFailure) {
  Fixture f;
  auto parked = register_later(f.host);
  Log log;
  f.host.add_execute_wrapper("a", {"outer"}, logging(log, "A"));
  WrapperHalves broken;
  broken.before = [](const HookCall&, const std::shared_ptr<Signal>&,
                     WrapperHalves::State&) -> std::shared_ptr<Signal> {
    throw std::runtime_error("circuit open");
  };
  broken.after = [&log](const HookCall&, const ExecResult&, WrapperHalves::State&) {
    log.add("after of the broken one");
  };
  f.host.add_execute_wrapper("b", {"inner"}, broken);
  Log inner_log;
  f.host.add_execute_wrapper("c", {"innermost"}, logging(inner_log, "C"));
  Outcomes out;
  f.host.call_async(later(), out.sink());
  EXPECT_EQ(parked->size(), 0u);  // the body never started
  ASSERT_EQ(out.size(), 1u);      // and the call ended at once
  EXPECT_EQ(code_of(out.results[0]), "plugin_error");
  EXPECT_EQ(out.results[0].error->source, "b/inner");
  EXPECT_NE(out.results[0].error->message.find("circuit open"), std::string::npos);
  EXPECT_EQ(log.lines, (std::vector<std::string>{"before A", "after A error=1 state of A"}));
  EXPECT_TRUE(inner_log.lines.empty());
}

TEST(WrapperHalves, AFailingAfterEndsTheCallAsPluginErrorThoughTheBodySucceeded) {
  Fixture f;
  auto parked = register_later(f.host);
  Log log;
  f.host.add_execute_wrapper("a", {"outer"}, logging(log, "A"));
  WrapperHalves broken;
  broken.before = [](const HookCall&, const std::shared_ptr<Signal>&,
                     WrapperHalves::State&) -> std::shared_ptr<Signal> { return nullptr; };
  broken.after = [](const HookCall&, const ExecResult&, WrapperHalves::State&) {
    throw std::runtime_error("could not record");
  };
  f.host.add_execute_wrapper("b", {"inner"}, broken);
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(parked->size(), 1u);
  parked->take().complete(ToolOutput::success("fine"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(code_of(out.results[0]), "plugin_error");
  EXPECT_EQ(out.results[0].error->source, "b/inner");
  // The outer level saw the inner level's failure, not the body's success.
  EXPECT_EQ(log.lines, (std::vector<std::string>{"before A", "after A error=1 state of A"}));
}

TEST(WrapperHalves, WithAOneFunctionWrapperInTheChainTheHalvesRunAroundNextAndTheCallWaits) {
  Fixture f;
  auto parked = register_later(f.host);
  Log log;
  f.host.add_execute_wrapper("a", {"halves"}, logging(log, "A"));
  f.host.add_execute_wrapper(
      "w", {"classic"},
      [&log](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        log.add("classic in");
        const ExecResult& r = next(s);
        log.add("classic out");
        return r;
      });
  std::thread answering = answer_when_parked(parked, ToolOutput::success("waited"));
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(out.size(), 1u);  // the one-function wrapper's next() waited
  answering.join();
  EXPECT_EQ(out.results[0].value, "waited");
  EXPECT_EQ(log.lines, (std::vector<std::string>{"before A", "classic in", "classic out",
                                                 "after A error=0 state of A"}));
}

TEST(WrapperHalves, HostCallRunsThemAroundASynchronousBody) {
  Fixture f;
  Log log;
  f.host.add_execute_wrapper("a", {"halves"}, logging(log, "A"));
  auto r = f.call("echo", {{"fail", true}});
  EXPECT_EQ(code_of(r), "tool_error");
  EXPECT_EQ(*f.body_runs, 1);
  EXPECT_EQ(log.lines, (std::vector<std::string>{"before A", "after A error=1 state of A"}));
}

TEST(WrapperHalves, AWrapperWhoseToolFilterDoesNotMatchIsLeftOut) {
  Fixture f;
  auto parked = register_later(f.host);
  Log log;
  HookOptions o{"elsewhere"};
  o.tools = {"echo"};
  f.host.add_execute_wrapper("a", o, logging(log, "A"));
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(parked->size(), 1u);
  parked->take().complete(ToolOutput::success("x"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out.results[0].is_error);
  EXPECT_TRUE(log.lines.empty());
}

// ---- through the C ABI -------------------------------------------------------------

TEST(WrapperHalves, ACPluginsHalvesGiveTheDeadlineAndGetTheirStateBack) {
  PluginFixture f;
  auto parked = register_later(f.host);
  f.load("test.c-halves", "c_halves", {{"mode", "deadline"}});
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(parked->size(), 1u);  // no thread waits for the body
  EXPECT_EQ(out.size(), 0u);
  ASSERT_TRUE(parked->signals[0]->deadline().has_value());
  EXPECT_EQ(parked->signals[0]->wait_for(std::chrono::seconds(5)), SignalState::timed_out);
  parked->take().complete(ToolOutput::failure("stopped"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(code_of(out.results[0]), "timeout");
  auto afters = f.recorder->of_type("halves/after");
  ASSERT_EQ(afters.size(), 1u);
  // (The host adds who emitted it.)
  EXPECT_EQ(afters[0].data.at("error"), true);
  EXPECT_EQ(afters[0].data.at("code"), "timeout");
  EXPECT_EQ(afters[0].data.at("state"), 42);
}

TEST(WrapperHalves, ACPluginWithOnlyABeforeLetsTheBodyAnswerLater) {
  PluginFixture f;
  auto parked = register_later(f.host);
  f.load("test.c-halves", "c_halves", {{"mode", "before-only"}});
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(parked->size(), 1u);
  EXPECT_EQ(out.size(), 0u);
  parked->take().complete(ToolOutput::success("ok"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out.results[0].is_error);
}

TEST(WrapperHalves, ACPluginsMisusesFailClosed) {
  struct Case {
    const char* mode;
    bool body_runs;
    const char* message;
  };
  for (const auto& c : {Case{"before-fails", false, "c_halves before refuses"},
                        Case{"after-fails", true, "c_halves after refuses"},
                        Case{"bad-signal", false, "a signal the host did not give it"},
                        Case{"bad-signal-after", false, "a signal the host did not give it"},
                        Case{"null-signal", false, "before answered no signal"},
                        Case{"state-no-after", false, "no after to hand it to"}}) {
    PluginFixture f;
    auto parked = register_later(f.host);
    f.load("test.c-halves", "c_halves", {{"mode", c.mode}});
    Outcomes out;
    f.host.call_async(later(), out.sink());
    EXPECT_EQ(parked->size(), c.body_runs ? 1u : 0u) << c.mode;
    if (c.body_runs) parked->take().complete(ToolOutput::success("fine"));
    ASSERT_EQ(out.size(), 1u) << c.mode;
    EXPECT_EQ(code_of(out.results[0]), "plugin_error") << c.mode;
    EXPECT_EQ(out.results[0].error->stage, "tools/execute") << c.mode;
    EXPECT_EQ(out.results[0].error->source, "test.c-halves/halves") << c.mode;
    EXPECT_NE(out.results[0].error->message.find(c.message), std::string::npos)
        << c.mode << ": " << out.results[0].error->message;
    // An after is called whenever before returned TG_OK, also when the host
    // refused its answer: the plugin frees its state there.
    if (std::string(c.mode) == "bad-signal-after") {
      auto afters = f.recorder->of_type("halves/after");
      ASSERT_EQ(afters.size(), 1u);
      EXPECT_EQ(afters[0].data.at("code"), "plugin_error");
      EXPECT_EQ(afters[0].data.at("state"), 42);
    }
  }
}

TEST(WrapperHalves, OnAnOlderHostTheSdkRegistersOneWrapperThatCallsTheHalvesAroundNext) {
  PluginFixture f;
  auto parked = register_later(f.host);
  f.load("test.halves-old-host", "halves_old_host");
  std::thread answering([&] {
    while (parked->size() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // The 30 ms deadline before gave reached the body.
    const bool deadline = parked->signals[0]->deadline().has_value();
    parked->take().complete(deadline ? ToolOutput::success("in time")
                                     : ToolOutput::failure("no deadline"));
  });
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(out.size(), 1u);  // one function: the wrapper waited in next()
  answering.join();
  EXPECT_EQ(out.results[0].value, "in time");
  EXPECT_EQ(f.recorder->of_type("halves/before").size(), 1u);
  auto afters = f.recorder->of_type("halves/after");
  ASSERT_EQ(afters.size(), 1u);
  EXPECT_EQ(afters[0].data.at("state"), 42);
  EXPECT_EQ(afters[0].data.at("error"), false);
}

TEST(WrapperHalves, AnAfterCountsAsCodeOnTheResultABeforeAloneDoesNot) {
  Fixture f;
  register_later(f.host);
  WrapperHalves before_only;
  before_only.before = [](const HookCall&, const std::shared_ptr<Signal>&,
                          WrapperHalves::State&) -> std::shared_ptr<Signal> { return nullptr; };
  auto h = f.host.add_execute_wrapper("b", {"before-only"}, before_only);
  // The gateway finishes a call on its reading thread only when no plugin
  // code runs on the result (Host::runs_hooks_on_result).
  EXPECT_FALSE(f.host.runs_hooks_on_result("later"));
  Log log;
  f.host.add_execute_wrapper("a", {"both"}, logging(log, "A"));
  EXPECT_TRUE(f.host.runs_hooks_on_result("later"));
}
