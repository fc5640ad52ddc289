// legacy_http.cpp -- the texts that translate a 2025-era HTTP session to
// and from 2026-07-28 requests (legacy_http.hpp).
#include "legacy_http.hpp"

#include "jsonrpc.hpp"
#include "raw_json.hpp"

#include <toolgate/json.hpp>

#include <boost/json/string.hpp>
#include <boost/json/value.hpp>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

constexpr std::string_view subscription_key = "io.modelcontextprotocol/subscriptionId";

const json::object* object_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

}  // namespace

std::string legacy_version_for(const json::object& initialize_params) {
  const auto* asked = initialize_params.if_contains("protocolVersion");
  if (asked && asked->is_string() &&
      (asked->get_string() == "2025-06-18" || asked->get_string() == "2025-11-25"))
    return std::string(asked->get_string());
  return "2025-11-25";
}

RequestEnvelope legacy_envelope(const json::object& initialize_params) {
  const auto* caps = object_at(initialize_params, "capabilities");
  RequestEnvelope e;
  e.set.emplace("io.modelcontextprotocol/protocolVersion", "2026-07-28");
  e.set.emplace("io.modelcontextprotocol/clientCapabilities", caps ? *caps : json::object{});
  if (const auto* info = object_at(initialize_params, "clientInfo"))
    e.defaults.emplace("io.modelcontextprotocol/clientInfo", *info);
  return e;
}

json::object legacy_initialize_result(const json::object& discover_result,
                                      std::string_view version) {
  json::object caps;
  if (const auto* c = object_at(discover_result, "capabilities")) caps = *c;
  // Not carried to a 2025-era client over this listener: logging/setLevel
  // (gone in 2026-07-28), resources/subscribe (the gateway offers no
  // resource updates to a 2026-07-28 client), tasks (an extension under
  // 2026-07-28 that a 2025 client cannot speak).
  for (const char* gone : {"logging", "tasks", "extensions"}) caps.erase(gone);
  if (auto* r = caps.if_contains("resources"); r && r->is_object())
    r->get_object().erase("subscribe");
  json::object out{{"protocolVersion", version}, {"capabilities", std::move(caps)}};
  const auto* meta = object_at(discover_result, "_meta");
  const auto* info = meta ? object_at(*meta, "io.modelcontextprotocol/serverInfo") : nullptr;
  out["serverInfo"] = info ? *info : json::object{{"name", "toolgate"}, {"version", "mcp-gateway"}};
  if (const auto* i = discover_result.if_contains("instructions"); i && i->is_string())
    out["instructions"] = *i;
  return out;
}

std::string without_modern_result_members(std::string text) {
  for (const char* key : {"resultType", "ttlMs", "cacheScope"})
    if (const auto m = find_path(text, {"result", key})) text = remove_member(text, *m);
  return text;
}

std::string_view legacy_listen_params() {
  return R"({"notifications":{"toolsListChanged":true,"promptsListChanged":true,)"
         R"("resourcesListChanged":true}})";
}

std::optional<std::string> legacy_notification(std::string_view text) {
  const auto method = find_path(text, {"method"});
  if (!method || method->value.of(text) == R"("notifications/subscriptions/acknowledged")")
    return std::nullopt;
  std::string out(text);
  if (const auto sub = find_path(out, {"params", "_meta", subscription_key}))
    out = remove_member(out, *sub);
  if (const auto meta = find_path(out, {"params", "_meta"})) {
    const auto v = meta->value.of(out);
    if (v.find_first_not_of("{} \t\r\n") == std::string_view::npos) out = remove_member(out, *meta);
  }
  return out;
}

std::string question_text(std::string_view id_text, std::string_view method,
                          std::string_view params_text) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  out += id_text;
  out += R"(,"method":)";
  out += to_json_text(json::value(json::string(method)));
  out += R"(,"params":)";
  out += params_text;
  out += '}';
  return out;
}

}  // namespace toolgate::mcp
