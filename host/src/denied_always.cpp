// denied_always.cpp -- Host::denied_always: which tools a caller can never
// get through, whatever the arguments (docs/design.md §2.14).
//
// Offering a tool the policy will deny every time wastes the model's
// context and invites it to try; the MCP gateway asks this before it
// relays a tools/list.  Only hooks that answer for every argument object
// count: a pre-execute hook's DENY is terminal and any guard's denial
// denies, so one such hook is enough -- whatever the others say, in any
// order.  A guard in shadow mode never denies, so it never counts.
//
// This is an offer, not a decision: every call still runs every hook.  So
// a static verdict that throws reads as "may pass" -- the tool stays
// offered and its calls are checked as always -- and is logged.
#include <toolgate/host.hpp>

#include "host_impl.hpp"

#include <spdlog/spdlog.h>

namespace toolgate {

namespace {

template <class Hooks>
std::optional<std::string> first_denial(const Hooks& hooks, const CallIdentity& who) {
  for (const auto& h : hooks) {
    if (!h.denies_always || h.shadow || !h.filter.matches(who.tool)) continue;
    try {
      if (auto why = h.denies_always(who)) {
        std::string reason = "\"" + h.id + "\" denies every call of " + who.tool;
        if (!why->empty()) reason += ": " + *why;
        return reason;
      }
    } catch (const std::exception& e) {
      spdlog::warn("the static verdict of \"{}\" on {} failed ({}); the tool stays offered", h.id,
                   who.tool, e.what());
    } catch (...) {
      spdlog::warn("the static verdict of \"{}\" on {} failed; the tool stays offered", h.id,
                   who.tool);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> Host::denied_always(const CallIdentity& who) const {
  auto g = impl_->active.load();
  if (!g->invalid_reason.empty()) return g->invalid_reason;
  if (auto why = first_denial(g->pre_execute, who)) return why;
  return first_denial(g->guards, who);
}

}  // namespace toolgate
