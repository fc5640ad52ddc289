// host.hpp -- the embedding API: what an agent runtime includes.
//
//   toolgate::Host host;
//   host.register_tool(my_tool);
//   host.load_manifest("policy.json");       // plugins (.so) from a manifest
//   host.set_approver(my_prompt);
//   ToolResult r = host.call({{"", "greet", "session-1", ""}, {{"name", "World"}}});
//
// All member functions are thread-safe.  call() and call_batch() take no
// global lock: each call runs on an immutable snapshot of the registered
// hooks (a "generation"); registering or loading publishes a new one.
#pragma once

#include <toolgate/call.hpp>
#include <toolgate/code_mode.hpp>
#include <toolgate/events.hpp>
#include <toolgate/hooks.hpp>
#include <toolgate/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate {

// A load problem: what was wrong, where (file and JSON path), how to fix it.
class LoadError : public std::runtime_error {
 public:
  LoadError(std::string file, std::string json_path, std::string what, std::string fix);
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& problem() const { return problem_; }
  const std::string& fix() const { return fix_; }

 private:
  std::string file_, json_path_, problem_, fix_;
};

struct HostOptions {
  std::size_t max_result_bytes = 16u << 20;    // normalization size limit
  std::size_t max_argument_bytes = 16u << 20;  // call_json size limit
  std::size_t max_json_depth = 64;             // call_json nesting limit
  unsigned batch_parallelism = 0;              // 0: hardware concurrency
  // Deny every call until a manifest stack has loaded successfully (for
  // hosts whose guards come from manifests: never serve calls unguarded).
  bool deny_until_loaded = false;
  // A guard that takes longer than this fails the call closed (`timeout`,
  // stage guard), whatever it answered.  Guards run in-process and cannot
  // be preempted: the deadline bounds what a slow guard can decide, not how
  // long it runs.  Zero: no deadline.
  std::chrono::milliseconds guard_deadline{5000};
  // Split-phase calls (begin_call / complete_call): a call begun and not
  // completed within this long gets its tool/result with the code
  // not_completed, and complete_call no longer knows it.
  std::chrono::milliseconds split_call_expiry{std::chrono::minutes(15)};
  // At most this many begun calls wait for complete_call; begin_call
  // denies beyond it (a caller that never completes cannot grow the host).
  std::size_t max_pending_split_calls = 10000;
};

// ---- split-phase calls (docs/design.md §3.1) ---------------------------------
// For a call that someone else executes -- an agent's built-in shell or
// edit tool, seen through that agent's hooks.  begin_call() runs tool/call,
// pre-execute, approval and the guards and says whether the caller may run
// the tool; complete_call() takes the result the caller reports and runs
// post-execute, normalization, finalize and the observers on it.  Execute
// wrappers do not run: there is no body here for them to wrap (the trail
// records the execute stage as "not-run").
struct SplitBeginOptions {
  // An `ask` that the guards let through is returned to the caller, which
  // asks its own user, instead of going to the host's approver.
  bool caller_approves = false;
};

struct SplitBegin {
  enum class Verdict { allow, ask, deny };
  Verdict verdict = Verdict::deny;
  // The call's id (generated when the call had none): what complete_call
  // takes.  Known to complete_call only for allow and ask.
  std::string call_id;
  // allow / ask: the arguments to run the tool with (after rewrites).
  boost::json::object arguments;
  bool rewritten = false;  // a pre-execute hook changed the arguments
  std::string reason;      // ask: why; deny: the error's message
  // deny: the call's final result (the denial after post-execute, normalize
  // and finalize; its tool/result is already logged), and the contexts
  // post-execute hooks added to it.
  ToolResult result;
  std::vector<std::string> additional_contexts;
};

struct SplitOutcome {
  // accepted: the reported result stands (perhaps rewritten by finalize);
  // replaced: a post-execute hook replaced it; blocked: a post-execute hook
  // blocked it (result is the denial).
  enum class Kind { accepted, replaced, blocked };
  Kind kind = Kind::accepted;
  ToolResult result;  // the final result, as the model should see it
  std::vector<std::string> additional_contexts;
};

