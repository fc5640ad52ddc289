// runner_pool.hpp -- runners started ahead of time (docs/design.md §17.4).
//
// A cold runner is a node start under bubblewrap, tens of milliseconds.  The
// pool keeps a few started and waiting for their one program; a run takes
// one (or starts one cold when none is ready) and a replacement is started
// in the background.  A runner is never returned to the pool: each serves
// exactly one run.
#pragma once

#include "runner_process.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace toolgate::detail {

class RunnerPool {
 public:
  RunnerPool(RunnerSpawn spawn, unsigned target);
  ~RunnerPool();
  RunnerPool(const RunnerPool&) = delete;
  RunnerPool& operator=(const RunnerPool&) = delete;

  // A ready runner, or a freshly started one; throws RunnerUnavailable.
  std::unique_ptr<RunnerProcess> take();
  const RunnerSpawn& spawn() const { return spawn_; }

 private:
  void refill();
  RunnerSpawn spawn_;
  unsigned target_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<RunnerProcess>> ready_;
  bool stopping_ = false;
  // Starts the pool's runners: one long-lived thread, because a runner dies
  // with the thread that started it (PR_SET_PDEATHSIG).
  std::thread filler_;
};

}  // namespace toolgate::detail
