// plugin_build_check.hpp -- is this plugin built the way docs/design.md §7.7
// requires?  One implementation for `toolgate inspect` and the loaders.
//
// A plugin built without the SDK flags usually loads and works -- until a
// hot reload cannot unload it, or a host that does not happen to define a
// symbol it needs refuses it.  The checks read the ELF image (no plugin
// code runs) except one, which needs the image loaded: which undefined
// symbols were bound outside the plugin's own libraries.
#pragma once

#include "elf_file.hpp"

#include <string>
#include <vector>

namespace toolgate::detail {

struct BuildProblem {
  std::string code;     // "extra_exports", "gnu_unique", "host_symbols", ...
  std::string message;  // what is wrong, summarised (a few demangled names)
  std::string fix;      // how to build it right
  // True for a plugin that loads and serves but is built wrong (a warning,
  // or refused in strict mode); false for one the loader refuses anyway
  // (no entry, not a complete shared object).
  bool bad_build = true;
};

// The problems the file itself shows: not a complete ELF shared object,
// malformed tables, no entry symbol, exports besides the entry,
// STB_GNU_UNIQUE symbols.
std::vector<BuildProblem> image_problems(const ElfImage& img);

// Undefined, non-weak symbols of `img` that the plugin's own dependency
// tree does not define, given `handle` from dlopen of that image: the
// dynamic linker bound them from the global scope (the host program and
// what it loaded), so the plugin works only in a host that happens to
// define them.  (A plugin linked with -z defs has none.)
std::vector<std::string> host_provided_symbols(const ElfImage& img, void* handle);

// The problem for those symbols ("host_symbols").
BuildProblem host_symbols_problem(const std::vector<std::string>& names);

// The bad-build problems of a loaded image: image_problems' bad builds plus
// host_symbols.  What the loaders warn about or, strict, refuse.
std::vector<BuildProblem> bad_build_problems(const ElfImage& img, void* handle);

// `name` demangled when it is a C++ symbol, else as it is.
std::string demangled(const std::string& name);

// "a, b, c (and N more)": at most `shown` names, demangled -- a build
// without the SDK flags exports thousands, and one line of them all helps
// nobody.
std::string symbol_list(const std::vector<std::string>& names, std::size_t shown = 10);

// The fix shared by the build problems.
extern const char* const kBuildFix;

}  // namespace toolgate::detail
