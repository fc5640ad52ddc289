// hooks.hpp -- the C++ shape of every pipeline stage.
//
// Embedders register these directly on a Host; plugins' C callbacks are
// adapted into exactly the same types (host/src/abi/), so both paths run the
// same engine code.  Every callback may throw: the engine catches at the
// stage boundary and fails closed (docs/design.md §2, §10).
#pragma once

#include <toolgate/call.hpp>
#include <toolgate/result.hpp>
#include <toolgate/signal.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate {

// The engine's side of one hook invocation: what candidate() and emit()
// reach.  Opaque here; embedders and tests never need one (a view without
// it has no candidate and emits nothing).
class HookContext;

// The pre-execute decision as it stands.
enum class Decision { allow = 0, ask = 1, deny = 2 };

// Tool annotations (same bits as TG_TOOL_* in toolgate.h).
namespace annotation {
inline constexpr std::uint32_t read_only = 0x01;
inline constexpr std::uint32_t destructive = 0x02;
inline constexpr std::uint32_t idempotent = 0x04;
inline constexpr std::uint32_t open_world = 0x08;
}  // namespace annotation

// A read-only view of a call as any hook sees it.  References are valid for
// the duration of the hook invocation.
struct HookCall {
  const CallIdentity& identity;
  const boost::json::object& arguments;           // current (final for guards)
  const boost::json::object& original_arguments;  // as the caller sent them
  std::string_view stage;
  Decision decision = Decision::allow;  // the pre-execute decision so far
  std::uint32_t annotations = 0;        // of the tool being called
  std::uint32_t attempt = 0;            // tool body invocations so far
  // post-execute: whether the call was denied rather than executed.
  bool denied = false;
  const HookContext* context = nullptr;  // set by the engine

  // post-execute: the candidate result (result-shape JSON), or nullptr in
  // any other stage.  Built on first use, because most hooks never read it;
  // valid until this hook returns.
  const boost::json::value* candidate() const;

  // Append a tool- or plugin-owned event to the session log.  Throws
  // std::invalid_argument for a type the host reserves (events.hpp:
  // reserved_event_type) or one that is empty or not UTF-8: the hook or
  // tool that emitted it fails, and the log never holds a forged
  // tool/result.
  void emit(std::string_view type, boost::json::object data) const;
};

// ---- 1. pre-execute ---------------------------------------------------------
struct PreVerdict {
  enum class Kind { keep, allow, ask, deny } kind = Kind::keep;
  std::string reason;                            // for ask / deny
  std::optional<boost::json::object> arguments;  // replacement, if any

  static PreVerdict keep() { return {}; }
  static PreVerdict allow() { return {Kind::allow, {}, {}}; }
  static PreVerdict ask(std::string r) { return {Kind::ask, std::move(r), {}}; }
  static PreVerdict deny(std::string r) { return {Kind::deny, std::move(r), {}}; }
  PreVerdict with_arguments(boost::json::object a) && {
    arguments = std::move(a);
    return std::move(*this);
  }
};
using PreExecuteFn = std::function<PreVerdict(const HookCall&)>;

// ---- approval -----------------------------------------------------------------
enum class ApprovalAnswer { allowed_once, rejected, cancelled, unavailable };
struct ApprovalRequest {
  const CallIdentity& identity;
  const boost::json::object& arguments;  // exactly what will run
  std::string_view reason;
  std::string_view source;  // the hook that asked
  // The call's signal (its cancellation and deadline): an approver that
  // waits on a person stops waiting when it fires.  Null from old code.
  std::shared_ptr<Signal> signal = {};
};
using Approver = std::function<ApprovalAnswer(const ApprovalRequest&)>;

// ---- 2. guards: return a reason to deny, nullopt to abstain ----------------
using GuardFn = std::function<std::optional<std::string>(const HookCall&)>;

