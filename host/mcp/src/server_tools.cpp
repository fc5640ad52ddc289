#include "server_tools.hpp"

#include "gated_requests.hpp"
#include "jsonrpc.hpp"
#include "tool_mapping.hpp"

#include <spdlog/spdlog.h>

#include <vector>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

std::string clash_text(std::string_view tool, std::string_view plugin) {
  return "the MCP server's tool \"" + std::string(tool) +
         "\" has the same name as a tool of plugin \"" + std::string(plugin) +
         "\"; toolgate serves neither: rename one, or disable the plugin";
}

}  // namespace

ServerTools::ServerTools(Host& host, AsyncExecuteFn body, Body gated_body, ToolPins& pins,
                         std::string session_id, std::vector<ToolDefinition> own_tools)
    : host_(host),
      body_(std::move(body)),
      gated_(gated_definitions(gated_body)),
      own_(std::move(own_tools)),
      pins_(pins),
      session_id_(std::move(session_id)) {
  for (const auto& t : own_) own_names_.insert(t.name);
  auto all = gated_;
  all.insert(all.end(), own_.begin(), own_.end());
  host_.set_tools(std::move(all), false);
}

void ServerTools::on_list_result(const json::object& result, bool had_cursor) {
  const auto* next = result.if_contains("nextCursor");
  const bool complete = !had_cursor && !(next && next->is_string());
  const auto* tools = result.if_contains("tools");
  register_tools(tools ? *tools : json::value(), complete);
}

void ServerTools::mark_stale() {
  std::lock_guard lock(mutex_);
  stale_ = true;
}

bool ServerTools::ready(const std::string& tool) {
  std::lock_guard lock(mutex_);
  return !stale_ && known_.count(tool);
}

void ServerTools::ensure(const std::string& tool, Peer& server, const Signal& signal,
                         SlotWaker* waker) {
  auto need = [&] {
    std::lock_guard lock(mutex_);
    return stale_ || !known_.count(tool);
  };
  if (!need()) return;
  std::lock_guard lock(refresh_mutex_);
  if (need()) refresh(server, signal, waker);
}

void ServerTools::ensure_listed(Peer& server, const Signal& signal, SlotWaker* waker) {
  auto need = [&] {
    std::lock_guard lock(mutex_);
    return stale_ || !listed_;
  };
  if (!need()) return;
  std::lock_guard lock(refresh_mutex_);
  if (need()) refresh(server, signal, waker);
}

bool ServerTools::task_required(std::string_view tool) {
  std::lock_guard lock(mutex_);
  return task_required_.count(tool) != 0;
}

bool ServerTools::task_capable(std::string_view tool) {
  std::lock_guard lock(mutex_);
  return task_capable_.count(tool) != 0;
}

std::optional<std::string> ServerTools::clash_for(std::string_view tool) {
  std::lock_guard lock(mutex_);
  auto it = clashing_.find(tool);
  if (it == clashing_.end()) return std::nullopt;
  return clash_text(tool, it->second);
}

void ServerTools::refresh(Peer& server, const Signal& signal, SlotWaker* waker) {
  json::array all;
  json::value cursor;
  for (int page = 0; page < 1000; ++page) {
    json::object params;
    if (!cursor.is_null()) params["cursor"] = cursor;
    auto answer = server.request_and_wait("tools/list", std::move(params), signal, waker);
    if (answer.end != Answer::End::answered) return;
    const auto& resp = answer.response();
    const auto* result = resp.if_contains("result");
    if (!result || !result->is_object()) {
      spdlog::warn("the MCP server refused tools/list: {}", text_of(resp));
      return;
    }
    if (const auto* t = result->get_object().if_contains("tools"); t && t->is_array())
      for (const auto& x : t->get_array()) all.push_back(x);
    const auto* next = result->get_object().if_contains("nextCursor");
    if (!next || !next->is_string()) break;
    cursor = *next;
  }
  register_tools(all, true);
}

