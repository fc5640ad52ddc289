#include "tool_pins.hpp"

#include "canonical_json.hpp"
#include "shared_store.hpp"

#include <toolgate/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

bool valid_pin(std::string_view pin) {
  if (pin.size() != 7 + 64 || !pin.starts_with("sha256:")) return false;
  return std::all_of(pin.begin() + 7, pin.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::string canonical_tool_text(const json::object& tool) {
  json::object pinned;
  for (std::string_view key :
       {"name", "title", "description", "inputSchema", "outputSchema", "annotations"})
    if (const auto* v = tool.if_contains(key)) pinned[key] = *v;
  return canonical_json_text(pinned);
}

std::string tool_pin(const json::object& tool) {
  return "sha256:" + sha256_hex(canonical_tool_text(tool));
}

std::optional<PinMap> parse_pin_file(std::string_view text, std::string* why) {
  auto fail = [&](std::string w) {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  std::string parse_why;
  auto v = parse_untrusted(text, 16, &parse_why);
  if (!v) return fail(parse_why);
  const auto* o = v->if_object();
  if (!o) return fail("a pin file is a JSON object");
  for (const auto& kv : *o)
    if (kv.key() != "toolgate_pins" && kv.key() != "tools")
      return fail("unknown key \"" + std::string(kv.key()) +
                  "\" at the top level (a pin file has \"toolgate_pins\" and \"tools\")");
  const auto* version = o->if_contains("toolgate_pins");
  if (!version || !version->is_int64() || version->get_int64() != 1)
    return fail("\"toolgate_pins\" must be 1 (the pin file format's version)");
  const auto* tools = o->if_contains("tools");
  if (!tools || !tools->is_object())
    return fail("\"tools\" must be an object mapping each tool's name to its pin");
  PinMap pins;
  for (const auto& kv : tools->get_object()) {
    const auto* pin = kv.value().if_string();
    if (!pin || !valid_pin(*pin))
      return fail("/tools/" + std::string(kv.key()) +
                  ": a pin is \"sha256:\" and 64 lowercase hex digits (toolgate mcp pin writes "
                  "them)");
    pins.emplace(std::string(kv.key()), std::string(*pin));
  }
  return pins;
}

PinMap read_pin_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the pin file " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  std::string why;
  auto pins = parse_pin_file(text.str(), &why);
  if (!pins) throw std::runtime_error(file.string() + ": not a pin file: " + why);
  return std::move(*pins);
}

std::string pin_file_text(const PinMap& pins) {
  std::string out = "{\n  \"toolgate_pins\": 1,\n  \"tools\": {";
  bool first = true;
  for (const auto& [name, pin] : pins) {
    out += first ? "\n    " : ",\n    ";
    first = false;
    append_json_text(out, json::string(name));
    out += ": ";
    append_json_text(out, json::string(pin));
  }
  out += first ? "}\n}\n" : "\n  }\n}\n";
  return out;
}

ToolPins::ToolPins(std::optional<PinMap> file, OnDrift on_drift, std::string file_name,
                   SharedStore* shared)
    : pins_(file ? std::move(*file) : PinMap{}),
      from_file_(file.has_value()),
      file_name_(std::move(file_name)),
      on_drift_(on_drift),
      shared_(file ? nullptr : shared) {}

std::optional<std::string> ToolPins::check(const json::object& tool) {
  const auto* n = tool.if_contains("name");
  if (!n || !n->is_string()) return std::nullopt;  // not a tool the gateway registers
  const std::string name(n->get_string());
  const std::string pin = tool_pin(tool);
  auto changed = [&](const std::string& pinned, const std::string& where) {
    return "the MCP server's tool \"" + name + "\" changed its definition since it was pinned " +
           where + " (pinned " + pinned.substr(0, 19) + "..., now " + pin.substr(0, 19) + "...)";
  };
  std::unique_lock lock(mutex_);
  if (drifted_.count(name)) return std::nullopt;  // reported when it drifted
  auto it = pins_.find(name);
  std::string why;
  if (it != pins_.end()) {
    if (it->second == pin) {
      unchecked_.erase(name);  // checked by a listing that raced this one's store error
      return std::nullopt;
    }
    why = changed(it->second, from_file_ ? "in " + file_name_
                              : shared_  ? "by the replicas' shared store " + shared_->where()
                                         : std::string("when this session first listed it"));
  } else if (from_file_) {
    why = "the MCP server's tool \"" + name + "\" is not in the pin file " + file_name_;
  } else if (!shared_) {
    pins_.emplace(name, pin);
    return std::nullopt;
  } else {
    // First sight here: the store says whether another replica saw it first.
    lock.unlock();
    std::string error;
    const auto held = shared_->pin_once(name, pin, &error);
    lock.lock();
    if (drifted_.count(name)) return std::nullopt;
    if (!held) {
      why = "the pin of the MCP server's tool \"" + name +
            "\" cannot be checked: the replicas' shared store " + shared_->where() +
            " did not answer (" + error + "); treated as changed until a tools/list reaches it";
      unchecked_[name] = why;
      return why;
    }
    unchecked_.erase(name);
    if (*held == pin) {
      pins_.emplace(name, pin);
      return std::nullopt;
    }
    why = changed(*held, "by another replica in the shared store " + shared_->where());
  }
  unchecked_.erase(name);
  drifted_.emplace(name, why);
  return why;
}

std::optional<std::string> ToolPins::drift(std::string_view tool) const {
  std::lock_guard lock(mutex_);
  if (auto it = drifted_.find(tool); it != drifted_.end()) return it->second;
  if (auto it = unchecked_.find(tool); it != unchecked_.end()) return it->second;
  return std::nullopt;
}

}  // namespace toolgate::mcp
