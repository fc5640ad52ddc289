// toolgate/glob.hpp -- tool-name globs, exactly as the host matches them.
//
// A manifest's "tools" list (which tools a hook applies to) is a list of
// these globs, and the host matches it before it calls a hook.  A plugin
// that takes its own tool list in its config (a policy rule, a retry or
// redaction scope) should match it with this header, so a deployer writes
// tool globs the same way everywhere.  The host uses this same code.
//
//   glob:   '*' matches any run of characters (also none), '?' exactly one
//           character, everything else is literal.  Tool names have no
//           separators, so '**' means the same as '*'.
//   list:   a pattern starting with '!' excludes.  A name matches a list
//           when (the list has no include pattern, or one matches) and no
//           exclude matches.  An empty list matches every name.
//
// Header-only C++17, no dependency beyond the standard library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toolgate {
namespace sdk {

// Iterative matcher with single-star backtracking: no recursion, so a
// hostile pattern or name cannot blow the stack, and at most
// O(pattern x name) steps.
inline bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < text.size()) {
    // '*' is tested first: a '*' in the text is no reason to read the
    // pattern's '*' as a literal (then "*" would not match "*x").
    if (pi < pattern.size() && pattern[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (pi < pattern.size() && (pattern[pi] == '?' || pattern[pi] == text[ti])) {
      ++pi;
      ++ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < pattern.size() && pattern[pi] == '*') ++pi;
  return pi == pattern.size();
}

// A list of tool globs with "!" excludes, split once at construction.
class GlobList {
 public:
  GlobList() = default;
  explicit GlobList(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
    for (const auto& p : patterns_) {
      if (!p.empty() && p[0] == '!')
        excludes_.push_back(p.substr(1));
      else
        includes_.push_back(p);
    }
  }

  bool matches(std::string_view name) const {
    bool included = includes_.empty();
    for (const auto& p : includes_)
      if (glob_match(p, name)) {
        included = true;
        break;
      }
    if (!included) return false;
    for (const auto& p : excludes_)
      if (glob_match(p, name)) return false;
    return true;
  }

  // True when the list matches every name (no patterns at all).
  bool empty() const { return patterns_.empty(); }
  // The patterns as given, "!" prefixes included.
  const std::vector<std::string>& patterns() const { return patterns_; }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::string> includes_, excludes_;
};

}  // namespace sdk
}  // namespace toolgate
