#include "worker_pool.hpp"

#include <spdlog/spdlog.h>

#include <system_error>

namespace toolgate::mcp {

bool WorkerPool::submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    reap_locked();
    queue_.push_back(std::move(task));
    // Out of threads: an existing one takes the task in turn; with none,
    // nothing would ever run it.
    if (idle_ < queue_.size() && threads_.size() < max_ && !add_thread_locked() &&
        threads_.empty()) {
      queue_.pop_back();
      return false;
    }
  }
  cv_.notify_one();
  return true;
}

bool WorkerPool::start_now(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    reap_locked();
    if (stopping_) return false;
    // It must not wait in the queue: the tasks queued before it, and it,
    // must all have a place in the limit and a thread -- one not running
    // a task (idle, or just started) and not claimed by a queued task, or
    // a new one.
    if (busy_ + reserved_ + queue_.size() >= max_) return false;
    const std::size_t free_threads = threads_.size() - busy_;
    if (free_threads < queue_.size()) return false;
    if (free_threads == queue_.size() && (threads_.size() >= max_ || !add_thread_locked()))
      return false;
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return true;
}

WorkerPool::Reservation WorkerPool::reserve() {
  std::lock_guard lock(mutex_);
  // Queued tasks come first: a reservation never takes the place one of
  // them is waiting for.
  if (stopping_ || busy_ + reserved_ + queue_.size() >= max_) return Reservation();
  ++reserved_;
  return Reservation(this);
}

void WorkerPool::release() {
  {
    std::lock_guard lock(mutex_);
    --reserved_;
  }
  // A task queued while the place was held may run now.
  cv_.notify_one();
}

void WorkerPool::loop(std::size_t id) {
  std::unique_lock lock(mutex_);
  while (true) {
    ++idle_;
    const bool woken = cv_.wait_for(lock, idle_timeout_, [&] {
      // Reservations take places in the limit as running tasks do.
      return stopping_ || (!queue_.empty() && busy_ + reserved_ < max_);
    });
    --idle_;
    if (!woken) {
      // A task queued behind the limit (reserve) still needs this thread.
      if (threads_.size() <= keep_ || !queue_.empty()) continue;
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
    ++busy_;
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
    --busy_;
  }
}

bool WorkerPool::add_thread_locked() {
  const std::size_t id = next_id_++;
  try {
    threads_.emplace(id, std::thread([this, id] { loop(id); }));
    return true;
  } catch (const std::system_error&) {
    return false;  // the process's thread limit
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
