// stop_signals.hpp -- SIGINT / SIGTERM (and SIGHUP) for the long-running
// commands (watch, mcp), taken on a thread of their own.
//
// Why a thread and sigwait, not a handler: what a stop does (wake the
// gateway, tell the main thread) is not async-signal-safe, and a plugin's
// init or a hook that never returns must not make SIGTERM useless -- so a
// stop that has not finished within the grace period ends the process
// (after `on_overdue`, e.g. killing the MCP server's process group) with
// _Exit(128 + signal), skipping destructors the stuck thread may be in.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace toolgate::cli {

class StopSignals {
 public:
  struct Handlers {
    std::function<void()> on_hup;      // SIGHUP; null: SIGHUP ignored
    std::function<void(int)> on_stop;  // SIGINT / SIGTERM: begin stopping
    std::function<void()> on_overdue;  // the stop took longer than `grace`
  };
  // Blocks SIGHUP, SIGINT and SIGTERM in the calling thread -- construct it
  // before any other thread starts, so every thread inherits the mask --
  // and starts the signal thread.  `command` names the program in the
  // message printed when a stop is overdue.
  StopSignals(std::string command, std::chrono::milliseconds grace, Handlers handlers);
  ~StopSignals();  // finish()
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Blocks until SIGINT or SIGTERM arrives (after on_stop has run).
  void wait();
  // The stop signal received, or 0.
  int received() const;
  // The program has stopped cleanly: no overdue exit after this; joins the
  // signal thread.
  void finish();

 private:
  void run();

  std::string command_;
  std::chrono::milliseconds grace_;
  Handlers handlers_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  int signal_ = 0;         // guarded by mutex_
  bool finished_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace toolgate::cli
