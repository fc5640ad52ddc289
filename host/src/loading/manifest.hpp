// manifest.hpp -- the manifest format (one file = one layer).
//
// JSON; comments and trailing commas are accepted; unknown keys and wrong
// types are errors naming the file, the JSON path (and the line, for syntax
// errors) and a fix.  The JSON Schema is sdk/schema/toolgate-manifest.schema.json.
//
//   {
//     "toolgate": 1,
//     "layer": { "name": "security", "locked": true },
//     "plugins": [
//       { "id": "acme.fs", "path": "plugins/acme_fs.so", "sha256": "…",
//         "enabled": true, "config": { … },
//         "hooks": { "no-write-outside": { "tools": ["fs.*"], "mode": "shadow" } } }
//     ],
//     "overrides": {   // hooks and plugins of earlier layers
//       "acme.fs/no-write-outside": { "priority": 5 },
//       "other.plugin": { "enabled": false }
//     }
//   }
#pragma once

#include <toolgate/code_mode.hpp>

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace toolgate::detail {

// Settings a manifest may give a hook: in its plugin's "hooks" map, or for
// an earlier layer's hook (or whole plugin) in "overrides".
struct HookSettings {
  std::optional<int> priority;
  std::optional<std::vector<std::string>> before, after;  // hook or plugin ids
  std::optional<std::vector<std::string>> tools;          // globs, "!" excludes
  std::optional<std::string> mode;                        // "enforce" | "shadow"
  std::optional<bool> enabled;
  std::string json_path;  // where these settings were written
};

struct ManifestPlugin {
  std::string id;
  std::filesystem::path path;  // resolved against the manifest's folder
  boost::json::object config;
  bool enabled = true;
  std::optional<std::string> sha256;                        // lower-case hex
  std::vector<std::pair<std::string, HookSettings>> hooks;  // by hook name
  std::string json_path;                                    // "/plugins/0", for error messages
};

// A layer's "code_mode" section (docs/design.md §17.1): enabled false
// keeps run_code out; otherwise the options Code Mode runs with.
struct CodeModeSection {
  std::string json_path = "/code_mode";
  bool enabled = true;
  CodeModeOptions options;
};

struct Manifest {
  std::filesystem::path file;
  std::string text;   // as read: a reload compares it to see any edit
  std::string layer;  // "layer.name", default: the file's stem
  bool locked = false;
  std::vector<ManifestPlugin> plugins;
  std::vector<std::pair<std::string, HookSettings>> overrides;  // by target id
  std::optional<CodeModeSection> code_mode;
};

// The largest manifest read: policy is kilobytes, so anything near this is
// a mistake (or an attempt to exhaust memory), refused before reading.
inline constexpr std::size_t kMaxManifestBytes = 16u << 20;

// Throws LoadError naming the file, the JSON path and a fix.  A duplicate
// key anywhere is refused (strict_json.hpp), naming both copies.  Unless
// `allow_insecure_permissions`, a manifest another user could replace (see
// file_permissions.hpp) is refused before it is read.
Manifest read_manifest(const std::filesystem::path& file, bool allow_insecure_permissions);

// A folder stands for its *.json files in byte-wise name order; a file for
// itself.  Throws LoadError for a path that is neither, and for an entry
// named *.json in a folder that is not a readable regular file (a dangling
// symlink, a folder, a FIFO): a layer must never vanish silently.
std::vector<std::filesystem::path> expand_manifest_paths(
    const std::vector<std::filesystem::path>& paths);

}  // namespace toolgate::detail
