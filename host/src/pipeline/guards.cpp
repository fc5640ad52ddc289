// Stage 2: monotonic guards (SPEC §2.4).  Deny or abstain; any deny denies;
// a failing guard ends the call as an error and never lets it through.
#include "../json_util.hpp"
#include "stages.hpp"

namespace toolgate::detail {

void run_guards(CallState& s) {
  boost::json::array denials;
  std::string message;
  // Guards are sorted by id (generation.cpp): the report is deterministic.
  for (const auto& g : s.gen.guards) {
    if (!g.filter.matches(s.identity.tool)) continue;
    if (s.bus.active()) s.emit("hook/invoked", {{"stage", stage::guard}, {"source", g.id}});
    auto start = s.now();
    std::optional<std::string> reason;
    std::string what;
    bool ok = guarded([&] { reason = g.fn(s.view(stage::guard)); }, &what);
    auto took = s.now() - start;
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
