// The guard-paths plugin's resolver (plugins/guard-paths/resolve.cpp) on
// arbitrary path arguments, in a private folder of awkward symlinks (to
// "/", up the tree, to themselves, in a loop, dangling, chained).  Checked:
//   - both answers are absolute and normal (normalize() leaves them as
//     they are), and below "/";
//   - where the path exists, the real path is what realpath(3) says;
//   - normalize() is idempotent and within() holds for a path and itself.
#include "fuzz_check.hpp"
#include "guard-paths/resolve.hpp"

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <stdlib.h>
#include <unistd.h>

namespace fs = std::filesystem;
namespace paths = tgp::paths;

namespace {

struct Tree {
  std::string base, home;
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "toolgate-fuzz-paths-XXXXXX").string();
    FUZZ_CHECK(::mkdtemp(tmpl.data()) != nullptr);
    // realpath: $TMPDIR itself may be a symlink.
    char real[PATH_MAX];
    FUZZ_CHECK(::realpath(tmpl.c_str(), real) != nullptr);
    base = real;
    const fs::path b(base);
    fs::create_directories(b / "home" / "user" / ".ssh");
    fs::create_directories(b / "work" / "src");
    {
      FILE* f = std::fopen((b / "work" / "file").c_str(), "w");
      FUZZ_CHECK(f);
      std::fclose(f);
    }
    fs::create_directory_symlink("/", b / "root");
    fs::create_directory_symlink("..", b / "work" / "up");
    fs::create_directory_symlink("../home/user", b / "work" / "h");
    fs::create_directory_symlink(".", b / "work" / "self");
    fs::create_symlink("loop2", b / "work" / "loop1");
    fs::create_symlink("loop1", b / "work" / "loop2");
    fs::create_symlink("missing/target", b / "work" / "dangling");
    fs::create_symlink("file", b / "work" / "f");
    fs::create_symlink("f", b / "work" / "ff");
    fs::create_symlink(b / "home" / "user" / ".ssh", b / "work" / "keys");
    fs::create_symlink("file/..", b / "work" / "notdir");
    base = (b / "work").string();
    home = (b / "home" / "user").string();
    root = b;
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path root;
};

bool normal_absolute(const std::string& p) {
  if (p.empty() || p[0] != '/') return false;
  if (p == "/") return true;
  if (p.back() == '/' || p.find("//") != std::string::npos) return false;
  return paths::normalize(p) == p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Tree tree;
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  const std::string norm = paths::normalize("/" + std::string(input));
  FUZZ_CHECK(normal_absolute(norm));
  FUZZ_CHECK(paths::normalize(norm) == norm);
  FUZZ_CHECK(paths::within(norm, norm) && paths::within(norm, "/"));

  paths::ResolveContext ctx{tree.base, tree.home};
  std::string why;
  auto r = paths::resolve(input, ctx, &why);
  if (!r) {
    FUZZ_CHECK(!why.empty());
    return 0;
  }
  FUZZ_CHECK(normal_absolute(r->lexical));
  FUZZ_CHECK(normal_absolute(r->real));
  FUZZ_CHECK(paths::within(r->real, "/") && paths::within(r->lexical, "/"));

  // The path as the kernel would be handed it (plain paths only: a file://
  // URI is decoded by resolve).
  std::string absolute;
  if (input.substr(0, 7) == "file://")
    return 0;
  else if (input[0] == '/')
    absolute = input;
  else if (input[0] == '~')
    absolute = tree.home + std::string(input.substr(1));
  else
    absolute = tree.base + "/" + std::string(input);
  char real[PATH_MAX];
  if (absolute.size() < PATH_MAX && ::realpath(absolute.c_str(), real)) FUZZ_CHECK(r->real == real);
  return 0;
}
