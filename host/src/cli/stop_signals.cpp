#include "stop_signals.hpp"

#include <pthread.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace toolgate::cli {

namespace {

sigset_t taken_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

StopSignals::StopSignals(std::string command, std::chrono::milliseconds grace, Handlers handlers)
    : command_(std::move(command)), grace_(grace), handlers_(std::move(handlers)) {
  sigset_t set = taken_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this] { run(); });
}

StopSignals::~StopSignals() { finish(); }

void StopSignals::run() {
  const sigset_t set = taken_signals();
  for (;;) {
    // A bounded wait, so finish() is seen without a signal to wake us.
    timespec tick{0, 100 * 1000 * 1000};
    int sig = sigtimedwait(&set, nullptr, &tick);
    {
      std::lock_guard lock(mutex_);
      if (finished_) return;
    }
    if (sig < 0) continue;  // timeout or EINTR
    if (sig == SIGHUP) {
      if (handlers_.on_hup) handlers_.on_hup();
      continue;
    }
    if (handlers_.on_stop) handlers_.on_stop(sig);
    std::unique_lock lock(mutex_);
    signal_ = sig;
    cv_.notify_all();
    if (cv_.wait_for(lock, grace_, [&] { return finished_; })) return;
    lock.unlock();
    if (handlers_.on_overdue) handlers_.on_overdue();
    std::fprintf(stderr,
                 "toolgate %s: stopping on %s, but a plugin's init, hook or shutdown has not "
                 "returned in %lld ms; exiting without it\n",
                 command_.c_str(), sig == SIGINT ? "SIGINT" : "SIGTERM",
                 static_cast<long long>(grace_.count()));
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(128 + sig);
  }
}

void StopSignals::wait() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return signal_ != 0; });
}

int StopSignals::received() const {
  std::lock_guard lock(mutex_);
  return signal_;
}

void StopSignals::finish() {
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

}  // namespace toolgate::cli
