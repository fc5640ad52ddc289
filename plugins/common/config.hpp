// config.hpp -- strict readers for plugin configs.
//
// Every plugin validates its manifest config with these helpers so that the
// errors read the same everywhere: they name the JSON Pointer of the bad key
// (relative to the plugin's "config" object) and say how to fix it.  Unknown
// keys are rejected: a typo in a security policy must never be silently
// ignored.
#pragma once

#include <toolgate/plugin.hpp>

#include <boost/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// JSON Schema fragments for the plugins' config_schema (checked by the
// host before init, ABI 1.2): the shapes the readers below accept, so the
// schema and the reader cannot drift apart in what they call a glob list.
// A string or an array of strings (ConfigObject::strings).
#define TGP_SCHEMA_STRINGS R"json({"type": ["string", "array"], "items": {"type": "string"}})json"
// A "tools" key: the same, but an empty list is refused -- it names no tool,
// and reading it as "every tool" (a key left out) would silently widen a
// retry or remove every deadline.  Leave the key out for every tool.
#define TGP_SCHEMA_TOOLS \
  R"json({"type": ["string", "array"], "items": {"type": "string"}, "minItems": 1})json"

namespace tgp {

namespace json = boost::json;
using toolgate::sdk::ConfigError;

// Escapes one JSON Pointer token (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string pointer_token(std::string_view key);

// A view of one JSON object inside the config, located at `path`.
class ConfigObject {
 public:
  ConfigObject(const json::object& object, std::string path)
      : object_(&object), path_(std::move(path)) {}
  // Requires `v` to be an object; `path` names it in the error.
  static ConfigObject of(const json::value& v, const std::string& path);

  const std::string& path() const { return path_; }
  std::string path(std::string_view key) const { return path_ + "/" + pointer_token(key); }
  const json::object& raw() const { return *object_; }

  // Rejects any key not in `known`, listing the known ones in the message.
  void only(std::initializer_list<std::string_view> known) const;

  bool has(std::string_view key) const { return object_->contains(key); }
  const json::value* get(std::string_view key) const { return object_->if_contains(key); }
  // Throws "missing required key" when absent.
  const json::value& require(std::string_view key) const;

  // Typed getters: `def` is used when the key is absent; without a default
  // the key is required.
  std::string string(std::string_view key, std::optional<std::string> def = std::nullopt) const;
  std::int64_t integer(std::string_view key, std::optional<std::int64_t> def, std::int64_t min,
                       std::int64_t max) const;
  double number(std::string_view key, std::optional<double> def, double min, double max) const;
  bool boolean(std::string_view key, std::optional<bool> def = std::nullopt) const;
  // A string or an array of strings (tool globs are often written either way).
  std::vector<std::string> strings(
      std::string_view key, std::optional<std::vector<std::string>> def = std::nullopt) const;
  ConfigObject object(std::string_view key) const;
  const json::array& array(std::string_view key) const;
  // One of a closed set of words.
  std::string choice(std::string_view key, std::optional<std::string> def,
                     std::initializer_list<std::string_view> allowed) const;

 private:
  const json::object* object_;
  std::string path_;
};

// A JSON Pointer given in a config: must be "" or start with "/".
void check_pointer_syntax(const std::string& pointer, const std::string& where);

}  // namespace tgp
