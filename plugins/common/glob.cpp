#include "glob.hpp"

#include <algorithm>

namespace tgp {

std::vector<std::string_view> path_segments(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    std::size_t j = i;
    while (j < path.size() && path[j] != '/') ++j;
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

PathGlob::PathGlob(std::string_view pattern) : text_(pattern) {
  // A relative pattern ("*.pem", ".env") matches at any depth.
  if (pattern.empty() || pattern[0] != '/') segments_.emplace_back("**");
  for (auto s : path_segments(pattern)) {
    segments_.emplace_back(s);
    if (s.find_first_of("*?") == std::string_view::npos) literals_.emplace_back(s);
  }
}

namespace {

// Matches segments with "**" by dynamic programming over (pattern, path)
// positions: O(P*N) and no recursion, whatever the input.  The two rows live
// on the stack for paths of up to 63 segments (every real path), so a check
// allocates nothing.
bool match_segments(const std::vector<std::string>& pat,
                    const std::vector<std::string_view>& segs) {
  const std::size_t P = pat.size(), N = segs.size();
  constexpr std::size_t kInline = 64;
  char inline_rows[2][kInline];
  std::vector<char> heap_rows;
  char* reach = inline_rows[0];
  char* next = inline_rows[1];
  if (N + 1 > kInline) {
    heap_rows.assign(2 * (N + 1), 0);
    reach = heap_rows.data();
    next = heap_rows.data() + N + 1;
  }
  // reach[j]: pattern prefix of length i matches path prefix of length j.
  std::fill(reach, reach + N + 1, 0);
  reach[0] = 1;
  for (std::size_t i = 0; i < P; ++i) {
    std::fill(next, next + N + 1, 0);
    // Compared by hand: std::string == "**" goes through strlen and
    // compare, a measurable share of a path check.
    if (pat[i].size() == 2 && pat[i][0] == '*' && pat[i][1] == '*') {
      bool any = false;
      for (std::size_t j = 0; j <= N; ++j) {
        any = any || reach[j];
        next[j] = any;
      }
    } else {
      for (std::size_t j = 0; j < N; ++j)
        if (reach[j] && glob_match(pat[i], segs[j])) next[j + 1] = 1;
    }
    std::swap(reach, next);
  }
  return reach[N];
}

}  // namespace

bool PathGlob::matches(std::string_view path) const { return matches(path_segments(path)); }

bool PathGlob::matches(const std::vector<std::string_view>& segments) const {
  for (const auto& literal : literals_)
    if (std::find(segments.begin(), segments.end(), std::string_view(literal)) == segments.end())
      return false;
  return match_segments(segments_, segments);
}

}  // namespace tgp
