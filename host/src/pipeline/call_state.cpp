#include "call_state.hpp"

#include "../json_util.hpp"

namespace toolgate {

void HookCall::emit(std::string_view type, boost::json::object data) const {
  // The same rule as the C ABI's emit_event (abi/host_api.cpp).
  if (type.empty() || !detail::valid_utf8(type))
    throw std::invalid_argument("an event type must be a non-empty UTF-8 string");
  if (reserved_event_type(type))
    throw std::invalid_argument("event type \"" + std::string(type) +
                                "\" is reserved for the host (tool/, tools/, hook/, approval/, "
                                "plugin/, batch/, observer/); name your own, e.g. \"todo/write\"");
  if (context) context->state->emit(type, std::move(data));
}

const boost::json::value* HookCall::candidate() const {
  return context && context->reads_candidate ? &context->state->candidate_json() : nullptr;
}

namespace detail {

HookCall CallState::view(std::string_view stage) const {
  HookCall v{identity, arguments(), original_arguments, stage};
  v.decision = decision;
  v.annotations = tool ? tool->def.annotations : 0;
  v.attempt = attempts;
  v.denied = path == CallPath::denied;
  v.context = &context_;
  return v;
}

HookCall CallState::post_execute_view() const {
  HookCall v = view(stage::post_execute);
  v.context = &post_execute_context_;
  return v;
}

void CallState::emit(std::string_view type, boost::json::object data) const {
  if (!bus.active()) return;
  Event e;
  e.type = type;
  e.session_id = identity.session_id;
  e.call_id = identity.call_id;
  e.generation = gen.number;
  e.data = std::move(data);
  bus.publish(std::move(e));
}

void CallState::append_trail(std::string_view stage, std::string_view source,
                             std::string_view verdict, std::chrono::nanoseconds took,
                             boost::json::object extra) {
  trail.push_back(TrailEntry{stage, source, verdict, took.count(), std::move(extra)});
  if (bus.active()) emit("hook/result", trail.back().to_json());
}

// Messages come from plugins and exceptions: valid UTF-8 before they reach
// events, the trail or the result.
static ErrorInfo error_info(std::string_view code, std::string_view message, std::string_view stage,
                            std::string_view source) {
  return ErrorInfo{
      std::string(code), to_valid_utf8(message), std::string(stage), to_valid_utf8(source), {}};
}

void CallState::fail(std::string_view code, std::string message, std::string_view stage,
                     std::string source) {
  path = CallPath::failed;
  error = error_info(code, message, stage, source);
}

void CallState::deny(std::string_view code, std::string message, std::string_view stage,
                     std::string source) {
  path = CallPath::denied;
  error = error_info(code, message, stage, source);
}

}  // namespace detail
}  // namespace toolgate
