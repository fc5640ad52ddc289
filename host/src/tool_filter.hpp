// tool_filter.hpp -- which tools a hook applies to: a glob list with "!"
// excludes.  Applied before a hook is invoked: a hook whose filter does not
// match a tool is never called for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolgate::detail {

// `*` matches any run of characters, `?` exactly one; everything else is
// literal.  Tool names have no separators, so `**` means the same as `*`.
bool glob_match(std::string_view pattern, std::string_view text);

class ToolFilter {
 public:
  ToolFilter() = default;
  explicit ToolFilter(std::vector<std::string> patterns);
  // Matches when (there are no include patterns or one matches) and no
  // exclude pattern matches.
  bool matches(std::string_view tool) const;
  const std::vector<std::string>& patterns() const { return patterns_; }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::string> includes_, excludes_;
};

}  // namespace toolgate::detail
