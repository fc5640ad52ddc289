#include "runner_pool.hpp"

#include <spdlog/spdlog.h>

namespace toolgate::detail {

RunnerPool::RunnerPool(RunnerSpawn spawn, unsigned target)
    : spawn_(std::move(spawn)), target_(target) {
  if (target_ > 0) filler_ = std::thread([this] { refill(); });
}

RunnerPool::~RunnerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (filler_.joinable()) filler_.join();
}

std::unique_ptr<RunnerProcess> RunnerPool::take() {
  if (target_ > 0) {
    std::unique_lock lock(mutex_);
    while (!ready_.empty()) {
      auto r = std::move(ready_.front());
      ready_.pop_front();
      lock.unlock();
      wake_.notify_all();
      if (!r->exited()) return r;
      lock.lock();  // it died waiting: try the next, or start one cold
    }
  }
  return RunnerProcess::start(spawn_);
}

void RunnerPool::refill() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (ready_.size() >= target_) {
      wake_.wait(lock);
      continue;
    }
    lock.unlock();
    std::unique_ptr<RunnerProcess> r;
    try {
      r = RunnerProcess::start(spawn_);
    } catch (const std::exception& e) {
      // Runs start cold and report this themselves; retry later.
      spdlog::debug("code mode: cannot prestart a runner: {}", e.what());
    }
    lock.lock();
    if (r)
      ready_.push_back(std::move(r));
    else
      wake_.wait_for(lock, std::chrono::seconds(5));
  }
  ready_.clear();  // kills them
}

}  // namespace toolgate::detail
