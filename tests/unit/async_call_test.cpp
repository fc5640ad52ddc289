// Tool bodies that answer later (docs/design.md §3.2): Host::call_async
// runs the stages up to the body, returns, and finishes the call on the
// thread that completes the body -- with the same stages and the same
// "exactly one tool/result" as a whole call.
#include "parked_tool.hpp"
#include "test_support.hpp"

#include <future>
#include <mutex>
#include <thread>

using namespace tgtest;

namespace {

std::size_t events(Recorder& r, std::string_view type) {
  std::size_t n = 0;
  for (const auto& e : r.snapshot())
    if (e.type == type) ++n;
  return n;
}

}  // namespace

TEST(AsyncCall, ReturnsBeforeTheBodyAnswersAndFinishesOnTheAnsweringThread) {
  Fixture f;
  auto parked = std::make_shared<Parked>();
  register_later(f.host, parked);
  std::thread::id post_thread;
  f.host.add_post_execute("p", {"note"}, [&](const HookCall&) {
    post_thread = std::this_thread::get_id();
    return PostVerdict::accept().add_context("seen");
  });
  Outcomes out;
  f.host.call_async(later(), out.sink());
  ASSERT_EQ(parked->size(), 1u);  // the body started ...
  EXPECT_EQ(out.size(), 0u);      // ... and nothing waits for it
  EXPECT_EQ(events(*f.recorder, "tool/result"), 0u);

  std::thread answering([&] {
    parked->take().complete(ToolOutput::success(json::object{{"ok", true}}));
  });
  const auto answering_id = answering.get_id();
  answering.join();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out.results[0].is_error);
  EXPECT_EQ(out.results[0].value, (json::object{{"ok", true}}));
  EXPECT_EQ(out.contexts[0], std::vector<std::string>{"seen"});
  EXPECT_EQ(post_thread, answering_id);  // post-execute ran where the answer came
  EXPECT_EQ(events(*f.recorder, "tool/result"), 1u);
}

TEST(AsyncCall, ADeniedCallEndsAtOnceAndTheBodyNeverStarts) {
  Fixture f;
  auto parked = std::make_shared<Parked>();
  register_later(f.host, parked);
  f.host.add_guard("g", {"no"}, [](const HookCall&) { return std::optional<std::string>("no"); });
  Outcomes out;
  f.host.call_async(later(), out.sink());
  EXPECT_EQ(parked->size(), 0u);
  ASSERT_EQ(out.size(), 1u);  // done before call_async returned
  EXPECT_EQ(code_of(out.results[0]), "denied");
  EXPECT_EQ(events(*f.recorder, "tool/result"), 1u);
}

TEST(AsyncCall, ADroppedCompletionEndsTheCallAsAToolError) {
  Fixture f;
  auto parked = std::make_shared<Parked>();
  register_later(f.host, parked);
  Outcomes out;
  f.host.call_async(later(), out.sink());
  { auto dropped = parked->take(); }
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(code_of(out.results[0]), "tool_error");
  EXPECT_NE(out.results[0].error->message.find("never answered"), std::string::npos);
  EXPECT_EQ(events(*f.recorder, "tool/result"), 1u);
}

TEST(AsyncCall, ABodyThatThrowsEndsTheCallOnce) {
  Fixture f;
  ToolDefinition t;
  t.name = "throws";
  t.execute_async = [](const ToolContext&, ToolCompletion) { throw std::runtime_error("boom"); };
  f.host.register_tool(std::move(t));
  Outcomes out;
  ToolCall c;
  c.identity.tool = "throws";
  f.host.call_async(std::move(c), out.sink());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(code_of(out.results[0]), "tool_error");
  EXPECT_EQ(events(*f.recorder, "tool/result"), 1u);
}

TEST(AsyncCall, CompletingTwiceThrowsAndChangesNothing) {
  Fixture f;
  ToolDefinition t;
  t.name = "twice";
  std::string second;
  t.execute_async = [&](const ToolContext&, ToolCompletion done) {
    std::move(done).complete(ToolOutput::success("first"));
    try {
      std::move(done).complete(ToolOutput::success("second"));
    } catch (const std::logic_error& e) {
      second = e.what();
    }
  };
  f.host.register_tool(std::move(t));
  Outcomes out;
  ToolCall c;
  c.identity.tool = "twice";
  f.host.call_async(std::move(c), out.sink());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out.results[0].value, "first");
  EXPECT_NE(second.find("twice"), std::string::npos);
}

TEST(AsyncCall, UnderAWrapperTheBodyIsWaitedForAndTheWrapperSeesItsResult) {
  Fixture f;
  auto parked = std::make_shared<Parked>();
  register_later(f.host, parked);
  std::vector<bool> wrapper_saw_error;
  f.host.add_execute_wrapper(
      "w", {"watch"},
      [&](const HookCall&, const std::shared_ptr<Signal>& s, Next& next) -> const ExecResult& {
        const ExecResult& r = next(s);
        wrapper_saw_error.push_back(r.is_error);
        return r;
      });
  std::thread answering = answer_when_parked(parked, ToolOutput::success("answered"));
  Outcomes out;
  f.host.call_async(later(), out.sink());
  // The wrapper's next() waited: done ran before call_async returned.
  ASSERT_EQ(out.size(), 1u);
  answering.join();
  EXPECT_EQ(out.results[0].value, "answered");
  EXPECT_EQ(wrapper_saw_error, std::vector<bool>{false});
}

TEST(AsyncCall, HostCallWaitsForAnAsynchronousBody) {
  Fixture f;
  auto parked = std::make_shared<Parked>();
  register_later(f.host, parked);
  std::thread answering = answer_when_parked(parked, ToolOutput::failure("server said no"));
  auto r = f.host.call(later());
  answering.join();
  EXPECT_EQ(code_of(r), "tool_error");
  EXPECT_EQ(r.error->message, "server said no");
}

TEST(AsyncCall, APendingCallKeepsItsGenerationAcrossAReload) {
  Fixture f;
  auto parked = std::make_shared<Parked>();
  register_later(f.host, parked);
  int post_runs = 0;
  auto handle = f.host.add_post_execute("p", {"count"}, [&](const HookCall&) {
    ++post_runs;
    return PostVerdict::accept();
  });
  Outcomes out;
  f.host.call_async(later(), out.sink());
  handle.remove();  // a new generation without the hook
  parked->take().complete(ToolOutput::success("late"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(post_runs, 1);  // the hook of the generation the call began on
}

TEST(AsyncCall, AToolWithBothBodiesIsRefused) {
  Fixture f;
  ToolDefinition t;
  t.name = "both";
  t.execute = [](const ToolContext&) { return ToolOutput::success(1); };
  t.execute_async = [](const ToolContext&, ToolCompletion) {};
  EXPECT_THROW(f.host.register_tool(std::move(t)), std::invalid_argument);
}
