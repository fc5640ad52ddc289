// The gateway's deadline timer (host/mcp/src/deadline_timer.hpp): it pokes
// a waiting request's slot once its deadline has passed -- at once for one
// already past -- and never one that was cancelled, that no longer exists,
// or after the timer is gone.
#include "deadline_timer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

using toolgate::mcp::DeadlineTimer;
using toolgate::mcp::ResponseSlot;
using namespace std::chrono_literals;

namespace {

// A slot that counts its pokes.
std::shared_ptr<ResponseSlot> counted(std::atomic<int>& pokes) {
  auto slot = std::make_shared<ResponseSlot>();
  slot->on_change([&pokes] { ++pokes; });
  return slot;
}

bool eventually(const std::atomic<int>& n, int want) {
  for (int i = 0; i < 500 && n.load() < want; ++i) std::this_thread::sleep_for(2ms);
  return n.load() == want;
}

}  // namespace

TEST(McpDeadlineTimer, PokesOnceTheDeadlinePassesAndAtOnceForOneAlreadyPast) {
  DeadlineTimer timer;
  std::atomic<int> later{0}, past{0};
  auto a = counted(later), b = counted(past);
  const auto start = DeadlineTimer::Clock::now();
  timer.at(start + 60ms, a);
  timer.at(start - 1s, b);
  EXPECT_TRUE(eventually(past, 1));
  EXPECT_EQ(later.load(), 0);  // not before its time
  EXPECT_TRUE(eventually(later, 1));
  EXPECT_GE(DeadlineTimer::Clock::now() - start, 60ms);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(later.load(), 1);  // once
  EXPECT_EQ(past.load(), 1);
}

TEST(McpDeadlineTimer, ACancelledEntryIsNotPokedEvenWhileTheTimerWaitsForIt) {
  DeadlineTimer timer;
  std::atomic<int> cancelled{0}, kept{0};
  auto a = counted(cancelled), b = counted(kept);
  const auto now = DeadlineTimer::Clock::now();
  const auto key = timer.at(now + 40ms, a);  // the earliest: the one the thread waits for
  timer.at(now + 80ms, b);
  std::this_thread::sleep_for(10ms);
  timer.cancel(key);
  EXPECT_TRUE(eventually(kept, 1));
  EXPECT_EQ(cancelled.load(), 0);
}

TEST(McpDeadlineTimer, ASlotThatNoLongerExistsIsSkippedAndDestructionStopsEverything) {
  std::atomic<int> gone{0}, never{0};
  auto keep = counted(never);
  {
    DeadlineTimer timer;
    auto dropped = counted(gone);
    timer.at(DeadlineTimer::Clock::now() + 5ms, dropped);
    dropped.reset();
    timer.at(DeadlineTimer::Clock::now() + 10s, keep);
    std::this_thread::sleep_for(30ms);
  }  // returns at once, without waiting for the 10 s entry
  EXPECT_EQ(gone.load(), 0);
  EXPECT_EQ(never.load(), 0);
}
