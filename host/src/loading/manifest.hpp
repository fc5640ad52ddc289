// manifest.hpp -- the manifest format: which plugins to load, with what
// config.  JSON; comments and trailing commas are accepted; unknown keys are
// errors.  (Layers, locking, ordering constraints and pins: see issue 3.)
//
//   {
//     "toolgate": 1,
//     "plugins": [
//       { "id": "acme.fs", "path": "plugins/acme_fs.so", "config": {...},
//         "enabled": true }
//     ]
//   }
#pragma once

#include <boost/json/object.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace toolgate::detail {

struct ManifestPlugin {
  std::string id;
  std::filesystem::path path;  // resolved against the manifest's folder
  boost::json::object config;
  bool enabled = true;
  std::string json_path;  // "/plugins/0", for error messages
};

struct Manifest {
  std::filesystem::path file;
  std::vector<ManifestPlugin> plugins;
};

// Throws LoadError naming the file, the JSON path and a fix.
Manifest read_manifest(const std::filesystem::path& file);

}  // namespace toolgate::detail
