// One call, start to finish (docs/design.md §3): exactly one tool/result,
// whatever happens on the way.
#include "../json_util.hpp"
#include "stages.hpp"

#include <toolgate/code_mode.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>

namespace toolgate::detail {

namespace {

// Whether a script may call `tool` in `gen`: Code Mode is on there
// (run_code is one of its tools) and the tool is one of its bindings.
bool callable_from_code(const Generation& gen, std::string_view tool) {
  if (tool == code_mode_tool || !gen.tools.count(code_mode_tool)) return false;
  auto it = gen.tools.find(tool);
  return it != gen.tools.end() && it->second->def.code_binding;
}

}  // namespace

std::string new_call_id() {
  static std::atomic<std::uint64_t> counter{0};
  static const auto epoch =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  // Formatted in place: one allocation (the result), not one per piece.
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "call-%llu-%llu",
                        static_cast<unsigned long long>(epoch % 1000000007),
                        static_cast<unsigned long long>(counter.fetch_add(1) + 1));
  return std::string(buf, static_cast<std::size_t>(n));
}

// "unknown tool "x"; the tools are: a, b, c" -- so the caller can fix the
// name (the names are what tools/list shows anyway).  Sorted (the map's
// order); a long list is cut after 20.
static std::string unknown_tool_message(const detail::Generation& gen, const std::string& name) {
  std::string m = "unknown tool \"" + name + "\"";
  if (gen.tools.empty()) return m + "; no tool is registered";
  m += "; the tools are: ";
  std::size_t listed = 0;
  for (const auto& [tool, entry] : gen.tools) {
    if (listed == 20) {
      m += ", and " + std::to_string(gen.tools.size() - listed) + " more";
      break;
    }
    m += (listed++ ? ", " : "") + tool;
  }
  return m;
}

void decide_call(CallState& s, ToolCall& call, const DecideOptions& how) {
  if (call.arguments.is_null()) call.arguments = boost::json::object();
  if (!call.arguments.is_object()) {
    s.fail(error_code::invalid_arguments,
           "arguments must be a JSON object, got " + std::string(to_string(call.arguments.kind())),
           stage::call, "host");
    return;
  }
  if (auto at = find_non_finite(call.arguments)) {
    // An embedder's value can hold one; no event, plugin or peer could read it.
    s.fail(error_code::invalid_arguments,
           "the arguments hold a non-finite number (NaN or infinity) at " + *at +
               ", which JSON cannot carry",
           stage::call, "host");
    return;
  }
  // Taken whole, in whatever storage the caller parsed it (the gateway:
  // one block per message): an assignment would copy it to the heap.
  replace_keeping_storage(s.original_arguments, std::move(call.arguments.get_object()));
  if (!how.sub_call && (!s.identity.parent_token.empty() || !s.identity.parent_call_id.empty() ||
                        s.identity.depth != 0)) {
    // Only the host makes sub-calls: a caller that could name a parent
    // would pass for code inside a run (and skip additional contexts).
    s.fail(error_code::invalid_arguments,
           "a call cannot carry a parent token, parent call id or depth: the host sets them for "
           "Code Mode's sub-calls only; send the call without them",
           stage::call, "host");
    return;
  }
  if (how.sub_call && how.sub_call->refuse_now) {
    s.fail(how.sub_call->refuse_now->code, how.sub_call->refuse_now->message,
           how.sub_call->refuse_now->stage, how.sub_call->refuse_now->source);
    return;
  }
  if (how.sub_call && !callable_from_code(s.gen, s.identity.tool)) {
    // The run listed its bindings when it started; the generation this
    // sub-call runs in decides: a reload may since have withdrawn the
    // tool's binding (an MCP tool whose pin drifted) or Code Mode itself
    // (a locked "enabled": false).
    s.fail(error_code::denied,
           "\"" + s.identity.tool +
               "\" is not one of the tools a script can call (any more: the host's tools or "
               "Code Mode changed while this script ran)",
           stage::call, "host/code-mode");
    return;
  }
  auto it = s.gen.tools.find(s.identity.tool);
  if (it != s.gen.tools.end()) {
    s.tool = it->second.get();
    present_call_card(s);  // the pending card, as the call starts
  } else if (!how.external_tool) {
    s.fail(error_code::unknown_tool, unknown_tool_message(s.gen, s.identity.tool), stage::call,
           "host");
    return;
  }
  if (!s.gen.invalid_reason.empty()) {
    // Fail closed: without a valid generation no guard can be trusted.
    s.fail(error_code::denied, "no valid plugin generation: " + s.gen.invalid_reason, stage::call,
           "host");
    return;
  }

  run_pre_execute(s);
  if (how.sub_call && how.sub_call->check && s.path == CallPath::running)
    if (auto refused = how.sub_call->check(s.arguments())) {
      s.fail(refused->code, refused->message, refused->stage, refused->source);
      return;
    }
  if (s.path == CallPath::running && s.decision == Decision::ask && !how.caller_approves)
    run_approval(s);
  if (s.path == CallPath::running) run_guards(s);
}

