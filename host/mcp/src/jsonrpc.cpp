#include "jsonrpc.hpp"

#include <toolgate/json.hpp>

#include <boost/json/serialize.hpp>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {
const json::value null_value;
const json::object empty_object;

Message invalid(std::string problem, std::int64_t code, json::value reply_id = nullptr) {
  Message m;
  m.kind = Message::Kind::invalid;
  m.problem = std::move(problem);
  m.error_code = code;
  m.reply_id = std::move(reply_id);
  return m;
}
}  // namespace

std::string_view Message::method() const {
  if (const auto* m = body.if_contains("method"))
    if (m->is_string()) return m->get_string();
  return {};
}

const json::value& Message::id() const {
  const auto* id = body.if_contains("id");
  return id ? *id : null_value;
}

const json::object& Message::params() const {
  if (const auto* p = body.if_contains("params"))
    if (p->is_object()) return p->get_object();
  return empty_object;
}

bool valid_id(const json::value& id) { return id.is_string() || id.is_int64() || id.is_uint64(); }

std::string id_key(const json::value& id) {
  // Built by appending: "s" + a temporary string trips GCC 12's -Wrestrict.
  std::string key(1, id.is_string() ? 's' : 'n');
  if (id.is_string())
    key.append(id.get_string().data(), id.get_string().size());
  else
    key += to_json_text(id);
  return key;
}

std::string text_of(const json::value& v) { return to_json_text(v); }

std::string id_in_use_text(const json::value& id) {
  return "request id " + text_of(id) + " is already in use by a pending request";
}

Message classify(json::value v) {
  if (v.is_array())
    return invalid("JSON-RPC batches are not supported (MCP 2025-06-18 removed them)",
                   rpc_error::invalid_request);
  auto* o = v.if_object();
  if (!o) return invalid("a JSON-RPC message must be an object", rpc_error::invalid_request);
  const auto* id = o->if_contains("id");
  // Copied only for an error reply: most messages are valid.
  const auto reply_id = [&] { return id && valid_id(*id) ? *id : json::value(nullptr); };
  const auto* version = o->if_contains("jsonrpc");
  if (!version || !version->is_string() || version->get_string() != "2.0")
    return invalid("\"jsonrpc\" must be \"2.0\"", rpc_error::invalid_request, reply_id());
  const auto* method = o->if_contains("method");
  Message::Kind kind;
  if (method) {
    if (!method->is_string() || method->get_string().empty())
      return invalid("\"method\" must be a non-empty string", rpc_error::invalid_request,
                     reply_id());
    if (const auto* p = o->if_contains("params"); p && !p->is_object() && !p->is_array())
      return invalid("\"params\" must be an object", rpc_error::invalid_request, reply_id());
    // A request or notification answers nothing: one with a "result" or
    // "error" could be taken for an answer by a relay that reads the
    // envelope from the text (its "method" key written with escapes).
    if (o->contains("result") || o->contains("error"))
      return invalid("a request or notification cannot carry a \"result\" or \"error\"",
                     rpc_error::invalid_request, reply_id());
    if (id && !valid_id(*id))
      return invalid("\"id\" must be a string or an integer", rpc_error::invalid_request);
    kind = id ? Message::Kind::request : Message::Kind::notification;
  } else {
    bool has_result = o->contains("result"), has_error = o->contains("error");
    if (!id)
      return invalid("a message needs a \"method\" or an \"id\"", rpc_error::invalid_request);
    if (has_result == has_error)
      return invalid("a response needs exactly one of \"result\" and \"error\"",
                     rpc_error::invalid_request);
    // Error responses may carry a null id (the peer could not read ours).
    if (!valid_id(*id) && !(has_error && id->is_null()))
      return invalid("\"id\" must be a string or an integer", rpc_error::invalid_request);
    kind = Message::Kind::response;
  }
  // Constructed from the parsed object, not assigned: a move keeps the
  // message's storage (make_message_storage), where an assignment to a
  // default-constructed body would copy every member to the heap.
  return Message(kind, std::move(*o));
}

Message parse_message(std::string_view text, std::size_t max_depth) {
  std::string why;
  auto v = parse_untrusted(text, max_depth, &why, make_message_storage(text.size()));
  if (!v) return invalid("parse error: " + why, rpc_error::parse_error);
  return classify(std::move(*v));
}

json::object make_request(json::value id, std::string_view method, json::object params) {
  return {
      {"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", std::move(params)}};
}

json::object make_notification(std::string_view method, json::object params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

json::object make_result(json::value id, json::value result) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"result", std::move(result)}};
}

json::object make_error(json::value id, std::int64_t code, std::string_view message) {
  return {
      {"jsonrpc", "2.0"}, {"id", std::move(id)}, {"error", {{"code", code}, {"message", message}}}};
}

json::object make_error_object(json::value id, json::object error) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"error", std::move(error)}};
}

std::string request_text(const json::value& id, std::string_view method,
                         std::string_view params_text) {
  std::string out;
  // One allocation: the envelope around the params is short.
  out.reserve(params_text.size() + method.size() + 64);
  out += R"({"jsonrpc":"2.0","id":)";
  append_json_text(out, id);
  out += R"(,"method":)";
  append_json_text(out, json::string(method));
  out += R"(,"params":)";
  out.append(params_text);
  out += '}';
  return out;
}

Message read_message(std::string line) {
  Message m = parse_message(line);
  if (m.kind == Message::Kind::invalid) {
    // Kept as read: an answer that cannot be used still names, in its
    // text, the request it must end (answer_id_of).
    m.text = std::move(line);
    return m;
  }
  auto repaired = replace_lone_surrogates(line);
  m.text = repaired ? std::move(*repaired) : std::move(line);
  return m;
}

std::string error_text(std::string_view id_text, std::int64_t code, std::string_view message) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  out += id_text;
  out += R"(,"error":{"code":)";
  out += std::to_string(code);
  out += R"(,"message":)";
  append_json_text(out, json::value(message));
  out += "}}";
  return out;
}

std::string response_text(const json::value& id, bool is_error, std::string_view body_text) {
  std::string out;
  out.reserve(body_text.size() + 64);  // one allocation, as in request_text
  out += R"({"jsonrpc":"2.0","id":)";
  append_json_text(out, id);
  out += is_error ? R"(,"error":)" : R"(,"result":)";
  out.append(body_text);
  out += '}';
  return out;
}

}  // namespace toolgate::mcp
