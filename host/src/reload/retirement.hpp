// retirement.hpp -- where old generations wait for their last in-flight
// call, and where their plugin images are unloaded -- off the call path.
//
// The list holds a reference to every retired generation, so a call that
// finishes never drops the last one (and never runs a plugin's shutdown or a
// dlclose on its thread).  reap() frees those no call uses any more, then
// checks that every plugin image that should have left the process really
// did (/proc/self/maps), and reports those that did not.
#pragma once

#include "../generation.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace toolgate::detail {

struct LoadedPlugin;

class Retirement {
 public:
  using Clock = std::chrono::steady_clock;
  // Receives "plugin/unloaded", "plugin/pinned" and "plugin/drain-timeout".
  // A "plugin/pinned" carries "message": one line naming the plugin, why it
  // stays, what that costs and the fix (what the log shows).
  using Reporter = std::function<void(const std::string& type, boost::json::object data)>;

  void set_reporter(Reporter r);
  void retire(std::shared_ptr<const Generation> g);
  // Verify, once it is released, that this image leaves the process.
  void track(const std::shared_ptr<const LoadedPlugin>& p, std::string loaded_path);
  // Frees drained generations; reports generations still in use after
  // `drain_deadline` (once each).  Returns how many are still retired.
  std::size_t reap(std::chrono::milliseconds drain_deadline);
  ~Retirement();

 private:
  struct Retired {
    std::shared_ptr<const Generation> gen;
    Clock::time_point since;
    bool reported = false;
  };
  struct Tracked {
    std::weak_ptr<const LoadedPlugin> plugin;
    std::string id, path;  // path: the private copy that was loaded
    std::string source;    // the file the manifest names
    bool never_unload;
    std::vector<std::string> build_problems;  // codes (plugin_build_check.hpp)
  };
  void verify_unloads();

  std::mutex mutex_;
  Reporter report_;
  std::vector<Retired> retired_;
  std::vector<Tracked> tracked_;
};

// True if `path` is mapped into this process.
bool mapped_in_process(const std::string& path);

}  // namespace toolgate::detail