// How a stack of manifests is loaded.
struct LoadOptions {
  // Operator overrides: globs over plugin and hook ids ("all" = everything).
  // Anything a locked layer registered is kept and reported instead.
  std::vector<std::string> disable;
  // Load manifests and plugins even if they or a folder above them are
  // writable by other users.  Off by default: someone else could swap the
  // policy.
  bool allow_insecure_plugin_permissions = false;
  // Refuse plugins whose build `toolgate inspect` flags -- symbols exported
  // besides the entry, STB_GNU_UNIQUE symbols, undefined symbols that only
  // the host happens to define -- instead of loading them with a warning
  // (docs/design.md §8.5).  Off by default for embedders and the developer
  // commands; `toolgate mcp` turns it on: a production entry point fails
  // closed.  Also refuses such a build on hot reload (the old generation
  // keeps serving).
  bool strict_plugin_builds = false;
  // Values for ${NAME} in the strings of plugins' "config" (docs/design.md
  // §8.1), e.g. {"workspace", "/home/me/project"}.  A name the manifests
  // use without a value here is a load error.
  std::map<std::string, std::string, std::less<>> variables = {};
};

struct LoadReport {
  std::vector<std::string> layers;       // names, in stack order
  std::vector<std::string> plugins;      // ids of the plugins now loaded
  std::vector<std::string> kept_locked;  // disable attempts refused by a lock
  // One line per build problem of a plugin loaded anyway (not strict),
  // naming the plugin, its path, the problem and the fix.  Also logged.
  std::vector<std::string> build_warnings;
};

// One reload attempt.
struct ReloadReport {
  bool ok = false;
  bool changed = false;                     // false: every file had the same content
  std::uint64_t generation = 0;             // the generation serving after it
  std::vector<std::string> reloaded;        // plugin ids loaded afresh
  std::string error;                        // why it failed (the old generation serves on)
  std::vector<std::string> build_warnings;  // as LoadReport's, for the plugins loaded afresh
  // true when no manifest stack has ever loaded: there is no old
  // generation to serve on, and every call is denied until a load succeeds.
  bool calls_denied = false;
  // The first attempt of enable_reload: a load, not a reload.
  bool initial = false;
  std::chrono::microseconds took{0};
};

// Hot reload (docs/design.md §9): the manifest stack is watched and reloaded
// whole; unchanged plugins (same content and config) are kept, changed ones are
// loaded from a fresh private copy -- first in a probe process if probe_command
// is set -- and swapped in atomically with the rest of their generation.  Any
// failure leaves the old generation serving.
struct ReloadOptions {
  std::vector<std::filesystem::path> manifests;  // the stack (files or folders)
  LoadOptions load;
  bool watch = true;  // inotify on the files' folders
  std::chrono::milliseconds debounce{20};
  std::chrono::milliseconds drain_deadline{10000};
  std::chrono::milliseconds probe_timeout{10000};
  // A plugin file that looks like a build still being written (empty, no
  // ELF header yet, truncated -- linkers truncate their output first) is
  // not a failure: the attempt is retried quietly every 50 ms for up to
  // this long, and only then reported.  Zero: report at once.
  std::chrono::milliseconds settle_timeout{3000};
  // argv prefix of a program running the probe (the CLI: {toolgate, "__probe"});
  // the plugin path and id are appended.  Empty: no child-process probe.
  std::vector<std::string> probe_command;
  std::filesystem::path shadow_parent;  // default: $TMPDIR or /tmp
  // After each attempt.  When set, the host does not log an attempt's
  // failure itself (the callback reports it: one message per failure).
  std::function<void(const ReloadReport&)> on_reload;
};

// The user message to place after a batch's tool results (docs/design.md
// §6): the released contexts joined in first-in first-out order, separated
// by a blank line; nullopt when there are none.  A model then reads every
// result of the batch next to its call and the contexts after them.
std::optional<std::string> context_message(const std::vector<std::string>& contexts);

struct BatchResult {
  std::vector<ToolResult> results;  // in the order of the calls
  // Contexts queued by post-execute hooks, first-in first-out, released
  // after every call of the batch has its tool/result.
  std::vector<std::string> additional_contexts;
  std::optional<std::string> context_message() const {
    return toolgate::context_message(additional_contexts);
  }
};

