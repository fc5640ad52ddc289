#include "tool_filter.hpp"

namespace toolgate::detail {

bool glob_match(std::string_view p, std::string_view t) {
  // Iterative matcher with single-star backtracking: linear in practice and
  // no recursion, so a hostile pattern cannot blow the stack.
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi;
      ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

ToolFilter::ToolFilter(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
  for (const auto& p : patterns_) {
    if (!p.empty() && p[0] == '!')
      excludes_.push_back(p.substr(1));
    else
      includes_.push_back(p);
  }
}

bool ToolFilter::matches(std::string_view tool) const {
  bool included = includes_.empty();
  for (const auto& p : includes_)
    if (glob_match(p, tool)) {
      included = true;
      break;
    }
  if (!included) return false;
  for (const auto& p : excludes_)
    if (glob_match(p, tool)) return false;
  return true;
}

}  // namespace toolgate::detail
