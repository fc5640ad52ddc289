#include "tool_mapping.hpp"

#include "raw_json.hpp"

#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <vector>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {
std::optional<bool> hint(const json::object& a, std::string_view key) {
  if (const auto* v = a.if_contains(key))
    if (v->is_bool()) return v->get_bool();
  return std::nullopt;
}
}  // namespace

std::uint32_t annotation_bits(const json::value& annotations) {
  static const json::object none;
  const auto& a = annotations.is_object() ? annotations.get_object() : none;
  std::uint32_t bits = 0;
  bool read_only = hint(a, "readOnlyHint").value_or(false);
  if (read_only) bits |= annotation::read_only;
  if (!read_only && hint(a, "destructiveHint").value_or(true)) bits |= annotation::destructive;
  if (hint(a, "idempotentHint").value_or(false)) bits |= annotation::idempotent;
  if (hint(a, "openWorldHint").value_or(true)) bits |= annotation::open_world;
  return bits;
}

std::optional<ToolDefinition> tool_definition(const json::value& tool, std::string* why) {
  const auto* o = tool.if_object();
  if (!o) {
    if (why) *why = "a tool must be an object";
    return std::nullopt;
  }
  const auto* name = o->if_contains("name");
  if (!name || !name->is_string() || name->get_string().empty()) {
    if (why) *why = "a tool needs a non-empty string \"name\"";
    return std::nullopt;
  }
  ToolDefinition d;
  d.name = std::string(name->get_string());
  if (const auto* v = o->if_contains("description"); v && v->is_string())
    d.description = std::string(v->get_string());
  if (const auto* v = o->if_contains("inputSchema")) d.input_schema = *v;
  if (const auto* v = o->if_contains("outputSchema")) d.output_schema = *v;
  const auto* ann = o->if_contains("annotations");
  d.annotations = annotation_bits(ann ? *ann : json::value());
  return d;
}

ToolOutput output_from_call_result(const json::value& result, std::string_view tool) {
  const auto* o = result.if_object();
  if (!o)
    return ToolOutput::failure("the MCP server answered tools/call for " + std::string(tool) +
                               " with a result that is not an object");
  // Copies are constructed, not assigned: they stay in the answer's own
  // storage (make_message_storage), one block, instead of the heap.
  json::array content;
  if (const auto* c = o->if_contains("content")) {
    if (!c->is_array())
      return ToolOutput::failure("the MCP server's result for " + std::string(tool) +
                                 " has a \"content\" that is not an array");
    replace_keeping_storage(content, json::array(c->get_array()));
  } else if (!o->contains("structuredContent") && !o->contains("isError")) {
    return ToolOutput::failure("the MCP server's result for " + std::string(tool) +
                               " is not a CallToolResult (no \"content\")");
  }
  bool is_error = false;
  if (const auto* e = o->if_contains("isError")) is_error = e->is_bool() && e->get_bool();
  if (is_error) {
    std::string text;
    for (const auto& b : content) {
      const auto* bo = b.if_object();
      if (!bo) continue;
      const auto* t = bo->if_contains("text");
      if (!t || !t->is_string()) continue;
      if (!text.empty()) text += '\n';
      text.append(t->get_string().data(), t->get_string().size());
    }
    if (text.empty()) text.append("the MCP server reported an error for ").append(tool);
    return ToolOutput::failure(std::move(text));
  }
  const auto* structured = o->if_contains("structuredContent");
  return ToolOutput::success(
      structured && structured->is_object() ? json::value(*structured) : json::value(nullptr),
      std::move(content));
}

ToolOutput output_from_rpc_error(const json::value& error, std::string_view tool) {
  return failure_from_rpc_error(error,
                                "the MCP server refused tools/call for " + std::string(tool));
}