// What each Host::add_* returns: remove() unregisters that one hook in a new
// generation -- calls already running finish with it, later calls do not
// see it.  Copyable; dropping a handle keeps the hook (not RAII: most hooks
// live as long as the host).  remove() answers false when the hook is gone
// already or its host has been destroyed; one that races the host's
// destructor either finishes first (the destructor waits) or does nothing.
class HookHandle {
 public:
  HookHandle() = default;
  bool remove();
  const std::string& id() const { return id_; }  // "owner/name"

  struct Target;  // opaque: the host's side (host.cpp)

 private:
  friend class Host;
  HookHandle(std::weak_ptr<Target> target, std::uint64_t serial, std::string id)
      : target_(std::move(target)), serial_(serial), id_(std::move(id)) {}
  std::weak_ptr<Target> target_;
  std::uint64_t serial_ = 0;
  std::string id_;
};

class Host {
 public:
  explicit Host(HostOptions options = {});
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // ---- configuration (control thread; publishes a new generation) --------
  void register_tool(ToolDefinition tool);
  // Registers `tools` in one new generation, replacing registered tools of
  // the same names; with `remove_others`, every other tool registered
  // through this API is removed.  For tool sets owned by someone else (the
  // MCP gateway's tools/list).  Calls in flight keep the definitions they
  // started with.
  void set_tools(std::vector<ToolDefinition> tools, bool remove_others = false);
  // `owner` names the registrant: the hook id is "owner/name".  Each
  // returns the handle that removes the hook again.
  HookHandle add_pre_execute(std::string owner, HookOptions o, PreExecuteFn fn);
  HookHandle add_guard(std::string owner, HookOptions o, GuardFn fn);
  // An fs guard (hooks.hpp: FsGuardFn): runs on the resolved path of every
  // file a tool body declares it will write or edit.
  HookHandle add_fs_guard(std::string owner, HookOptions o, FsGuardFn fn);
  HookHandle add_execute_wrapper(std::string owner, HookOptions o, ExecuteWrapperFn fn);
  // The same in two halves (hooks.hpp: WrapperHalves): holds no thread
  // while a tool that answers later works.
  HookHandle add_execute_wrapper(std::string owner, HookOptions o, WrapperHalves halves);
  HookHandle add_post_execute(std::string owner, HookOptions o, PostExecuteFn fn);
  HookHandle add_result_observer(std::string owner, HookOptions o, ResultObserverFn fn);
  // Removes the hook `id` ("owner/name") added through this API, as its
  // handle would; false when there is none.  A hook a manifest registered
  // is not the embedder's to remove: std::invalid_argument names its layer
  // (and whether that layer is locked, which only a restart changes) and
  // says what to do instead (edit the manifest; --disable for an unlocked
  // one).
  bool remove_hook(std::string_view id);
  void set_approver(Approver approver);
  // Code Mode (code_mode.hpp, docs/design.md §17): from now on every
  // generation carries the tool run_code, whose bindings are the other
  // tools.  Calling it again replaces the options (and the runner pool).
  // Throws std::invalid_argument for options out of range.
  void enable_code_mode(CodeModeOptions options = {});
  // The TypeScript declarations a script sees for the tools registered now
  // (what run_code's description carries).
  std::string typescript_declarations() const;
  // Where tools' UI cards go (hooks.hpp: Card), besides the tool/card
  // event; called on the call's thread.  A tool's present_* runs only when
  // a sink is set or someone subscribes to events.
  void set_card_sink(CardSink sink);

  // Stacks manifests as layers on top of those already loaded, in order (a
  // folder stands for its *.json files in byte-wise name order).  All or
  // nothing: on any error a LoadError is thrown and the active generation
  // is unchanged.
  LoadReport load_manifests(const std::vector<std::filesystem::path>& manifests,
                            const LoadOptions& options = {});
  LoadReport load_manifest(const std::filesystem::path& manifest, const LoadOptions& options = {}) {
    return load_manifests({manifest}, options);
  }

  // Hot reload.  enable_reload loads options.manifests as the whole stack
  // (replacing what load_manifests loaded) and, with watch, reloads when
  // they or their plugins change.  reload() does one attempt now (the CLI
  // also on SIGHUP).  Events: plugin/reloaded, plugin/reload-failed,
  // plugin/unloaded, plugin/pinned, plugin/drain-timeout.
  ReloadReport enable_reload(ReloadOptions options);
  ReloadReport reload();
  void disable_reload();

