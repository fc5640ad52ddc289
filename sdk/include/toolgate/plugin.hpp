// plugin.hpp -- the header-only C++17 layer over toolgate.h.
//
//   class MyPlugin {
//    public:
//     explicit MyPlugin(toolgate::sdk::Init& init) {
//       init.guard("no-world", [](const toolgate::sdk::Call& call) {
//         auto name = call.arg_string("/name");
//         return name && *name == "World" ? toolgate::sdk::GuardVerdict::deny("no World")
//                                          : toolgate::sdk::GuardVerdict::abstain();
//       });
//     }
//   };
//   TOOLGATE_PLUGIN(MyPlugin, "acme.world", "1.0.0", TG_CAP_GUARD, 0)
//
// What it gives you over the C header:
//   - RAII: your plugin is a class; init constructs it, shutdown destroys it.
//   - Typed verdicts (PreVerdict, GuardVerdict, PostVerdict).
//   - Boost.JSON views of arguments and results.
//   - Every callback is noexcept at the boundary: an exception becomes the
//     fail-closed status with its message (a guard that throws denies).
//   - Config errors: throw ConfigError("/json/pointer", "message").
//   - A config schema the host checks before your constructor runs: give
//     the class a public `static constexpr const char* config_schema =
//     R"({...})";`
//     (JSON Schema text, the subset toolgate.h section 4 lists).
//   - Hot-reload state handoff: give the class export_state() and
//     import_state(json) (see detail::has_state).
//
// Ownership: Call, Signal and Result objects wrap host handles and are valid
// only during the callback that received them.  Strings you return are
// copied by the host before the callback returns.
#ifndef TOOLGATE_PLUGIN_HPP
#define TOOLGATE_PLUGIN_HPP

#include <toolgate/toolgate.h>

#include <boost/json.hpp>

#include <any>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace toolgate {
namespace sdk {

inline tg_str to_tg(std::string_view s) { return tg_str{s.data(), s.size()}; }
inline std::string_view from_tg(tg_str s) {
  return s.data ? std::string_view(s.data, s.size) : std::string_view();
}

// Thrown from a plugin constructor to reject its config.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string json_pointer, const std::string& message)
      : std::runtime_error(message), pointer_(std::move(json_pointer)) {}
  const std::string& pointer() const { return pointer_; }

 private:
  std::string pointer_;
};

// ---- read-only view of a call (every stage) --------------------------------
class Call {
 public:
  Call(const tg_host_api* api, const tg_call* call) : api_(api), call_(call) {
    info_.struct_size = sizeof(info_);
    api_->call_info(call_, &info_);
  }
  std::string_view tool() const { return from_tg(info_.tool_name); }
  std::string_view call_id() const { return from_tg(info_.call_id); }
  std::string_view session_id() const { return from_tg(info_.session_id); }
  std::string_view parent_token() const { return from_tg(info_.parent_token); }
  std::string_view stage() const { return from_tg(info_.stage); }
  std::uint32_t annotations() const { return info_.annotations; }
  std::uint32_t attempt() const { return info_.attempt; }
  // Who asks (ABI 1.3): the calling program ("claude-code", "mcp", ...) and
  // the subagent making the call.  Empty when unknown, for the main agent,
  // and on a host older than 1.3 (which leaves the zeroed fields alone).
  std::string_view client() const { return from_tg(info_.client); }
  std::string_view agent_id() const { return from_tg(info_.agent_id); }
  bool subagent() const { return !agent_id().empty(); }
  // The caller chain (ABI 1.5): a Code Mode script's calls have depth 1 and
  // the run_code call's id as parent; every other call depth 0.
  std::string_view parent_call_id() const { return from_tg(info_.parent_call_id); }
  std::uint32_t depth() const { return info_.depth; }
  bool from_code() const { return depth() > 0; }

