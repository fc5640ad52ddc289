// file_permissions.hpp -- could another user replace this file?
//
// Plugins and manifests are the policy: whoever can rewrite either decides
// what the agent may do.  Both are refused when another user could replace
// them, unless the operator says otherwise
// (LoadOptions::allow_insecure_plugin_permissions).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace toolgate::detail {

// Why `file` could be replaced by another user, or an empty string when it
// cannot.  Checked twice: along the path as written (every entry, symlinks
// not followed, since whoever can swap a link chooses the file) and along
// the real path the file resolves to (so a link into a world-writable
// folder is refused like the folder).  A folder writable by group or
// others is unsafe unless it has the sticky bit and the entry below it
// belongs to root or to us (as /tmp/dir owned by us); anything owned by
// another non-root user is unsafe; a dangling symlink is refused.
std::string insecure_permissions(const std::filesystem::path& file);

// The same check, saying which entry is at fault, so the fix can name it.
struct PermissionProblem {
  std::string why;              // as insecure_permissions
  std::filesystem::path where;  // the file or folder to change
  enum class Kind { writable, foreign_owner, unresolvable } kind = Kind::writable;
};
std::optional<PermissionProblem> permission_problem(const std::filesystem::path& file);

// How to fix it: the chmod or chown of `where`, or the operator's flag.
// The loaders and `toolgate inspect` print the same.
std::string permission_fix(const PermissionProblem& p);

}  // namespace toolgate::detail
