// inspect_child.cpp -- the child side of `toolgate inspect`: everything that
// runs the plugin's code.  Writes one JSON object to the report file:
//   descriptor  the raw descriptor fields (when the entry could be called)
//   hooks, tools  what init registered (when the plugin loaded)
//   load_error  why loading failed, with the fix
//   host_symbols  undefined symbols bound to the host's definitions, not
//               to a library of the plugin (plugin_build_check.hpp)
//   missing_libraries  DT_NEEDED libraries that could not be opened
#include "inspect.hpp"

#include "../loading/elf_file.hpp"
#include "../loading/plugin_build_check.hpp"
#include "../loading/plugin_loader.hpp"
#include "../loading/stack.hpp"
#include "../reload/probe.hpp"

#include <toolgate/host.hpp>
#include <toolgate/json.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <dlfcn.h>
#include <elf.h>

#include <fstream>
#include <iostream>
#include <iterator>

namespace toolgate::cli {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// Opens the plugin's DT_NEEDED libraries the way the loader would find
// them (DT_RUNPATH with $ORIGIN first, then the default search).
std::vector<void*> open_needed(const detail::ElfImage& img, const fs::path& plugin,
                               json::array& missing) {
  std::vector<fs::path> dirs;
  for (std::size_t start = 0; !img.runpath.empty() && start <= img.runpath.size();) {
    std::size_t colon = img.runpath.find(':', start);
    std::string dir = img.runpath.substr(start, colon == std::string::npos ? colon : colon - start);
    if (auto at = dir.find("$ORIGIN"); at != std::string::npos)
      dir.replace(at, 7, plugin.parent_path().string());
    if (!dir.empty()) dirs.emplace_back(dir);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  std::vector<void*> handles;
  for (const auto& name : img.needed) {
    void* h = nullptr;
    for (const auto& d : dirs)
      if (!h && fs::exists(d / name)) h = ::dlopen((d / name).c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!h) h = ::dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (h)
      handles.push_back(h);
    else
      missing.emplace_back(name);
  }
  return handles;
}

// The DT_NEEDED libraries that cannot be found: all of them named, where
// dlopen of the plugin names only the first.
json::array missing_libraries(const detail::ElfImage& img, const fs::path& plugin) {
  json::array missing;
  for (void* h : open_needed(img, plugin, missing)) ::dlclose(h);
  return missing;
}

json::object describe(const tg_plugin_descriptor& d) {
  json::object o;
  o["struct_size"] = d.struct_size;
  o["abi_major"] = d.abi_major;
  o["abi_minor"] = d.abi_minor;
  o["id"] = d.id ? d.id : "";
  o["version"] = d.version ? d.version : "";
  o["capabilities"] = d.capabilities;
  o["flags"] = d.flags;
  o["config_schema"] =  // ABI 1.2; a shorter descriptor has none
      d.struct_size >= offsetof(tg_plugin_descriptor, config_schema) + sizeof(const char*) &&
      d.config_schema;
  return o;
}

void load_and_init(const fs::path& plugin, const detail::ElfImage& img, const json::object& config,
                   json::object& report) {
  // The entry first, on its own handle: the descriptor is reported even when
  // the loader then refuses the plugin.
  void* h = ::dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = ::dlerror();
    report["load_error"] = {{"problem", std::string("cannot be loaded: ") + (why ? why : "?")},
                            {"fix",
                             "link every library the plugin uses (-z defs shows what is "
                             "missing at link time) and install its dependencies"}};
    return;
  }
  // The loaders' check, on this handle: what the plugin took from the host.
  json::array host_symbols;
  for (auto& name : detail::host_provided_symbols(img, h)) host_symbols.emplace_back(name);
  report["host_symbols"] = std::move(host_symbols);
  using Entry = const tg_plugin_descriptor* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(h, TOOLGATE_ENTRY_SYMBOL));
  if (!entry) {  // reported by the parent from the symbol table
    ::dlclose(h);
    return;
  }
  const tg_plugin_descriptor* d = entry();
  if (d) report["descriptor"] = describe(*d);
  std::string id = d && d->id ? d->id : "";
  try {
    detail::ManifestPlugin mp;
    mp.path = plugin;
    mp.id = id;
    mp.config = config;
    // Already dlopen'ed above from this path: no private copy.
    auto loaded = detail::load_plugin(mp, "(inspect)", detail::LoaderOptions{true}, plugin);
    json::array hooks;
    for (const auto& r : loaded->hooks) {
      json::array tools;
      for (const auto& t : r.tools) tools.emplace_back(t);
      hooks.push_back(json::object{{"stage", detail::info(r.kind()).stage},
                                   {"name", r.name},
                                   {"tools", std::move(tools)},
                                   {"priority", r.priority}});
    }
    json::array tools;
    for (const auto& t : loaded->tools) tools.emplace_back(t.name);
    report["hooks"] = std::move(hooks);
    report["tools"] = std::move(tools);
    loaded.reset();  // shutdown runs here: a crash in it is caught too
  } catch (const LoadError& e) {
    report["load_error"] = {{"problem", e.problem()}, {"fix", e.fix()}};
  }
  ::dlclose(h);
}

}  // namespace

int inspect_child_main(const Args& args) {
  // As run_probe calls it: --report FILE, then PLUGIN and the id ("-").
  if (args.size() != 4 || args[0] != "--report") {
    std::cerr << "usage: toolgate __inspect --report REPORT.json PLUGIN - < config.json\n";
    return 2;
  }
  const std::string& report_file = args[1];
  const fs::path plugin = fs::absolute(args[2]);
  json::object report;
  try {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    json::object config = text.empty() ? json::object{} : json::parse(text).as_object();
    auto img = detail::read_elf(plugin);
    report["missing_libraries"] = missing_libraries(img, plugin);
    load_and_init(plugin, img, config, report);
  } catch (const std::exception& e) {
    report["load_error"] = {{"problem", e.what()}, {"fix", "fix the plugin"}};
  }
  std::ofstream out(report_file, std::ios::trunc);
  out << to_json_text(report) << "\n";
  out.close();
  if (!out.good()) {
    detail::probe_say_rejected("cannot write the report to " + report_file);
    return 1;
  }
  detail::probe_say_ok();  // run_probe takes any other ending as a crash
  return 0;
}

}  // namespace toolgate::cli
