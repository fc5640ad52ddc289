#include "file_permissions.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace toolgate::detail {

std::string insecure_permissions(const fs::path& file) {
  const uid_t me = ::geteuid();
  auto owned_ok = [&](const struct stat& st) { return st.st_uid == 0 || st.st_uid == me; };
  struct stat st {};
  fs::path p = fs::absolute(file).lexically_normal();
  if (::stat(p.c_str(), &st) != 0) return "";  // missing: reported elsewhere
  if (!owned_ok(st))
    return p.string() + " belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return p.string() + " is writable by group or others";
  struct stat child = st;
  for (fs::path dir = p.parent_path();; dir = dir.parent_path()) {
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) != 0) return "cannot inspect " + dir.string();
    if (!owned_ok(ds))
      return dir.string() + " belongs to another user (uid " + std::to_string(ds.st_uid) + ")";
    if (ds.st_mode & (S_IWGRP | S_IWOTH)) {
      // Sticky folders (/tmp) let only an entry's owner rename or delete it.
      if (!(ds.st_mode & S_ISVTX) || !owned_ok(child))
        return dir.string() + " is writable by group or others";
    }
    if (dir == dir.root_path() || dir.empty()) break;
    child = ds;
  }
  return "";
}

}  // namespace toolgate::detail
