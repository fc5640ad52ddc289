// fs_gate.hpp -- the gate a tool body passes before it changes a file
// (docs/design.md §2.13): path resolution, read-before-edit, the fs guards.
#pragma once

#include <toolgate/hooks.hpp>

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::detail {

// What each session has seen of the files: path -> "sha256:<hex>" of the
// content it saw.  Bounded (sessions and paths per session): an evicted
// observation only means the file must be read again before an edit.
class FsObservations {
 public:
  void record(const std::string& session, const std::string& path, std::string hash);
  std::optional<std::string> seen(const std::string& session, const std::string& path) const;

  static constexpr std::size_t max_sessions = 1024;
  static constexpr std::size_t max_paths_per_session = 4096;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::string, std::string>, std::less<>> by_session_;
  std::deque<std::string> order_;  // sessions, oldest first
};

// "sha256:<hex>" of a file's bytes, or nullopt when it cannot be read (or
// is larger than 256 MiB: a file that size is not edited by a model).
std::optional<std::string> file_content_hash(const std::string& path);

// The gate, for a tool body whose view is `call`.  Never throws.
FsDecision fs_intent(const HookCall& call, FsIntentKind kind, std::string_view path);
void fs_observed(const HookCall& call, std::string_view path, std::string_view content_hash);

}  // namespace toolgate::detail
