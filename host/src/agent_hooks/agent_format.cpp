#include "agent_hooks/agent_format.hpp"

#include "agent_hooks/formats.hpp"

#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <algorithm>

namespace toolgate::agent_hooks {

namespace json = boost::json;

BeforeAnswer BeforeAnswer::from(const SplitBegin& begin) {
  BeforeAnswer a;
  a.verdict = begin.verdict;
  a.arguments = begin.arguments;
  a.rewritten = begin.rewritten;
  a.reason = begin.reason;
  a.additional_contexts = begin.additional_contexts;
  if (begin.verdict == SplitBegin::Verdict::deny && begin.result.error) {
    a.denied_by = begin.result.error->source;
    a.error_code = begin.result.error->code;
    if (a.reason.empty()) a.reason = begin.result.error->message;
  }
  return a;
}

AfterAnswer AfterAnswer::from(const SplitOutcome& outcome) {
  return AfterAnswer{outcome.kind, outcome.result, outcome.additional_contexts};
}

const AgentFormat* find_format(std::string_view name) {
  for (const AgentFormat* f : all_formats())
    if (f->name() == name) return f;
  return nullptr;
}

std::vector<std::string_view> format_names() {
  std::vector<std::string_view> names;
  for (const AgentFormat* f : all_formats()) names.push_back(f->name());
  std::sort(names.begin(), names.end());
  return names;
}

const std::vector<const AgentFormat*>& all_formats() {
  static const std::vector<const AgentFormat*> formats = {&claude_code_format(), &codex_format(),
                                                          &cursor_format(), &gemini_cli_format()};
  return formats;
}

namespace detail {

namespace {

std::string_view kind_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "a boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return "a number";
    case json::kind::string:
      return "a string";
    case json::kind::array:
      return "an array";
    case json::kind::object:
      return "an object";
  }
  return "something else";
}

}  // namespace

const json::object& payload_object(const json::value& payload) {
  if (!payload.is_object())
    throw BadPayload("the hook payload is not a JSON object (it is " +
                     std::string(kind_name(payload)) + ")");
  return payload.get_object();
}

const json::value& required_field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v) throw BadPayload("the hook payload has no \"" + std::string(key) + "\" field");
  return *v;
}

std::string required_string(const json::object& o, std::string_view key) {
  const json::value& v = required_field(o, key);
  if (!v.is_string())
    throw BadPayload("the hook payload's \"" + std::string(key) + "\" is " +
                     std::string(kind_name(v)) + ", not a string");
  if (v.get_string().empty())
    throw BadPayload("the hook payload's \"" + std::string(key) + "\" is empty");
  return std::string(v.get_string());
}

std::string optional_string(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return {};
  if (!v->is_string())
    throw BadPayload("the hook payload's \"" + std::string(key) + "\" is " +
                     std::string(kind_name(*v)) + ", not a string");
  return std::string(v->get_string());
}

std::string removed_argument(const json::object& original, const json::object& rewritten) {
  for (const auto& kv : original)
    if (!rewritten.contains(kv.key())) return std::string(kv.key());
  return {};
}

json::object as_arguments(const json::value& v) {
  if (v.is_object()) return v.get_object();
  return json::object{{"input", v}};
}

std::string response_text(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_null()) return {};
  if (const auto* o = v.if_object()) {
    // An MCP CallToolResult: its text blocks.
    if (const auto* content = o->if_contains("content"); content && content->is_array()) {
      std::string text;
      bool any = false;
      for (const auto& block : content->get_array()) {
        const auto* b = block.if_object();
        const json::value* t = b ? b->if_contains("text") : nullptr;
        if (t && t->is_string()) {
          if (any) text += "\n";
          text += t->get_string();
          any = true;
        } else {
          if (any) text += "\n";
          text += to_json_text(block);
          any = true;
        }
      }
      return text;
    }
    // A shell's result (Claude Code's Bash, Cursor's Shell): its output.
    if (const auto* out = o->if_contains("stdout"); out && out->is_string()) {
      std::string text(out->get_string());
      if (const auto* err = o->if_contains("stderr");
          err && err->is_string() && !err->get_string().empty()) {
        if (!text.empty() && text.back() != '\n') text += "\n";
        text += err->get_string();
      }
      return text;
    }
    // Gemini CLI's {llmContent, returnDisplay}: what the model reads.
    if (const auto* llm = o->if_contains("llmContent"); llm && llm->is_string())
      return std::string(llm->get_string());
  }
  return to_json_text(v);
}

