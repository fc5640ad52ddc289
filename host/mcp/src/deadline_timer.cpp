#include "deadline_timer.hpp"

namespace toolgate::mcp {

void DeadlineTimer::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    due_.clear();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

DeadlineTimer::Key DeadlineTimer::at(Clock::time_point when, std::weak_ptr<ResponseSlot> slot) {
  std::lock_guard lock(mutex_);
  const Key key{when, ++serial_};
  if (stopping_) return key;  // shut down: nothing is watched any more
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });  // may throw: nothing added
  due_.emplace(key, std::move(slot));
  // The thread is woken only for a deadline before the one it sleeps
  // until: calls after one another, each with a 30 s deadline ended by
  // its answer, wake it once, not once a call (a wake-up is a context
  // switch on the call's path).
  if (when < sleeping_until_) cv_.notify_all();
  return key;
}

void DeadlineTimer::cancel(const Key& key) {
  std::lock_guard lock(mutex_);
  due_.erase(key);
}

void DeadlineTimer::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (due_.empty()) {
      sleeping_until_ = Clock::time_point::max();
      cv_.wait(lock);
      continue;
    }
    const auto first = due_.begin();
    // A copy: cancel() may erase the entry while this thread waits.
    const Clock::time_point when = first->first.first;
    if (Clock::now() < when) {
      sleeping_until_ = when;
      cv_.wait_until(lock, when);
      continue;
    }
    auto slot = first->second.lock();
    due_.erase(first);
    if (!slot) continue;
    // Poked without the lock: the slot's reaction (Peer::request_text_async)
    // ends the request and may cancel() other entries.
    lock.unlock();
    slot->poke();
    lock.lock();
  }
}

}  // namespace toolgate::mcp
