// stages.hpp -- the pipeline, one function per stage (docs/design.md §2).
//
// run_call() strings them together along the paths of docs/design.md §3:
//   allowed: pre-execute -> guards -> wrappers/body/render -> post-execute
//            -> normalize -> finalize -> observers
//   denied:  ... -> post-execute -> normalize -> finalize -> observers
//   failed:  ... -> normalize -> finalize -> observers
#pragma once

#include "call_state.hpp"

#include <functional>
#include <optional>

namespace toolgate::detail {

void run_pre_execute(CallState& s);  // 1: waterfall, keep/allow/ask/deny
void run_approval(CallState& s);     // ask only: one-shot approver
void run_guards(CallState& s);       // 2: monotonic, fail closed
void run_execute(CallState& s);      // 3-5: wrapper onion, body, render
// Stage 3-5 in pieces, for a body that answers later (async_call.cpp):
// whether this call's body runs that way (an execute_async tool that no
// wrapper wraps), the body's start (attempt count, hook/invoked), its
// output as the chain's result, and render.
bool body_runs_async(const CallState& s);
void announce_body(CallState& s);
ExecResult body_result(CallState& s, ToolOutput out, bool ok, const std::string& what,
                       std::chrono::steady_clock::time_point start, const Signal& signal);
void take_body_result(CallState& s, ExecResult&& r);
// The wrappers around a body that answers later, when every one that
// applies is in two halves (body_runs_async): every `before` on the way
// in, every `after` where the body's answer arrives -- no thread waits in
// between (docs/design.md §2.5, §3.2).
class HalvesChain {
 public:
  // Runs the befores, outermost first; returns the signal for the body.
  // nullptr: a before failed, the afters of the levels outside it ran with
  // that failure, and the call has failed with it.
  std::shared_ptr<Signal> begin(CallState& s);
  // The body's result: the afters, innermost first, then the result taken
  // (take_body_result) -- or the call failed with the first wrapper failure.
  void finish(CallState& s, ExecResult&& body);

 private:
  struct Level {
    const ExecuteWrapperHook* hook;
    WrapperHalves::State state;
    std::chrono::nanoseconds took;  // in before, then after
    std::uint32_t attempt;          // as before saw it: after sees the same
  };
  void unwind(CallState& s, const ExecResult& result);
  std::vector<Level> levels_;
  std::optional<ExecResult> failure_;
};
void run_post_execute(CallState& s);  // 6: accept/replace/block/context
void run_normalize(CallState& s);     // snapshot; failures become isError
void run_finalize(CallState& s);      // 7: content-only, fails closed
void run_observers(CallState& s);     // 8: frozen outcome, read-only

// UI cards (cards.cpp): the tool's pending card right after tool/call, its
// completed card right after tool/result; for the embedder, never the model.
void present_call_card(const CallState& s);
void present_result_card(const CallState& s);

// The phases every call goes through, shared by run_call() and the
// split-phase calls (split_call.cpp):
//   start_call   identity, signal, the tool/call event
//   decide_call  arguments, tool lookup, pre-execute, approval, guards
//   finish_call  normalize, finalize, observers, the one tool/result
// A Code Mode sub-call's binding rejections (code_mode/code_run.cpp): a
// call the run already saw denied is refused again without any hook
// running (refuse_now), and one whose final arguments -- after pre-execute
// -- were denied before is refused before approval and the guards.
struct SubCallBinding {
  std::optional<ErrorInfo> refuse_now;
  std::function<std::optional<ErrorInfo>(const boost::json::object& final_arguments)> check;
  boost::json::object final_arguments;  // out: what the call ran (or would have run) with
};

struct DecideOptions {
  // A Code Mode sub-call: the only calls that may carry a parent token.
  SubCallBinding* sub_call = nullptr;
  // The tool runs elsewhere (a split-phase call): a name no tool is
  // registered under is not an error.
  bool external_tool = false;
  // An `ask` the guards let through is left for the caller to put to its
  // own user instead of going to the host's approver.
  bool caller_approves = false;
};
void start_call(CallState& s, ToolCall& call);
void decide_call(CallState& s, ToolCall& call, const DecideOptions& how);
void finish_call(CallState& s, std::vector<QueuedContext>* contexts_out);

// Runs a stage (or several); anything escaping them fails the call.
template <class Fn>
void guarded_stage(CallState& s, Fn&& stage_fn) {
  std::string what;
  if (!guarded(stage_fn, &what))
    s.fail(error_code::plugin_error, "internal error: " + what, stage::call, "host");
}

// The whole call: identity checks, every stage, exactly one tool/result.
// `call` is taken (its identity and arguments are moved out), by reference
// so that no ToolCall is moved on the way in.
ToolResult run_call(const Generation& gen, const HostOptions& options, const EventBus& bus,
                    BatchContext& batch, ToolCall&& call, std::vector<QueuedContext>* contexts_out);
// The same for a Code Mode sub-call (its identity already holds the parent
// token and call id the run made); it never queues contexts.
ToolResult run_sub_call(const Generation& gen, const HostOptions& options, const EventBus& bus,
                        ToolCall call, SubCallBinding& binding);
// The same for a call started with Host::call_async: `done` gets the
// result and the queued contexts -- before this returns, or, when the tool
// body answers later, on the thread that completes it.  The call holds
// `gen` until then.
using AsyncCallDone = std::function<void(ToolResult, std::vector<QueuedContext>)>;
void run_call_async(std::shared_ptr<const Generation> gen, const HostOptions& options,
                    const EventBus& bus, ToolCall&& call, AsyncCallDone done);
// "call-<epoch>-<n>": unique within the process.
std::string new_call_id();

}  // namespace toolgate::detail
