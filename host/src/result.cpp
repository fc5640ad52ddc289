#include <toolgate/result.hpp>

#include "json_util.hpp"

namespace toolgate {

namespace json = boost::json;

json::object text_block(std::string_view text) {
  // Built member by member: the initializer-list constructor's generic
  // path cost twice as much, and every result has one of these.
  json::object o(2);
  o.emplace("type", "text");
  o.emplace("text", text);
  return o;
}

json::object ToolResult::to_json() const {
  json::object o;
  o["isError"] = is_error;
  o["content"] = content;
  if (value) o["value"] = *value;
  if (error) {
    json::object e{{"code", error->code},
                   {"message", error->message},
                   {"stage", error->stage},
                   {"source", error->source}};
    if (!error->denials.empty()) e["denials"] = error->denials;
    o["error"] = std::move(e);
  }
  return o;
}

// The closed set, once: for the check and for the message that lists it.
static constexpr std::string_view kErrorCodes[] = {error_code::denied,
                                                   error_code::approval_rejected,
                                                   error_code::approval_cancelled,
                                                   error_code::approval_unavailable,
                                                   error_code::timeout,
                                                   error_code::cancelled,
                                                   error_code::plugin_error,
                                                   error_code::tool_error,
                                                   error_code::invalid_arguments,
                                                   error_code::snapshot_failed,
                                                   error_code::unknown_tool,
                                                   error_code::not_completed};

bool is_error_code(std::string_view code) {
  for (auto known : kErrorCodes)
    if (code == known) return true;
  return false;
}

static std::string error_code_list() {
  std::string out;
  for (auto known : kErrorCodes) out += (out.empty() ? "" : ", ") + std::string(known);
  return out;
}

static const json::string* string_field(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_string() ? &it->value().get_string() : nullptr;
}

std::optional<ToolResult> ToolResult::from_json(const json::value& v, std::string* why) {
  json::value copy = v;
  return from_json(std::move(copy), why);
}

std::optional<ToolResult> ToolResult::from_json(json::value&& v, std::string* why) {
  auto bad = [&](std::string w) -> std::optional<ToolResult> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  if (!v.is_object()) return bad("the result is not a JSON object");
  auto& o = v.get_object();
  for (const auto& kv : o) {
    auto k = kv.key();
    if (k != "isError" && k != "content" && k != "value" && k != "error")
      return bad("unknown key \"" + std::string(k) +
                 "\" (allowed: isError, content, value, error)");
  }
  ToolResult r;
  if (auto it = o.find("isError"); it != o.end()) {
    if (!it->value().is_bool()) return bad("/isError must be a boolean");
    r.is_error = it->value().get_bool();
  }
  auto content = o.find("content");
  if (content == o.end() || !content->value().is_array())
    return bad("/content must be an array of content blocks");
  r.content = std::move(content->value().get_array());
  if (auto it = o.find("value"); it != o.end()) r.value = std::move(it->value());
  if (auto it = o.find("error"); it != o.end()) {
    if (!it->value().is_object()) return bad("/error must be an object");
    const auto& e = it->value().get_object();
    ErrorInfo info;
    const json::string* code = string_field(e, "code");
    const json::string* message = string_field(e, "message");
    if (!code || !message) return bad("/error needs string fields \"code\" and \"message\"");
    if (!is_error_code(*code))
      return bad("/error/code \"" + std::string(*code) +
                 "\" is not an error code (the closed set: " + error_code_list() + ")");
    info.code = *code;
    info.message = *message;
    if (auto* s = string_field(e, "stage")) info.stage = *s;
    if (auto* s = string_field(e, "source")) info.source = *s;
    if (auto d = e.find("denials"); d != e.end() && d->value().is_array())
      info.denials = d->value().get_array();
    r.error = std::move(info);
  }
  if (r.is_error != r.error.has_value())
    return bad(r.is_error ? "isError is true but /error is missing"
                          : "/error is present but isError is not true");
  return r;
}

ToolResult ToolResult::success(json::value value, json::array content) {
  ToolResult r;
  r.content = std::move(content);
  r.value = std::move(value);
  return r;
}

ToolResult ToolResult::failure(std::string_view code, std::string message, std::string_view stage,
                               std::string source) {
  ToolResult r;
  r.is_error = true;
  // Whoever wrote the message (a plugin, an exception), the result carries
  // valid UTF-8: invalid bytes become U+FFFD rather than a broken result.
  message = detail::to_valid_utf8(message);
  r.content.push_back(text_block(message));
  r.error =
      ErrorInfo{std::string(code), std::move(message), std::string(stage), std::move(source), {}};
  return r;
}

}  // namespace toolgate
