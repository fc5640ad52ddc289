// stack.hpp -- resolve a stack of manifest layers (plus the embedder's own
// hooks) into the hook tables of a generation.
//
// Rules (host/README.md, "Layers and ordering"):
//   - a plugin entry's "hooks" map sets its own hooks' priority, before/after,
//     tools, mode and enabled;
//   - a later layer's "overrides" may change hooks of earlier layers -- but
//     nothing registered by a locked layer: any override of a locked hook, a
//     before/after naming one, or an operator's disable glob matching one is
//     refused (overrides and constraints: load error; disable globs: kept and
//     reported);
//   - waterfall order: before/after constraints, then priority (higher
//     first), then layer and manifest order, then registration order; locked
//     layers have the final word: their pre- and post-execute hooks run after
//     every unlocked one, their wrappers outside every unlocked one;
//   - a cycle is a load error that prints it; guards are not ordered (sorted
//     by id), so ordering settings on a guard are an error.
#pragma once

#include "../generation.hpp"
#include "manifest.hpp"
#include "plugin_loader.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace toolgate::detail {

struct StackLayer {
  Manifest manifest;
  // The enabled plugins of the manifest, loaded, each with its index in
  // manifest.plugins.
  std::vector<std::pair<std::size_t, std::shared_ptr<const LoadedPlugin>>> plugins;
};

// A hook the embedder registered in C++ (layer "host", never locked).
struct EmbedderHook {
  std::string owner;
  HookRegistration reg;
  bool shadow = false;
  std::uint64_t serial = 0;  // what its HookHandle names
};

struct StackInput {
  const std::vector<EmbedderHook>* embedder_hooks = nullptr;
  const std::vector<StackLayer>* layers = nullptr;
  std::vector<std::string> disable;  // operator globs over hook and plugin ids
};

// Fills gen's hook tables.  Throws LoadError on any rule violation; appends
// to *kept a line for every locked hook an operator tried to disable.
void resolve_stack(const StackInput& in, Generation& gen, std::vector<std::string>* kept);

}  // namespace toolgate::detail