ToolResult reported_result(std::string text, bool failed, const std::string& tool) {
  if (failed)
    return ToolResult::failure(toolgate::error_code::tool_error, std::move(text), stage::tool_body,
                               tool);
  return ToolResult::success(nullptr, json::array{text_block(text)});
}

std::string result_text(const ToolResult& r) {
  std::string text;
  bool any = false;
  for (const auto& block : r.content) {
    const auto* b = block.if_object();
    const json::value* t = b ? b->if_contains("text") : nullptr;
    if (!t || !t->is_string()) continue;
    if (any) text += "\n";
    text += t->get_string();
    any = true;
  }
  if (any) return text;
  if (r.error) return r.error->message;
  if (r.value) return to_json_text(*r.value);
  return {};
}

std::string replacement_text(const ToolResult& r) {
  std::string text = result_text(r);
  // result_text falls back to the value as JSON: a null value is no text.
  if (text == "null" && r.value && r.value->is_null()) text.clear();
  if (text.find_first_not_of(" \t\r\n") != std::string::npos) return text;
  return "toolgate: the tool's output was replaced, and the replacement has no text";
}

std::string join_contexts(const std::vector<std::string>& contexts) {
  std::string out;
  for (const auto& c : contexts) {
    if (c.empty()) continue;
    if (!out.empty()) out += "\n\n";
    out += c;
  }
  return out;
}

std::string deny_message(const BeforeAnswer& a) {
  std::string reason = a.reason.empty() ? std::string("no reason given") : a.reason;
  if (a.error_code == toolgate::error_code::plugin_error)
    return "toolgate: the plugin " +
           (a.denied_by.empty() ? std::string("(unknown)") : a.denied_by) + " failed: " + reason +
           " (the call is blocked until the plugin works again)";
  if (a.denied_by.empty()) return "toolgate: denied: " + reason;
  std::string m = "toolgate: denied by " + a.denied_by + ": " + reason;
  if (!a.error_code.empty() && a.error_code != toolgate::error_code::denied)
    m += " (" + a.error_code + ")";
  return m;
}

std::string ask_denied_message(std::string_view agent, const BeforeAnswer& a) {
  return "toolgate: the policy asks for approval before this call" +
         (a.reason.empty() ? std::string() : " (" + a.reason + ")") + ", and " +
         std::string(agent) +
         " cannot ask its user from a hook, so the call is denied; run it yourself or change "
         "the policy";
}

std::string blocked_message(const AfterAnswer& a) {
  std::string text = result_text(a.result);
  const ErrorInfo* e = a.result.error ? &*a.result.error : nullptr;
  if (e && e->code == toolgate::error_code::plugin_error)
    return "toolgate: the plugin " + e->source + " failed: " + e->message +
           " (the tool's result is withheld)";
  if (e && !e->source.empty())
    return "toolgate: the tool's result was blocked by " + e->source + ": " +
           (e->message.empty() ? text : e->message);
  return "toolgate: the tool's result was blocked: " +
         (text.empty() ? std::string("no reason given") : text);
}

std::string json_line(const json::object& o) { return to_json_text(o) + "\n"; }

std::string event_of(const json::object& o) { return required_string(o, "hook_event_name"); }

void unknown_event(std::string_view agent, const std::string& event, std::string_view handled) {
  throw BadPayload("the hook payload's \"hook_event_name\" is \"" + event + "\", which the " +
                   std::string(agent) + " adapter does not handle (it handles " +
                   std::string(handled) + ")");
}

HookReply blocking_exit(const std::string& message) {
  HookReply r;
  r.stderr_text = message.empty() ? std::string("toolgate: the hook failed") : message;
  if (r.stderr_text.back() != '\n') r.stderr_text += "\n";
  r.exit_code = 2;
  return r;
}

}  // namespace detail
}  // namespace toolgate::agent_hooks
