#include "default_manifests.hpp"

#include "../loading/file_permissions.hpp"

#include <cstdlib>
#include <stdexcept>
#include <system_error>

#ifndef TOOLGATE_SYSTEM_MANIFEST_DIR
#error "TOOLGATE_SYSTEM_MANIFEST_DIR must be defined by the build (host/CMakeLists.txt)"
#endif

namespace toolgate::cli {

namespace fs = std::filesystem;

namespace {

ManifestFolder from_env(const char* var, std::string layer, fs::path fallback) {
  if (const char* v = std::getenv(var)) return {std::move(layer), fs::path(v), var};
  return {std::move(layer), std::move(fallback), "default"};
}

fs::path user_default() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  // The XDG spec: a relative XDG_CONFIG_HOME is invalid and must be ignored.
  if (xdg && xdg[0] == '/') return fs::path(xdg) / "toolgate" / "manifest.d";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return fs::path(home) / ".config" / "toolgate" / "manifest.d";
  return {};  // no home: no user layer
}

std::string describe(const ManifestFolder& f) {
  return f.layer + " folder " + f.path.string() +
         (f.chosen_by == "default" ? "" : " (from " + f.chosen_by + ")");
}

// The folder's *.json files, after checking that nobody else can change
// them; empty when the folder does not exist.
std::vector<fs::path> safe_manifests(const ManifestFolder& f) {
  std::error_code ec;
  auto st = fs::status(f.path, ec);
  if (st.type() == fs::file_type::not_found) return {};
  if (ec) throw std::runtime_error("cannot inspect the " + describe(f) + ": " + ec.message());
  if (!fs::is_directory(st))
    throw std::runtime_error("the " + describe(f) + " is not a folder; remove it or make it one");
  const std::string fix =
      "; fix with chmod go-w (and chown to root or yourself), or pass manifests "
      "explicitly";
  if (auto why = detail::insecure_permissions(f.path); !why.empty())
    throw std::runtime_error("refusing the " + describe(f) + ": " + why +
                             ", so another user could change the policy" + fix);
  std::vector<fs::path> files;
  for (fs::directory_iterator it(f.path, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (ec) throw std::runtime_error("cannot read the " + describe(f) + ": " + ec.message());
  for (const auto& file : files)
    if (auto why = detail::insecure_permissions(file); !why.empty())
      throw std::runtime_error("refusing the " + describe(f) + ": " + why +
                               ", so another user could change the policy" + fix);
  return files;
}

}  // namespace

std::vector<ManifestFolder> default_manifest_folders() {
  return {from_env("TOOLGATE_SYSTEM_MANIFEST_DIR", "system", TOOLGATE_SYSTEM_MANIFEST_DIR),
          from_env("TOOLGATE_USER_MANIFEST_DIR", "user", user_default())};
}

std::vector<std::string> default_manifests() {
  std::vector<std::string> out;
  std::string looked;
  for (const auto& f : default_manifest_folders()) {
    if (f.path.empty()) continue;
    looked += (looked.empty() ? "" : ", ") + describe(f);
    if (!safe_manifests(f).empty()) out.push_back(f.path.string());
  }
  if (out.empty())
    throw std::runtime_error(
        "no manifest given, and no default folder holds one (looked in: " +
        (looked.empty() ? std::string("none, both are turned off") : looked) +
        "); pass a manifest file or folder, or add a manifest to one of these folders (to run "
        "with no plugins on purpose, add {\"toolgate\": 1})");
  return out;
}

}  // namespace toolgate::cli
