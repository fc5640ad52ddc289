// deadline_timer.hpp -- pokes a request that no thread waits on when its
// signal's deadline passes.
//
// A request sent with Peer::request_text_async learns that its signal
// fired only when something pokes its slot: a client's cancellation does
// (SlotWaker), and for a deadline (an execute wrapper's, the `timeout`
// plugin's) this timer does.  One thread per timer, started with the first
// deadline and sleeping until the earliest one.
#pragma once

#include "id_map.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace toolgate::mcp {

class DeadlineTimer {
 public:
  using Clock = std::chrono::steady_clock;
  // What at() returns, for cancel().
  using Key = std::pair<Clock::time_point, std::uint64_t>;

  DeadlineTimer() = default;
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;
  ~DeadlineTimer() { stop(); }
  // Ends the thread; nothing is poked after it returns, and at() pokes
  // nothing more.  Idempotent.
  void stop();

  // Pokes `slot` (if it still exists) once `when` has passed -- perhaps
  // before this returns.  Throws std::system_error when the timer's thread
  // cannot start: then nothing watches the deadline, and the caller must
  // not rely on it.
  Key at(Clock::time_point when, std::weak_ptr<ResponseSlot> slot);
  // The request ended first: forget it (nothing happens if it was poked).
  void cancel(const Key& key);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<Key, std::weak_ptr<ResponseSlot>> due_;  // earliest first
  std::uint64_t serial_ = 0;
  // What the thread sleeps until (max: until woken); a cancelled entry
  // leaves it waking once for nothing.
  Clock::time_point sleeping_until_ = Clock::time_point::min();
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace toolgate::mcp
