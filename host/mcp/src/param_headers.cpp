#include "param_headers.hpp"

#include "canonical_json.hpp"
#include "http_checks.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

// RFC 9110 token characters.
bool http_token(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) ||
          std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos))
      return false;
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void visit(const json::object& schema, std::vector<std::string>& path,
           std::vector<ParamHeader>& out, std::set<std::string>& seen,
           std::vector<std::string>* skipped, int depth) {
  if (depth > 32) return;
  if (!path.empty())
    if (const auto* h = schema.if_contains("x-mcp-header")) {
      const auto* name = h->if_string();
      if (!name || !http_token(*name))
        skipped->push_back("an x-mcp-header that is not an HTTP token");
      else if (!seen.insert(lower(*name)).second)
        skipped->push_back("x-mcp-header \"" + std::string(*name) + "\" declared twice");
      else
        out.push_back({std::string(*name), path});
    }
  const auto* props = schema.if_contains("properties");
  if (!props || !props->is_object()) return;
  for (const auto& kv : props->get_object()) {
    const auto* child = kv.value().if_object();
    if (!child) continue;
    path.emplace_back(kv.key());
    visit(*child, path, out, seen, skipped, depth + 1);
    path.pop_back();
  }
}

}  // namespace

std::vector<ParamHeader> param_headers_of(const json::value& input_schema,
                                          std::vector<std::string>* skipped) {
  std::vector<ParamHeader> out;
  const auto* o = input_schema.if_object();
  if (!o) return out;
  std::vector<std::string> path;
  std::set<std::string> seen;
  visit(*o, path, out, seen, skipped, 0);
  return out;
}

std::vector<std::pair<std::string, std::string>> param_header_values(
    const std::vector<ParamHeader>& declared, const json::object& arguments) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : declared) {
    // The argument at the whole path, or none (a parent that is there
    // while the declared member is not sends nothing).
    const json::value* v = nullptr;
    const json::object* at = &arguments;
    for (const auto& key : d.path) {
      v = at ? at->if_contains(key) : nullptr;
      if (!v) break;
      at = v->if_object();
    }
    if (!v || v->is_null()) continue;
    std::string text;
    if (const auto* s = v->if_string())
      text = std::string(*s);
    else if (v->is_bool())
      text = v->get_bool() ? "true" : "false";
    else if (v->is_int64() || v->is_uint64() || (v->is_double() && std::isfinite(v->get_double())))
      text = canonical_json_text(*v);  // the shortest decimal form
    else
      continue;  // objects and arrays are not mirrored
    out.emplace_back("Mcp-Param-" + d.name, http::encode_header_value(text));
  }
  return out;
}

}  // namespace toolgate::mcp
