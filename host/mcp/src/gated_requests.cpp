#include "gated_requests.hpp"

#include <toolgate/json.hpp>

namespace toolgate::mcp {

namespace json = boost::json;

const std::vector<GatedMethod>& gated_methods() {
  using namespace annotation;
  static const std::vector<GatedMethod> all = {
      {"resources/read", "mcp/resources/read", true, read_only | idempotent,
       "resources/read: the client reads a resource of the MCP server (arguments: its params, "
       "{uri})"},
      {"prompts/get", "mcp/prompts/get", true, read_only | idempotent,
       "prompts/get: the client gets a prompt of the MCP server (arguments: {name, arguments})"},
      {"completion/complete", "mcp/completion/complete", true, read_only | idempotent,
       "completion/complete: argument completion from the MCP server (arguments: {ref, "
       "argument, context})"},
      {"sampling/createMessage", "mcp/sampling/createMessage", false, read_only | open_world,
       "sampling/createMessage: the MCP server asks the client's model (arguments: {messages, "
       "systemPrompt, ...})"},
      {"elicitation/create", "mcp/elicitation/create", false, read_only,
       "elicitation/create: the MCP server asks the client's user (arguments: {message, "
       "requestedSchema or url, ...})"},
  };
  return all;
}

const GatedMethod* gated_method(std::string_view method, bool from_client) {
  for (const auto& g : gated_methods())
    if (g.method == method && g.from_client == from_client) return &g;
  return nullptr;
}

const GatedMethod* gated_call(std::string_view name) {
  for (const auto& g : gated_methods())
    if (g.name == name) return &g;
  return nullptr;
}

bool is_reserved_name(std::string_view name) { return name.starts_with(reserved_prefix); }

std::vector<ToolDefinition> gated_definitions(
    const std::function<ToolOutput(const ToolContext&)>& body) {
  std::vector<ToolDefinition> defs;
  for (const auto& g : gated_methods()) {
    ToolDefinition d;
    d.name = std::string(g.name);
    d.description = std::string(g.description);
    d.input_schema = json::object{{"type", "object"}};
    d.annotations = g.annotations;
    d.execute = body;
    d.code_binding = false;  // the gateway's plumbing: never a script's to call
    defs.push_back(std::move(d));
  }
  return defs;
}

ToolOutput output_from_response(const json::object& response, std::string_view method) {
  if (const auto* e = response.if_contains("error")) {
    const bool to_client = method.starts_with("sampling/") || method.starts_with("elicitation/");
    return failure_from_rpc_error(
        *e,
        (to_client ? "the MCP client refused " : "the MCP server refused ") + std::string(method));
  }
  const auto* r = response.if_contains("result");
  if (!r || !r->is_object())
    return ToolOutput::failure("the answer to " + std::string(method) + " has no result object");
  return ToolOutput::success(*r, json::array());
}

namespace {

void add_contexts_meta(json::object& result, const std::vector<std::string>& contexts) {
  if (contexts.empty()) return;
  json::array listed;
  for (const auto& c : contexts) listed.push_back(json::string(c));
  auto& meta = result["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta.get_object()["toolgate/additional_contexts"] = std::move(listed);
}

}  // namespace

Relay reply_for_request(const ToolResult& r, const std::optional<ServerAnswer>& answer,
                        const GatedMethod& method, const std::vector<std::string>& contexts) {
  Relay out;
  if (answer && answer->rpc_error && contexts.empty() && r.is_error && r.error &&
      r.error->code == error_code::tool_error && r.error->stage == stage::tool_body &&
      r.error->source == method.name && r.error->message == answer->failure_message) {
    out.kind = Relay::Kind::rpc_error;
    out.body = *answer->body;
    out.text = answer->text;
    return out;
  }
  if (answer && !answer->rpc_error && !r.is_error && r.content.empty() && r.value &&
      r.value->is_object() && r.value->get_object() == *answer->body) {
    if (contexts.empty() && !answer->text.empty()) {
      out.text = answer->text;  // as the server wrote it: no body to build
      return out;
    }
    out.body = *answer->body;
    add_contexts_meta(out.body, contexts);
    return out;
  }
  if (r.is_error) {
    out.kind = Relay::Kind::rpc_error;
    json::value error = call_result_from(r).at("_meta").at("toolgate/error");
    out.body = {{"code", refused_code},
                {"message", r.error ? r.error->message : std::string("the call failed")},
                {"data", json::object{{"toolgate/error", std::move(error)}}}};
    return out;
  }
  if (r.value && r.value->is_object()) {
    out.body = r.value->get_object();
    add_contexts_meta(out.body, contexts);
    return out;
  }
  out.kind = Relay::Kind::rpc_error;
  out.body = {
      {"code", refused_code},
      {"message", "a post-execute hook replaced the result of " + std::string(method.method) +
                      " with no result object (its value must be the method's result); "
                      "refused rather than guessed"}};
  return out;
}

}  // namespace toolgate::mcp