  // One string argument by JSON Pointer, without parsing anything.
  std::optional<std::string_view> arg_string(const char* pointer) const {
    tg_str s{};
    if (api_->arg_string(call_, pointer, &s) != TG_OK) return std::nullopt;
    return from_tg(s);
  }
  // One argument of any type by JSON Pointer (scalars are cheap).
  std::optional<tg_json_value> arg(const char* pointer) const {
    tg_json_value v{};
    v.struct_size = sizeof(v);
    if (api_->arg_get(call_, pointer, &v) != TG_OK) return std::nullopt;
    return v;
  }
  // What the entry point knows about the calling client (ABI 1.6), by JSON
  // Pointer: "/roots" (the client's root folders), "/roots/0", ...
  // nullopt when absent, and on a host older than 1.6.
  std::optional<tg_json_value> client_context(const char* pointer) const {
    if (!TOOLGATE_HOST_HAS(api_, client_context_get)) return std::nullopt;
    tg_json_value v{};
    v.struct_size = sizeof(v);
    if (api_->client_context_get(call_, pointer, &v) != TG_OK) return std::nullopt;
    return v;
  }
  // All arguments, parsed (costs a parse: prefer arg_* for single fields).
  boost::json::object arguments() const {
    tg_str s{};
    api_->arguments_json(call_, &s);
    return boost::json::parse(from_tg(s)).as_object();
  }
  // post-execute / finalize: the candidate result; observers: the outcome.
  boost::json::value result() const {
    tg_str s{};
    if (api_->result_json(call_, &s) != TG_OK) return nullptr;
    return boost::json::parse(from_tg(s));
  }
  // Every string of the arguments or the result, without parsing (ABI 1.8,
  // toolgate.h visit_strings documents which strings): f(std::string_view)
  // returns true to go on, false to stop; the views stay valid until
  // for_each_string returns.  Returns false when f stopped.
  // On an older host the same strings come from parsing the JSON.  Throws
  // when the host cannot walk them (the wrong stage, say): a scanner that
  // saw nothing must not take that for "nothing there".
  enum class Strings { arguments = TG_STRINGS_ARGUMENTS, result = TG_STRINGS_RESULT };
  template <class F>
  bool for_each_string(Strings which, F&& f) const {
    static_assert(std::is_invocable_r_v<bool, F&, std::string_view>,
                  "for_each_string's callback takes a std::string_view and returns bool "
                  "(true: go on)");
    if (!TOOLGATE_HOST_HAS(api_, visit_strings)) return strings_from_json(which, f);
    struct Visit {
      std::remove_reference_t<F>* f;  // F is a reference for a named callable
      bool stopped = false;
      std::exception_ptr error;
      static int32_t thunk(void* ud, tg_str text) noexcept {
        auto* v = static_cast<Visit*>(ud);
        try {
          if ((*v->f)(from_tg(text))) return 0;
          v->stopped = true;
        } catch (...) {
          v->error = std::current_exception();
        }
        return 1;
      }
    } visit{&f, false, nullptr};
    const tg_status st =
        api_->visit_strings(call_, static_cast<int32_t>(which), &Visit::thunk, &visit);
    if (visit.error) std::rethrow_exception(visit.error);
    if (st != TG_OK)
      throw std::runtime_error("the host could not list the call's strings (status " +
                               std::to_string(st) + ")");
    return !visit.stopped;
  }
  bool denied() const { return api_->call_outcome(call_) == TG_OUTCOME_DENIED; }
  // Append a plugin-owned event ("acme/observed") to the session log.
  void emit(const char* type, const boost::json::object& data) const {
    auto text = boost::json::serialize(data);
    api_->emit_event(call_, type, to_tg(text));
  }
  void log(int32_t level, std::string_view message) const {
    api_->log(call_, level, to_tg(message));
  }

  const tg_host_api* api() const { return api_; }
  const tg_call* handle() const { return call_; }

