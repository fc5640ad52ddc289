// Stage 2: monotonic guards (docs/design.md §2.4).  Deny or abstain; any deny
// denies; a failing guard ends the call as an error and never lets it through.
#include "../json_util.hpp"
#include "invoke.hpp"
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
  const auto& kind = info(HookKind::guard);
  for (const auto& g : s.gen.guards) {
    std::optional<std::string> reason;
    std::chrono::milliseconds coarse_start{};
    auto run = invoke_hook(s, kind.stage, g, [&] {
      if (deadline.count() > 0) coarse_start = coarse_now();
      reason = g.fn(s.view(kind.stage));
    });
    if (!run.ran) continue;
    if (deadline.count() > 0) {
      // Over its deadline, a guard's answer does not count, whatever it
      // was: fail closed (shadow mode included, like any guard failure).
      auto spent = coarse_now() - coarse_start;
      if (spent > deadline) {
        s.record(kind.stage, g.id, "timeout", run.took, {{"ms", spent.count()}});
        s.fail(error_code::timeout,
               "guard " + g.id + " took " + std::to_string(spent.count()) + " ms, over its " +
                   std::to_string(deadline.count()) + " ms deadline",
               kind.stage, g.id);
        return;
      }
    }
    // Fail closed, even in shadow mode: a guard that cannot answer is a
    // broken invariant, and the call goes straight to normalization.
    if (!run.ok) return hook_failed(s, kind, g, run, run.error);
    if (!reason) {
      s.record(kind.stage, g.id, "abstain", run.took);
      continue;
    }
    if (reason->empty()) *reason = "denied by guard " + g.id;
    *reason = to_valid_utf8(*reason);  // an embedder's guard may give any bytes
    if (g.shadow) {
      s.record(kind.stage, g.id, "would-deny", run.took, {{"reason", *reason}, {"shadow", true}});
      continue;
    }
    s.record(kind.stage, g.id, "deny", run.took, {{"reason", *reason}});
    if (!message.empty()) message += "; ";
    message += *reason;
    denials.push_back({{"source", g.id}, {"reason", std::move(*reason)}});
  }
  if (denials.empty()) return;
  std::string first = std::string(denials[0].as_object().at("source").as_string());
  s.deny(error_code::denied, std::move(message), kind.stage, std::move(first));
  s.error->denials = std::move(denials);
}

}  // namespace toolgate::detail