  // Every event from now on goes to `sink` as well.
  void subscribe(EventSink sink);

  // ---- calls (any thread, concurrently) -----------------------------------
  // A batch of one.  The contexts its post-execute hooks queued go to
  // `*additional_contexts` when given (they are also in the batch/settled
  // event): an embedder that does not subscribe to events loses none.
  ToolResult call(ToolCall call, std::vector<std::string>* additional_contexts = nullptr);
  // Parses `{"tool": ..., "arguments": {...}, "call_id"?, "session_id"?}`
  // with size, depth and UTF-8 limits; bad input is an error result.
  ToolResult call_json(std::string_view call_json,
                       std::vector<std::string>* additional_contexts = nullptr);
  BatchResult call_batch(std::vector<ToolCall> calls);
  // The same call without waiting for a tool body that answers later
  // (ToolDefinition::execute_async, docs/design.md §3.2): the stages up to
  // the body run now, on this thread; the rest, and `done`, run on the
  // thread that completes the body.  `done` is called exactly once -- before
  // call_async returns when nothing is left to wait for (a denial, a
  // synchronous tool, an asynchronous one under execute-wrappers, which
  // wait for it) -- with the result and the contexts post-execute hooks
  // queued.  `done` must not throw (it is logged and dropped if it does).
  // The host must outlive the calls it started.
  using CallDone = std::function<void(ToolResult result, std::vector<std::string> contexts)>;
  void call_async(ToolCall call, CallDone done);

  // Split-phase calls (see SplitBegin).  begin_call never throws for a bad
  // call: it answers deny.  A call id that is already begun and not yet
  // completed is refused (invalid_arguments).
  SplitBegin begin_call(ToolCall call, SplitBeginOptions options = {});
  // Throws std::out_of_range naming the id when no begun call has it (never
  // begun, denied at begin, already completed, or expired).
  SplitOutcome complete_call(std::string_view call_id, ToolResult reported);
  // Begun calls still waiting for complete_call.
  std::size_t pending_split_calls() const;

  // Loaded plugins, tools and every stage's hooks in run order;
  // "tool_owners" maps each tool to "host" (registered through this API)
  // or the id of the plugin that registers it.
  boost::json::object describe() const;
  // Whether the active generation denies every call of `who.tool` by that
  // caller whatever its arguments: the reason (naming the hook) when a
  // pre-execute hook or a non-shadow guard whose tool filter matches says
  // so through its DeniesAlwaysFn, or when no valid stack is loaded;
  // nullopt otherwise.  For offering tools, not for deciding calls: a hook
  // whose static verdict throws counts as "may pass" (logged).
  std::optional<std::string> denied_always(const CallIdentity& who) const;
  // Every tool of the active generation, by name: {"name", "description",
  // "inputSchema", "outputSchema"?, "owner"} (MCP's tools/list shape, plus
  // the owner as in describe()).
  boost::json::array tools_json() const;
  // The resolved order of every stage, with each hook's plugin, layer,
  // priority, tool filter, mode and lock -- only the hooks that would run
  // for `tool` when it is not empty.
  boost::json::object plan(std::string_view tool = {}) const;
  std::uint64_t generation() const;
  // Whether the active generation runs plugin code on `tool`'s result: a
  // post-execute hook, a result observer or an execute wrapper's after
  // (WrapperHalves) whose tool filter matches it.
  // (The MCP gateway finishes a call on its reading thread only when none
  // does: a slow hook must not hold up the server's other answers.)
  bool runs_hooks_on_result(std::string_view tool) const;
  // Whether the active generation runs a plugin's code on `tool` before its
  // body: a pre-execute hook, guard or execute wrapper from a manifest
  // whose tool filter matches it (the embedder's own hooks are not
  // counted: it knows what they do), or no valid stack is loaded.  (The
  // MCP gateway starts a call on its reading thread only when none does.)
  bool runs_plugin_code_before_body(std::string_view tool) const;

  struct Impl;

 private:
  friend class HookHandle;
  bool remove_embedder_hook(std::uint64_t serial);
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolgate
