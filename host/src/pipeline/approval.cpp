// Approval (docs/design.md §2.3): asked once per `ask`; anything but
// allowed-once denies; no approver means unavailable, which denies.
#include "stages.hpp"

namespace toolgate::detail {

void run_approval(CallState& s) {
  if (s.decision != Decision::ask) return;
  s.emit(
      "approval/requested",
      {{"reason", s.decision_reason}, {"source", s.decision_source}, {"arguments", s.arguments()}});
  auto start = s.now();
  ApprovalAnswer answer = ApprovalAnswer::unavailable;
  std::string what;
  bool ok = true;
  if (s.gen.approver) {
    ApprovalRequest req{s.identity, s.arguments(), s.decision_reason, s.decision_source, s.signal};
    ok = guarded([&] { answer = s.gen.approver(req); }, &what);
  }
  auto took = s.now() - start;
  if (!ok) {
    s.record(stage::approval, "approver", "failed", took, {{"error", what}});
    s.emit("approval/resolved", {{"answer", "failed"}, {"error", what}});
    s.fail(error_code::plugin_error, "the approver failed: " + what, stage::approval, "approver");
    return;
  }
  std::string_view name, code, prefix;
  switch (answer) {
    case ApprovalAnswer::allowed_once:
      name = "allowed-once";
      break;
    case ApprovalAnswer::rejected:
      name = "rejected";
      code = error_code::approval_rejected;
      prefix = "approval rejected: ";
      break;
    case ApprovalAnswer::cancelled:
      name = "cancelled";
      code = error_code::approval_cancelled;
      prefix = "approval cancelled: ";
      break;
    case ApprovalAnswer::unavailable:
      name = "unavailable";
      code = error_code::approval_unavailable;
      prefix = "approval unavailable (no approver could answer): ";
      break;
    default:
      // An answer outside the enum is not an approval: fail closed.
      std::string what = "the approver gave an unknown answer " +
                         std::to_string(static_cast<int>(answer)) +
                         " (it answers allowed_once, rejected, cancelled or unavailable)";
      s.record(stage::approval, "approver", "failed", took, {{"error", what}});
      s.fail(error_code::plugin_error, std::move(what), stage::approval, "approver");
      return;
  }
  s.record(stage::approval, "approver", name, took);
  s.emit("approval/resolved", {{"answer", name}});
  if (answer == ApprovalAnswer::allowed_once) {
    s.decision = Decision::allow;
    return;
  }
  s.decision = Decision::deny;
  s.deny(code, std::string(prefix) + s.decision_reason, stage::approval, s.decision_source);
}

}  // namespace toolgate::detail
