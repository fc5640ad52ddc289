#include "plugin_build_check.hpp"

#include <toolgate/toolgate.h>

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>

#include <cstdlib>
#include <memory>

namespace toolgate::detail {

const char* const kBuildFix =
    "build with toolgate_add_plugin() (CMake) or the flags of pkg-config toolgate-sdk "
    "(-fvisibility=hidden, -fno-gnu-unique for C++, -Wl,-z,defs and the version script)";

std::string demangled(const std::string& name) {
  // Only C++ names ("_Z..."): __cxa_demangle also turns plain C names such
  // as "f" or "i" into types ("float", "int").
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

std::string symbol_list(const std::vector<std::string>& names, std::size_t shown) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i)
    s += (i ? ", " : "") + demangled(names[i]);
  if (names.size() > shown) s += " (and " + std::to_string(names.size() - shown) + " more)";
  return s;
}

std::vector<BuildProblem> image_problems(const ElfImage& img) {
  std::vector<BuildProblem> out;
  if (!img.problem.empty()) {
    out.push_back({"not_a_plugin_image", "the file " + img.problem,
                   "point at a built plugin (.so); if it is still being written, wait for the "
                   "build to finish",
                   false});
    return out;
  }
  if (!img.table_problem.empty())
    out.push_back({"malformed_elf", "the file " + img.table_problem, "rebuild it", false});
  if (img.type != ET_DYN)
    out.push_back({"not_a_shared_object", "the file is an ELF file but not a shared object",
                   std::string("build a shared library: ") + kBuildFix, false});
  std::vector<std::string> extra, unique;
  bool entry = false;
  for (const auto& s : img.dynamic_symbols) {
    if (!s.defined || s.bind == STB_LOCAL) continue;
    if (s.name == TOOLGATE_ENTRY_SYMBOL)
      entry = true;
    else
      extra.push_back(s.name);
  }
  for (const auto& s : img.unique_symbols) unique.push_back(s.name);
  if (!entry)
    out.push_back(
        {"no_entry", "the plugin does not export " TOOLGATE_ENTRY_SYMBOL,
         std::string("define it with TOOLGATE_PLUGIN_ENTRY (C) or TOOLGATE_PLUGIN (C++), and ") +
             kBuildFix,
         false});
  if (!extra.empty())
    out.push_back({"extra_exports",
                   "exports " + std::to_string(extra.size()) +
                       " symbol(s) besides " TOOLGATE_ENTRY_SYMBOL ": " + symbol_list(extra) +
                       "; other objects can bind to them and keep the plugin loaded after a "
                       "reload",
                   kBuildFix});
  if (!unique.empty())
    out.push_back({"gnu_unique",
                   "has " + std::to_string(unique.size()) +
                       " STB_GNU_UNIQUE symbol(s): " + symbol_list(unique) +
                       "; they keep the image mapped after dlclose, so a hot reload cannot "
                       "unload it",
                   "compile C++ with -fno-gnu-unique (toolgate_add_plugin and the variable "
                   "plugin_cxxflags of pkg-config toolgate-sdk add it)"});
  return out;
}

std::vector<std::string> host_provided_symbols(const ElfImage& img, void* handle) {
  std::vector<std::string> out;
  if (!handle) return out;
  for (const auto& s : img.dynamic_symbols) {
    if (s.defined || s.bind != STB_GLOBAL || s.name.empty()) continue;
    // dlsym on a handle searches that object and its dependencies only
    // (its local scope), never the program's global scope: not found there
    // means the dynamic linker took it from the host.
    ::dlerror();
    if (!::dlsym(handle, s.name.c_str())) out.push_back(s.name);
  }
  ::dlerror();  // nobody else should read our lookups' failures
  return out;
}

BuildProblem host_symbols_problem(const std::vector<std::string>& names) {
  return {"host_symbols",
          "has " + std::to_string(names.size()) +
              " undefined symbol(s) that no library it links defines: " + symbol_list(names) +
              "; the dynamic linker bound them to the host program's, so it loads only in a "
              "host that happens to define them (it was linked without -z defs)",
          std::string("link the libraries that define them (-Wl,-z,defs names them at link "
                      "time), and ") +
              kBuildFix};
}

std::vector<BuildProblem> bad_build_problems(const ElfImage& img, void* handle) {
  std::vector<BuildProblem> out;
  for (auto& p : image_problems(img))
    if (p.bad_build) out.push_back(std::move(p));
  if (auto names = host_provided_symbols(img, handle); !names.empty())
    out.push_back(host_symbols_problem(names));
  return out;
}

}  // namespace toolgate::detail
