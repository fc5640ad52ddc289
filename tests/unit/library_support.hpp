// library_support.hpp -- loading the production plugins (plugins/) through
// the real loader: a temporary manifest per plugin, a host with counting
// tools, and helpers to read config rejections.
#pragma once

#include "test_support.hpp"

#include <functional>

namespace tgtest {

inline std::string library_plugin(const std::string& name) {
  return std::string(TOOLGATE_PLUGIN_DIR) + "/toolgate_" + name + ".so";
}

struct LibraryFixture : Fixture {
  TempDir dir;

  // Loads plugins/NAME as "toolgate.NAME" with `config`.
  void load(const std::string& name, const json::object& config = {}) {
    host.load_manifest(
        dir.write(name + ".json", manifest_for("toolgate." + name, library_plugin(name), config)));
  }

  // Loads and expects a config rejection; returns the LoadError's JSON path
  // and problem text as "PATH: PROBLEM".
  std::string config_error(const std::string& name, const json::object& config) {
    try {
      load(name, config);
    } catch (const LoadError& e) {
      return e.json_path() + ": " + e.problem();
    }
    ADD_FAILURE() << "config was accepted: " << json::serialize(config);
    return "";
  }

  // A tool whose body counts its runs (into body_runs, shared with "echo")
  // and echoes its arguments.
  void add_tool(const std::string& name, std::uint32_t annotations,
                std::function<ToolOutput(const ToolContext&)> body = nullptr) {
    ToolDefinition t;
    t.name = name;
    t.annotations = annotations;
    auto runs = body_runs;
    t.execute = [runs, body](const ToolContext& ctx) {
      ++*runs;
      if (body) return body(ctx);
      return ToolOutput::success(ctx.call.arguments);
    };
    host.register_tool(std::move(t));
  }
};

// "x" is found in s.
inline bool has(const std::string& s, const std::string& x) {
  return s.find(x) != std::string::npos;
}

}  // namespace tgtest
