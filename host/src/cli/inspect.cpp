// inspect.cpp -- `toolgate inspect PLUGIN.so [--json] [--config JSON]`
// What a plugin is and what would go wrong with it, without a call: ABI,
// id, version, capabilities, flags, what init registers, exported symbols,
// needed libraries; and the problems -- exports besides the entry,
// STB_GNU_UNIQUE symbols (the image could never unload), undefined symbols
// no library of the plugin provides (not linked with -z defs), no entry, a
// file that is not a complete ELF shared object, a load or init failure.
// Exit 0 when there is no problem, 1 when there is one, 2 on a usage error.
#include "inspect.hpp"
#include "options.hpp"

#include "../hook_kinds.hpp"
#include "../loading/elf_file.hpp"
#include "../reload/probe.hpp"

#include <toolgate/toolgate.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>

#include <elf.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace toolgate::cli {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* entry_name = TOOLGATE_ENTRY_SYMBOL;
const std::string helper_fix =
    "build with toolgate_add_plugin (CMake) or the flags of pkg-config toolgate-sdk: hidden "
    "visibility, -fno-gnu-unique, -Wl,-z,defs and the version script";

struct Findings {
  json::object info;
  json::array problems;
  void problem(const std::string& code, const std::string& message, const std::string& fix) {
    problems.push_back(json::object{{"code", code}, {"message", message}, {"fix", fix}});
  }
};

std::string joined(const std::vector<std::string>& names, std::size_t max = 8) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > max) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}

std::vector<std::string> names_of(const json::array& a) {
  std::vector<std::string> out;
  for (const auto& v : a) out.emplace_back(v.as_string());
  return out;
}

std::vector<std::string> bit_names(
    std::uint32_t bits, const std::vector<std::pair<std::uint32_t, std::string>>& known) {
  std::vector<std::string> out;
  for (const auto& [bit, name] : known)
    if (bits & bit) {
      out.emplace_back(name);
      bits &= ~bit;
    }
  if (bits) {
    char b[32];
    std::snprintf(b, sizeof b, "unknown 0x%x", bits);
    out.emplace_back(b);
  }
  return out;
}

// What the file says without running it.
void read_image(const fs::path& plugin, Findings& f) {
  auto img = detail::read_elf(plugin);
  f.info["size"] = img.size;
  if (!img.problem.empty()) {
    f.problem("not_a_plugin_image", "the file " + img.problem,
              "point inspect at a built plugin (.so); if it is still being written, wait");
    return;
  }
  if (!img.table_problem.empty())
    f.problem("malformed_elf", "the file " + img.table_problem, "rebuild it");
  if (img.type != ET_DYN)
    f.problem("not_a_shared_object", "the file is an ELF file but not a shared object",
              "build a shared library: " + helper_fix);
  std::vector<std::string> exports, extra, unique, undefined;
  for (const auto& s : img.dynamic_symbols) {
    if (!s.defined) {
      if (s.bind != STB_WEAK) undefined.push_back(s.name);
      continue;
    }
    if (s.bind == STB_LOCAL) continue;
    exports.push_back(s.name);
    if (s.name != entry_name) extra.push_back(s.name);
  }
  for (const auto& s : img.unique_symbols) unique.push_back(s.name);
  json::array needed;
  for (const auto& n : img.needed) needed.emplace_back(n);
  f.info["exports"] = json::value_from(exports);
  f.info["needed"] = std::move(needed);
  f.info["undefined"] = json::value_from(undefined);
  if (exports.size() == extra.size())
    f.problem(
        "no_entry", std::string("the plugin does not export ") + entry_name,
        "define it with TOOLGATE_PLUGIN_ENTRY (C) or TOOLGATE_PLUGIN (C++), and " + helper_fix);
  if (!extra.empty())
    f.problem("extra_exports",
              "exports " + std::to_string(extra.size()) + " symbol(s) besides " + entry_name +
                  ": " + joined(extra) +
                  "; other objects can bind to them and pin the plugin in memory",
              helper_fix);
  if (!unique.empty())
    f.problem("gnu_unique",
              "has STB_GNU_UNIQUE symbol(s), which keep the image mapped after dlclose (hot "
              "reload cannot unload it): " +
                  joined(unique),
              "compile C++ with -fno-gnu-unique (toolgate_add_plugin does)");
}

