// controller.hpp -- hot reload: one attempt at a time, on the control lock,
// building a complete candidate generation off to the side and publishing
// it only if every step succeeded (docs/design.md §9).
#pragma once

#include "../host_impl.hpp"
#include "../loading/shadow_copy.hpp"
#include "../loading/stack_loader.hpp"
#include "watcher.hpp"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <thread>

namespace toolgate {

class ReloadController {
 public:
  ReloadController(Host::Impl& impl, ReloadOptions options);
  ~ReloadController();

  // One attempt: re-read the manifests, reload what changed, publish or keep
  // the old generation.  `force` reloads every plugin (the first load).
  ReloadReport reload(bool force);

 private:
  // With `settle_until` in the future, a plugin build still being written
  // makes the attempt return with *not_ready set, changing and reporting
  // nothing (reload() tries again).
  ReloadReport attempt(bool force, std::chrono::steady_clock::time_point settle_until,
                       bool* not_ready);
  // The steps of an attempt, in order (all on the control lock).
  detail::LoadedStack load_candidate(bool force);
  bool differs_from_serving(const std::vector<detail::StackLayer>& layers) const;
  void publish(detail::LoadedStack candidate, ReloadReport& report);
  void fail(std::string error, ReloadReport& report);
  void announce(const ReloadReport& report);
  std::vector<std::filesystem::path> watched_files() const;
  void reap_loop();

  Host::Impl& impl_;
  ReloadOptions options_;
  detail::ShadowDir shadow_;
  std::unique_ptr<detail::Watcher> watcher_;
  std::mutex reap_mutex_;
  std::condition_variable reap_cv_;
  bool stopping_ = false;
  bool first_attempt_ = true;                   // guarded by the host's control mutex
  std::atomic<bool> first_load_pending_{true};  // for ReloadReport::initial
  std::atomic<bool> closing_{false};            // cuts a settle wait short
  std::thread reaper_;
};

}  // namespace toolgate
