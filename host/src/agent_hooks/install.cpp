#include "agent_hooks/install.hpp"

#include "strict_json.hpp"

#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace toolgate::agent_hooks {

namespace json = boost::json;

namespace {

// Where and how each agent registers command hooks (from its hook docs).
struct Layout {
  std::string_view dir;   // ".claude"
  std::string_view file;  // "settings.json"
  std::vector<std::string_view> events;
  // Claude Code, Codex and Gemini nest event -> matcher group -> "hooks"
  // array of handlers; Cursor lists handlers directly under the event.
  bool nested = true;
};

const Layout& layout_of(const AgentFormat& f) {
  static const Layout claude{
      ".claude", "settings.json", {"PreToolUse", "PostToolUse", "PostToolUseFailure"}};
  // Codex reads hooks from hooks.json next to config.toml as well as from
  // [hooks] tables in config.toml; hooks.json is JSON, which this library
  // can edit without a TOML library, and leaves the user's config.toml
  // untouched.
  static const Layout codex{".codex", "hooks.json", {"PreToolUse", "PostToolUse"}};
  static const Layout gemini{".gemini", "settings.json", {"BeforeTool", "AfterTool"}};
  static const Layout cursor{
      ".cursor", "hooks.json", {"preToolUse", "postToolUse", "postToolUseFailure"}, false};
  std::string_view n = f.name();
  if (n == "claude-code") return claude;
  if (n == "codex") return codex;
  if (n == "gemini-cli") return gemini;
  if (n == "cursor") return cursor;
  throw std::invalid_argument("no settings layout for the agent format \"" + std::string(n) + "\"");
}

// The handler install adds.  The timeout is above the hook client's own 5 s
// bound, in the agent's unit (Gemini: milliseconds; the others: seconds).
json::object handler(const AgentFormat& f, std::string_view command) {
  std::string_view n = f.name();
  if (n == "gemini-cli")
    return {{"name", "toolgate"}, {"type", "command"}, {"command", command}, {"timeout", 10000}};
  if (n == "cursor")
    // failClosed: Cursor lets the action through when a hook crashes or
    // times out unless the entry says otherwise.
    return {{"command", command}, {"timeout", 10}, {"failClosed", true}};
  return {{"type", "command"}, {"command", command}, {"timeout", 10}};
}

json::value parse_settings(std::string_view text) {
  ::toolgate::detail::StrictJsonError error;
  auto v = ::toolgate::detail::parse_strict(text, {}, &error);
  if (!v)
    throw std::runtime_error("the settings file is not valid JSON (" + error.message +
                             "); fix it or move it aside, nothing was changed");
  if (!v->is_object())
    throw std::runtime_error(
        "the settings file's top level is not a JSON object; nothing was "
        "changed");
  return std::move(*v);
}

[[noreturn]] void bad_shape(const std::string& pointer, std::string_view expected) {
  throw std::runtime_error("the settings file has an unexpected shape at " + pointer +
                           " (expected " + std::string(expected) + "); nothing was changed");
}

// The "hooks" object (created when absent and `create`), or nullptr.
json::object* hooks_object(json::object& root, bool create) {
  json::value* h = root.if_contains("hooks");
  if (!h) {
    if (!create) return nullptr;
    h = &(root["hooks"] = json::object());
  }
  if (!h->is_object()) bad_shape("/hooks", "an object of event names");
  return &h->get_object();
}

// The handlers array of a matcher group at `pointer`, checked.
json::array& group_handlers(json::value& group, const std::string& pointer) {
  if (!group.is_object()) bad_shape(pointer, "a matcher group object");
  json::value* hs = group.get_object().if_contains("hooks");
  if (!hs || !hs->is_array()) bad_shape(pointer + "/hooks", "an array of hook handlers");
  return hs->get_array();
}

// The handler's command, or nullopt when it has none.
std::optional<std::string_view> command_of(const json::value& handler) {
  const auto* o = handler.if_object();
  const json::value* c = o ? o->if_contains("command") : nullptr;
  if (!c || !c->is_string()) return std::nullopt;
  return std::string_view(c->get_string());
}

bool runs(const json::value& handler, std::string_view command) {
  return command_of(handler) == command;
}

// Whether `command` is one install wrote for `agent`, with whichever
// program: ".../toolgate-hook AGENT" or ".../toolgate hook AGENT" (the
// program path as one shell word, quoted or not).  An earlier install's
// entry with the other program would run beside the new one, and two hooks
// beginning the same call make the daemon refuse the second as a duplicate
// id: every call would be denied.
bool toolgate_command_for(std::string_view command, std::string_view agent) {
  auto strip_suffix = [&](std::string_view suffix) {
    if (!command.ends_with(suffix)) return false;
    command.remove_suffix(suffix.size());
    return true;
  };
  if (!strip_suffix(std::string(" ") + std::string(agent))) return false;
  const bool via_hook = strip_suffix(" hook");
  strip_suffix("'");
  return strip_suffix(via_hook ? "/toolgate" : "/toolgate-hook") ||
         command == (via_hook ? "toolgate" : "toolgate-hook");
}

// Removes every handler `remove` picks from the agent's events, dropping
// matcher groups, event arrays and a hooks object left empty by the
// removal but nothing else.  Whether anything was removed.
template <class Pick>
bool remove_handlers(json::object& top, const Layout& l, Pick&& remove) {
  json::object* hooks = hooks_object(top, false);
  if (!hooks) return false;
  bool changed = false;
  for (std::string_view event : l.events) {
    std::string pointer = "/hooks/" + ::toolgate::detail::pointer_token(event);
    json::value* ev = hooks->if_contains(event);
    if (!ev) continue;
    if (!ev->is_array()) bad_shape(pointer, "an array of hook entries");
    json::array& entries = ev->get_array();
    bool removed_here = false;
    for (std::size_t i = entries.size(); i-- > 0;) {
      if (!l.nested) {
        if (remove(entries[i])) {
          entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
          removed_here = true;
        }
        continue;
      }
      json::array& hs = group_handlers(entries[i], pointer + "/" + std::to_string(i));
      bool removed_in_group = false;
      for (std::size_t j = hs.size(); j-- > 0;) {
        if (remove(hs[j])) {
          hs.erase(hs.begin() + static_cast<std::ptrdiff_t>(j));
          removed_in_group = true;
        }
      }
      if (removed_in_group) {
        removed_here = true;
        if (hs.empty()) entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    if (removed_here) {
      changed = true;
      if (entries.empty()) hooks->erase(event);
    }
  }
  if (changed && hooks->empty()) top.erase("hooks");
  return changed;
}

// Whether the event's array at `pointer` already holds a handler running
// `command` (checking the shape on the way).
bool has_handler(json::array& entries, const Layout& l, std::string_view command,
                 const std::string& pointer) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::string p = pointer + "/" + std::to_string(i);
    if (!l.nested) {
      if (!entries[i].is_object()) bad_shape(p, "a hook handler object");
      if (runs(entries[i], command)) return true;
      continue;
    }
    for (const auto& h : group_handlers(entries[i], p))
      if (runs(h, command)) return true;
  }
  return false;
}

void indent(std::string& out, int depth) { out.append(static_cast<std::size_t>(depth) * 2, ' '); }

void write_pretty(std::string& out, const json::value& v, int depth) {
  if (const auto* o = v.if_object()) {
    if (o->empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (const auto& kv : *o) {
      if (!first) out += ",\n";
      first = false;
      indent(out, depth + 1);
      out += to_json_text(json::string_view(kv.key()));
      out += ": ";
      write_pretty(out, kv.value(), depth + 1);
    }
    out += "\n";
    indent(out, depth);
    out += "}";
  } else if (const auto* a = v.if_array()) {
    if (a->empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    bool first = true;
    for (const auto& e : *a) {
      if (!first) out += ",\n";
      first = false;
      indent(out, depth + 1);
      write_pretty(out, e, depth + 1);
    }
    out += "\n";
    indent(out, depth);
    out += "]";
  } else {
    out += to_json_text(v);
  }
}

}  // namespace

std::string pretty_json(const json::value& v) {
  std::string out;
  write_pretty(out, v, 0);
  out += "\n";
  return out;
}

std::filesystem::path settings_path(const AgentFormat& f, std::string_view scope,
                                    const std::filesystem::path& home,
                                    const std::filesystem::path& project_dir) {
  const Layout& l = layout_of(f);
  std::filesystem::path base;
  if (scope == "user")
    base = home;
  else if (scope == "project")
    base = project_dir;
  else
    throw std::invalid_argument("unknown scope \"" + std::string(scope) +
                                "\" (use \"user\" or \"project\")");
  return base / l.dir / l.file;
}

std::string install_hooks(const AgentFormat& f, std::string_view existing,
                          std::string_view command) {
  const Layout& l = layout_of(f);
  const bool empty_file = existing.find_first_not_of(" \t\r\n") == std::string_view::npos;
  json::value root = empty_file ? json::value(json::object()) : parse_settings(existing);
  json::object& top = root.get_object();
  // An earlier install's toolgate hook for this agent with another program
  // is replaced, not kept beside this one (toolgate_command_for).
  bool changed = remove_handlers(top, l, [&](const json::value& h) {
    auto c = command_of(h);
    return c && *c != command && toolgate_command_for(*c, f.name());
  });
  json::object* hooks = hooks_object(top, false);
  if (!hooks) {
    hooks = hooks_object(top, true);
    changed = true;
  }
  for (std::string_view event : l.events) {
    std::string pointer = "/hooks/" + ::toolgate::detail::pointer_token(event);
    json::value* ev = hooks->if_contains(event);
    if (!ev) {
      ev = &((*hooks)[event] = json::array());
    } else if (!ev->is_array()) {
      bad_shape(pointer, "an array of hook entries");
    }
    json::array& entries = ev->get_array();
    if (has_handler(entries, l, command, pointer)) continue;
    if (l.nested)
      entries.push_back(
          json::object{{"matcher", "*"}, {"hooks", json::array{handler(f, command)}}});
    else
      entries.push_back(handler(f, command));
    changed = true;
  }
  // Cursor's hooks.json carries a schema version.
  if (!l.nested && !top.contains("version")) {
    top["version"] = 1;
    changed = true;
  }
  if (!changed) return std::string(existing);
  return pretty_json(root);
}

std::string uninstall_hooks(const AgentFormat& f, std::string_view existing,
                            std::string_view command) {
  const Layout& l = layout_of(f);
  if (existing.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::string(existing);
  json::value root = parse_settings(existing);
  // This command's handlers, and any toolgate hook for this agent an
  // earlier install wrote with the other program.
  const bool changed = remove_handlers(root.get_object(), l, [&](const json::value& h) {
    auto c = command_of(h);
    return c && (*c == command || toolgate_command_for(*c, f.name()));
  });
  if (!changed) return std::string(existing);
  return pretty_json(root);
}

std::string shell_word(std::string_view word) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("/._-+,:@%").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace toolgate::agent_hooks