// ---- fs guards: the files a tool body is about to change --------------------
// (docs/design.md §2.13)  A tool body declares each mutation first
// (ToolContext::write_intent / edit_intent); the host resolves the path and
// runs the fs guards on it.  Deny or abstain, monotonic, fail closed, tool
// filters and shadow mode exactly as for guards.
enum class FsIntentKind { write, edit };
struct FsIntent {
  FsIntentKind kind = FsIntentKind::write;
  std::string_view path;          // resolved: absolute, `..` collapsed, links followed
  std::string_view requested;     // as the tool named it
  bool exists = false;            // the file exists now
  bool via_link = false;          // the requested path's last component is a symbolic link
  std::string_view content_hash;  // "sha256:<hex>" of the file now; empty when absent
};
struct FsGuardCall {
  const HookCall& call;  // the tool's call (stage "fs/guard")
  const FsIntent& intent;
};
using FsGuardFn = std::function<std::optional<std::string>(const FsGuardCall&)>;

// What a tool body gets back from an intent.  allowed: change `path` (the
// resolved one, not the name it passed).  Otherwise leave the file alone:
// the call ends as an error naming `source` whatever the body returns.
struct FsDecision {
  bool allowed = false;
  std::string path;
  std::string reason;
  std::string source;  // the fs guard, or "host/read-before-edit", "host"
  explicit operator bool() const { return allowed; }
};

// ---- 3. execute wrappers --------------------------------------------------------
// What one run of the rest of the chain produced.  Only the host creates
// these; a wrapper can return only a reference it got from `next`.
struct ExecResult {
  bool is_error = false;
  boost::json::value value;                   // when !is_error
  std::optional<boost::json::array> content;  // pre-rendered, see ToolOutput
  std::string error_code;                     // when is_error
  std::string message;
  std::string stage;
  std::string source;
};
class Next {
 public:
  virtual ~Next() = default;
  // Runs the inner wrappers and the tool body with `signal`.
  virtual const ExecResult& operator()(const std::shared_ptr<Signal>& signal) = 0;
};
using ExecuteWrapperFn =
    std::function<const ExecResult&(const HookCall&, const std::shared_ptr<Signal>&, Next&)>;

// An execute wrapper in two halves (docs/design.md §2.5), for one that acts
// only on the way in and on the way out -- a deadline, a measurement.  It
// holds no thread while a tool that answers later works (§3.2): every
// `before` runs, the body starts, and every `after` runs where the body's
// answer arrives.  In a chain that also holds a one-function wrapper the
// halves are called around its next() instead.
struct WrapperHalves {
  // Whatever `before` wants `after` to have (nothing, unless it sets one).
  using State = std::shared_ptr<void>;
  // The way in: returns the signal for the rest of the chain -- `signal`,
  // a child of it (Signal::child), or nullptr for `signal`.  Throws to end
  // the call as plugin_error; `after` is then not called.  Required.
  std::function<std::shared_ptr<Signal>(const HookCall&, const std::shared_ptr<Signal>& signal,
                                        State& state)>
      before;
  // The way out: once, with the rest of the chain's result, on any
  // thread; it cannot change the result.  Throws to end the call as
  // plugin_error.  May be empty.
  std::function<void(const HookCall&, const ExecResult&, State& state)> after;
};

// ---- 6. post-execute --------------------------------------------------------------
struct PostVerdict {
  enum class Kind { accept, replace, block } kind = Kind::accept;
  boost::json::value replacement;     // result shape, for replace
  std::string reason;                 // for block
  std::vector<std::string> contexts;  // queued for the model

  static PostVerdict accept() { return {}; }
  static PostVerdict replace(boost::json::value r) { return {Kind::replace, std::move(r), {}, {}}; }
  static PostVerdict block(std::string r) { return {Kind::block, {}, std::move(r), {}}; }
  PostVerdict add_context(std::string c) && {
    contexts.push_back(std::move(c));
    return std::move(*this);
  }
};
using PostExecuteFn = std::function<PostVerdict(const HookCall&)>;

