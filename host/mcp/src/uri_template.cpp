#include "uri_template.hpp"

namespace toolgate::mcp {

namespace {

bool matches(std::string_view tmpl, std::string_view uri, int& budget) {
  if (--budget < 0) return false;
  if (tmpl.empty()) return uri.empty();
  if (tmpl.front() != '{')
    return !uri.empty() && uri.front() == tmpl.front() &&
           matches(tmpl.substr(1), uri.substr(1), budget);
  const auto close = tmpl.find('}');
  if (close == std::string_view::npos) return false;
  const char op = close > 1 ? tmpl[1] : '\0';
  const auto rest = tmpl.substr(close + 1);
  if (op == '?' || op == '&') return uri.empty() || uri.front() == '?' || uri.front() == '&';
  const bool any = op == '+' || op == '#';
  for (std::size_t n = 0; n <= uri.size(); ++n) {
    if (matches(rest, uri.substr(n), budget)) return true;
    if (n < uri.size() && !any && std::string_view("/?#").find(uri[n]) != std::string_view::npos)
      return false;
  }
  return false;
}

}  // namespace

bool uri_template_matches(std::string_view tmpl, std::string_view uri) {
  int budget = 100000;
  return matches(tmpl, uri, budget);
}

}  // namespace toolgate::mcp
