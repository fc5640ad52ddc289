// worker_pool.hpp -- threads for tool calls in flight.
//
// A task goes to an idle thread, or to a new one while there are fewer
// than `max_threads`; otherwise it waits its turn.  Threads stay for the
// next task, so the fast path of a call does not create a thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace toolgate::mcp {

class WorkerPool {
 public:
  explicit WorkerPool(std::size_t max_threads) : max_(max_threads ? max_threads : 1) {}
  ~WorkerPool() { shutdown(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(std::function<void()> task);
  // Runs every queued task, then joins the threads.
  void shutdown();
  // Detaches the threads instead of joining them: for a process about to
  // end while a task is stuck in code that never returns (a looping hook).
  // Nothing the tasks use may be destroyed afterwards.
  void abandon();

 private:
  void loop();
  // Tells the threads to stop once the queue is empty; hands them over.
  std::vector<std::thread> stop();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  std::size_t max_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace toolgate::mcp