 private:
  // for_each_string on a host older than 1.8: the same strings, in the
  // same order, read from the JSON text.
  template <class F>
  bool strings_from_json(Strings which, F& f) const {
    std::vector<std::pair<const boost::json::value*, bool>> todo;  // value, with keys
    std::vector<std::string_view> keys;
    auto walk = [&](const boost::json::value& root, bool with_keys) {
      todo.assign(1, {&root, with_keys});
      while (!todo.empty()) {
        auto [v, k] = todo.back();
        todo.pop_back();
        if (!v) {
          if (!f(keys.back())) return false;
          keys.pop_back();
          continue;
        }
        if (v->is_string()) {
          if (!f(std::string_view(v->get_string()))) return false;
        } else if (v->is_array()) {
          const auto& a = v->get_array();
          for (auto it = a.rbegin(); it != a.rend(); ++it) todo.push_back({&*it, k});
        } else if (v->is_object()) {
          const auto& o = v->get_object();
          for (auto it = o.end(); it != o.begin();) {
            --it;
            todo.push_back({&it->value(), k});
            if (k) {
              keys.push_back(it->key());
              todo.push_back({nullptr, k});
            }
          }
        }
      }
      return true;
    };
    if (which == Strings::arguments) return walk(boost::json::value(arguments()), true);
    if (which != Strings::result) throw std::invalid_argument("for_each_string: unknown Strings");
    boost::json::value r = result();
    if (r.is_null()) throw std::runtime_error("the host could not give the call's result");
    // An observer's result_json is the outcome record; its result is in it.
    if (stage() == "tools/result") {
      const auto* inner = r.is_object() ? r.get_object().if_contains("result") : nullptr;
      if (!inner) throw std::runtime_error("the outcome record holds no result");
      r = boost::json::value(*inner);
    }
    const auto* o = r.if_object();
    if (!o) return walk(r, true);  // not the result shape: everything in it, as the host does
    for (const char* member : {"content", "value"})
      if (const auto* m = o->if_contains(member); m && !walk(*m, true)) return false;
    if (const auto* e = o->if_contains("error"); e && !walk(*e, false)) return false;
    return true;
  }

  const tg_host_api* api_;
  const tg_call* call_;
  tg_call_info info_{};
};

// ---- typed verdicts ------------------------------------------------------------
struct PreVerdict {
  int32_t kind = TG_PRE_KEEP;
  std::string reason;
  std::optional<boost::json::object> arguments;
  static PreVerdict keep() { return {}; }
  static PreVerdict allow() { return {TG_PRE_ALLOW, {}, {}}; }
  static PreVerdict ask(std::string r) { return {TG_PRE_ASK, std::move(r), {}}; }
  static PreVerdict deny(std::string r) { return {TG_PRE_DENY, std::move(r), {}}; }
  PreVerdict with_arguments(boost::json::object a) && {
    arguments = std::move(a);
    return std::move(*this);
  }
};

struct GuardVerdict {
  int32_t kind = TG_GUARD_ABSTAIN;
  std::string reason;
  static GuardVerdict abstain() { return {}; }
  static GuardVerdict deny(std::string r) { return {TG_GUARD_DENY, std::move(r)}; }
};

struct PostVerdict {
  int32_t kind = TG_POST_ACCEPT;
  boost::json::value replacement;
  std::string reason;
  std::vector<std::string> contexts;
  static PostVerdict accept() { return {}; }
  static PostVerdict replace(boost::json::value r) {
    return {TG_POST_REPLACE, std::move(r), {}, {}};
  }
  static PostVerdict block(std::string r) { return {TG_POST_BLOCK, nullptr, std::move(r), {}}; }
  PostVerdict add_context(std::string c) && {
    contexts.push_back(std::move(c));
    return std::move(*this);
  }
};

// ---- execute wrappers ----------------------------------------------------------
class Signal {
 public:
  Signal(const tg_host_api* api, const tg_signal* s) : api_(api), s_(s) {}
  // A child that also fires after `timeout`; owned by the host.
  Signal child(std::chrono::nanoseconds timeout) const {
    return Signal(api_, api_->signal_child(s_, static_cast<uint64_t>(timeout.count())));
  }
  int32_t fired() const { return api_->signal_fired(s_); }  // 0, TG_CANCELLED, TG_TIMEOUT
  int32_t wait(std::chrono::nanoseconds d) const {
    return api_->signal_wait(s_, static_cast<uint64_t>(d.count()));
  }
  const tg_signal* handle() const { return s_; }