// ---- 8. result observers: the frozen outcome ------------------------------------
// One stage's verdict.  The strings point into the generation and the call,
// valid while the call runs; kept as a plain struct so recording costs no
// JSON work unless someone reads it (trail_json / Outcome::to_json).
struct TrailEntry {
  std::string_view stage;
  std::string_view source;
  std::string_view verdict;
  std::int64_t ns = 0;
  boost::json::object extra;  // reason, rewrite before/after, error ...
  boost::json::object to_json() const;
};

struct Outcome {
  const CallIdentity& identity;
  const boost::json::object& original_arguments;
  const boost::json::object& final_arguments;
  const std::vector<TrailEntry>& trail;  // every stage's verdict, with timings
  const ToolResult& result;
  std::uint64_t generation;
  const HookContext* context = nullptr;  // set by the engine (observer events)
  boost::json::array trail_json() const;
  boost::json::object to_json() const;
};
using ResultObserverFn = std::function<void(const Outcome&)>;

// ---- tools -------------------------------------------------------------------------
struct ToolContext {
  const HookCall& call;
  std::shared_ptr<Signal> signal;

  // File mutations (docs/design.md §2.13), from the body's own thread.
  // write_intent: about to create or overwrite `path`; edit_intent: about
  // to change part of it.  Both check read-before-edit (an existing file
  // must have been observed in this session with its current content) and
  // run the fs guards.  Without the engine behind this context (a body
  // called directly), every intent is denied: fail closed.
  FsDecision write_intent(std::string_view path) const;
  FsDecision edit_intent(std::string_view path) const;
  // The session has now seen `path` with this content ("sha256:<hex>";
  // empty: the host hashes the file): after a read, and after the tool's
  // own write.  Logged as fs/observed.
  void observed(std::string_view path, std::string_view content_hash = {}) const;
};
struct ToolOutput {
  bool ok = true;
  boost::json::value value;
  std::string error_code = "tool_error";  // tool_error, timeout or cancelled
  std::string message;
  // Content blocks the tool already has (an MCP server's result): render is
  // skipped, and a null value means "no value" (no structuredContent).
  std::optional<boost::json::array> content;
  static ToolOutput success(boost::json::value v) { return {true, std::move(v), {}, {}, {}}; }
  static ToolOutput success(boost::json::value v, boost::json::array content) {
    return {true, std::move(v), {}, {}, std::move(content)};
  }
  static ToolOutput failure(std::string msg, std::string code = "tool_error") {
    return {false, {}, std::move(code), std::move(msg), {}};
  }
};
// ---- tool bodies that answer later -------------------------------------------------
// A body that sends its work elsewhere (an MCP server) and answers when the
// reply comes, on whatever thread that is, holds no thread while it waits
// (docs/design.md §3.2).  The engine hands it a ToolCompletion; the body
// keeps it and calls complete() once with the output.  A completion that
// is destroyed without complete() ends the call as a tool_error, so every
// call still has exactly one tool/result.  The ToolContext is valid only
// until execute_async returns: copy what the reply will need.
class ToolCompletion {
 public:
  // The engine's side: what complete() reaches.
  class Sink {
   public:
    virtual ~Sink() = default;
    virtual void complete(ToolOutput out) noexcept = 0;
  };
  explicit ToolCompletion(std::unique_ptr<Sink> sink) : sink_(std::move(sink)) {}
  ToolCompletion(ToolCompletion&&) noexcept = default;
  ToolCompletion& operator=(ToolCompletion&&) = delete;
  ToolCompletion(const ToolCompletion&) = delete;
  ~ToolCompletion() {
    if (sink_)
      std::move(*this).complete(
          ToolOutput::failure("the tool body never answered (its completion was dropped)"));
  }
  // Ends the body with `out`; the rest of the call (render, post-execute,
  // normalize, finalize, observers) runs on this thread before it returns.
  // A second call throws std::logic_error.
  void complete(ToolOutput out) && {
    auto sink = std::move(sink_);
    if (!sink) throw std::logic_error("ToolCompletion::complete called twice");
    sink->complete(std::move(out));
  }