ToolOutput failure_from_rpc_error(const json::value& error, std::string msg) {
  if (const auto* e = error.if_object()) {
    if (const auto* c = e->if_contains("code"); c && c->is_number())
      msg += " (JSON-RPC error " + to_json_text(*c) + ")";
    if (const auto* m = e->if_contains("message"); m && m->is_string())
      msg += ": " + std::string(m->get_string());
    // Its data too: relayed when no hook changed the failure, so the hooks
    // must have read it (redact, a post-execute policy).
    if (const auto* d = e->if_contains("data")) msg += " (data: " + to_json_text(*d) + ")";
  }
  return ToolOutput::failure(std::move(msg));
}

json::object call_result_from(const ToolResult& r) {
  json::object out;
  if (!r.is_error) {
    out["content"] = r.content;
    if (r.value && r.value->is_object()) out["structuredContent"] = *r.value;
    out["isError"] = false;
    return out;
  }
  json::array content = r.content;
  json::object err;
  if (r.error) {
    err = {{"code", r.error->code},
           {"message", r.error->message},
           {"stage", r.error->stage},
           {"source", r.error->source}};
    if (!r.error->denials.empty()) err["denials"] = r.error->denials;
  } else {
    err = {{"code", error_code::tool_error},
           {"message", "the call failed"},
           {"stage", ""},
           {"source", "host"}};
  }
  if (content.empty()) content.push_back(text_block(err.at("message").as_string()));
  out["content"] = std::move(content);
  out["isError"] = true;
  out["_meta"] = json::object{{"toolgate/error", std::move(err)}};
  return out;
}

