#include "options.hpp"

#include "../json_util.hpp"
#include "default_manifests.hpp"
#include "fs_tools.hpp"
#include "sample_tools.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace toolgate::cli {

Args parse_common(const Args& args, CommonOptions& out, const std::vector<std::string>& value_flags,
                  const std::vector<std::string>& bool_flags) {
  Args rest;
  auto is = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 == args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--manifest") {
      out.manifests.push_back(value());
    } else if (a == "--disable") {
      out.load.disable.push_back(value());
    } else if (a == "--var") {
      const std::string v = value();
      const auto eq = v.find('=');
      if (eq == 0 || eq == std::string::npos)
        throw UsageError("--var takes NAME=VALUE (for ${NAME} in the manifests' config), not \"" +
                         v + "\"");
      out.load.variables.insert_or_assign(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--allow-insecure-plugin-permissions") {
      out.load.allow_insecure_plugin_permissions = true;
    } else if (a == "--strict") {
      out.load.strict_plugin_builds = true;
    } else if (a == "--no-strict") {
      out.load.strict_plugin_builds = false;
    } else if (is(value_flags, a)) {
      rest.push_back(a);
      rest.push_back(value());
    } else if (is(bool_flags, a)) {
      rest.push_back(a);
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else {
      out.manifests.push_back(a);
    }
  }
  if (const char* env = std::getenv("TOOLGATE_DISABLE")) {
    std::stringstream ss(env);
    for (std::string g; std::getline(ss, g, ',');)
      if (!g.empty()) out.load.disable.push_back(g);
  }
  return rest;
}

void use_default_manifests_if_none(CommonOptions& o) {
  if (!o.manifests.empty()) return;
  o.manifests = default_manifests();
  for (const auto& m : o.manifests) spdlog::info("no manifest given: loading {}", m);
}

std::vector<ToolDefinition> sample_tools() {
  return {samples::greeting_tool(), samples::slow_tool()};
}

void register_cli_tools(Host& host, std::vector<ToolDefinition> extra_tools) {
  for (auto def : sample_tools()) host.register_tool(std::move(def));
  for (auto& def : extra_tools) {
    try {
      host.register_tool(std::move(def));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--stub: ") + e.what());
    }
  }
}

std::unique_ptr<Host> make_host(const CommonOptions& o, LoadReport* report,
                                std::vector<ToolDefinition> extra_tools) {
  auto host = std::make_unique<Host>();
  register_cli_tools(*host, std::move(extra_tools));
  std::vector<std::filesystem::path> paths(o.manifests.begin(), o.manifests.end());
  LoadReport r;
  if (!paths.empty() || !o.load.disable.empty()) r = host->load_manifests(paths, o.load);
  // Operators must see that a lock overrode their flag.
  for (const auto& k : r.kept_locked) spdlog::warn("{}", k);
  if (report) *report = std::move(r);
  return host;
}

std::vector<ToolDefinition> tool_set_flags(const Args& rest) {
  auto set = flag_value(rest, "--tools");
  auto workspace = flag_value(rest, "--workspace");
  if (!set) {
    if (workspace) throw UsageError("--workspace needs --tools fs");
    return {};
  }
  if (*set != "fs") throw UsageError("--tools takes fs (the file tools), not \"" + *set + "\"");
  fs_tools::Options o;
  o.workspace = workspace ? std::filesystem::path(*workspace) : std::filesystem::current_path();
  try {
    return fs_tools::tools(o);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--workspace: ") + e.what());
  }
}

std::optional<CodeModeOptions> code_mode_flags(const Args& rest) {
  auto sandbox = flag_value(rest, "--code-sandbox");
  if (!has_flag(rest, "--code-mode")) {
    if (sandbox) throw UsageError("--code-sandbox needs --code-mode");
    return std::nullopt;
  }
  CodeModeOptions o;
  if (sandbox && *sandbox == "none")
    o.sandbox = CodeModeOptions::Sandbox::none;
  else if (sandbox && *sandbox != "bubblewrap")
    throw UsageError("--code-sandbox takes bubblewrap or none, not \"" + *sandbox + "\"");
  return o;
}

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "toolgate";
}

std::optional<std::string> call_document(const std::string& tool, const std::string& arguments,
                                         std::string* why) {
  // The host's own depth limit applies again when the text is read.
  auto args = detail::parse_untrusted(arguments, HostOptions{}.max_json_depth, why);
  if (!args) return std::nullopt;
  return to_json_text(boost::json::object{{"tool", tool}, {"arguments", std::move(*args)}});
}

std::uint64_t number_option(const std::string& flag, const std::string& text, std::uint64_t min,
                            std::uint64_t max, const char* unit) {
  auto bad = [&] {
    return UsageError(flag + " takes a whole number of " + unit + " from " + std::to_string(min) +
                      " to " + std::to_string(max) + ", not \"" + text + "\"");
  };
  if (text.empty() || text.size() > 19 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw bad();
  std::uint64_t v = std::stoull(text);
  if (v < min || v > max) throw bad();
  return v;
}

std::vector<ToolDefinition> stub_tools(const Args& rest) {
  std::vector<ToolDefinition> tools;
  for (std::size_t i = 0; i + 1 < rest.size(); ++i) {
    if (rest[i] != "--stub") continue;
    const std::string& spec = rest[++i];
    auto colon = spec.find(':');
    std::string name = spec.substr(0, colon);
    auto bad = [&](const std::string& why) {
      return UsageError("--stub " + spec + ": " + why +
                        " (the form is --stub NAME or --stub NAME:SCHEMA, SCHEMA a JSON object "
                        "or @FILE)");
    };
    if (name.empty() || name.size() > 128 ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 0x7f; }))
      throw bad("the tool name must be 1 to 128 printable characters without spaces");
    boost::json::value schema;
    if (colon != std::string::npos) {
      std::string text = spec.substr(colon + 1);
      if (!text.empty() && text[0] == '@') {
        std::ifstream in(text.substr(1), std::ios::binary);
        if (!in) throw bad("cannot read the schema file " + text.substr(1));
        text.assign(std::istreambuf_iterator<char>(in), {});
      }
      std::string why;
      auto v = detail::parse_untrusted(text, HostOptions{}.max_json_depth, &why);
      if (!v) throw bad("the schema is not valid JSON: " + why);
      if (!v->is_object()) throw bad("the schema must be a JSON object");
      schema = std::move(*v);
    }
    tools.push_back(samples::stub_tool(std::move(name), std::move(schema)));
  }
  return tools;
}

std::optional<std::string> flag_value(const Args& rest, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < rest.size(); ++i)
    if (rest[i] == flag) return rest[i + 1];
  return std::nullopt;
}

bool has_flag(const Args& rest, const std::string& flag) {
  return std::find(rest.begin(), rest.end(), flag) != rest.end();
}

}  // namespace toolgate::cli
