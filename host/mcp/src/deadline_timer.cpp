#include "deadline_timer.hpp"

namespace toolgate::mcp {

DeadlineTimer::~DeadlineTimer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DeadlineTimer::at(Clock::time_point when, std::weak_ptr<ResponseSlot> slot,
                       std::optional<Key>& key) {
  std::lock_guard lock(mutex_);
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });  // may throw: nothing added
  key = Key{when, ++serial_};
  const bool earliest = due_.empty() || *key < due_.begin()->first;
  due_.emplace(*key, std::move(slot));
  if (earliest) cv_.notify_all();
}

void DeadlineTimer::cancel(const Key& key) {
  std::lock_guard lock(mutex_);
  due_.erase(key);
}

void DeadlineTimer::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (due_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const auto first = due_.begin();
    if (Clock::now() < first->first.first) {
      cv_.wait_until(lock, first->first.first);
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
