// inspect.cpp -- `toolgate inspect PLUGIN.so [--config JSON|@FILE]` or
// `toolgate inspect M...` (manifests: every enabled plugin with its entry's
// config), `[--json] [--allow-insecure-plugin-permissions]`.
// What a plugin is and what would go wrong with it, without a call: ABI,
// id, version, capabilities, flags, what init registers, exported symbols,
// needed libraries; and the problems -- the build problems the loaders
// share (plugin_build_check.hpp: exports besides the entry, STB_GNU_UNIQUE
// symbols, undefined symbols only the host defines, no entry, not a
// complete ELF shared object), permissions the loaders would refuse
// (file_permissions.hpp), an id other than the manifest's, a load or init
// failure.  Exit 0 when there is no problem, 1 when there is one, 2 on a
// usage error.
#include "inspect.hpp"
#include "options.hpp"

#include "../hook_kinds.hpp"
#include "../loading/elf_file.hpp"
#include "../loading/file_permissions.hpp"
#include "../loading/manifest.hpp"
#include "../loading/plugin_build_check.hpp"
#include "../reload/probe.hpp"

#include <toolgate/host.hpp>
#include <toolgate/json.hpp>

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
#include <optional>

namespace toolgate::cli {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct Findings {
  json::object info;
  json::array problems;
  void problem(const std::string& code, const std::string& message, const std::string& fix) {
    problems.push_back(json::object{{"code", code}, {"message", message}, {"fix", fix}});
  }
  void problem(const detail::BuildProblem& p) { problem(p.code, p.message, p.fix); }
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

// What the file says without running it: the loaders' own checks.
void read_image(const fs::path& plugin, Findings& f) {
  auto img = detail::read_elf(plugin);
  f.info["size"] = img.size;
  for (const auto& p : detail::image_problems(img)) f.problem(p);
  if (!img.problem.empty()) return;
  std::vector<std::string> exports, undefined;
  for (const auto& s : img.dynamic_symbols) {
    if (!s.defined) {
      if (s.bind != STB_WEAK) undefined.push_back(s.name);
      continue;
    }
    if (s.bind != STB_LOCAL) exports.push_back(s.name);
  }
  json::array needed;
  for (const auto& n : img.needed) needed.emplace_back(n);
  f.info["exports"] = json::value_from(exports);
  f.info["needed"] = std::move(needed);
  f.info["undefined"] = json::value_from(undefined);
}

// Would call, check, watch and mcp refuse the file for where it lives?
void check_permissions(const fs::path& plugin, Findings& f) {
  if (auto p = detail::permission_problem(plugin))
    f.problem("insecure_permissions",
              "the loaders refuse it: " + p->why + ", so another user could replace the plugin",
              detail::permission_fix(*p));
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
  if (auto* h = r.if_contains("host_symbols"))
    if (auto u = names_of(h->as_array()); !u.empty()) f.problem(detail::host_symbols_problem(u));
  const auto* missing = r.if_contains("missing_libraries");
  if (auto m = missing ? names_of(missing->as_array()) : std::vector<std::string>{}; !m.empty())
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
    if (v.empty()) return std::string("none");
    // A build without the SDK flags exports thousands of symbols: a count
    // and the first few, demangled (--json has them all).
    return v.size() > 1 ? std::to_string(v.size()) + ": " + detail::symbol_list(v)
                        : detail::symbol_list(v);
  };
  auto str = [&](const char* key) {
    auto* v = f.info.if_contains(key);
    return v ? std::string(v->as_string()) : std::string("(unknown)");
  };
  std::printf("plugin        %s\n", plugin.c_str());
  if (auto* m = f.info.if_contains("manifest"))
    std::printf("manifest      %s (config from there)\n", std::string(m->as_string()).c_str());
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

// One plugin: its image, where it lives, then its code in a child.
// `expected_id`: the id a manifest gives it ("" for a bare plugin).
Findings inspect_one(const fs::path& plugin, const json::object& config, bool allow_insecure,
                     const std::string& expected_id) {
  Findings f;
  std::error_code ec;
  if (!fs::is_regular_file(plugin, ec)) {
    f.problem("missing_file", plugin.string() + " is not a file",
              "build the plugin first, or fix the path");
    return f;
  }
  read_image(plugin, f);
  if (!allow_insecure) check_permissions(plugin, f);
  // Only a complete shared object is worth running (the loader refuses the rest).
  if (f.info.contains("exports")) probe(plugin, config, f);
  if (auto* id = f.info.if_contains("id");
      id && !expected_id.empty() && *id != json::value(expected_id))
    f.problem("id_mismatch",
              "the manifest says \"" + expected_id + "\" but the plugin declares " +
                  to_json_text(*id) + "; the loaders refuse it",
              "set \"id\" in the manifest to the plugin's id, if this is the plugin you meant");
  return f;
}

// --config's value: a JSON object, given inline or as @FILE.
json::object config_option(const std::string& value) {
  std::string text = value;
  if (!value.empty() && value[0] == '@') {
    std::ifstream in(value.substr(1), std::ios::binary);
    if (!in)
      throw UsageError("--config " + value + ": cannot read " + value.substr(1) +
                       " (@FILE names a file holding the JSON object)");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object())
    throw UsageError("--config takes a JSON object, e.g. '{\"limit\": 3}', or @FILE holding one");
  return v.as_object();
}

bool is_manifest(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) || p.extension() == ".json";
}

}  // namespace

