// Stage 1: the pre-execute waterfall (docs/design.md §2.2).
#include "stages.hpp"

namespace toolgate::detail {

static std::string_view verdict_name(PreVerdict::Kind k) {
  switch (k) {
    case PreVerdict::Kind::keep:
      return "keep";
    case PreVerdict::Kind::allow:
      return "allow";
    case PreVerdict::Kind::ask:
      return "ask";
    case PreVerdict::Kind::deny:
      return "deny";
  }
  return "invalid";
}

void run_pre_execute(CallState& s) {
  for (const auto& hook : s.gen.pre_execute) {
    if (!hook.filter.matches(s.identity.tool)) continue;
    if (s.bus.active())
      s.emit("hook/invoked", {{"stage", stage::pre_execute}, {"source", hook.id}});
    auto start = s.now();
    PreVerdict v;
    std::string what;
    bool ok = guarded([&] { v = hook.fn(s.view(stage::pre_execute)); }, &what);
    auto took = s.now() - start;
    if (!ok) {
      s.record(stage::pre_execute, hook.id, "failed", took, {{"error", what}});
      s.fail(error_code::plugin_error, "pre-execute hook " + hook.id + " failed: " + what,
             stage::pre_execute, hook.id);
      return;
    }
    auto name = verdict_name(v.kind);
    if (name == "invalid") {
      s.record(stage::pre_execute, hook.id, "failed", took);
      s.fail(error_code::plugin_error, "pre-execute hook " + hook.id + " gave an unknown verdict",
             stage::pre_execute, hook.id);
      return;
    }
    boost::json::object extra;
    if (v.arguments && *v.arguments != s.arguments()) {
      // Rewrites are attributed: the trail and the event log keep both sides.
      if (s.tracing) {
        extra["arguments_before"] = s.arguments();
        extra["arguments_after"] = *v.arguments;
      }
      s.rewritten = std::move(*v.arguments);
    }
    if (!v.reason.empty()) extra["reason"] = v.reason;
    s.record(stage::pre_execute, hook.id, name, took, std::move(extra));
    switch (v.kind) {
      case PreVerdict::Kind::keep:
        break;
      case PreVerdict::Kind::allow:
        s.decision = Decision::allow;
        s.decision_reason.clear();
        s.decision_source = hook.id;
        break;
      case PreVerdict::Kind::ask:
        s.decision = Decision::ask;
        s.decision_reason = std::move(v.reason);
        s.decision_source = hook.id;
        break;
      case PreVerdict::Kind::deny:
        s.decision = Decision::deny;
        s.deny(error_code::denied, v.reason.empty() ? "denied by " + hook.id : v.reason,
               stage::pre_execute, hook.id);
        return;  // deny is terminal
    }
  }
}

}  // namespace toolgate::detail
