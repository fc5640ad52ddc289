// host_impl.hpp -- Host's private state, shared by host.cpp (configuration
// and calls) and reload/ (hot reload).
#pragma once

#include <toolgate/host.hpp>

#include "code_mode/code_mode_tool.hpp"
#include "event_bus.hpp"
#include "generation.hpp"
#include "loading/stack.hpp"
#include "loading/stack_loader.hpp"
#include "pipeline/fs_gate.hpp"
#include "reload/retirement.hpp"
#include "split_calls.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/object.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace toolgate {

namespace json = boost::json;
using detail::Generation;

class ReloadController;

struct Host::Impl {
  HostOptions options;
  detail::EventBus bus;
  std::mutex control;  // serializes configuration changes

  // What the generation is built from (guarded by `control`).
  std::map<std::string, ToolDefinition, std::less<>> embedder_tools;
  std::vector<detail::EmbedderHook> embedder_hooks;
  std::uint64_t hook_serial = 0;  // the last one a HookHandle got
  // What handles reach; reset by ~Host, so a handle that outlives its host
  // finds nothing.
  std::shared_ptr<HookHandle::Target> handle_target;
  Approver approver;
  CardSink card_sink;
  // Read-before-edit's record of what each session has seen (§2.13),
  // handed to every generation.
  std::shared_ptr<detail::FsObservations> fs_observations =
      std::make_shared<detail::FsObservations>();
  // Set by enable_code_mode: every generation then carries run_code.
  std::shared_ptr<detail::CodeMode> code_mode;
  std::vector<detail::StackLayer> layers;
  std::vector<std::string> disable;
  // False while deny_until_loaded holds and no stack has loaded yet.
  bool stack_valid = true;

  std::atomic<std::shared_ptr<const Generation>> active{std::make_shared<const Generation>()};
  std::uint64_t generation_counter = 0;        // guarded by `control`
  detail::Retirement retired;                  // generations waiting to drain
  std::unique_ptr<ReloadController> reloader;  // set by enable_reload

  // Begun split-phase calls; created on the first begin_call (it owns a
  // thread).  Declared last: destroyed first, so the calls it still holds
  // get their tool/result while the bus and the generations are alive.
  std::once_flag splits_once;
  std::unique_ptr<detail::SplitCalls> splits;
  detail::SplitCalls& split_calls() {
    std::call_once(splits_once, [&] {
      splits = std::make_unique<detail::SplitCalls>(options.split_call_expiry,
                                                    options.max_pending_split_calls);
    });
    return *splits;
  }

  // Builds a complete generation from the given inputs; throws on any error.
  std::shared_ptr<Generation> build(const std::vector<detail::StackLayer>& stack,
                                    const std::vector<std::string>& disabled,
                                    std::vector<std::string>* kept) const {
    auto g = std::make_shared<Generation>();
    for (const auto& [name, def] : embedder_tools)
      g->tools.emplace(
          name, std::make_shared<detail::ToolEntry>(detail::ToolEntry{def, "host", nullptr}));
    for (const auto& layer : stack)
      for (const auto& [index, plugin] : layer.plugins) {
        g->plugins.push_back(plugin);
        g->plugin_ids.push_back(plugin->id);
        for (const auto& t : plugin->tools) {
          if (t.name == code_mode_tool)
            throw LoadError(layer.manifest.file.string(), layer.manifest.plugins[index].json_path,
                            "plugin \"" + plugin->id + "\" registers a tool named \"" + t.name +
                                "\", a name toolgate reserves for Code Mode",
                            "rename the tool");
          if (g->tools.count(t.name))
            throw LoadError(layer.manifest.file.string(), layer.manifest.plugins[index].json_path,
                            "plugin \"" + plugin->id + "\" registers tool \"" + t.name +
                                "\", which already exists",
                            "rename the tool or disable one of the two");
          g->tools.emplace(t.name, std::make_shared<detail::ToolEntry>(
                                       detail::ToolEntry{t, plugin->id, plugin->instance}));
        }
      }
    if (auto mode = code_mode_for(stack))
      g->tools.emplace(
          std::string(code_mode_tool),
          std::make_shared<detail::ToolEntry>(detail::ToolEntry{
              detail::make_run_code_tool(mode, code_run_host(), g->tools), "host", nullptr}));
    g->approver = approver;
    g->card_sink = card_sink;
    g->fs_observations = fs_observations;
    if (!stack_valid) g->invalid_reason = "no manifest stack has loaded successfully yet";
    detail::StackInput in{&embedder_hooks, &stack, disabled};
    detail::resolve_stack(in, *g, kept);
    return g;
  }

