#include "file_permissions.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <system_error>

namespace fs = std::filesystem;

namespace toolgate::detail {

namespace {

bool owned_ok(const struct stat& st) { return st.st_uid == 0 || st.st_uid == ::geteuid(); }

PermissionProblem other_owner(const fs::path& p, const struct stat& st) {
  return {p.string() + " belongs to another user (uid " + std::to_string(st.st_uid) + ")", p,
          PermissionProblem::Kind::foreign_owner};
}

PermissionProblem writable(const fs::path& p) {
  return {p.string() + " is writable by group or others", p, PermissionProblem::Kind::writable};
}

// Walks `p` (absolute, normal) and every folder above it as they are named,
// without following symlinks: each entry must belong to root or us, and no
// folder on the way may let another user rename or replace what is below
// it.  A symlink's own mode bits mean nothing, so only its owner and the
// folder holding it are checked -- the target is checked separately.
std::optional<PermissionProblem> check_chain(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0)
    return PermissionProblem{"cannot inspect " + p.string(), p,
                             PermissionProblem::Kind::unresolvable};
  if (!owned_ok(st)) return other_owner(p, st);
  if (!S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH))) return writable(p);
  struct stat child = st;
  for (fs::path dir = p.parent_path();; dir = dir.parent_path()) {
    struct stat ds {};
    if (::lstat(dir.c_str(), &ds) != 0)
      return PermissionProblem{"cannot inspect " + dir.string(), dir,
                               PermissionProblem::Kind::unresolvable};
    if (!owned_ok(ds)) return other_owner(dir, ds);
    if (!S_ISLNK(ds.st_mode) && (ds.st_mode & (S_IWGRP | S_IWOTH))) {
      // Sticky folders (/tmp) let only an entry's owner rename or delete it.
      if (!(ds.st_mode & S_ISVTX) || !owned_ok(child)) return writable(dir);
    }
    if (dir == dir.root_path() || dir.empty()) break;
    child = ds;
  }
  return std::nullopt;
}

}  // namespace

std::optional<PermissionProblem> permission_problem(const fs::path& file) {
  const fs::path written = fs::absolute(file).lexically_normal();
  struct stat st {};
  // Missing: the caller reports "does not exist" (a dangling symlink is not
  // missing: lstat finds the link, and resolving it fails below).
  if (::lstat(written.c_str(), &st) != 0 && errno == ENOENT) return std::nullopt;
  // The path as written: whoever can swap a symlink on it chooses the file.
  if (auto p = check_chain(written)) return p;
  // The file it resolves to, through every folder on its real path: a
  // symlink into a world-writable folder is as unsafe as the folder.
  std::error_code ec;
  const fs::path real = fs::canonical(written, ec);
  if (ec)
    return PermissionProblem{written.string() + " cannot be resolved (" + ec.message() +
                                 "): a dangling symlink on its path",
                             written, PermissionProblem::Kind::unresolvable};
  if (real == written) return std::nullopt;
  if (auto p = check_chain(real)) {
    p->why += " (on the real path of " + written.string() + ")";
    return p;
  }
  return std::nullopt;
}

std::string insecure_permissions(const fs::path& file) {
  auto p = permission_problem(file);
  return p ? p->why : "";
}

std::string permission_fix(const PermissionProblem& p) {
  std::string change;
  switch (p.kind) {
    case PermissionProblem::Kind::writable:
      change = "chmod g-w,o-w " + p.where.string();
      break;
    case PermissionProblem::Kind::foreign_owner:
      change = "give it to root or to the user running toolgate (chown) " + p.where.string();
      break;
    case PermissionProblem::Kind::unresolvable:
      change = "fix the path or the symlink " + p.where.string() + " so it resolves";
      break;
  }
  return change +
         " (and the same for any other file or folder above it that the next check names), "
         "or pass --allow-insecure-plugin-permissions";
}

}  // namespace toolgate::detail
