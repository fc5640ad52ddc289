// default_manifests.hpp -- where the CLI finds manifests when none is given:
// the system folder, then the user's folder, stacked as layers in that
// order (a locked system layer cannot be weakened by the user's).
//
//   system  $TOOLGATE_SYSTEM_MANIFEST_DIR, else the compiled-in
//           ${sysconfdir}/toolgate/manifest.d (/etc/toolgate/manifest.d)
//   user    $TOOLGATE_USER_MANIFEST_DIR, else
//           ${XDG_CONFIG_HOME:-$HOME/.config}/toolgate/manifest.d
//
// An environment variable set to the empty string turns that folder off.
// A missing or empty folder contributes nothing.  Fail closed: if neither
// contributes a manifest the command refuses to run (run with no plugins
// on purpose by installing a manifest without plugins), and a folder, or a
// manifest in it, that another user could change is refused.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace toolgate::cli {

struct ManifestFolder {
  std::string layer;           // "system" or "user"
  std::filesystem::path path;  // empty: turned off
  std::string chosen_by;       // the environment variable, or "default"
};

// The two folders, system first, as configured by the environment.
std::vector<ManifestFolder> default_manifest_folders();

// The folders that hold manifests, in layer order.  Throws
// std::runtime_error saying which folder and how to fix it when a folder
// is unsafe or unreadable, or when no folder holds a manifest.
std::vector<std::string> default_manifests();

}  // namespace toolgate::cli