// Runs the child and folds its report in.
void probe(const fs::path& plugin, const json::object& config, Findings& f) {
  // A private (0700) folder: nobody else can plant or read the report.
  std::string pattern = (fs::temp_directory_path() / "toolgate-inspect-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a temporary folder in " +
                             fs::temp_directory_path().string() + " for the inspect report");
  const fs::path dir = pattern;
  const fs::path report_file = dir / "report.json";
  // run_probe appends PLUGIN and ID; inspect learns the id from the plugin,
  // so it passes "-".
  std::string why = detail::run_probe({self_exe(), "__inspect", "--report", report_file.string()},
                                      plugin, "-", config, std::chrono::seconds(10));
  std::ifstream in(report_file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!why.empty() || text.empty()) {
    f.problem("probe_failed",
              "loading the plugin in a child process failed: " +
                  (why.empty() ? std::string("no report") : why),
              "run it under a debugger: toolgate __probe PLUGIN ID < config.json");
    return;
  }
  json::object r = json::parse(text).as_object();
  if (auto* d = r.if_contains("descriptor")) {
    const auto& o = d->as_object();
    f.info["abi"] = std::to_string(o.at("abi_major").to_number<unsigned>()) + "." +
                    std::to_string(o.at("abi_minor").to_number<unsigned>());
    f.info["id"] = o.at("id");
    f.info["version"] = o.at("version");
    f.info["capabilities"] =
        json::value_from(bit_names(o.at("capabilities").to_number<std::uint32_t>(), [] {
          std::vector<std::pair<std::uint32_t, std::string>> caps;
          for (const auto& k : detail::kHookKinds)
            caps.emplace_back(k.capability, std::string(k.capability_name));
          caps.emplace_back(TG_CAP_TOOLS, "tools");
          return caps;
        }()));
    f.info["flags"] = json::value_from(bit_names(
        o.at("flags").to_number<std::uint32_t>(),
        {{TG_PLUGIN_SERIALIZED, "serialized"}, {TG_PLUGIN_NEVER_UNLOAD, "never-unload"}}));
    if (auto* s = o.if_contains("config_schema")) f.info["config_schema"] = *s;
  }
  if (auto* h = r.if_contains("hooks")) f.info["hooks"] = *h;
  if (auto* t = r.if_contains("tools")) f.info["tools"] = *t;
  if (auto u = names_of(r.at("unresolved").as_array()); !u.empty())
    f.problem("undefined_symbols",
              "undefined symbol(s) that no library the plugin links provides: " + joined(u) +
                  "; it was linked without -z defs and loads only if the host happens to define "
                  "them",
              "link the libraries that define them, and " + helper_fix);
  if (auto m = names_of(r.at("missing_libraries").as_array()); !m.empty())
    f.problem("missing_libraries", "needed libraries that cannot be found: " + joined(m),
              "install them, or fix the plugin's RUNPATH");
  if (auto* e = r.if_contains("load_error"))
    f.problem("load_failed", std::string(e->at("problem").as_string()),
              std::string(e->at("fix").as_string()));
}

void print_text(const fs::path& plugin, const Findings& f) {
  auto list = [&](const char* key) {
    std::vector<std::string> v;
    if (auto* a = f.info.if_contains(key))
      for (const auto& x : a->as_array()) v.emplace_back(x.as_string());
    return v.empty() ? std::string("none") : joined(v, 1000);
  };
  auto str = [&](const char* key) {
    auto* v = f.info.if_contains(key);
    return v ? std::string(v->as_string()) : std::string("(unknown)");
  };
  std::printf("plugin        %s\n", plugin.c_str());
  std::printf("abi           %s (this host: %d.%d)\n", str("abi").c_str(), TOOLGATE_ABI_MAJOR,
              TOOLGATE_ABI_MINOR);
  std::printf("id            %s\n", str("id").c_str());
  std::printf("version       %s\n", str("version").c_str());
  std::printf("capabilities  %s\n", list("capabilities").c_str());
  std::printf("flags         %s\n", list("flags").c_str());
  if (auto* s = f.info.if_contains("config_schema"))
    std::printf("config schema %s\n", s->as_bool() ? "declared, checked before init" : "none");
  if (auto* hooks = f.info.if_contains("hooks")) {
    for (const auto& hv : hooks->as_array()) {
      const auto& h = hv.as_object();
      std::string tools;
      for (const auto& t : h.at("tools").as_array()) {
        if (!tools.empty()) tools += ',';
        tools.append(t.as_string().data(), t.as_string().size());
      }
      std::printf("registers     %s %s (tools %s, priority %lld)\n",
                  std::string(h.at("stage").as_string()).c_str(),
                  std::string(h.at("name").as_string()).c_str(),
                  tools.empty() ? "*" : tools.c_str(),
                  static_cast<long long>(h.at("priority").as_int64()));
    }
    for (const auto& t : f.info.at("tools").as_array())
      std::printf("registers     tool %s\n", std::string(t.as_string()).c_str());
  }
  std::printf("exports       %s\n", list("exports").c_str());
  std::printf("needs         %s\n", list("needed").c_str());
  if (f.problems.empty()) {
    std::printf("ok: no problems found\n");
    return;
  }
  std::printf("%zu problem(s):\n", f.problems.size());
  for (const auto& pv : f.problems) {
    const auto& p = pv.as_object();
    std::printf("  %s: %s\n    fix: %s\n", std::string(p.at("code").as_string()).c_str(),
                std::string(p.at("message").as_string()).c_str(),
                std::string(p.at("fix").as_string()).c_str());
  }
}

}  // namespace

int run_inspect(const Args& args) {
  std::vector<std::string> plugins;
  bool as_json = false;
  json::object config;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      as_json = true;
    } else if (args[i] == "--config") {
      if (i + 1 == args.size()) throw UsageError("--config needs a JSON object");
      boost::system::error_code ec;
      json::value v = json::parse(args[++i], ec);
      if (ec || !v.is_object())
        throw UsageError("--config takes a JSON object, e.g. '{\"limit\": 3}'");
      config = v.as_object();
    } else if (args[i].size() > 1 && args[i][0] == '-') {
      throw UsageError("unknown option " + args[i]);
    } else {
      plugins.push_back(args[i]);
    }
  }
  if (plugins.size() != 1) throw UsageError("inspect takes one plugin file");
  const fs::path plugin = fs::absolute(plugins[0]);
  std::error_code ec;
  if (!fs::is_regular_file(plugin, ec))
    throw std::runtime_error(plugin.string() + " is not a file; build the plugin first");

  Findings f;
  read_image(plugin, f);
  // Only a complete shared object is worth running (the loader refuses the rest).
  if (f.problems.empty() || f.info.contains("exports")) probe(plugin, config, f);
  if (as_json) {
    json::object out = f.info;
    out["plugin"] = plugin.string();
    out["problems"] = f.problems;
    std::printf("%s\n", json::serialize(out).c_str());
  } else {
    print_text(plugin, f);
  }
  return f.problems.empty() ? 0 : 1;
}

}  // namespace toolgate::cli
