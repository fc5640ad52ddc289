#include "request_envelope.hpp"

#include "jsonrpc.hpp"
#include "raw_json.hpp"

#include <toolgate/json.hpp>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

// The envelope applied to parsed values: the path for text the raw editor
// cannot trust (a key written with escapes is invisible to it).
std::string rewritten(std::string_view text, const RequestEnvelope& e) {
  Message m = parse_message(text);
  if (m.kind != Message::Kind::request) return std::string(text);
  auto& params = m.body["params"];
  if (params.is_null()) params = json::object{};
  if (!params.is_object()) return std::string(text);
  auto& meta = params.get_object()["_meta"];
  if (!meta.is_object()) meta = json::object{};
  auto& members = meta.get_object();
  for (const auto& kv : e.set) members[kv.key()] = kv.value();
  for (const auto& kv : e.defaults)
    if (!members.contains(kv.key())) members[kv.key()] = kv.value();
  return to_json_text(m.body);
}

}  // namespace

RequestEnvelope gateway_envelope(json::object capabilities) {
  RequestEnvelope e;
  e.set = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
           {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)}};
  e.defaults = {{"io.modelcontextprotocol/clientInfo",
                 json::object{{"name", "toolgate"}, {"version", "mcp-gateway"}}}};
  return e;
}

std::string with_envelope(std::string_view request_text, const RequestEnvelope& e) {
  std::string out(request_text);
  const auto open = out.find('{');
  if (e.empty() || open == std::string::npos) return out;
  json::object all = e.defaults;
  for (const auto& kv : e.set) all[kv.key()] = kv.value();

  const auto params = find_path(out, {"params"});
  if (!params) {
    if (has_escaped_key(out, open)) return rewritten(request_text, e);
    return insert_first_member(out, open, R"("params")",
                               to_json_text(json::object{{"_meta", std::move(all)}}));
  }
  if (out[params->value.begin] != '{') return out;
  const auto meta = find_path(out, {"params", "_meta"});
  if (!meta) {
    if (has_escaped_key(out, params->value.begin)) return rewritten(request_text, e);
    return insert_first_member(out, params->value.begin, R"("_meta")", to_json_text(all));
  }
  if (out[meta->value.begin] != '{' || has_escaped_key(out, meta->value.begin))
    return rewritten(request_text, e);
  // Edits inside _meta leave the position of its '{' where it was.
  const std::size_t at = meta->value.begin;
  for (const auto& kv : e.set) {
    if (auto m = find_member(out, at, kv.key()))
      out = replace_span(out, m->value, to_json_text(kv.value()));
    else
      out = insert_first_member(out, at, to_json_text(json::string(kv.key())),
                                to_json_text(kv.value()));
  }
  for (const auto& kv : e.defaults)
    if (!find_member(out, at, kv.key()))
      out = insert_first_member(out, at, to_json_text(json::string(kv.key())),
                                to_json_text(kv.value()));
  return out;
}

TraceContext trace_context_in(const json::object& params) {
  const auto* meta = params.if_contains("_meta");
  if (!meta || !meta->is_object()) return {};
  auto text = [&](std::string_view key) {
    const auto* v = meta->get_object().if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
  };
  return trace_context_of(text("traceparent"), text("tracestate"));
}

RequestEnvelope trace_envelope(const TraceContext& trace) {
  RequestEnvelope e;
  if (trace.empty()) return e;
  e.defaults["traceparent"] = trace.traceparent;
  if (!trace.tracestate.empty()) e.defaults["tracestate"] = trace.tracestate;
  return e;
}

}  // namespace toolgate::mcp