void add_contexts(json::object& call_result, const std::vector<std::string>& contexts) {
  if (contexts.empty()) return;
  auto& content = call_result["content"];
  if (!content.is_array()) content = json::array();
  json::array listed;
  for (const auto& text : contexts) {
    content.get_array().push_back(text_block(text));
    listed.push_back(json::string(text));
  }
  auto& meta = call_result["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta.get_object()["toolgate/additional_contexts"] = std::move(listed);
}

namespace {

// The final result is the failure the tool body made of the server's error,
// untouched by post-execute, normalization and finalize.
bool unchanged_failure(const ToolResult& r, const ServerAnswer& a, std::string_view tool) {
  return r.is_error && r.error && r.error->code == error_code::tool_error &&
         r.error->stage == stage::tool_body && r.error->source == tool &&
         r.error->denials.empty() && !a.failure_message.empty() &&
         r.error->message == a.failure_message && r.content.size() == 1 &&
         r.content[0] == json::value(text_block(a.failure_message)) && !r.value;
}

// The final result is the server's success, untouched.
bool unchanged_success(const ToolResult& r, const json::object& body) {
  if (r.is_error) return false;
  const auto* content = body.if_contains("content");
  static const json::array none;
  if (r.content != (content && content->is_array() ? content->get_array() : none)) return false;
  // A structuredContent that is not an object reached no hook (the value
  // was null): the server's answer is not what they saw.
  const auto* structured = body.if_contains("structuredContent");
  if (structured) return structured->is_object() && r.value && *r.value == *structured;
  return !r.value || r.value->is_null();
}

// Whether the hooks saw everything of a server's isError result that
// relaying it would pass on: its text is the failure message they read;
// images and audio are binary (no hook reads them as text); embedded
// resources, resource links and structured content reached no hook, so
// such a result is rebuilt from what the hooks saw instead.
bool error_result_seen(const json::object& body) {
  if (body.contains("structuredContent")) return false;
  const auto* content = body.if_contains("content");
  if (!content || !content->is_array()) return true;
  for (const auto& b : content->get_array()) {
    const auto* o = b.if_object();
    const auto* type = o ? o->if_contains("type") : nullptr;
    if (!type || !type->is_string()) return false;
    const auto& t = type->get_string();
    if (t != "text" && t != "image" && t != "audio") return false;
  }
  return true;
}

// The server's error result text with `error` added to its _meta, or
// empty when that cannot be done in the text (rebuilt instead).
std::string with_toolgate_error(const ServerAnswer& a, const json::value& error) {
  if (a.text.empty()) return {};
  const std::string member = to_json_text(error);
  const auto* meta = a.body->if_contains("_meta");
  if (!meta) {
    std::string value = R"({"toolgate/error":)" + member + "}";
    return insert_first_member(a.text, 0, R"("_meta")", value);
  }
  if (!meta->is_object() || meta->get_object().contains("toolgate/error")) return {};
  auto span = find_member(a.text, 0, "_meta");
  if (!span) return {};
  return insert_first_member(a.text, span->value.begin, R"("toolgate/error")", member);
}

}  // namespace

Relay relay_for(const ToolResult& r, const std::optional<ServerAnswer>& answer,
                std::string_view tool, const std::vector<std::string>& contexts) {
  Relay out;
  if (answer && answer->rpc_error && contexts.empty() && unchanged_failure(r, *answer, tool)) {
    out.kind = Relay::Kind::rpc_error;
    out.body = *answer->body;
    out.text = answer->text;
    return out;
  }
  if (answer && !answer->rpc_error) {
    const auto* e = answer->body->if_contains("isError");
    const bool server_error = e && e->is_bool() && e->get_bool();
    if (server_error ? error_result_seen(*answer->body) && unchanged_failure(r, *answer, tool)
                     : unchanged_success(r, *answer->body)) {
      if (!server_error && contexts.empty() && !answer->text.empty()) {
        out.text = answer->text;  // as the server wrote it: no body to build
        return out;
      }
      out.body = *answer->body;
      if (server_error) {
        // toolgate's account of the error joins the server's own _meta.
        const auto error = call_result_from(r).at("_meta").at("toolgate/error");
        if (contexts.empty()) out.text = with_toolgate_error(*answer, error);
        auto& meta = out.body["_meta"];
        if (!meta.is_object()) meta = json::object();
        meta.get_object()["toolgate/error"] = error;
      }
      add_contexts(out.body, contexts);
      return out;
    }
  }
  out.body = call_result_from(r);
  add_contexts(out.body, contexts);
  return out;
}

std::string forward_params(std::string_view client_text, const json::object& client_params,
                           std::string_view tool, const json::object& final_arguments, bool as_task,
                           bool round_trip_is_ours) {
  // Members the server must not see: the gateway's own multi round-trip
  // answer (2026-07-28) when it asked, and the client's task unless the
  // server runs the call as one.
  std::vector<std::string_view> drop;
  if (!as_task) drop.push_back("task");
  if (round_trip_is_ours) {
    drop.push_back("inputResponses");
    drop.push_back("requestState");
  }
  static const json::object no_arguments;
  const auto* sent = client_params.if_contains("arguments");
  const bool rewritten =
      final_arguments != (sent && sent->is_object() ? sent->get_object() : no_arguments);
  const auto* name = client_params.if_contains("name");
  const bool same_name = name && name->is_string() && name->get_string() == tool;
  auto rebuilt = [&] {
    json::object p = client_params;
    for (auto key : drop) p.erase(key);
    if (as_task && !p.contains("task")) p["task"] = json::object{};
    p["name"] = tool;
    p["arguments"] = final_arguments;
    return to_json_text(p);
  };
  if (client_text.empty() || client_text.front() != '{' || !same_name) return rebuilt();
  std::string text(client_text);
  for (auto key : drop) {
    if (!client_params.contains(key)) continue;
    auto member = find_member(text, 0, key);
    if (!member) return rebuilt();
    text = remove_member(text, *member);
  }
  if (as_task && !client_params.contains("task"))
    text = insert_first_member(text, 0, R"("task")", "{}");
  if (rewritten) {
    const std::string args = to_json_text(final_arguments);
    if (!sent) return insert_first_member(text, 0, R"("arguments")", args);
    auto span = find_member(text, 0, "arguments");
    if (!span) return rebuilt();
    text = replace_span(text, span->value, args);
  }
  return text;
}

}  // namespace toolgate::mcp
