// worker_pool.hpp -- threads for tool calls in flight.
//
// A tool call holds a thread while it waits for the server (the pipeline
// runs hooks and wrappers synchronously around the tool body), so the pool
// must not be what limits concurrency: with a small fixed pool, a quick
// call queued behind slow ones waited for them (head-of-line blocking: 64
// threads made 200 parallel one-second calls take four seconds).  A task
// goes to an idle thread, or to a new one while there are fewer than
// `max_threads` (1024 by default: a limit on memory, not on a usual
// client); only past that does it wait its turn.  Threads stay for the next
// task -- the fast path of a call creates none -- and those beyond `keep`
// end after `idle_timeout` without work.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace toolgate::mcp {

class WorkerPool {
 public:
  explicit WorkerPool(std::size_t max_threads, std::size_t keep = 8,
                      std::chrono::milliseconds idle_timeout = std::chrono::seconds(30))
      : max_(max_threads ? max_threads : 1), keep_(keep), idle_timeout_(idle_timeout) {}
  ~WorkerPool() { shutdown(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // false when the task cannot run: no thread exists and none can be
  // created (the process's thread limit); the task is not kept.  When a
  // new thread cannot be created but others exist, the task waits for one.
  bool submit(std::function<void()> task);
  // Runs every queued task, then joins the threads.
  void shutdown();
  // Detaches the threads instead of joining them: for a process about to
  // end while a task is stuck in code that never returns (a looping hook).
  // Nothing the tasks use may be destroyed afterwards.
  void abandon();
  // Threads alive now (idle or busy).
  std::size_t threads() const;

 private:
  void loop(std::size_t id);
  // Tells the threads to stop once the queue is empty; hands them over.
  std::vector<std::thread> stop();
  // Joins threads that ended on their idle timeout (under the lock: they
  // have released it for good, so the join is immediate).
  void reap_locked();

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::map<std::size_t, std::thread> threads_;  // by id, the live ones
  std::vector<std::thread> ended_;              // ended on idle, not joined yet
  std::size_t next_id_ = 0;
  std::size_t max_;
  std::size_t keep_;
  std::chrono::milliseconds idle_timeout_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace toolgate::mcp
