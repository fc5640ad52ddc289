// The gateway's worker pool (host/mcp/src/worker_pool.hpp): tasks that
// block do not hold back the ones after them while threads are allowed,
// only past the limit do they wait, and threads beyond `keep` end when idle.
#include "worker_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

using toolgate::mcp::WorkerPool;
using namespace std::chrono_literals;

namespace {
// A gate the blocked tasks wait on until the test opens it.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  void wait() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return open; });
  }
  void release() {
    {
      std::lock_guard lock(m);
      open = true;
    }
    cv.notify_all();
  }
};
}  // namespace

TEST(McpWorkerPool, AQuickTaskIsNotHeldBackByManyBlockedOnes) {
  WorkerPool pool(1024);
  Gate gate;
  std::atomic<int> blocked{0};
  for (int i = 0; i < 200; ++i)
    pool.submit([&] {
      ++blocked;
      gate.wait();
    });
  std::atomic<bool> quick{false};
  pool.submit([&] { quick = true; });
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (!(quick && blocked == 200) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(1ms);
  // 64 threads, the old fixed pool, would have run 64 and queued the rest.
  EXPECT_TRUE(quick);
  EXPECT_EQ(blocked, 200);
  gate.release();
  pool.shutdown();
}

TEST(McpWorkerPool, PastTheLimitTasksWaitTheirTurn) {
  WorkerPool pool(2);
  Gate gate;
  std::atomic<int> started{0};
  for (int i = 0; i < 3; ++i)
    pool.submit([&] {
      ++started;
      gate.wait();
    });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(started, 2);
  EXPECT_EQ(pool.threads(), 2u);
  gate.release();
  pool.shutdown();
  EXPECT_EQ(started, 3);  // shutdown runs what was queued
}

TEST(McpWorkerPool, ThreadsBeyondKeepEndWhenIdle) {
  WorkerPool pool(64, 2, 50ms);
  Gate gate;
  for (int i = 0; i < 10; ++i) pool.submit([&] { gate.wait(); });
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(pool.threads(), 10u);
  gate.release();
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (pool.threads() > 2 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(pool.threads(), 2u);
  // The pool still works, and the ended threads are joined.
  std::atomic<bool> ran{false};
  pool.submit([&] { ran = true; });
  pool.shutdown();
  EXPECT_TRUE(ran);
}

// A reservation (a call run by a thread that is not the pool's) takes a
// place in the limit like a running task; start_now runs a task at once
// or not at all -- it never waits in the queue.
TEST(McpWorkerPool, AReservationTakesAPlaceAndStartNowNeverQueues) {
  WorkerPool pool(2);
  Gate gate;
  std::atomic<int> started{0};
  {
    auto place = pool.reserve();
    ASSERT_TRUE(place);
    for (int i = 0; i < 2; ++i)
      pool.submit([&] {
        ++started;
        gate.wait();
      });
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(started, 1);  // the reservation holds the other place
    EXPECT_FALSE(pool.reserve());
    std::atomic<bool> ran{false};
    EXPECT_FALSE(pool.start_now([&] { ran = true; }));
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(ran);  // refused, and not kept either
  }
  // Released: the queued task runs.
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (started < 2 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(started, 2);
  gate.release();
  pool.shutdown();
}

TEST(McpWorkerPool, StartNowRunsBesideBusyThreads) {
  WorkerPool pool(4);
  Gate gate;
  for (int i = 0; i < 3; ++i) pool.submit([&] { gate.wait(); });
  std::atomic<bool> ran{false};
  EXPECT_TRUE(pool.start_now([&] { ran = true; }));
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!ran && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(ran);
  gate.release();
  pool.shutdown();
  EXPECT_FALSE(pool.start_now([] {}));  // stopped
}
