#include "variables.hpp"

#include "../strict_json.hpp"

#include <toolgate/host.hpp>

#include <string_view>

namespace toolgate::detail {

namespace {

bool name_char(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (!first && c >= '0' && c <= '9');
}

std::string defined_list(const Variables& vars) {
  if (vars.empty()) return "none is defined";
  std::string out = "defined: ";
  for (const auto& [name, value] : vars) out += (out.size() > 9 ? ", " : "") + name;
  return out;
}

// The expansion of one string; throws with the string's pointer `at`.
std::string expand(std::string_view s, const Variables& vars, const std::string& file,
                   const std::string& at) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    if (s[i + 1] == '$' && i + 2 < s.size() && s[i + 2] == '{') {  // "$${": a literal "${"
      out += "${";
      i += 2;
      continue;
    }
    if (s[i + 1] != '{') {
      out += s[i];
      continue;
    }
    std::size_t end = i + 2;
    while (end < s.size() && name_char(s[end], end == i + 2)) ++end;
    if (end == i + 2 || end >= s.size() || s[end] != '}')
      throw LoadError(file, at,
                      "\"${\" at character " + std::to_string(i) +
                          " starts no variable (a variable is ${NAME}: letters, digits and _)",
                      "write ${NAME}, or $${ for a literal ${");
    const std::string_view name = s.substr(i + 2, end - i - 2);
    auto it = vars.find(name);
    if (it == vars.end())
      throw LoadError(
          file, at,
          "variable ${" + std::string(name) + "} has no value (" + defined_list(vars) + ")",
          "give it one: --var " + std::string(name) +
              "=VALUE on the command line, or LoadOptions::variables when embedding");
    out += it->second;
    i = end;
  }
  return out;
}

void walk(boost::json::value& v, const Variables& vars, const std::string& file,
          const std::string& at) {
  if (auto* s = v.if_string()) {
    if (s->find('$') != std::string_view::npos) *s = expand(*s, vars, file, at);
  } else if (auto* a = v.if_array()) {
    for (std::size_t i = 0; i < a->size(); ++i)
      walk((*a)[i], vars, file, at + "/" + std::to_string(i));
  } else if (auto* o = v.if_object()) {
    for (auto& kv : *o) walk(kv.value(), vars, file, at + "/" + pointer_token(kv.key()));
  }
}

}  // namespace

void expand_variables(boost::json::value& v, const Variables& variables, const std::string& file,
                      const std::string& json_path) {
  walk(v, variables, file, json_path);
}

}  // namespace toolgate::detail