 private:
  std::unique_ptr<Sink> sink_;
};
using AsyncExecuteFn = std::function<void(const ToolContext&, ToolCompletion)>;

// UI cards (docs/design.md §2.12): content blocks a tool makes for the
// embedder's user interface -- a pending card when a call starts, a
// completed one after its result -- delivered to the embedder (a CardSink
// and the tool/card event), never to the model.
using PresentCallFn = std::function<boost::json::array(const boost::json::object& arguments)>;
using PresentResultFn = std::function<boost::json::array(const boost::json::object& arguments,
                                                         const ToolResult& result)>;
struct Card {
  std::string_view phase;  // "call" (pending) or "result" (completed)
  const CallIdentity& identity;
  const boost::json::array& content;
};
using CardSink = std::function<void(const Card&)>;

struct ToolDefinition {
  std::string name;
  std::string description;
  boost::json::value input_schema;   // JSON Schema object or null
  boost::json::value output_schema;  // optional
  std::uint32_t annotations = 0;
  // The body: `execute`, or `execute_async` for one that answers later
  // (ToolCompletion above).  When execute-wrappers wrap the call, an
  // asynchronous body is waited for on the calling thread (a wrapper's
  // next() returns the result); Host::call always waits.
  std::function<ToolOutput(const ToolContext&)> execute;
  AsyncExecuteFn execute_async;
  std::function<boost::json::array(const boost::json::value&)> render;  // optional
  // The last content-only invariant.  Receives a copy of the normalized
  // result; only `content` may change -- the host checks the rest.
  std::function<void(ToolResult&)> finalize_content;  // optional
  // Optional UI cards: called right after tool/call with the arguments as
  // sent, and right after tool/result with the final arguments and the
  // result.  A card that throws or is not valid content changes nothing
  // but is reported (a tool/card event with "error", a warning).
  PresentCallFn present_call;
  PresentResultFn present_result;
  // Whether a Code Mode script may call it (docs/design.md §17.5): false
  // keeps it out of run_code's bindings and declarations, and a script's
  // call of it is refused -- for tools that are the host's own plumbing,
  // or whose definition is not trusted (an MCP tool whose pin drifted).
  bool code_binding = true;
};

// ---- registration options ------------------------------------------------------------
// ---- static verdicts (optional, pre-execute hooks and guards) --------------
// Whether the hook denies *every* call of `who.tool` by that caller,
// whatever its arguments: the reason when it does, nullopt when some call
// could pass (or it cannot tell).  `who` has the tool and the caller
// (client, agent_id, depth); its ids are empty.  The host asks only when it
// offers tools (Host::denied_always: the MCP gateway leaves such tools out
// of tools/list) -- never to decide a call, which always runs the hook.
// Answer only what holds for every argument object: a wrong "denied" hides
// a usable tool, a wrong nullopt offers one whose calls are then denied.
using DeniesAlwaysFn = std::function<std::optional<std::string>(const CallIdentity& who)>;

struct HookOptions {
  HookOptions() = default;
  HookOptions(std::string n, std::vector<std::string> t = {}, int p = 0)  // NOLINT: implicit
      : name(std::move(n)), tools(std::move(t)), priority(p) {}
  HookOptions(const char* n) : name(n) {}  // NOLINT: implicit, {"name"} reads well

  std::string name;                // unique within its owner
  std::vector<std::string> tools;  // glob list; "!glob" excludes; empty = all
  int priority = 0;                // waterfalls: higher first
  bool shadow = false;             // guards: record, never deny
  DeniesAlwaysFn denies_always;    // pre-execute hooks and guards; optional
};

}  // namespace toolgate
