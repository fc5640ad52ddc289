// watcher.hpp -- notices when watched files change, and says so once they
// have settled.
//
// Folders are watched, not files, so write-then-rename, deletes and
// re-creates, and in-place writes by linkers are all seen.  After the last
// relevant event the watcher waits `debounce`, then until every watched file
// is stable (same size and mtime across a short pause), and only then calls
// `on_change`.  Runs on its own thread.
//
// Changing the watched set never drops a watch that is still needed: a
// rebuild that lands while a reload is running (between "loaded" and
// "watching again") would otherwise be missed.  A folder that is watched for
// the first time may already hold a change nobody saw, so adding one makes
// the watcher run `on_change` once more.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace toolgate::detail {

class Watcher {
 public:
  Watcher(std::chrono::milliseconds debounce, std::function<void()> on_change);
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Replaces the set of watched files (their folders are watched); folders
  // already watched keep their watch.
  void watch(const std::vector<std::filesystem::path>& files);
  // Ends the thread (waiting for a running on_change to return).
  void stop();

 private:
  void run();
  bool stable();

  std::chrono::milliseconds debounce_;
  std::function<void()> on_change_;
  int inotify_ = -1;
  int wake_[2] = {-1, -1};
  std::mutex mutex_;
  std::set<std::filesystem::path> files_;         // guarded by mutex_
  std::set<std::string> names_;                   // basenames, guarded by mutex_
  std::map<std::filesystem::path, int> watches_;  // folder -> watch, guarded by mutex_
  std::thread thread_;
};

}  // namespace toolgate::detail
