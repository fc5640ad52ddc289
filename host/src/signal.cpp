#include <toolgate/signal.hpp>

namespace toolgate {

std::shared_ptr<Signal> Signal::make() { return std::make_shared<Signal>(Private{}); }

std::shared_ptr<Signal> Signal::child(std::chrono::nanoseconds timeout) {
  auto c = std::make_shared<Signal>(Private{});
  c->parent_ = shared_from_this();
  auto own = Clock::now() + timeout;
  c->deadline_ = deadline_ && *deadline_ < own ? *deadline_ : own;
  std::lock_guard lock(mutex_);
  // A cancellation that already happened reaches the child at once.
  if (fired_state_.load() == static_cast<int>(SignalState::cancelled))
    c->fired_state_.store(static_cast<int>(SignalState::cancelled));
  children_.push_back(c);
  return c;
}

void Signal::cancel() { fire(SignalState::cancelled); }

void Signal::fire(SignalState why) {
  std::vector<std::shared_ptr<Signal>> to_fire;
  {
    std::lock_guard lock(mutex_);
    int expected = static_cast<int>(SignalState::pending);
    if (!fired_state_.compare_exchange_strong(expected, static_cast<int>(why))) return;
    for (auto& w : children_)
      if (auto c = w.lock()) to_fire.push_back(std::move(c));
    children_.clear();
  }
  cv_.notify_all();
  for (auto& c : to_fire) c->fire(why);
}

SignalState Signal::state() const {
  int s = fired_state_.load(std::memory_order_acquire);
  if (s != 0) return static_cast<SignalState>(s);
  // The deadline already includes every parent's deadline, and parents push
  // cancellation down, so no walk up the chain is needed.
  if (deadline_ && Clock::now() >= *deadline_) return SignalState::timed_out;
  return SignalState::pending;
}

SignalState Signal::wait_for(std::chrono::nanoseconds d) const {
  auto until = Clock::now() + d;
  if (deadline_ && *deadline_ < until) until = *deadline_;
  std::unique_lock lock(mutex_);
  cv_.wait_until(lock, until, [&] { return fired_state_.load() != 0; });
  lock.unlock();
  return state();
}

}  // namespace toolgate
