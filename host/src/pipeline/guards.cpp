// Stage 2: monotonic guards (docs/design.md §2.4).  Deny or abstain; any deny
// denies; a failing guard ends the call as an error and never lets it through.
#include "../json_util.hpp"
#include "stages.hpp"

#include <time.h>

namespace toolgate::detail {

// A coarse monotonic clock: a few nanoseconds to read, millisecond
// resolution -- enough for a deadline in seconds, cheap enough to read
// around every guard of every call.
static std::chrono::milliseconds coarse_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::nanoseconds(ts.tv_nsec));
}

void run_guards(CallState& s) {
  boost::json::array denials;
  std::string message;
  const auto deadline = s.options.guard_deadline;
  // Guards are sorted by id (loading/stack.cpp): the report is deterministic.
  for (const auto& g : s.gen.guards) {
    if (!g.filter.matches(s.identity.tool)) continue;
    if (s.bus.active()) s.emit("hook/invoked", {{"stage", stage::guard}, {"source", g.id}});
    auto start = s.now();
    const auto coarse_start = deadline.count() > 0 ? coarse_now() : std::chrono::milliseconds{};
    std::optional<std::string> reason;
    std::string what;
    bool ok = guarded([&] { reason = g.fn(s.view(stage::guard)); }, &what);
    auto took = s.now() - start;
    if (deadline.count() > 0) {
      // Over its deadline, a guard's answer does not count, whatever it
      // was: fail closed (shadow mode included, like any guard failure).
      auto spent = coarse_now() - coarse_start;
      if (spent > deadline) {
        s.record(stage::guard, g.id, "timeout", took, {{"ms", spent.count()}});
        s.fail(error_code::timeout,
               "guard " + g.id + " took " + std::to_string(spent.count()) + " ms, over its " +
                   std::to_string(deadline.count()) + " ms deadline",
               stage::guard, g.id);
        return;
      }
    }
    if (!ok) {
      // Fail closed, even in shadow mode: a guard that cannot answer is a
      // broken invariant, and the call goes straight to normalization.
      s.record(stage::guard, g.id, "failed", took, {{"error", what}});
      s.fail(error_code::plugin_error, "guard " + g.id + " failed: " + what, stage::guard, g.id);
      return;
    }
    if (!reason) {
      s.record(stage::guard, g.id, "abstain", took);
      continue;
    }
    if (reason->empty()) *reason = "denied by guard " + g.id;
    *reason = to_valid_utf8(*reason);  // an embedder's guard may give any bytes
    if (g.shadow) {
      s.record(stage::guard, g.id, "would-deny", took, {{"reason", *reason}, {"shadow", true}});
      continue;
    }
    s.record(stage::guard, g.id, "deny", took, {{"reason", *reason}});
    if (!message.empty()) message += "; ";
    message += *reason;
    denials.push_back({{"source", g.id}, {"reason", std::move(*reason)}});
  }
  if (denials.empty()) return;
  std::string first = std::string(denials[0].as_object().at("source").as_string());
  s.deny(error_code::denied, std::move(message), stage::guard, std::move(first));
  s.error->denials = std::move(denials);
}

}  // namespace toolgate::detail
