#include "secret_files.hpp"

#include "http_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace toolgate::mcp {

namespace {

bool visible_ascii(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x21 || c > 0x7e) return false;
  return true;
}

}  // namespace

std::vector<std::string> read_secret_lines(const std::filesystem::path& file, std::string_view what,
                                           std::size_t min_length) {
  const std::string name = "the " + std::string(what) + " " + file.string();
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    throw std::runtime_error("cannot read " + name + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw std::runtime_error(name + " is not a regular file");
  if (st.st_uid != ::geteuid())
    throw std::runtime_error(name +
                             " belongs to another user; it must be this user's own (chown it)");
  if ((st.st_mode & 077) != 0)
    throw std::runtime_error(name + " can be read or written by others; run chmod 600 on it");
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + name + ": " + std::strerror(errno));
  std::vector<std::string> secrets;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto t = http::trim(line);
    if (t.empty() || t.front() == '#') continue;
    if (!visible_ascii(t) || t.size() < min_length)
      throw std::runtime_error(name + ", line " + std::to_string(n) +
                               ": each line must be at least " + std::to_string(min_length) +
                               " characters of visible ASCII, without spaces (for example the "
                               "output of: openssl rand -hex 32)");
    secrets.emplace_back(t);
  }
  if (secrets.empty())
    throw std::runtime_error(name + " holds nothing (one per line; '#' starts a comment)");
  return secrets;
}

}  // namespace toolgate::mcp
