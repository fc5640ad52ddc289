// split_call.hpp -- one split-phase call (docs/design.md §3.1): the state a
// call carries from begin_call() to complete_call(), and the three ways it
// can end.  The table of pending calls and their expiry is split_calls.hpp.
#pragma once

#include "call_state.hpp"

#include <chrono>
#include <memory>

namespace toolgate::detail {

// Owns what a CallState refers to, so the call outlives begin_call(): the
// generation it began on (its post-execute hooks are the ones that run at
// complete_call(), even after a reload) and its batch context.
struct SplitCall {
  SplitCall(std::shared_ptr<const Generation> g, const HostOptions& options, const EventBus& bus)
      : gen(std::move(g)), state(*gen, options, bus, batch) {}
  std::shared_ptr<const Generation> gen;
  BatchContext batch;
  CallState state;
  std::chrono::steady_clock::time_point expires;
};

// tool/call, pre-execute, approval (unless the caller approves), guards.  A
// call that ends here (denied or failed) is finished: its SplitBegin carries
// the final result and nothing is left pending.
SplitBegin begin_split(SplitCall& c, ToolCall call, const SplitBeginOptions& options);
// Ends a begun call that cannot be kept pending: a denial
// (invalid_arguments) saying why, with its one tool/result.
SplitBegin refuse_split(SplitCall& c, std::string why);
// The caller's result through post-execute, normalize, finalize, observers.
SplitOutcome complete_split(SplitCall& c, ToolResult reported);
// The call's one tool/result when the caller never completes it (`why`
// says what happened: expired, the host shut down).
void expire_split(SplitCall& c, std::string why);

}  // namespace toolgate::detail
