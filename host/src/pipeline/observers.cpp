// Stage 8: result observers (docs/design.md §2.10).  They see the frozen
// outcome; their failures are reported and change nothing.
#include "stages.hpp"

namespace toolgate {

boost::json::object TrailEntry::to_json() const {
  boost::json::object entry{{"stage", stage}, {"source", source}, {"verdict", verdict}, {"ns", ns}};
  for (const auto& kv : extra) entry[kv.key()] = kv.value();
  return entry;
}

boost::json::array Outcome::trail_json() const {
  boost::json::array a;
  a.reserve(trail.size());
  for (const auto& e : trail) a.push_back(e.to_json());
  return a;
}

boost::json::object Outcome::to_json() const {
  boost::json::object call{{"call_id", identity.call_id},
                           {"tool", identity.tool},
                           {"session_id", identity.session_id},
                           {"parent_token", identity.parent_token}};
  add_trace_context(call, identity.trace);
  return {{"call", std::move(call)},
          {"original_arguments", original_arguments},
          {"final_arguments", final_arguments},
          {"trail", trail_json()},
          {"result", result.to_json()},
          {"generation", generation}};
}

namespace detail {

void run_observers(CallState& s) {
  if (s.gen.observers.empty()) return;
  const Outcome outcome{s.identity, s.original_arguments, s.arguments(), s.trail,
                        s.result,   s.gen.number,         s.context()};
  for (const auto& o : s.gen.observers) {
    if (!o.filter.matches(s.identity.tool)) continue;
    std::string what;
    if (!guarded([&] { o.fn(outcome); }, &what))
      s.emit("observer/failed", {{"source", o.id}, {"error", what}});
  }
}

}  // namespace detail
}  // namespace toolgate
