// plugin_loader.hpp -- load one plugin image deliberately: check where it
// lives (permissions), what it is (sha256 pin), load it with Boost.DLL, check
// its ABI, run its init with its config, and collect what it registered.
#pragma once

#include "../abi/plugin_instance.hpp"
#include "../generation.hpp"
#include "manifest.hpp"
#include "plugin_build_check.hpp"

#include <toolgate/host.hpp>

#include <memory>
#include <string>
#include <vector>

namespace toolgate::detail {

// One hook as registered, before any manifest setting is applied.  Its
// callback's alternative is its kind.
struct HookRegistration {
  std::string name;
  std::vector<std::string> tools;
  int priority = 0;
  HookFn fn;
  DeniesAlwaysFn denies_always;  // optional static verdict
  HookKind kind() const { return kind_of(fn); }
};

struct LoadedPlugin {
  std::shared_ptr<PluginInstance> instance;
  std::string id;
  std::string version;
  std::filesystem::path path;  // the file the manifest names (the copy loaded is elsewhere)
  std::string sha256;          // of the file actually loaded
  boost::json::object config;  // as given to init
  tg_export_state_fn export_state = nullptr;
  tg_import_state_fn import_state = nullptr;
  std::vector<HookRegistration> hooks;  // in registration order
  std::vector<ToolDefinition> tools;
  // How its build falls short of docs/design.md §7.7 (loaded anyway: not
  // strict).  The callers that publish it warn, once per fresh load.
  std::vector<BuildProblem> build_problems;
};

// The LoadError for a plugin file that looks like a build still being
// written (empty, no ELF header yet, truncated).  Hot reload retries such a
// file quietly for a while (ReloadOptions::settle_timeout) before reporting
// it; every other loader reports it like any LoadError.
class PluginNotReady : public LoadError {
 public:
  using LoadError::LoadError;
};

// The largest plugin file accepted, checked before it is read or hashed.
inline constexpr std::uintmax_t kMaxPluginBytes = 1ull << 30;

struct LoaderOptions {
  bool allow_insecure_permissions = false;
  // Refuse a plugin with a bad build (plugin_build_check.hpp) instead of
  // recording it in LoadedPlugin::build_problems.
  bool strict_builds = false;
};

// Everything checked before a plugin's code may run: the file exists,
// nobody else can replace it (unless allowed), its digest matches the pin,
// the image is complete, and -- strict -- its symbol tables show no bad
// build.  Returns the digest of `load_from` (or plugin.path when empty) and
// the image read in `*image`; throws LoadError like load_plugin.  Hot
// reload calls it before the probe child runs the candidate's init.
std::string check_plugin_file(const ManifestPlugin& plugin,
                              const std::filesystem::path& manifest_file,
                              const LoaderOptions& options,
                              const std::filesystem::path& load_from = {},
                              ElfImage* image = nullptr);

// One line for a build problem of a plugin loaded anyway: the plugin's id
// and path, the problem, the fix -- what the log and the reports carry.
std::string build_warning(const LoadedPlugin& plugin, const BuildProblem& problem);

// Throws LoadError (file = the manifest, json_path = the plugin entry) for a
// missing file, unsafe permissions, a digest mismatch, a missing entry
// symbol, an ABI mismatch, an init failure or a rejected config.
// With `load_from`, that file (a private copy of plugin.path) is the one
// hashed, pinned and loaded; permissions are checked on plugin.path.
// Without it, load_plugin makes the private copy itself (one folder per
// process, 0700), so on every load path the bytes pinned are the bytes
// loaded; the instance removes its copy when it is unloaded.
std::shared_ptr<LoadedPlugin> load_plugin(const ManifestPlugin& plugin,
                                          const std::filesystem::path& manifest_file,
                                          const LoaderOptions& options,
                                          const std::filesystem::path& load_from = {});

// The lower-case hex SHA-256 of a file's content.
std::string sha256_file(const std::filesystem::path& file);

}  // namespace toolgate::detail
