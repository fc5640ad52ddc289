#include "shadow_copy.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace toolgate::detail {

namespace fs = std::filesystem;

ShadowDir::ShadowDir(const fs::path& parent) {
  fs::path base = parent;
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp && *tmp ? tmp : "/tmp";
  }
  std::string templ = (base / "toolgate-shadow-XXXXXX").string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  // mkdtemp creates the folder 0700: nobody else can add or swap files.
  if (!::mkdtemp(buf.data()))
    throw std::runtime_error("cannot create a private folder for plugin copies under " +
                             base.string());
  dir_ = buf.data();
}

ShadowDir::~ShadowDir() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

fs::path ShadowDir::copy(const fs::path& source, const std::string& id) {
  fs::path target = dir_ / (id + "." + std::to_string(++counter_) + ".so");
  std::error_code ec;
  fs::copy_file(source, target, fs::copy_options::none, ec);
  if (ec)
    throw std::runtime_error("cannot copy " + source.string() + " to " + target.string() + ": " +
                             ec.message());
  ::chmod(target.c_str(), 0500);
  return target;
}

}  // namespace toolgate::detail