 private:
  const tg_host_api* api_;
  const tg_signal* s_;
};

class Result {
 public:
  Result(const tg_host_api* api, const tg_result* r) : api_(api), r_(r) {}
  bool is_error() const { return api_->result_is_error(r_) != 0; }
  std::string_view error_code() const { return from_tg(api_->result_error_code(r_)); }
  const tg_result* handle() const { return r_; }

 private:
  const tg_host_api* api_;
  const tg_result* r_;
};

class Next {
 public:
  Next(const tg_host_api* api, const tg_next* n) : api_(api), n_(n) {}
  // Runs the rest of the chain.  Throws if the host could not run it.
  Result operator()(const Signal& signal) const {
    const tg_result* r = nullptr;
    if (api_->call_next(n_, signal.handle(), &r) != TG_OK || !r)
      throw std::runtime_error("next() could not run the chain");
    return Result(api_, r);
  }

 private:
  const tg_host_api* api_;
  const tg_next* n_;
};

// ---- callback types ---------------------------------------------------------------
using PreExecuteFn = std::function<PreVerdict(const Call&)>;
using GuardFn = std::function<GuardVerdict(const Call&)>;
using ExecuteWrapperFn = std::function<Result(const Call&, const Signal&, const Next&)>;
// An execute wrapper in two halves (ABI 1.7, toolgate.h 5.3b), for one that
// acts only on the way in and out -- a deadline, a measurement: it holds
// no thread while a tool that answers later works.  `before` returns the
// signal for the rest of the chain (the one it got, or signal.child(...));
// `after` (may be empty) sees the result, on any thread.  What `after`
// needs from `before` goes in `state` (empty on the way in).
using WrapperBeforeFn = std::function<Signal(const Call&, const Signal&, std::any& state)>;
using WrapperAfterFn = std::function<void(const Call&, const Result&, std::any& state)>;
using PostExecuteFn = std::function<PostVerdict(const Call&)>;
using ResultObserverFn = std::function<void(const Call&)>;

// An fs guard's view of the mutation (ABI 1.5, toolgate.h 5.2a): the path
// the host resolved (links followed, `..` collapsed), the name the tool
// used, and whether the file exists or is reached through a link.
struct FsIntent {
  bool edit = false;  // TG_FS_EDIT; false: TG_FS_WRITE
  std::string_view path;
  std::string_view requested;
  bool exists = false;
  bool via_link = false;
  std::string_view content_hash;  // "sha256:<hex>" of the file now
};
using FsGuardFn = std::function<GuardVerdict(const Call&, const FsIntent&)>;

// Who would call a tool, as a static verdict is asked (ABI 1.6, toolgate.h
// 5.2b): no arguments, no ids -- only the tool and the caller.
// Read like a Call (the same accessors), so one matcher serves both.
class Caller {
 public:
  explicit Caller(const tg_call_info& info) : info_(info) {}
  std::string_view tool() const { return from_tg(info_.tool_name); }
  std::string_view client() const { return from_tg(info_.client); }
  std::string_view agent_id() const { return from_tg(info_.agent_id); }
  bool subagent() const { return !agent_id().empty(); }
  std::uint32_t depth() const { return info_.depth; }
  bool from_code() const { return depth() > 0; }

 private:
  const tg_call_info& info_;
};
// True: the hook denies every call of caller.tool by that caller, whatever
// the arguments.  False whenever some argument object could pass.
using DeniesAlwaysFn = std::function<bool(const Caller&)>;

struct HookOptions {
  std::string tool_filter;  // glob; empty = every tool
  int32_t priority = 0;
  // Pre-execute hooks and guards (ABI 1.6): the hook's static verdict, so
  // the host can leave a tool it always denies out of what it offers.  On
  // an older host it is not attached (and nothing else changes).
  DeniesAlwaysFn denies_always = {};
};

