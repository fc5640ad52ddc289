#include "worker_pool.hpp"

#include <spdlog/spdlog.h>

#include <system_error>

namespace toolgate::mcp {

bool WorkerPool::submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    reap_locked();
    queue_.push_back(std::move(task));
    if (idle_ < queue_.size() && threads_.size() < max_) {
      const std::size_t id = next_id_++;
      try {
        threads_.emplace(id, std::thread([this, id] { loop(id); }));
      } catch (const std::system_error&) {
        // Out of threads: an existing one takes the task in turn; with
        // none, nothing would ever run it.
        if (threads_.empty()) {
          queue_.pop_back();
          return false;
        }
      }
    }
  }
  cv_.notify_one();
  return true;
}

void WorkerPool::loop(std::size_t id) {
  std::unique_lock lock(mutex_);
  while (true) {
    ++idle_;
    const bool woken =
        cv_.wait_for(lock, idle_timeout_, [&] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (!woken) {
      if (threads_.size() <= keep_) continue;
      // Idle too long and more threads than kept: this one ends.  Its
      // std::thread moves to ended_, joined by the next submit or shutdown.
      auto self = threads_.find(id);
      if (self == threads_.end()) return;  // handed over by stop()
      ended_.push_back(std::move(self->second));
      threads_.erase(self);
      return;
    }
    if (queue_.empty()) return;  // stopping, nothing left
    auto task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    // A task that throws must not end the process (std::thread would call
    // std::terminate): its own code answers for its call; this only logs.
    try {
      task();
    } catch (const std::exception& e) {
      spdlog::error("a gateway worker's task failed: {}", e.what());
    } catch (...) {
      spdlog::error("a gateway worker's task failed");
    }
    lock.lock();
  }
}

void WorkerPool::reap_locked() {
  for (auto& t : ended_) t.join();
  ended_.clear();
}

std::size_t WorkerPool::threads() const {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

std::vector<std::thread> WorkerPool::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [id, t] : threads_) threads.push_back(std::move(t));
    threads_.clear();
    for (auto& t : ended_) threads.push_back(std::move(t));
    ended_.clear();
  }
  cv_.notify_all();
  return threads;
}

void WorkerPool::shutdown() {
  for (auto& t : stop()) t.join();
}

void WorkerPool::abandon() {
  for (auto& t : stop()) t.detach();
}

}  // namespace toolgate::mcp