  // Code Mode for a generation of `stack` (docs/design.md §17.1): the last
  // layer's "code_mode" section decides -- unless a locked layer has one,
  // which later layers cannot change -- and without any section, what
  // enable_code_mode said.  Options equal to the last ones reuse their
  // runner pool.
  mutable std::mutex manifest_code_mode_mutex;
  mutable std::shared_ptr<detail::CodeMode> manifest_code_mode;
  std::shared_ptr<detail::CodeMode> code_mode_for(
      const std::vector<detail::StackLayer>& stack) const {
    const detail::CodeModeSection* chosen = nullptr;
    bool locked = false;
    for (const auto& layer : stack) {
      if (!layer.manifest.code_mode) continue;
      if (locked) {
        spdlog::warn("{}: the code_mode section is ignored: the locked layer before it decides",
                     layer.manifest.file.string());
        continue;
      }
      chosen = &*layer.manifest.code_mode;
      locked = layer.manifest.locked;
    }
    if (!chosen) return code_mode;
    if (!chosen->enabled) return nullptr;
    std::lock_guard lock(manifest_code_mode_mutex);
    if (!manifest_code_mode || !(manifest_code_mode->options == chosen->options))
      manifest_code_mode = std::make_shared<detail::CodeMode>(chosen->options);
    return manifest_code_mode;
  }

  // What run_code's sub-calls reach: the generation active when each
  // starts (a reload between two sub-calls applies to the second), and the
  // event bus.
  detail::CodeRunHost code_run_host() const {
    const Impl* self = this;
    return detail::CodeRunHost{[self](ToolCall c, detail::SubCallBinding& b) {
                                 auto gen = self->active.load();
                                 return detail::run_sub_call(*gen, self->options, self->bus,
                                                             std::move(c), b);
                               },
                               [self] { return self->bus.active(); },
                               [self](Event e) {
                                 e.generation = self->active.load()->number;
                                 self->bus.publish(std::move(e));
                               }};
  }

  // Makes `g` the generation new calls use.  The old one is retired: it is
  // destroyed (and its plugin images unloaded) off the call path, once its
  // last in-flight call has finished.
  void publish(std::shared_ptr<Generation> g) {
    g->number = ++generation_counter;
    auto old = active.exchange(std::move(g));
    retired.retire(std::move(old));
    // Free whatever has drained now, here on the control path (never a
    // call's): without a reload controller nothing else reaps, and repeated
    // reconfiguration -- the MCP gateway's set_tools on every tools/list --
    // must not pile up old generations for the life of the host.
    retired.reap(std::chrono::seconds(10));
  }

  // Runs `edit` on the configuration and publishes the result; if building
  // fails, the configuration is restored and the error propagates.
  template <class Edit>
  void reconfigure(Edit&& edit) {
    std::lock_guard lock(control);
    auto saved_tools = embedder_tools;
    auto saved_hooks = embedder_hooks;
    auto saved_approver = approver;
    auto saved_card_sink = card_sink;
    auto saved_code_mode = code_mode;
    try {
      edit();
      publish(build(layers, disable, nullptr));
    } catch (const LoadError& e) {
      // For the embedding API a clash (duplicate hook id, tool name) is a
      // bad argument.
      embedder_tools = std::move(saved_tools);
      embedder_hooks = std::move(saved_hooks);
      approver = std::move(saved_approver);
      card_sink = std::move(saved_card_sink);
      code_mode = std::move(saved_code_mode);
      throw std::invalid_argument(e.problem());
    } catch (...) {
      embedder_tools = std::move(saved_tools);
      embedder_hooks = std::move(saved_hooks);
      approver = std::move(saved_approver);
      card_sink = std::move(saved_card_sink);
      code_mode = std::move(saved_code_mode);
      throw;
    }
  }

  // The build problems of the plugins `loaded` loaded afresh, once each
  // (a plugin kept across a reload was reported when it loaded): one log
  // line and one plugin/build-warning event per problem.  Returns the lines
  // (LoadReport / ReloadReport::build_warnings).
  std::vector<std::string> announce_build_warnings(const detail::LoadedStack& loaded,
                                                   std::uint64_t gen);

  void emit_host_event(std::string type, json::object data, std::uint64_t gen) {
    if (!bus.active()) return;
    Event e;
    e.type = std::move(type);
    e.generation = gen;
    e.data = std::move(data);
    bus.publish(std::move(e));
  }
};

}  // namespace toolgate
