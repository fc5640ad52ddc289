// Stage 1: the pre-execute waterfall (docs/design.md §2.2).
#include "../json_util.hpp"
#include "invoke.hpp"
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
  const auto& kind = info(HookKind::pre_execute);
  for (const auto& hook : s.gen.pre_execute) {
    PreVerdict v;
    auto run = invoke_hook(s, kind.stage, hook, [&] { v = hook.fn(s.view(kind.stage)); });
    if (!run.ran) continue;
    auto name = verdict_name(v.kind);
    if (!run.ok || name == "invalid")
      return hook_failed(s, kind, hook, run,
                         run.ok ? "gave an unknown verdict " +
                                      std::to_string(static_cast<int>(v.kind)) +
                                      " (a pre-execute hook answers keep, allow, ask or deny)"
                                : run.error);
    if (v.arguments)
      if (auto at = find_non_finite(*v.arguments))
        return hook_failed(s, kind, hook, run,
                           "rewrote the arguments with a non-finite number (NaN or infinity) at " +
                               *at + ", which JSON cannot carry");
    if (s.tracing) {
      boost::json::object extra;
      // Rewrites are attributed: the trail and the event log keep both sides.
      if (v.arguments && *v.arguments != s.arguments()) {
        extra["arguments_before"] = s.arguments();
        extra["arguments_after"] = *v.arguments;
      }
      if (!v.reason.empty()) extra["reason"] = v.reason;
      s.record(kind.stage, hook.id, name, run.took, std::move(extra));
    }
    if (v.arguments && *v.arguments != s.arguments()) s.rewritten = std::move(*v.arguments);
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
        s.deny(error_code::denied, v.reason.empty() ? "denied by " + hook.id : v.reason, kind.stage,
               hook.id);
        return;  // deny is terminal
    }
  }
}

}  // namespace toolgate::detail
