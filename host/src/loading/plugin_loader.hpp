// plugin_loader.hpp -- load one plugin image (Boost.DLL), check its ABI, run
// its init with its config, and add what it registered to a generation.
#pragma once

#include "../generation.hpp"
#include "manifest.hpp"

namespace toolgate::detail {

// Throws LoadError (file = the manifest, json_path = the plugin entry) for a
// missing file, a missing entry symbol, an ABI mismatch, an init failure or
// a rejected config.  On error `gen` is left partially filled: callers build
// a candidate generation and discard it on failure.
void load_plugin_into(Generation& gen, const ManifestPlugin& plugin,
                      const std::filesystem::path& manifest_file);

}  // namespace toolgate::detail
