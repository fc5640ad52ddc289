// resolve.hpp -- turning a path argument into the file it really names.
//
// The kernel follows symlinks component by component, and ".." after a
// symlink climbs from the symlink's *target*.  A purely lexical
// normalisation gets that wrong ("link/../x" where link -> /etc/ssh names
// /etc/x), so resolution walks the path the way the kernel does: lstat each
// component of the existing prefix, splice in symlink targets, and only
// normalise lexically once the rest does not exist (nothing that does not
// exist can be a symlink).  Limits, as the kernel's: 40 symlink hops.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tgp::paths {

struct Resolved {
  std::string lexical;  // absolute, ".", ".." and "//" removed, no symlinks followed
  std::string real;     // symlinks of the existing prefix followed
};

struct ResolveContext {
  std::string base;  // for relative paths; empty: relative paths are refused
  std::string home;  // for "~" and "~/..."; empty: refused
};

// Lexically normalises an absolute path ("/a//b/./c/../d" -> "/a/b/d").
std::string normalize(std::string_view absolute);

// Resolves `input` (absolute, relative, "~/...", or a file:// URI); nullopt
// and a reason in *why when it cannot be resolved safely.
std::optional<Resolved> resolve(std::string_view input, const ResolveContext& ctx,
                                std::string* why);

// True when `path` is `root` or below it (both normalised, absolute).
bool within(std::string_view path, std::string_view root);

}  // namespace tgp::paths
