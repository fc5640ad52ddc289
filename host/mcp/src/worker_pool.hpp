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
// end after `idle_timeout` without work.  A reservation (reserve) counts
// against the limit like a running task.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
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
  // Starts `task` on a thread now -- an idle one, or a new one while there
  // are fewer than `max_threads` -- or returns false and keeps nothing.
  // Never queues: for a task that others wait on (a peer's reading,
  // Peer::pass_reading), which must not wait behind them.
  bool start_now(std::function<void()> task);

  // A place in the pool's limit for one task's work done by a thread that
  // is not the pool's (a call run where its message was read:
  // Peer::pass_reading): while it is held, the pool runs one task fewer
  // at once, so `max_threads` still bounds everything run in its name.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& o) noexcept : pool_(std::exchange(o.pool_, nullptr)) {}
    Reservation& operator=(Reservation&&) = delete;
    ~Reservation() {
      if (pool_) pool_->release();
    }
    explicit operator bool() const { return pool_ != nullptr; }

   private:
    friend class WorkerPool;
    explicit Reservation(WorkerPool* p) : pool_(p) {}
    WorkerPool* pool_ = nullptr;
  };
  // Empty when the pool is at its limit (the work should queue instead).
  Reservation reserve();

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
  void release();
  // Starts one more thread (under the lock); false when none can be made.
  bool add_thread_locked();
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
  std::size_t busy_ = 0;      // the pool's threads running a task
  std::size_t reserved_ = 0;  // reservations held (reserve)
  bool stopping_ = false;
};

}  // namespace toolgate::mcp
