#include "event_bus.hpp"

namespace toolgate::detail {

void EventBus::subscribe(EventSink sink) {
  std::lock_guard lock(mutex_);
  auto next = std::make_shared<Sinks>(*sinks_.load());
  next->push_back(std::move(sink));
  sinks_.store(std::move(next));
  active_.store(true, std::memory_order_release);
}

void EventBus::publish(Event e) const {
  e.sequence = sequence_.fetch_add(1, std::memory_order_relaxed) + 1;
  auto sinks = sinks_.load();
  for (const auto& sink : *sinks) {
    try {
      sink(e);
    } catch (...) {
      // A broken sink must not break a call or starve the other sinks.
    }
  }
}

}  // namespace toolgate::detail