int run_inspect(const Args& args) {
  std::vector<std::string> paths;
  bool as_json = false, allow_insecure = false;
  std::optional<json::object> config;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      as_json = true;
    } else if (args[i] == "--allow-insecure-plugin-permissions") {
      allow_insecure = true;
    } else if (args[i] == "--config") {
      if (i + 1 == args.size()) throw UsageError("--config needs a JSON object or @FILE");
      config = config_option(args[++i]);
    } else if (args[i].size() > 1 && args[i][0] == '-') {
      throw UsageError("unknown option " + args[i]);
    } else {
      paths.push_back(args[i]);
    }
  }
  if (paths.empty())
    throw UsageError("inspect takes one plugin file, or manifests (M.json or a folder of them)");
  std::size_t manifests = 0;
  for (const auto& p : paths) manifests += is_manifest(p);
  if (manifests == 0 && paths.size() > 1)
    throw UsageError("inspect takes one plugin file, or manifests (M.json or a folder of them)");
  if (manifests != 0 && manifests != paths.size())
    throw UsageError("give inspect either one plugin file or manifests, not both");
  if (manifests != 0 && config)
    throw UsageError(
        "--config is for a plugin file; with a manifest each plugin gets its "
        "entry's \"config\"");

  // Each plugin inspected, with where it came from (a manifest entry or not).
  std::vector<std::pair<fs::path, Findings>> results;
  if (manifests == 0) {
    const fs::path plugin = fs::absolute(paths[0]);
    std::error_code ec;
    if (!fs::is_regular_file(plugin, ec))
      throw std::runtime_error(plugin.string() + " is not a file; build the plugin first");
    results.emplace_back(plugin,
                         inspect_one(plugin, config.value_or(json::object{}), allow_insecure, ""));
  } else {
    // The manifests are read as the loaders read them (strictly, and
    // permission-checked): a manifest they refuse is an error here too.
    for (const auto& file : detail::expand_manifest_paths({paths.begin(), paths.end()})) {
      auto m = detail::read_manifest(file, allow_insecure);
      for (const auto& entry : m.plugins) {
        if (!entry.enabled) continue;  // the loaders skip it too
        Findings f = inspect_one(entry.path, entry.config, allow_insecure, entry.id);
        f.info["manifest"] = m.file.string() + " at " + entry.json_path;
        results.emplace_back(entry.path, std::move(f));
      }
    }
  }

  bool problems = false;
  json::array all;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& [plugin, f] = results[i];
    problems = problems || !f.problems.empty();
    if (as_json) {
      json::object out = f.info;
      out["plugin"] = plugin.string();
      out["problems"] = f.problems;
      all.push_back(std::move(out));
    } else {
      if (i) std::printf("\n");
      print_text(plugin, f);
    }
  }
  // One plugin file: one object, as always; manifests: an array of them.
  if (as_json)
    std::printf("%s\n", to_json_text(manifests ? json::value(all) : all.at(0)).c_str());
  else if (manifests && results.empty())
    std::printf("no enabled plugin in the manifests\n");
  return problems ? 1 : 0;
}

}  // namespace toolgate::cli
