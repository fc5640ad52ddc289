// signal.hpp -- the "stop" notice a tool receives (cancel + deadline).
//
// The caller fires a signal to cancel; a signal also fires by itself when its
// deadline passes.  A child fires when its parent does.  The framework cannot
// kill code: tools cooperate by checking fired() or sleeping with wait_for().
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace toolgate {

enum class SignalState { pending = 0, cancelled = 1, timed_out = 2 };

class Signal : public std::enable_shared_from_this<Signal> {
  struct Private {
    explicit Private() = default;
  };

 public:
  using Clock = std::chrono::steady_clock;

  // Use make() or child(): a Signal lives in a shared_ptr (children keep
  // their parent).  Public only so make() can use std::make_shared -- one
  // allocation per call instead of two; Private cannot be named outside.
  explicit Signal(Private) {}

  static std::shared_ptr<Signal> make();
  // A child that fires when this signal fires or after `timeout`, whichever
  // comes first.
  std::shared_ptr<Signal> child(std::chrono::nanoseconds timeout);

  void cancel();
  // pending, cancelled or timed_out; checks the deadline and the parents.
  SignalState state() const;
  bool fired() const { return state() != SignalState::pending; }
  // Sleeps up to `d` or until the signal fires; returns state().
  SignalState wait_for(std::chrono::nanoseconds d) const;
  std::optional<Clock::time_point> deadline() const { return deadline_; }

 private:
  void fire(SignalState why);

  std::shared_ptr<Signal> parent_;
  std::optional<Clock::time_point> deadline_;  // earliest of own and parents'
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  std::atomic<int> fired_state_{0};              // a SignalState
  std::vector<std::weak_ptr<Signal>> children_;  // guarded by mutex_
};

}  // namespace toolgate
