// events.hpp -- the append-only session event log (docs/design.md §5).
//
// Event types used by the host: tool/call, tool/result, hook/invoked,
// hook/result, approval/requested, approval/resolved, plugin/loaded,
// plugin/build-warning, batch/settled, observer/failed, tool/code-dispatch,
// and the file gate's fs/write-intent, fs/edit-intent and fs/observed
// (written when a tool body calls ToolContext's intents and observed()).
// Tools and plugins add their own ("todo/write") through the host API; the
// host's own prefixes are refused on every emit path (reserved_event_type).
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace toolgate {

// Whether `type` is one of the host's own (tool/, tools/, hook/, approval/,
// plugin/, batch/, observer/, fs/): a tool or plugin emitting one could
// forge a second tool/result for a call, or an observation read-before-edit
// relies on, so every emit path refuses it.
bool reserved_event_type(std::string_view type);

struct Event {
  std::uint64_t sequence = 0;    // strictly increasing per host
  std::string type;              // "tool/call", ...
  std::string session_id;        // empty for host-level events
  std::string call_id;           // empty when not about one call
  std::uint64_t generation = 0;  // the plugin generation that served it
  boost::json::object data;

  boost::json::object to_json() const;
};

// A sink receives every event, possibly from many threads at once.
using EventSink = std::function<void(const Event&)>;

// The default sink: one JSON object per line, written under a lock.  A
// failed write or flush (a full disk, a closed pipe) is reported once
// through the host's log (spdlog, "cannot write the event log NAME: ...")
// and remembered: failed() / error().  Later events are still attempted.
class JsonLinesSink {
 public:
  // `name` names the destination in the report (a file name); empty means
  // "the event log".
  explicit JsonLinesSink(std::FILE* out, bool flush_each = false, std::string name = {})
      : out_(out), flush_each_(flush_each), name_(std::move(name)) {}
  void operator()(const Event& e);
  // Flushes the stream; false if that (or any earlier write) failed.
  bool flush();
  bool failed() const;
  // The first failure ("cannot write the event log F: No space left on
  // device"), empty if none.
  std::string error() const;

 private:
  void report(int err);  // under mutex_

  mutable std::mutex mutex_;
  std::FILE* out_;
  bool flush_each_;
  std::string name_;
  std::string error_;
};

}  // namespace toolgate
