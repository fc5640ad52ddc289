// stack_loader.hpp -- the one path from manifest files to loaded layers.
//
// Host::load_manifests (layers added to a running host) and hot reload (the
// whole stack read again) both come through here, so a plugin is checked
// the same way whichever way it arrives: plugin ids unique across the
// stack, the file present, permissions, a private copy hashed and pinned,
// then loaded.  Nothing is published here: the caller builds a generation
// from the layers and swaps it in only if that succeeds too.
#pragma once

#include "plugin_loader.hpp"
#include "shadow_copy.hpp"
#include "stack.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace toolgate::detail {

struct StackLoadOptions {
  LoaderOptions loader;
  // ${NAME} values for plugins' config (variables.hpp); none when null.
  const std::map<std::string, std::string, std::less<>>* variables = nullptr;
  // Plugin ids the stack already holds below the new layers (id -> the
  // manifest that loaded it): loading one again is an error.
  std::map<std::string, std::string> already_loaded;
  std::string already_loaded_fix = "load each plugin once";

  // Hot reload only.  The plugins serving now: one whose file (by digest)
  // and config are unchanged is kept as it is, unless `force`.
  const std::map<std::string, std::shared_ptr<const LoadedPlugin>>* serving = nullptr;
  bool force = false;
  // Plugins of locked layers (id -> layer name, config): their config may
  // not change.
  std::map<std::string, std::pair<std::string, const boost::json::object*>> locked_config;
  // Copies are made here and outlive the load (retirement removes them);
  // without it, load_plugin makes its own private copy.
  ShadowDir* shadow = nullptr;
  // Runs a new build in a child process first; returns why it failed, or
  // "" (hot reload's probe).
  std::function<std::string(const std::filesystem::path& copy, const ManifestPlugin&)> probe;
  // Hands a replaced plugin's state to its new build (hot reload).
  std::function<void(const LoadedPlugin& old, const LoadedPlugin& fresh,
                     const std::filesystem::path& manifest, const std::string& json_path)>
      hand_off;
};

struct LoadedStack {
  std::vector<StackLayer> layers;
  // Plugins loaded afresh by this load, with the copy they were loaded from
  // (empty when load_plugin made its own).
  std::vector<std::pair<std::shared_ptr<const LoadedPlugin>, std::filesystem::path>> fresh;
};

// Reads `files` (already expanded: expand_manifest_paths) and loads their
// enabled plugins.  Throws LoadError naming the file, the JSON path and a
// fix; plugins loaded before the error are unloaded again.
LoadedStack load_stack(const std::vector<std::filesystem::path>& files,
                       const StackLoadOptions& options);

}  // namespace toolgate::detail
