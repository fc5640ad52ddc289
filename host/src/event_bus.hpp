// event_bus.hpp -- delivers events to the subscribed sinks.
//
// Building an event costs allocations, so the engine asks active() first:
// with no subscriber, the call path builds no events at all.
#pragma once

#include <toolgate/events.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace toolgate::detail {

class EventBus {
 public:
  bool active() const { return active_.load(std::memory_order_acquire); }
  void subscribe(EventSink sink);
  // Stamps the sequence number and hands the event to every sink.  A sink
  // that throws is skipped; events are never lost for the other sinks.
  void publish(Event e) const;

 private:
  using Sinks = std::vector<EventSink>;
  std::mutex mutex_;  // serializes subscribe only
  std::atomic<std::shared_ptr<const Sinks>> sinks_{std::make_shared<const Sinks>()};
  std::atomic<bool> active_{false};
  mutable std::atomic<std::uint64_t> sequence_{0};
};

}  // namespace toolgate::detail
