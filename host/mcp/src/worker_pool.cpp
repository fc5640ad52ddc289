#include "worker_pool.hpp"

namespace toolgate::mcp {

void WorkerPool::submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
    if (idle_ < queue_.size() && threads_.size() < max_) threads_.emplace_back([this] { loop(); });
  }
  cv_.notify_one();
}

void WorkerPool::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    ++idle_;
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty()) return;  // stopping, nothing left
    auto task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

std::vector<std::thread> WorkerPool::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    threads.swap(threads_);
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