namespace detail {

// Converts any exception into a status and a message (fail closed).
template <class Fn>
tg_status boundary(const tg_host_api* api, const tg_call* call, Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::exception& e) {
    api->set_error(call, e.what());
  } catch (...) {
    api->set_error(call, "unknown C++ exception");
  }
  return TG_ERROR;
}

// user_data for every trampoline: the API table, the hook's static verdict
// (when it has one) and the callback.  The host hands user_data to the
// static verdict too, which does not know the hook's kind: it reads the
// SlotBase, and user_data always points at one (Init::add).
struct SlotBase {
  const tg_host_api* api;
  DeniesAlwaysFn denies_always;
};
template <class Fn>
struct Slot : SlotBase {
  Fn fn;
};
template <class Fn>
Slot<Fn>* slot_of(void* user_data) {
  return static_cast<Slot<Fn>*>(static_cast<SlotBase*>(user_data));
}

}  // namespace detail

// ---- registration during init ----------------------------------------------------
class Init {
 public:
  Init(const tg_host_api* api, tg_init_ctx* ctx, boost::json::object config)
      : api_(api), ctx_(ctx), config_(std::move(config)) {}

  const boost::json::object& config() const { return config_; }
  const tg_host_api* api() const { return api_; }

  void pre_execute(const char* name, PreExecuteFn fn, HookOptions o = {}) {
    add<PreExecuteFn, tg_pre_execute_fn>(name, std::move(fn), o, &pre_tramp,
                                         api_->register_pre_execute);
  }
  void guard(const char* name, GuardFn fn, HookOptions o = {}) {
    add<GuardFn, tg_guard_fn>(name, std::move(fn), o, &guard_tramp, api_->register_guard);
  }
  void execute_wrapper(const char* name, ExecuteWrapperFn fn, HookOptions o = {}) {
    add<ExecuteWrapperFn, tg_execute_wrapper_fn>(name, std::move(fn), o, &wrapper_tramp,
                                                 api_->register_execute_wrapper);
  }
  // The same in two halves.  On a host older than ABI 1.7 (reachable by a
  // plugin whose descriptor asks for an older minor than the header's) the
  // halves are registered as one wrapper that calls them around next():
  // the same behaviour, holding a thread as any one-function wrapper does.
  void execute_wrapper_halves(const char* name, WrapperBeforeFn before, WrapperAfterFn after,
                              HookOptions o = {}) {
    if (!before) throw std::invalid_argument("execute_wrapper_halves needs a before");
    if (!TOOLGATE_HOST_HAS(api_, register_execute_wrapper_halves)) {
      execute_wrapper(
          name,
          [before = std::move(before), after = std::move(after)](
              const Call& call, const Signal& signal, const Next& next) {
            std::any state;
            Result r = next(before(call, signal, state));
            if (after) after(call, r, state);
            return r;
          },
          std::move(o));
      return;
    }
    const bool has_after = static_cast<bool>(after);
    add<Halves, tg_wrapper_before_fn>(
        name, Halves{std::move(before), std::move(after)}, o, &before_tramp,
        [this, has_after](tg_init_ctx* ctx, const tg_hook_options* opts, tg_wrapper_before_fn b) {
          return api_->register_execute_wrapper_halves(ctx, opts, b,
                                                       has_after ? &after_tramp : nullptr);
        });
  }
  void post_execute(const char* name, PostExecuteFn fn, HookOptions o = {}) {
    add<PostExecuteFn, tg_post_execute_fn>(name, std::move(fn), o, &post_tramp,
                                           api_->register_post_execute);
  }
  void result_observer(const char* name, ResultObserverFn fn, HookOptions o = {}) {
    add<ResultObserverFn, tg_result_observer_fn>(name, std::move(fn), o, &observer_tramp,
                                                 api_->register_result_observer);
  }
  // ABI 1.5: needs TG_CAP_FS_GUARD in the descriptor.
  void fs_guard(const char* name, FsGuardFn fn, HookOptions o = {}) {
    if (!TOOLGATE_HOST_HAS(api_, register_fs_guard))
      throw std::runtime_error("this host is older than ABI 1.5 and runs no fs guards");
    add<FsGuardFn, tg_fs_guard_fn>(name, std::move(fn), o, &fs_guard_tramp,
                                   api_->register_fs_guard);
  }