void start_call(CallState& s, ToolCall& call) {
  s.identity = std::move(call.identity);
  if (s.identity.call_id.empty()) s.identity.call_id = new_call_id();
  if (!s.identity.trace.empty())  // an embedder's, unchecked until now
    s.identity.trace = trace_context_of(s.identity.trace.traceparent, s.identity.trace.tracestate);
  s.signal = call.signal ? std::move(call.signal) : Signal::make();
  s.tracing = s.bus.active() || !s.gen.observers.empty();
  if (s.tracing) s.trail.reserve(16);
  // tool/call is logged before anything runs.
  if (s.bus.active()) {
    boost::json::object data{{"tool", s.identity.tool},
                             {"arguments", call.arguments},
                             {"parent_token", s.identity.parent_token}};
    if (!s.identity.parent_call_id.empty()) {
      data["parent_call_id"] = s.identity.parent_call_id;
      data["depth"] = s.identity.depth;
    }
    if (!s.identity.client.empty()) data["client"] = s.identity.client;
    if (!s.identity.agent_id.empty()) data["agent_id"] = s.identity.agent_id;
    add_trace_context(data, s.identity.trace);
    s.emit("tool/call", std::move(data));
  }
}

void finish_call(CallState& s, std::vector<QueuedContext>* contexts_out) {
  std::string what;
  bool ok = guarded([&] { run_normalize(s); }, &what);
  if (!ok)
    s.result = ToolResult::failure(error_code::snapshot_failed, "normalization failed: " + what,
                                   stage::normalize, "host");
  if (!guarded([&] { run_finalize(s); }, &what))
    s.result = ToolResult::failure(error_code::tool_error, "finalize failed: " + what,
                                   stage::finalize, "host");
  guarded([&] { run_observers(s); }, &what);
  if (s.bus.active()) s.emit("tool/result", {{"result", s.result.to_json()}});
  present_result_card(s);
  // Sub-calls never queue additional contexts (call/result adjacency).
  if (contexts_out && s.identity.parent_token.empty())
    for (auto& c : s.contexts) contexts_out->push_back(std::move(c));
}

// Every stage up to post-execute, along the call's path.
static void run_stages(CallState& s, ToolCall& call, const DecideOptions& how) {
  guarded_stage(s, [&] {
    decide_call(s, call, how);
    if (s.path == CallPath::running) run_execute(s);
    if (s.path == CallPath::denied || s.path == CallPath::executed) run_post_execute(s);
  });
}

ToolResult run_call(const Generation& gen, const HostOptions& options, const EventBus& bus,
                    BatchContext& batch, ToolCall&& call,
                    std::vector<QueuedContext>* contexts_out) {
  CallState s(gen, options, bus, batch);
  start_call(s, call);
  run_stages(s, call, {});
  finish_call(s, contexts_out);
  return std::move(s.result);
}

ToolResult run_sub_call(const Generation& gen, const HostOptions& options, const EventBus& bus,
                        ToolCall call, SubCallBinding& binding) {
  BatchContext batch;
  CallState s(gen, options, bus, batch);
  start_call(s, call);
  DecideOptions how;
  how.sub_call = &binding;
  run_stages(s, call, how);
  binding.final_arguments = s.arguments();
  finish_call(s, nullptr);
  return std::move(s.result);
}

}  // namespace toolgate::detail
