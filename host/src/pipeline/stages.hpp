// stages.hpp -- the pipeline, one function per stage (docs/design.md §2).
//
// run_call() strings them together along the paths of docs/design.md §3:
//   allowed: pre-execute -> guards -> wrappers/body/render -> post-execute
//            -> normalize -> finalize -> observers
//   denied:  ... -> post-execute -> normalize -> finalize -> observers
//   failed:  ... -> normalize -> finalize -> observers
#pragma once

#include "call_state.hpp"

namespace toolgate::detail {

void run_pre_execute(CallState& s);   // 1: waterfall, keep/allow/ask/deny
void run_approval(CallState& s);      // ask only: one-shot approver
void run_guards(CallState& s);        // 2: monotonic, fail closed
void run_execute(CallState& s);       // 3-5: wrapper onion, body, render
void run_post_execute(CallState& s);  // 6: accept/replace/block/context
void run_normalize(CallState& s);     // snapshot; failures become isError
void run_finalize(CallState& s);      // 7: content-only, fails closed
void run_observers(CallState& s);     // 8: frozen outcome, read-only

// The whole call: identity checks, every stage, exactly one tool/result.
ToolResult run_call(const Generation& gen, const HostOptions& options, const EventBus& bus,
                    BatchContext& batch, ToolCall call, std::vector<QueuedContext>* contexts_out);

}  // namespace toolgate::detail