void ServerTools::register_tools(const json::value& tools, bool complete) {
  const auto* list = tools.if_array();
  if (!list) {
    spdlog::warn("the MCP server's tools/list result has no \"tools\" array");
    return;
  }
  std::vector<ToolDefinition> defs;
  std::set<std::string, std::less<>> names;
  std::map<std::string, std::string, std::less<>> clashes;
  std::set<std::string, std::less<>> task_required, task_capable;
  const auto plugin_tools = tools_of_plugins();
  for (const auto& t : *list) {
    if (const auto* o = t.if_object())
      if (auto drifted = pins_.check(*o))
        spdlog::warn("{}; {}", *drifted,
                     pins_.on_drift() == OnDrift::block ? "its calls are refused"
                     : pins_.on_drift() == OnDrift::ask ? "each call asks the user first"
                                                        : "allowed (--on-drift allow)");
    std::string why;
    auto def = tool_definition(t, &why);
    if (!def) {
      spdlog::warn("ignoring a tool in the MCP server's tools/list: {}: {}", why, text_of(t));
      continue;
    }
    if (is_reserved_name(def->name)) {
      spdlog::error(
          "the MCP server lists a tool named \"{}\"; names starting with \"{}\" are "
          "toolgate's own (the gated MCP requests): not served",
          def->name, reserved_prefix);
      continue;
    }
    if (def->name == code_mode_tool) {
      spdlog::error(
          "the MCP server lists a tool named \"{}\", the name toolgate reserves for Code Mode: "
          "not served",
          def->name);
      continue;
    }
    if (own_names_.count(def->name)) {
      spdlog::error(
          "the MCP server lists a tool named \"{}\", the name of one of the gateway's "
          "own tools (--tools): the server's is not served",
          def->name);
      continue;
    }
    if (!names.insert(def->name).second) {
      spdlog::warn("the MCP server lists tool \"{}\" twice; keeping the first", def->name);
      continue;
    }
    if (auto it = plugin_tools.find(def->name); it != plugin_tools.end()) {
      spdlog::error("{}", clash_text(def->name, it->second));
      clashes.emplace(def->name, it->second);
      continue;
    }
    def->execute_async = body_;
    if (const auto* o = t.if_object())
      if (const auto* ex = o->if_contains("execution"); ex && ex->is_object())
        if (const auto* ts = ex->get_object().if_contains("taskSupport"); ts && ts->is_string()) {
          if (ts->get_string() == "required") task_required.insert(def->name);
          if (ts->get_string() == "required" || ts->get_string() == "optional")
            task_capable.insert(def->name);
        }
    // A tool whose definition drifted is not offered to scripts either: its
    // (possibly rewritten) description would reach the model through
    // run_code's declarations (the guard refuses its calls anyway).
    if (pins_.on_drift() != OnDrift::allow && pins_.drift(def->name)) def->code_binding = false;
    defs.push_back(std::move(*def));
  }
  // A complete list replaces every other tool: the reserved calls stay.
  if (complete) {
    defs.insert(defs.end(), gated_.begin(), gated_.end());
    defs.insert(defs.end(), own_.begin(), own_.end());
  }
  try {
    host_.set_tools(std::move(defs), complete);
  } catch (const std::exception& e) {
    spdlog::error("cannot register the MCP server's tools: {}", e.what());
    return;
  }
  std::lock_guard lock(mutex_);
  if (complete) {
    known_ = std::move(names);
    clashing_ = std::move(clashes);
    task_required_ = std::move(task_required);
    task_capable_ = std::move(task_capable);
    stale_ = false;
    listed_ = true;
  } else {
    known_.merge(names);
    clashing_.merge(clashes);
    task_required_.merge(task_required);
    task_capable_.merge(task_capable);
  }
}

bool ServerTools::hidden(std::string_view tool) const {
  CallIdentity who;
  who.tool = std::string(tool);
  who.session_id = session_id_;
  who.client = "mcp";
  if (auto why = host_.denied_always(who)) {
    spdlog::debug("not offering {}: {}", tool, *why);
    return true;
  }
  return false;
}

std::optional<json::object> ServerTools::without_hidden(const json::object& result) const {
  const auto* tools = result.if_contains("tools");
  if (!tools || !tools->is_array()) return std::nullopt;
  json::array kept;
  for (const auto& t : tools->get_array()) {
    const auto* o = t.if_object();
    const auto* name = o ? o->if_contains("name") : nullptr;
    if (name && name->is_string() && hidden(name->get_string())) continue;
    kept.push_back(t);
  }
  if (kept.size() == tools->get_array().size()) return std::nullopt;
  json::object out = result;
  out["tools"] = std::move(kept);
  return out;
}

std::map<std::string, std::string, std::less<>> ServerTools::tools_of_plugins() const {
  std::map<std::string, std::string, std::less<>> out;
  const auto d = host_.describe();
  if (const auto* owners = d.if_contains("tool_owners"); owners && owners->is_object())
    for (const auto& [name, owner] : owners->get_object())
      if (owner.is_string() && owner.get_string() != "host")
        out.emplace(std::string(name), std::string(owner.get_string()));
  return out;
}

}  // namespace toolgate::mcp
