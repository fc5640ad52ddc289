// Batches (§2.10): parallel calls, contexts released FIFO after every
// result, sub-calls queue none.
#include "test_support.hpp"

using namespace tgtest;

namespace {
ToolCall echo_call(json::object args, std::string parent = "") {
  ToolCall c;
  c.identity.tool = "echo";
  c.identity.parent_token = std::move(parent);
  c.arguments = std::move(args);
  return c;
}
}  // namespace

TEST(Batch, ResultsComeBackInCallOrder) {
  Fixture f;
  std::vector<ToolCall> calls;
  for (int i = 0; i < 16; ++i) calls.push_back(echo_call({{"i", i}}));
  auto out = f.host.call_batch(std::move(calls));
  ASSERT_EQ(out.results.size(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out.results[i].value->at("i"), i);
}

TEST(Batch, ContextsAreReleasedFifoAfterAllResults) {
  Fixture f;
  // Each call queues its context at a different time: the FIFO order is the
  // order they were queued in, not the call order.
  f.host.add_post_execute("p", {"note"}, [](const HookCall& c) {
    auto delay = c.arguments.at("delay_ms").as_int64();
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    return PostVerdict::accept().add_context("ctx-" + std::to_string(delay));
  });
  std::vector<ToolCall> calls;
  calls.push_back(echo_call({{"delay_ms", 60}}));
  calls.push_back(echo_call({{"delay_ms", 0}}));
  auto out = f.host.call_batch(std::move(calls));
  if (std::thread::hardware_concurrency() > 1)
    EXPECT_EQ(out.additional_contexts, (std::vector<std::string>{"ctx-0", "ctx-60"}));
  else
    EXPECT_EQ(out.additional_contexts.size(), 2u);
  // The batch/settled event (carrying the contexts) comes after every
  // tool/result of the batch.
  const auto& ev = f.recorder->events;
  std::size_t settled = 0, last_result = 0;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    if (ev[i].type == "tool/result") last_result = i;
    if (ev[i].type == "batch/settled") settled = i;
  }
  EXPECT_GT(settled, last_result);
}

TEST(Batch, ContextsKeepFifoOrderWithinOneCall) {
  Fixture f;
  f.host.add_post_execute("p", {"a", {}, 2}, [](const HookCall&) {
    return PostVerdict::accept().add_context("first").add_context("second");
  });
  f.host.add_post_execute("p", {"b", {}, 1}, [](const HookCall&) {
    return PostVerdict::accept().add_context("third");
  });
  std::vector<ToolCall> calls;
  calls.push_back(echo_call({}));
  auto out = f.host.call_batch(std::move(calls));
  EXPECT_EQ(out.additional_contexts, (std::vector<std::string>{"first", "second", "third"}));
}

TEST(Batch, SubCallsNeverQueueContexts) {
  Fixture f;
  f.host.add_post_execute("p", {"note"},
                          [](const HookCall&) { return PostVerdict::accept().add_context("ctx"); });
  std::vector<ToolCall> calls;
  calls.push_back(echo_call({}, "parent-token"));
  auto out = f.host.call_batch(std::move(calls));
  EXPECT_TRUE(out.additional_contexts.empty());
}

TEST(Batch, CallsRunInParallel) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core";
  Fixture f;
  std::atomic<int> inside{0}, peak{0};
  f.host.add_pre_execute("p", {"overlap"}, [&](const HookCall&) {
    int now = ++inside;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    --inside;
    return PreVerdict::keep();
  });
  std::vector<ToolCall> calls;
  for (int i = 0; i < 4; ++i) calls.push_back(echo_call({}));
  f.host.call_batch(std::move(calls));
  EXPECT_GE(peak.load(), 2);
}

TEST(Events, EveryEventNamesItsGeneration) {
  Fixture f;
  f.call("echo");
  auto gen = f.host.generation();
  EXPECT_GT(gen, 0u);
  for (const auto& e : f.recorder->events) EXPECT_EQ(e.generation, gen) << e.type;
}
