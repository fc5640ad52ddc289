// glob.hpp -- the two kinds of glob the plugins use.
//
//   name globs  ("fs.*", "shell.?"): '*' is any run of characters, '?' one
//               character.  These are the SDK's <toolgate/glob.hpp>, the
//               code the host's tool filters run, so a deployer writes tool
//               globs the same way everywhere.
//   path globs  ("**/.ssh/**", "/etc/**", "*.pem"): '*' and '?' stay inside
//               one path segment, "**" spans any number of segments (also
//               zero).  A pattern without a leading '/' matches at any depth.
#pragma once

#include <string>
#include <string_view>
#include <toolgate/glob.hpp>
#include <vector>

namespace tgp {

using toolgate::sdk::glob_match;
// A list of name globs; "!glob" excludes.  Empty matches everything.
using NameGlobs = toolgate::sdk::GlobList;

// A precompiled path glob (segments split once at init).
class PathGlob {
 public:
  explicit PathGlob(std::string_view pattern);
  // `path` must be absolute and normalised ("/a/b", no "." or "..").
  bool matches(std::string_view path) const;
  // The same on a path already split by path_segments(): a caller matching
  // one path against many globs splits it once.
  bool matches(const std::vector<std::string_view>& segments) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::string> segments_;  // "**" is its own segment
  // The segments without '*' or '?': each matches only a path segment
  // equal to it, so a path lacking one cannot match -- checked before the
  // full match, which most paths never reach ("**/.ssh/**" and a path
  // without ".ssh").
  std::vector<std::string> literals_;
};

// Splits "/a//b/" into {"a", "b"}.
std::vector<std::string_view> path_segments(std::string_view path);

}  // namespace tgp