  // Owned by the plugin object; freed after shutdown.
  std::vector<std::shared_ptr<void>>& slots() { return slots_; }

 private:
  template <class Fn, class CFn, class Reg>
  void add(const char* name, Fn fn, const HookOptions& o, CFn tramp, Reg reg) {
    auto slot = std::make_shared<detail::Slot<Fn>>();
    slot->api = api_;
    slot->denies_always = o.denies_always;
    slot->fn = std::move(fn);
    tg_hook_options opts{};
    opts.struct_size = sizeof(opts);
    opts.name = name;
    opts.tool_filter = o.tool_filter.empty() ? nullptr : o.tool_filter.c_str();
    opts.priority = o.priority;
    opts.user_data = static_cast<detail::SlotBase*>(slot.get());
    if (reg(ctx_, &opts, tramp) != TG_OK)
      throw std::runtime_error(std::string("registering \"") + name + "\" failed");
    if (o.denies_always && TOOLGATE_HOST_HAS(api_, set_tool_verdict) &&
        api_->set_tool_verdict(ctx_, name, &verdict_tramp) != TG_OK)
      throw std::runtime_error(std::string("attaching the static verdict of \"") + name +
                               "\" failed");
    slots_.push_back(std::move(slot));
  }

  static tg_status pre_tramp(void* ud, tg_call* call, int32_t* out) {
    auto* s = detail::slot_of<PreExecuteFn>(ud);
    return detail::boundary(s->api, call, [&] {
      PreVerdict v = s->fn(Call(s->api, call));
      if (!v.reason.empty()) s->api->set_reason(call, to_tg(v.reason));
      if (v.arguments) {
        auto text = boost::json::serialize(*v.arguments);
        if (s->api->set_arguments(call, to_tg(text)) != TG_OK) return TG_ERROR;
      }
      *out = v.kind;
      return TG_OK;
    });
  }
  static tg_status guard_tramp(void* ud, const tg_call* call, int32_t* out) {
    auto* s = detail::slot_of<GuardFn>(ud);
    return detail::boundary(s->api, call, [&] {
      GuardVerdict v = s->fn(Call(s->api, call));
      if (!v.reason.empty()) s->api->set_reason(call, to_tg(v.reason));
      *out = v.kind;
      return TG_OK;
    });
  }
  static tg_status wrapper_tramp(void* ud, const tg_call* call, const tg_signal* sig,
                                 const tg_next* next, const tg_result** out) {
    auto* s = detail::slot_of<ExecuteWrapperFn>(ud);
    return detail::boundary(s->api, call, [&] {
      Result r = s->fn(Call(s->api, call), Signal(s->api, sig), Next(s->api, next));
      *out = r.handle();
      return TG_OK;
    });
  }
  struct Halves {
    WrapperBeforeFn before;
    WrapperAfterFn after;
  };
  static tg_status before_tramp(void* ud, const tg_call* call, const tg_signal* sig,
                                const tg_signal** out_signal, void** out_state) {
    auto* s = detail::slot_of<Halves>(ud);
    return detail::boundary(s->api, call, [&] {
      auto state = std::make_unique<std::any>();
      Signal inner = s->fn.before(Call(s->api, call), Signal(s->api, sig), *state);
      // A child the host could not make is no deadline: fail, never pass
      // the call on without it.
      if (!inner.handle())
        throw std::runtime_error("before returned no signal (signal_child failed)");
      *out_signal = inner.handle();
      if (s->fn.after) *out_state = state.release();
      return TG_OK;
    });
  }
  static tg_status after_tramp(void* ud, const tg_call* call, const tg_result* r, void* state) {
    auto* s = detail::slot_of<Halves>(ud);
    std::unique_ptr<std::any> owned(static_cast<std::any*>(state));  // freed here, whatever happens
    return detail::boundary(s->api, call, [&] {
      std::any none;
      s->fn.after(Call(s->api, call), Result(s->api, r), owned ? *owned : none);
      return TG_OK;
    });
  }
  static tg_status post_tramp(void* ud, tg_call* call, int32_t* out) {
    auto* s = detail::slot_of<PostExecuteFn>(ud);
    return detail::boundary(s->api, call, [&] {
      PostVerdict v = s->fn(Call(s->api, call));
      if (!v.reason.empty()) s->api->set_reason(call, to_tg(v.reason));
      for (const auto& c : v.contexts) s->api->add_context(call, to_tg(c));
      if (v.kind == TG_POST_REPLACE) {
        auto text = boost::json::serialize(v.replacement);
        if (s->api->set_result(call, to_tg(text)) != TG_OK) return TG_ERROR;
      }
      *out = v.kind;
      return TG_OK;
    });
  }
  static tg_status fs_guard_tramp(void* ud, const tg_call* call, const tg_fs_intent* intent,
                                  int32_t* out) {
    auto* s = detail::slot_of<FsGuardFn>(ud);
    return detail::boundary(s->api, call, [&] {
      FsIntent i;
      i.edit = intent->kind == TG_FS_EDIT;
      i.path = from_tg(intent->path);
      i.requested = from_tg(intent->requested);
      i.exists = intent->exists != 0;
      i.via_link = intent->via_link != 0;
      i.content_hash = from_tg(intent->content_hash);
      GuardVerdict v = s->fn(Call(s->api, call), i);
      if (!v.reason.empty()) s->api->set_reason(call, to_tg(v.reason));
      *out = v.kind;
      return TG_OK;
    });
  }
  static tg_status verdict_tramp(void* ud, const tg_call_info* who, int32_t* out) noexcept {
    try {
      auto* s = static_cast<detail::SlotBase*>(ud);
      *out = s->denies_always(Caller(*who)) ? TG_TOOL_DENIED_ALWAYS : TG_TOOL_MAY_PASS;
      return TG_OK;
    } catch (...) {
      return TG_ERROR;  // read as "may pass": the tool stays offered, calls are checked
    }
  }
  static tg_status observer_tramp(void* ud, const tg_call* call) {
    auto* s = detail::slot_of<ResultObserverFn>(ud);
    return detail::boundary(s->api, call, [&] {
      s->fn(Call(s->api, call));
      return TG_OK;
    });
  }

