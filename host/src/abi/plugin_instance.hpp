// plugin_instance.hpp -- one loaded plugin image and its state.
//
// Every hook adapted from the plugin holds a shared_ptr to its instance, so
// the image stays mapped until the last generation using it is gone; then
// shutdown runs and the library is unloaded.
#pragma once

#include <toolgate/toolgate.h>

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace toolgate::detail {

// Held around every dlopen and dlclose of a plugin image.  ld.so already
// serializes them with its own lock, but that lock is invisible to thread
// sanitizers: an image unloaded by the reaper and the next one mapped at the
// same address by a reload would look unordered, and the new image's
// globals would seem to race with calls that ran in the old one.  Taking
// this mutex too makes "unloaded, then loaded" an ordering every tool sees.
// Control path only; calls never take it.
inline std::mutex& image_lifecycle_mutex() {
  static std::mutex m;
  return m;
}

// The handles of images that must never be unloaded, kept for the life of
// the process.  Never destroyed (a static pointer, not a static object), so
// nothing dlcloses them at exit either; reachable, so leak checkers do not
// report them.  Guarded by image_lifecycle_mutex().
inline std::vector<boost::dll::shared_library>& never_unloaded_images() {
  static auto* images = new std::vector<boost::dll::shared_library>();
  return *images;
}

struct PluginInstance {
  boost::dll::shared_library library;  // destroyed last: unloads the image
  // The private copy load_plugin made and loaded (empty when hot reload
  // made it); removed once the image is unmapped (or kept mapped).
  std::filesystem::path owned_copy;
  std::string id;
  std::string version;
  std::string path;
  std::uint32_t capabilities = 0;
  std::uint32_t flags = 0;
  tg_shutdown_fn shutdown = nullptr;
  void* state = nullptr;
  bool initialized = false;
  // Held around every callback of a serialized plugin.  Recursive: a
  // wrapper holds it while `next` runs, which may enter the same plugin.
  std::recursive_mutex serial;

  bool serialized() const { return flags & TG_PLUGIN_SERIALIZED; }

  // Runs a callback, serialized if the plugin asked for it.
  template <class Fn>
  auto invoke(Fn&& fn) {
    if (!serialized()) return fn();
    std::lock_guard lock(serial);
    return fn();
  }

  ~PluginInstance() {
    if (initialized && shutdown) shutdown(state);
    // A plugin that cannot be unloaded (Go and some other runtimes) keeps
    // its image mapped for the life of the process: its handle moves to
    // never_unloaded_images(), so dlclose is never called.
    std::lock_guard lock(image_lifecycle_mutex());
    if (flags & TG_PLUGIN_NEVER_UNLOAD)
      never_unloaded_images().push_back(std::move(library));
    else
      library.unload();
    std::error_code ec;
    if (!owned_copy.empty()) std::filesystem::remove(owned_copy, ec);
  }
};

}  // namespace toolgate::detail
