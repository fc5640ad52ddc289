// Stage 2: monotonic guards (docs/design.md §2.4).  Deny or abstain; any deny
// denies; a failing guard ends the call as an error and never lets it through.
#include "../json_util.hpp"
#include "invoke.hpp"
#include "stages.hpp"

namespace toolgate::detail {

void run_guards(CallState& s) {
  if (s.gen.guards.empty()) return;
  boost::json::array denials;
  std::string message;
  const auto deadline = s.options.guard_deadline;
  // Guards are sorted by id (loading/stack.cpp): the report is deterministic.
  const auto& kind = info(HookKind::guard);
  // Guards change nothing a view shows (the arguments are final, the
  // decision made): every guard gets the same one.
  const HookCall view = s.view(kind.stage);
  // One clock read per boundary between guards: a guard's time runs from
  // the end of the one before it.  With a trail or event subscribers, the
  // engine does work of its own between two guards (events are published
  // synchronously, to sinks that may be slow): the clock is read again
  // right before the guard is called, so no guard is charged for it.
  std::chrono::milliseconds mark =
      deadline.count() > 0 ? coarse_now() : std::chrono::milliseconds{};
  for (const auto& g : s.gen.guards) {
    std::optional<std::string> reason;
    auto run = invoke_hook(s, kind.stage, g, [&] {
      if (deadline.count() > 0 && (s.tracing || s.bus.active())) mark = coarse_now();
      reason = g.fn(view);
    });
    if (!run.ran) continue;
    if (deadline.count() > 0) {
      // Over its deadline, a guard's answer does not count, whatever it
      // was: fail closed (shadow mode included, like any guard failure).
      const auto now = coarse_now();
      const auto spent = now - mark;
      mark = now;
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