  const tg_host_api* api_;
  tg_init_ctx* ctx_;
  boost::json::object config_;
  std::vector<std::shared_ptr<void>> slots_;
};

namespace detail {

// The plugin object plus the callback slots it registered.
template <class P>
struct Instance {
  std::vector<std::shared_ptr<void>> slots;
  std::unique_ptr<P> plugin;
  std::string exported;  // export_state's answer, kept until the next call
};

template <class P>
tg_status init(const tg_host_api* api, tg_init_ctx* ctx, tg_str config, void** out) noexcept {
  try {
    boost::system::error_code ec;
    boost::json::value cfg = boost::json::parse(from_tg(config), ec);
    if (ec || !cfg.is_object()) {
      api->reject_config(ctx, "", "the config must be a JSON object");
      return TG_CONFIG_REJECTED;
    }
    Init in(api, ctx, std::move(cfg.as_object()));
    auto inst = std::make_unique<Instance<P>>();
    inst->plugin = std::make_unique<P>(in);
    inst->slots = std::move(in.slots());
    *out = inst.release();
    return TG_OK;
  } catch (const ConfigError& e) {
    api->reject_config(ctx, e.pointer().c_str(), e.what());
    return TG_CONFIG_REJECTED;
  } catch (const std::exception& e) {
    api->init_error(ctx, e.what());
  } catch (...) {
    api->init_error(ctx, "unknown C++ exception in init");
  }
  return TG_ERROR;
}

// State handoff (hot reload): a plugin class with
//   boost::json::value export_state();            // on the old instance
//   void import_state(const boost::json::value&); // on the new one; throw to refuse
// gets them wired; without them the descriptor leaves them NULL.
template <class P, class = void>
struct has_state : std::false_type {};
template <class P>
struct has_state<P, std::void_t<decltype(std::declval<P&>().export_state()),
                                decltype(std::declval<P&>().import_state(
                                    std::declval<const boost::json::value&>()))>> : std::true_type {
};

template <class P>
tg_status export_state(void* state, tg_str* out) noexcept {
  try {
    auto* inst = static_cast<Instance<P>*>(state);
    inst->exported = boost::json::serialize(inst->plugin->export_state());
    *out = to_tg(inst->exported);
    return TG_OK;
  } catch (...) {
    return TG_ERROR;
  }
}

template <class P>
tg_status import_state(void* state, tg_str json) noexcept {
  try {
    auto* inst = static_cast<Instance<P>*>(state);
    inst->plugin->import_state(boost::json::parse(from_tg(json)));
    return TG_OK;
  } catch (...) {
    return TG_ERROR;
  }
}

template <class P>
constexpr tg_export_state_fn export_fn() {
  if constexpr (has_state<P>::value)
    return &export_state<P>;
  else
    return nullptr;
}
template <class P>
constexpr tg_import_state_fn import_fn() {
  if constexpr (has_state<P>::value)
    return &import_state<P>;
  else
    return nullptr;
}

// The config schema (ABI 1.2): a plugin class with a public
//   static constexpr const char* config_schema = R"({"type": "object", ...})";
// has it put in its descriptor, and the host checks the manifest's config
// against it before the constructor runs; without the member the
// descriptor's config_schema is NULL.  (Public: a private member cannot be
// seen from here, and the plugin would silently go without its schema.)
template <class P, class = void>
struct has_config_schema : std::false_type {};
template <class P>
struct has_config_schema<P, std::void_t<decltype(P::config_schema)>> : std::true_type {};

template <class P>
constexpr const char* config_schema_of() {
  if constexpr (has_config_schema<P>::value) {
    static_assert(std::is_convertible_v<decltype(P::config_schema), const char*>,
                  "TOOLGATE_PLUGIN: CLASS::config_schema must be JSON Schema text: declare it as "
                  "`static constexpr const char* config_schema = R\"({...})\";`");
    return P::config_schema;
  } else {
    return nullptr;
  }
}

template <class P>
void shutdown(void* state) noexcept {
  try {
    delete static_cast<Instance<P>*>(state);
  } catch (...) {
  }
}

}  // namespace detail
}  // namespace sdk
}  // namespace toolgate

// Declares the plugin: its class (constructed from toolgate::sdk::Init&),
// id, version, TG_CAP_* capabilities and TG_PLUGIN_* flags.
#define TOOLGATE_PLUGIN(CLASS, ID, VERSION, CAPABILITIES, FLAGS) \
  static const tg_plugin_descriptor toolgate_descriptor_ = {     \
      sizeof(tg_plugin_descriptor),                              \
      TOOLGATE_ABI_MAJOR,                                        \
      TOOLGATE_ABI_MINOR,                                        \
      ID,                                                        \
      VERSION,                                                   \
      CAPABILITIES,                                              \
      FLAGS,                                                     \
      &::toolgate::sdk::detail::init<CLASS>,                     \
      &::toolgate::sdk::detail::shutdown<CLASS>,                 \
      ::toolgate::sdk::detail::export_fn<CLASS>(),               \
      ::toolgate::sdk::detail::import_fn<CLASS>(),               \
      ::toolgate::sdk::detail::config_schema_of<CLASS>()};       \
  TOOLGATE_PLUGIN_ENTRY { return &toolgate_descriptor_; }

#endif  // TOOLGATE_PLUGIN_HPP
