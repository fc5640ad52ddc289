// invoke.hpp -- one hook invocation, the same for every stage: the hook's
// tool filter, the hook/invoked event, timing, and the catch-all boundary.
// A stage file then shows only its policy: what a verdict means (like one
// of nginx's phase checkers).
#pragma once

#include "call_state.hpp"

#include <time.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

namespace toolgate::detail {

// A coarse monotonic clock: a few nanoseconds to read, millisecond
// resolution -- enough for a guard's deadline in seconds, cheap enough to
// read around every guard of every call (guards.cpp, fs_gate.cpp).
inline std::chrono::milliseconds coarse_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::nanoseconds(ts.tv_nsec));
}

struct Invocation {
  bool ran = false;   // false: the hook's tool filter skips this call
  bool ok = false;    // the callback returned (it did not throw)
  std::string error;  // what it threw, when !ok
  std::chrono::nanoseconds took{0};
};

// Whether `hook` runs for this call's tool.  Most hooks have no tool
// list: they apply to every tool without matching a pattern.
// (Inlined: once per hook of every call.)
[[gnu::always_inline]] inline bool applies(const HookInfo& hook, const CallState& s) {
  return hook.filter.empty() || hook.filter.matches(s.identity.tool);
}

// Runs `fn` (which calls the hook and keeps its answer) if `hook` applies
// to this call's tool.
template <class Hook, class Fn>
Invocation invoke_hook(CallState& s, std::string_view stage, const Hook& hook, Fn&& fn) {
  Invocation r;
  if (!applies(hook, s)) return r;
  r.ran = true;
  if (s.bus.active()) s.emit("hook/invoked", {{"stage", stage}, {"source", hook.id}});
  auto start = s.now();
  r.ok = guarded(std::forward<Fn>(fn), &r.error);
  r.took = s.now() - start;
  return r;
}

// A hook that threw or answered something it may not: its trail entry says
// "failed", and the call ends as plugin_error naming the hook (fail
// closed: straight to normalization).
inline void hook_failed(CallState& s, const HookKindInfo& kind, const HookInfo& hook,
                        const Invocation& run, const std::string& what) {
  s.record(kind.stage, hook.id, "failed", run.took, {{"error", what}});
  s.fail(error_code::plugin_error, std::string(kind.noun) + " " + hook.id + " failed: " + what,
         kind.stage, hook.id);
}

}  // namespace toolgate::detail
