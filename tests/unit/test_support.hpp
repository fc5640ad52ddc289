// test_support.hpp -- shared fixtures: a host with counted tools, an event
// recorder, and temporary manifests for plugin tests.
#pragma once

#include <toolgate/host.hpp>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

namespace tgtest {

namespace json = boost::json;
using namespace toolgate;

// Records every event; thread-safe.
struct Recorder {
  std::mutex mutex;
  std::vector<Event> events;
  void operator()(const Event& e) {
    std::lock_guard lock(mutex);
    events.push_back(e);
  }
  // A copy, for tests whose host still emits from background threads.
  std::vector<Event> snapshot() {
    std::lock_guard lock(mutex);
    return events;
  }
  std::vector<Event> of_type(std::string_view type) {
    std::lock_guard lock(mutex);
    std::vector<Event> out;
    for (const auto& e : events)
      if (e.type == type) out.push_back(e);
    return out;
  }
};

// A host with an "echo" tool whose body counts its runs, plus the sample
// tools.  Every test asserting "the body did not run" reads body_runs.
struct Fixture {
  std::shared_ptr<std::atomic<int>> body_runs = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<Recorder> recorder = std::make_shared<Recorder>();
  Host host;

  explicit Fixture(HostOptions options = {}) : host(options) {
    ToolDefinition echo;
    echo.name = "echo";
    echo.annotations = annotation::idempotent;
    auto runs = body_runs;
    echo.execute = [runs](const ToolContext& ctx) {
      ++*runs;
      if (ctx.call.arguments.contains("fail")) return ToolOutput::failure("echo was asked to fail");
      return ToolOutput::success(ctx.call.arguments);
    };
    host.register_tool(std::move(echo));
    auto rec = recorder;
    host.subscribe([rec](const Event& e) { (*rec)(e); });
  }

  ToolResult call(std::string tool, json::object args = {}) {
    ToolCall c;
    c.identity.tool = std::move(tool);
    c.identity.session_id = "test";
    c.arguments = std::move(args);
    return host.call(std::move(c));
  }
};

inline std::string code_of(const ToolResult& r) { return r.error ? r.error->code : ""; }

// A temporary folder holding manifests that point at built plugins.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static std::atomic<int> n{0};
    path = std::filesystem::temp_directory_path() /
           ("toolgate-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    auto p = path / name;
    std::ofstream(p) << text;
    return p;
  }
};

inline std::string test_plugin(const std::string& name) {
  return std::string(TOOLGATE_TEST_PLUGIN_DIR) + "/" + name + ".so";
}
inline std::string sample_plugin(const std::string& name) {
  return std::string(TOOLGATE_SAMPLE_PLUGIN_DIR) + "/" + name + ".so";
}

// A one-plugin manifest with an absolute path.
inline std::string manifest_for(const std::string& id, const std::string& path,
                                const json::object& config = {}) {
  json::object p{{"id", id}, {"path", path}, {"config", config}};
  return json::serialize(json::object{{"toolgate", 1}, {"plugins", json::array{p}}});
}

}  // namespace tgtest
