#include "config.hpp"

#include <cmath>

namespace tgp {

std::string pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

ConfigObject ConfigObject::of(const json::value& v, const std::string& path) {
  if (!v.is_object()) throw ConfigError(path, "must be a JSON object");
  return ConfigObject(v.get_object(), path);
}

void ConfigObject::only(std::initializer_list<std::string_view> known) const {
  for (const auto& kv : *object_) {
    bool ok = false;
    for (auto k : known) ok = ok || kv.key() == k;
    if (ok) continue;
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw ConfigError(path(kv.key()), "unknown key \"" + std::string(kv.key()) +
                                          "\"; remove it or use one of: " + list);
  }
}

const json::value& ConfigObject::require(std::string_view key) const {
  const json::value* v = get(key);
  if (!v) throw ConfigError(path(key), "missing required key \"" + std::string(key) + "\"");
  return *v;
}

std::string ConfigObject::string(std::string_view key, std::optional<std::string> def) const {
  const json::value* v = get(key);
  if (!v) {
    if (def) return *def;
    require(key);
  }
  if (!v->is_string()) throw ConfigError(path(key), "must be a string");
  return std::string(v->get_string());
}

std::int64_t ConfigObject::integer(std::string_view key, std::optional<std::int64_t> def,
                                   std::int64_t min, std::int64_t max) const {
  const json::value* v = get(key);
  if (!v) {
    if (def) return *def;
    require(key);
  }
  std::optional<std::int64_t> n;
  if (v->is_int64()) n = v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    n = static_cast<std::int64_t>(v->get_uint64());
  if (!n || *n < min || *n > max)
    throw ConfigError(
        path(key), "must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return *n;
}

double ConfigObject::number(std::string_view key, std::optional<double> def, double min,
                            double max) const {
  const json::value* v = get(key);
  if (!v) {
    if (def) return *def;
    require(key);
  }
  if (!v->is_number()) throw ConfigError(path(key), "must be a number");
  double d = v->to_number<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    auto fmt = [](double x) {
      std::string s = std::to_string(x);
      while (s.size() > 1 && s.back() == '0') s.pop_back();
      if (!s.empty() && s.back() == '.') s.pop_back();
      return s;
    };
    throw ConfigError(path(key), "must be a number from " + fmt(min) + " to " + fmt(max));
  }
  return d;
}

bool ConfigObject::boolean(std::string_view key, std::optional<bool> def) const {
  const json::value* v = get(key);
  if (!v) {
    if (def) return *def;
    require(key);
  }
  if (!v->is_bool()) throw ConfigError(path(key), "must be true or false");
  return v->get_bool();
}

std::vector<std::string> ConfigObject::strings(std::string_view key,
                                               std::optional<std::vector<std::string>> def) const {
  const json::value* v = get(key);
  if (!v) {
    if (def) return *def;
    require(key);
  }
  std::vector<std::string> out;
  if (v->is_string()) {
    out.emplace_back(v->get_string());
    return out;
  }
  if (!v->is_array()) throw ConfigError(path(key), "must be a string or an array of strings");
  const auto& a = v->get_array();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string())
      throw ConfigError(path(key) + "/" + std::to_string(i), "must be a string");
    out.emplace_back(a[i].get_string());
  }
  return out;
}

ConfigObject ConfigObject::object(std::string_view key) const {
  return of(require(key), path(key));
}

const json::array& ConfigObject::array(std::string_view key) const {
  const json::value& v = require(key);
  if (!v.is_array()) throw ConfigError(path(key), "must be an array");
  return v.get_array();
}

std::string ConfigObject::choice(std::string_view key, std::optional<std::string> def,
                                 std::initializer_list<std::string_view> allowed) const {
  std::string s = string(key, std::move(def));
  for (auto a : allowed)
    if (s == a) return s;
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
  throw ConfigError(path(key), "\"" + s + "\" is not one of " + list);
}

void check_pointer_syntax(const std::string& pointer, const std::string& where) {
  if (pointer.empty() || pointer[0] != '/')
    throw ConfigError(where, "\"" + pointer +
                                 "\" is not a JSON Pointer into the arguments; write it like "
                                 "\"/path\" or \"/options/mode\"");
  for (std::size_t i = 0; i < pointer.size(); ++i)
    if (pointer[i] == '~' &&
        (i + 1 >= pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')))
      throw ConfigError(where, "\"" + pointer + "\" has a bare \"~\"; escape it as \"~0\"");
}

}  // namespace tgp
