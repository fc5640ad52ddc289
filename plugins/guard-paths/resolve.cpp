#include "resolve.hpp"

#include <cerrno>
#include <deque>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace tgp::paths {

namespace {

std::deque<std::string> components(std::string_view p) {
  std::deque<std::string> out;
  std::size_t i = 0;
  while (i < p.size()) {
    while (i < p.size() && p[i] == '/') ++i;
    std::size_t j = i;
    while (j < p.size() && p[j] != '/') ++j;
    if (j > i) out.emplace_back(p.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  if (parts.empty()) return "/";
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// file:///a%20b -> /a b.  Percent-decoding applies to URIs only: in a plain
// path "%2e%2e" is a file name, not "..".
std::optional<std::string> from_file_uri(std::string_view uri, std::string* why) {
  std::string_view rest = uri.substr(7);
  if (rest.substr(0, 9) == "localhost") rest.remove_prefix(9);
  if (rest.empty() || rest[0] != '/') {
    *why = "is a file:// URI with a remote host";
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && hex(rest[i + 1]) >= 0 && hex(rest[i + 2]) >= 0) {
      out += static_cast<char>(hex(rest[i + 1]) * 16 + hex(rest[i + 2]));
      i += 2;
    } else if (rest[i] == '?' || rest[i] == '#') {
      break;
    } else {
      out += rest[i];
    }
  }
  if (out.find('\0') != std::string::npos) {
    *why = "contains an encoded NUL byte";
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::string normalize(std::string_view absolute) {
  std::vector<std::string> parts;
  for (auto& c : components(absolute)) {
    if (c == ".") continue;
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(std::move(c));
  }
  return join(parts);
}

bool within(std::string_view path, std::string_view root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  if (path.size() < root.size() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

std::optional<Resolved> resolve(std::string_view input, const ResolveContext& ctx,
                                std::string* why) {
  if (input.empty()) {
    *why = "is empty";
    return std::nullopt;
  }
  if (input.find('\0') != std::string_view::npos) {
    // A NUL truncates the path in C APIs: what we check is not what opens.
    *why = "contains a NUL byte";
    return std::nullopt;
  }
  std::string path(input);
  if (path.compare(0, 7, "file://") == 0) {
    auto decoded = from_file_uri(path, why);
    if (!decoded) return std::nullopt;
    path = std::move(*decoded);
  }
  if (path[0] == '~') {
    if (path.size() > 1 && path[1] != '/') {
      *why = "names another user's home (~user), which cannot be checked";
      return std::nullopt;
    }
    if (ctx.home.empty()) {
      *why = "starts with ~ but no home directory is configured";
      return std::nullopt;
    }
    path = ctx.home + path.substr(1);
  } else if (path[0] != '/') {
    if (ctx.base.empty()) {
      *why = "is relative and no base directory is configured";
      return std::nullopt;
    }
    path = ctx.base + "/" + path;
  }

  Resolved out;
  out.lexical = normalize(path);

  // Walk like the kernel: `done` never contains a symlink.
  std::vector<std::string> done;
  std::deque<std::string> todo = components(path);
  bool existing = true;
  int hops = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(std::move(c));
    if (!existing) continue;
    const std::string candidate = join(done);
    struct stat st;
    if (::lstat(candidate.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        existing = false;  // nothing below can be a symlink
        continue;
      }
      *why = "cannot be resolved (" + candidate + " is not accessible)";
      return std::nullopt;
    }
    if (!S_ISLNK(st.st_mode)) continue;
    if (++hops > 40) {
      *why = "has too many levels of symbolic links";
      return std::nullopt;
    }
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 256) + 1, '\0');
    ssize_t n = ::readlink(candidate.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size()) {
      *why = "cannot be resolved (reading the link " + candidate + " failed)";
      return std::nullopt;
    }
    target.resize(static_cast<std::size_t>(n));
    done.pop_back();
    if (!target.empty() && target[0] == '/') done.clear();
    auto more = components(target);
    todo.insert(todo.begin(), more.begin(), more.end());
  }
  out.real = join(done);
  return out;
}

}  // namespace tgp::paths
