// demo.cpp -- `toolgate demo`: the seed tutorial's walk through the
// pipeline.  Each section loads its plugin(s) from a sample manifest into a
// fresh host and prints the final result.
#include "commands.hpp"
#include "options.hpp"

#include <toolgate/host.hpp>
#include <toolgate/json.hpp>

#include "sample_tools.hpp"

#include <boost/json/serialize.hpp>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>

namespace toolgate::cli {

namespace json = boost::json;

namespace {

struct Section {
  const char* title;
  const char* manifest;
  const char* note;
};

ToolCall greet(std::string name) {
  ToolCall c;
  c.identity.tool = "greet";
  c.identity.session_id = "demo";
  c.arguments = json::object{{"name", std::move(name)}};
  return c;
}

void print_call(const ToolCall& c) {
  std::printf("call %s %s\n", c.identity.tool.c_str(), to_json_text(c.arguments).c_str());
}

void print_result(const ToolResult& r) { std::printf("%s\n", to_json_text(r.to_json()).c_str()); }

std::unique_ptr<Host> make_host(const std::filesystem::path& manifest) {
  auto host = std::make_unique<Host>();
  host->register_tool(samples::greeting_tool());
  host->register_tool(samples::slow_tool());
  host->load_manifest(manifest);
  return host;
}

}  // namespace

// The installed samples (lib/<triplet>/toolgate/samples, found relative to
// this binary, so a staged or relocated install works too) when this binary
// is installed; else the build tree's.
static std::filesystem::path default_samples() {
  std::error_code ec;
  auto installed = std::filesystem::path(self_exe()).parent_path() / TOOLGATE_INSTALLED_SAMPLES;
  if (std::filesystem::is_directory(installed / "manifests", ec))
    return installed.lexically_normal();
  return TOOLGATE_SAMPLES_DIR;
}

int run_demo(const Args& args) {
  std::filesystem::path samples = default_samples();
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--samples" && i + 1 < args.size())
      samples = args[++i];
    else
      throw std::invalid_argument("unknown argument \"" + args[i] + "\" (try --samples DIR)");
  }
  const auto manifests = samples / "manifests";
  if (!std::filesystem::is_directory(manifests))
    throw std::runtime_error("no sample manifests in " + manifests.string() +
                             " (build the project, or pass --samples DIR)");

  const Section sections[] = {
      {"1. baseline: nothing registered", "1-baseline.json",
       "the default path: the tool runs and its value is rendered as text"},
      {"2. pre-execute asks, no approver in the process", "2-ask.json",
       "ask with nobody to answer is unavailable, which denies"},
      {"3. pre-execute denies", "3-deny.json", "deny is terminal: the tool body never runs"},
      {"4. a guard denies name == \"World\"", "4-guard.json",
       "guards can only deny or abstain; \"Ada\" passes, \"World\" does not"},
      {"5. an execute wrapper times the slow tool out", "5-timeout.json",
       "the wrapper hands the tool a child signal with a 50 ms deadline"},
      {"6. post-execute replaces the result", "6-post-replace.json",
       "the hook rewrites the content; the value stays the tool's"},
      {"7. post-execute adds context in a batch", "7-add-context.json",
       "contexts are released first-in first-out after every result of the batch"},
      {"8. a result observer counts calls", "8-observer.json",
       "observers see the frozen outcome; this one reports a count event"},
  };
  int n = 0;
  for (const auto& s : sections) {
    if (n++) std::printf("\n");
    std::printf("== %s ==\n-- %s\n", s.title, s.note);
    auto host = make_host(manifests / s.manifest);
    std::string file = s.manifest;
    if (file == "4-guard.json") {
      for (const char* name : {"Ada", "World"}) {
        auto c = greet(name);
        print_call(c);
        print_result(host->call(std::move(c)));
      }
    } else if (file == "5-timeout.json") {
      ToolCall c;
      c.identity.tool = "slow";
      c.arguments = json::object{{"ms", 2000}};
      print_call(c);
      print_result(host->call(std::move(c)));
    } else if (file == "7-add-context.json") {
      std::vector<ToolCall> batch;
      batch.push_back(greet("Ada"));
      batch.push_back(greet("Grace"));
      for (const auto& c : batch) print_call(c);
      auto out = host->call_batch(std::move(batch));
      for (const auto& r : out.results) print_result(r);
      for (const auto& ctx : out.additional_contexts)
        std::printf("additional context: %s\n", ctx.c_str());
      // What an agent runtime appends after the batch's tool results.
      if (auto message = out.context_message())
        std::printf("user message after the results: %s\n", message->c_str());
    } else if (file == "8-observer.json") {
      auto lock = std::make_shared<std::mutex>();
      host->subscribe([lock](const Event& e) {
        if (e.type != "sample/counted") return;
        std::lock_guard g(*lock);
        std::printf("event %s %s\n", e.type.c_str(), to_json_text(e.data).c_str());
      });
      for (const char* name : {"Ada", "Grace", "Alan"}) {
        auto c = greet(name);
        print_call(c);
        print_result(host->call(std::move(c)));
      }
    } else {
      auto c = greet("World");
      print_call(c);
      print_result(host->call(std::move(c)));
    }
  }
  return 0;
}

}  // namespace toolgate::cli
