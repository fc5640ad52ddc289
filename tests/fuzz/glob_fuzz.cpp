// The globs: tool-name globs and glob lists (sdk/include/toolgate/glob.hpp,
// what the host's tool filters and the plugins run) and the plugins' path
// globs (plugins/common/glob.cpp), each against a straightforward
// reference matcher written here.
//
// Input: byte 0 picks the test; the rest is "pattern\ntext" (for a list:
// the patterns, separated by ',', then '\n' and the name).
#include "common/glob.hpp"
#include "fuzz_check.hpp"

#include <toolgate/glob.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Name glob by dynamic programming over suffixes: m[i][j] is true when
// pattern[i..] matches text[j..].
bool ref_glob(std::string_view p, std::string_view t) {
  const std::size_t P = p.size(), T = t.size();
  std::vector<char> next(T + 1, 0), cur(T + 1, 0);
  next[T] = 1;  // empty pattern matches only the empty text
  for (std::size_t i = P; i-- > 0;) {
    for (std::size_t j = T + 1; j-- > 0;) {
      if (p[i] == '*')
        cur[j] = next[j] || (j < T && cur[j + 1]);
      else
        cur[j] = j < T && (p[i] == '?' || p[i] == t[j]) && next[j + 1];
    }
    std::swap(cur, next);
  }
  return next[0];
}

std::vector<std::string> split(std::string_view s, char sep, bool keep_empty) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (true) {
    std::size_t j = s.find(sep, i);
    std::string_view part = s.substr(i, j == std::string_view::npos ? s.npos : j - i);
    if (keep_empty || !part.empty()) out.emplace_back(part);
    if (j == std::string_view::npos) return out;
    i = j + 1;
  }
}

// Path glob: segments of pattern and path; "**" is any number of segments
// (also none), other segments are name globs; a pattern not starting with
// '/' may match at any depth.
bool ref_path_glob(std::string_view pattern, std::string_view path) {
  std::vector<std::string> p = split(pattern, '/', false);
  if (pattern.empty() || pattern[0] != '/') p.insert(p.begin(), "**");
  const std::vector<std::string> s = split(path, '/', false);
  const std::size_t P = p.size(), N = s.size();
  std::vector<char> next(N + 1, 0), cur(N + 1, 0);
  next[N] = 1;
  for (std::size_t i = P; i-- > 0;) {
    for (std::size_t j = N + 1; j-- > 0;) {
      if (p[i] == "**")
        cur[j] = next[j] || (j < N && cur[j + 1]);
      else
        cur[j] = j < N && ref_glob(p[i], s[j]) && next[j + 1];
    }
    std::swap(cur, next);
  }
  return next[0];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t nl = rest.find('\n');
  const std::string_view pattern = rest.substr(0, nl);
  const std::string_view text = nl == std::string_view::npos ? "" : rest.substr(nl + 1);

  switch (data[0] % 3) {
    case 0: {
      FUZZ_CHECK(toolgate::sdk::glob_match(pattern, text) == ref_glob(pattern, text));
      // Every glob matches its own text ('*' and '?' match themselves too).
      FUZZ_CHECK(toolgate::sdk::glob_match(pattern, pattern));
      break;
    }
    case 1: {
      const std::vector<std::string> patterns = split(pattern, ',', true);
      toolgate::sdk::GlobList list(patterns);
      bool any_include = false, included = false, excluded = false;
      for (const auto& p : patterns) {
        if (!p.empty() && p[0] == '!') {
          excluded = excluded || ref_glob(std::string_view(p).substr(1), text);
        } else {
          any_include = true;
          included = included || ref_glob(p, text);
        }
      }
      FUZZ_CHECK(list.matches(text) == ((!any_include || included) && !excluded));
      FUZZ_CHECK(list.patterns() == patterns);
      break;
    }
    case 2: {
      // The path side is what the plugins hand it: absolute and normalised.
      std::string path = "/";
      for (const auto& seg : split(text, '/', false))
        if (seg != "." && seg != "..") path += (path.size() > 1 ? "/" : "") + seg;
      tgp::PathGlob glob(pattern);
      const bool want = ref_path_glob(pattern, path);
      FUZZ_CHECK(glob.matches(path) == want);
      FUZZ_CHECK(glob.matches(tgp::path_segments(path)) == want);
      FUZZ_CHECK(glob.text() == pattern);
      for (auto s : tgp::path_segments(path))
        FUZZ_CHECK(!s.empty() && s.find('/') == std::string_view::npos);
      break;
    }
  }
  return 0;
}
