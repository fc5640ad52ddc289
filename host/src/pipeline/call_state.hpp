// call_state.hpp -- everything one call carries through the stages.
//
// The engine is a sequence of small functions, one per stage (stages.hpp),
// each taking the call state and the stage's hooks from the generation.
#pragma once

#include "../event_bus.hpp"
#include "../generation.hpp"
#include "../hook_failure.hpp"

#include <toolgate/host.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace toolgate::detail {

// Where a call is on the paths of docs/design.md §3.
enum class CallPath {
  running,   // so far allowed
  denied,    // pre-execute, approval or a guard denied: body skipped
  failed,    // a stage threw or failed: straight to normalization
  executed,  // the body ran (successfully or not)
};

// Shared by the calls of one batch: FIFO ticket for additional contexts.
struct BatchContext {
  std::atomic<std::uint64_t> next_ticket{0};
};

struct QueuedContext {
  std::uint64_t ticket;
  std::string text;
};

struct CallState;

}  // namespace toolgate::detail

namespace toolgate {
// What a HookCall's candidate() and emit() reach (hooks.hpp declares it).
class HookContext {
 public:
  detail::CallState* state;
  bool reads_candidate;  // post-execute: candidate() is valid
};
}  // namespace toolgate

namespace toolgate::detail {

struct CallState {
  CallState(const Generation& g, const HostOptions& o, const EventBus& b, BatchContext& batch)
      : gen(g), options(o), bus(b), batch(batch) {}
  CallState(const CallState&) = delete;  // views point back at it
  CallState& operator=(const CallState&) = delete;

  const Generation& gen;
  const HostOptions& options;
  const EventBus& bus;
  BatchContext& batch;

  CallIdentity identity;
  boost::json::object original_arguments;
  // Set by the first pre-execute rewrite; until then the current arguments
  // are the original ones (no copy per call).
  std::optional<boost::json::object> rewritten;
  const boost::json::object& arguments() const {
    return rewritten ? *rewritten : original_arguments;
  }
  // The verdict trail and hook events cost allocations: built only when an
  // observer or an event subscriber will read them.
  bool tracing = false;
  const ToolEntry* tool = nullptr;
  std::shared_ptr<Signal> signal;  // the caller's, or a fresh one

  Decision decision = Decision::allow;
  std::string decision_reason;
  std::string decision_source;

  CallPath path = CallPath::running;
  std::optional<ErrorInfo> error;  // set on denied / failed
  // The tool body's first refused file mutation (fs_gate.cpp): the body's
  // result becomes this refusal, whatever it returned.
  std::optional<ErrorInfo> fs_refusal;
  // Held by fs_intent and fs_observed (fs_gate.cpp) while they touch this
  // state: a body may declare its mutations from several threads (every
  // host function is thread-safe, toolgate.h), and each intent records to
  // the trail and may set fs_refusal.
  std::mutex fs_mutex;
  std::uint32_t attempts = 0;

  // The candidate result in the result shape, and who wrote it last (for
  // normalization's messages).
  boost::json::value candidate;
  std::string candidate_writer;
  // A post-execute hook replaced an executed call's result: any error in it
  // is that hook's (normalization attributes it so).
  bool replaced_by_post_hook = false;
  // What the body produced, kept as a ToolResult while nobody changes it:
  // normalization checks it directly, without a JSON round trip.  Post-
  // execute hooks read it as JSON (built once, on first use); a hook that
  // replaces or blocks the result drops it (take_candidate()).
  std::optional<ToolResult> produced;
  // `produced`'s content is the one text block the default render made
  // from its value (normalization need not check its shape again).
  bool content_rendered_by_host = false;
  bool candidate_built = false;
  // The candidate as result-shape JSON, for reading.
  const boost::json::value& candidate_json() {
    if (produced && !candidate_built) {
      candidate = produced->to_json();
      candidate_built = true;
    }
    return candidate;
  }
  // The candidate as JSON, for a hook's verdict to change: from here on the
  // JSON is the result.
  boost::json::value& take_candidate() {
    candidate_json();
    produced.reset();
    return candidate;
  }

  ToolResult result;  // the normalized, then finalized, outcome
  std::vector<TrailEntry> trail;
  std::vector<QueuedContext> contexts;

  // ---- helpers used by every stage -----------------------------------------
  // Hook timings go only into the trail: without tracing nobody reads them,
  // and two clock reads per hook are a measurable part of an empty call.
  std::chrono::steady_clock::time_point now() const {
    return tracing ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  }
  HookCall view(std::string_view stage) const;
  // The view a post-execute hook gets: the same, plus the candidate result.
  HookCall post_execute_view() const;
  const HookContext* context() const { return &context_; }
  void emit(std::string_view type, boost::json::object data) const;
  // A trail entry, kept only while tracing (nobody reads it otherwise).
  // The entry's extra fields come from `extra`, a function called only
  // then: a call without observers builds no JSON for its trail.
  void record(std::string_view stage, std::string_view source, std::string_view verdict,
              std::chrono::nanoseconds took) {
    if (tracing) append_trail(stage, source, verdict, took, {});
  }
  template <class MakeExtra>
  requires std::is_invocable_r_v<boost::json::object, MakeExtra>
  void record(std::string_view stage, std::string_view source, std::string_view verdict,
              std::chrono::nanoseconds took, MakeExtra&& extra) {
    if (tracing) append_trail(stage, source, verdict, took, extra());
  }
  void record(std::string_view stage, std::string_view source, std::string_view verdict,
              std::chrono::nanoseconds took, boost::json::object extra) {
    if (tracing) append_trail(stage, source, verdict, took, std::move(extra));
  }
  // Ends the call as a failure (straight to normalization).
  void fail(std::string_view code, std::string message, std::string_view stage, std::string source);
  // Ends the call as a denial (post-execute still runs).
  void deny(std::string_view code, std::string message, std::string_view stage, std::string source);

 private:
  void append_trail(std::string_view stage, std::string_view source, std::string_view verdict,
                    std::chrono::nanoseconds took, boost::json::object extra);

  HookContext context_{const_cast<CallState*>(this), false};
  HookContext post_execute_context_{const_cast<CallState*>(this), true};
};

// Runs `fn` and turns any exception into a message; returns true on success.
template <class Fn>
bool guarded(Fn&& fn, std::string* what) noexcept {
  try {
    fn();
    return true;
  } catch (const HookFailure& e) {
    *what = e.what();
  } catch (const std::exception& e) {
    *what = std::string("threw: ") + e.what();
  } catch (...) {
    *what = "threw a non-standard exception";
  }
  return false;
}

}  // namespace toolgate::detail
