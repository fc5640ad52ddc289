// abi_types.hpp -- what the opaque handles of toolgate.h are on the host
// side.  Only host/src/abi/ sees these.
#pragma once

#include "plugin_instance.hpp"

#include "../hook_kinds.hpp"

#include <toolgate/toolgate.h>
#include <toolgate/hooks.hpp>

#include "../stable_arena.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace toolgate::detail {

// Which callback a tg_call was made for; host functions check it.  The
// hook kinds come first, in HookKind order, then a tool's own callbacks.
enum class AbiStage {
  pre_execute,
  guard,
  wrapper,
  post_execute,
  observer,
  fs_guard,
  tool_execute,
  tool_render,
  tool_finalize,
  tool_present_call,
  tool_present_result,
};
static_assert(static_cast<std::size_t>(AbiStage::fs_guard) + 1 == kHookKindCount &&
                  static_cast<int>(AbiStage::wrapper) ==
                      static_cast<int>(HookKind::execute_wrapper),
              "AbiStage starts with the hook kinds, in HookKind order");
constexpr AbiStage abi_stage(HookKind k) { return static_cast<AbiStage>(k); }

// What a callback of this stage may change (abi_right::* bits): the hook
// kinds' rights come from their table, the tool's from here.
constexpr std::uint32_t abi_rights(AbiStage s) {
  switch (s) {
    case AbiStage::tool_execute:
      return abi_right::set_value;
    case AbiStage::tool_render:
    case AbiStage::tool_finalize:
    case AbiStage::tool_present_call:
    case AbiStage::tool_present_result:
      return abi_right::set_content;
    default:
      return info(static_cast<HookKind>(s)).abi_rights;
  }
}

struct SignalArena;

}  // namespace toolgate::detail

// A signal handed to a plugin.  Child signals are kept in the arena of the
// callback that made them and die with it.
struct tg_signal {
  std::shared_ptr<toolgate::Signal> signal;
  toolgate::detail::SignalArena* arena;
};

namespace toolgate::detail {
struct SignalArena {
  std::mutex mutex;
  StableArena<tg_signal, 2> signals;
  // The callback's own signal, added before the callback runs: nothing
  // else can add yet, so no lock.
  const tg_signal* add_first(std::shared_ptr<Signal> s) {
    return &signals.emplace_back(tg_signal{std::move(s), this});
  }
  // A child made by the plugin (signal_child), from any of its threads.
  const tg_signal* add(std::shared_ptr<Signal> s) {
    std::lock_guard lock(mutex);
    return &signals.emplace_back(tg_signal{std::move(s), this});
  }
  // Whether `s` is one of this arena's signals (compares addresses only).
  bool holds(const tg_signal* s) {
    std::lock_guard lock(mutex);
    return signals.holds(s);
  }
};
}  // namespace toolgate::detail

struct tg_result {
  const toolgate::ExecResult* result;
};

// The rest of the wrapper chain, plus the results it produced for this
// wrapper invocation (so a returned handle can be checked before use).
struct tg_next {
  toolgate::Next* next;
  toolgate::detail::StableArena<tg_result, 2> results;
  bool owns(const tg_result* r) const { return results.holds(r); }
};

// One callback invocation: a view of the call plus the answers the plugin
// gave through the host API (copied in), plus borrowed text buffers.
struct tg_call {
  tg_call(const toolgate::HookCall& v, toolgate::detail::AbiStage k,
          const toolgate::detail::PluginInstance* p)
      : view(v), stage(k), plugin(p) {}

  const toolgate::HookCall& view;
  toolgate::detail::AbiStage stage;
  const toolgate::detail::PluginInstance* plugin;
  const toolgate::Outcome* outcome = nullptr;            // observers
  const boost::json::value* render_value = nullptr;      // render
  const toolgate::ToolResult* finalize_input = nullptr;  // finalize

  // What the plugin answered through the host API (copied in), and text
  // lent to it.  Most callbacks answer nothing here -- a guard that
  // abstains, a pre-execute hook that keeps -- so the block is allocated
  // on the first answer, and a callback that gives none costs no
  // construction or destruction of a dozen strings and optionals.
  struct Answers {
    std::string error;
    std::optional<std::string> reason;
    std::optional<boost::json::object> new_arguments;
    std::optional<boost::json::value> new_result;
    std::vector<std::string> contexts;
    std::optional<boost::json::value> value;
    std::optional<boost::json::array> content;
    // A set_* call with bad input; the hook's answer is malformed.
    std::string malformed;

    // Borrowed text, built on first request and valid for the callback.
    std::optional<std::string> arguments_text;
    std::optional<std::string> result_text;
    std::optional<std::string> value_text;
    // fs_intent's answers (each resolved path and refusal), borrowed until
    // the callback returns: a deque, so a later fs_intent adds its own and
    // leaves the views of earlier ones valid.
    std::deque<std::string> fs_texts;
    // Held by every host function while it writes a field above or builds
    // a borrowed text (host_api.cpp: answers_of): a plugin may call them
    // from several threads within one callback (toolgate.h: every function
    // is thread-safe).  The engine reads the block after the callback
    // returned, without it.
    std::mutex mutex;
  };
  // For writing (creates the block).  Const: set_error and set_reason
  // take a const handle because guards may use them.  Host functions are
  // thread-safe (toolgate.h): a plugin may answer from two threads at
  // once, so the block is published with a compare-and-swap, and the
  // thread that loses the race uses the winner's.
  Answers& answers() const {
    Answers* a = answers_.load(std::memory_order_acquire);
    if (a) return *a;
    auto fresh = std::make_unique<Answers>();
    if (answers_.compare_exchange_strong(a, fresh.get(), std::memory_order_acq_rel))
      return *fresh.release();
    return *a;  // another thread's block
  }
  // For reading: nullptr when the plugin answered nothing.
  const Answers* answered() const { return answers_.load(std::memory_order_acquire); }
  Answers* answered() { return answers_.load(std::memory_order_acquire); }

  tg_call(const tg_call&) = delete;
  tg_call& operator=(const tg_call&) = delete;
  ~tg_call() { delete answers_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<Answers*> answers_{nullptr};
};

namespace toolgate::detail {

// A call's answer block, locked for as long as this lives (see
// tg_call::Answers::mutex): how every host function that writes an answer
// or builds a borrowed text takes it.  One at a time: never held across a
// call that takes it again.
class LockedAnswers {
 public:
  explicit LockedAnswers(const tg_call* c) : a_(c->answers()), lock_(a_.mutex) {}
  tg_call::Answers* operator->() { return &a_; }

 private:
  tg_call::Answers& a_;
  std::lock_guard<std::mutex> lock_;
};

}  // namespace toolgate::detail

struct tg_init_ctx {
  struct Pending {
    std::string name;
    std::vector<std::string> tools;
    int priority;
    void* user_data;
    toolgate::detail::CHookFn fn;          // its alternative is the hook's kind
    tg_tool_verdict_fn verdict = nullptr;  // 1.6: its static verdict
  };
  toolgate::detail::PluginInstance* plugin;
  std::vector<Pending> hooks;
  struct PendingTool {
    std::string name, description;
    boost::json::value input_schema, output_schema;
    std::uint32_t annotations;
    tg_tool_execute_fn execute;
    tg_tool_render_fn render;
    tg_tool_finalize_fn finalize_content;
    void* user_data;
    tg_tool_present_fn present_call = nullptr;  // 1.4
    tg_tool_present_fn present_result = nullptr;
  };
  std::vector<PendingTool> tools;
  std::vector<std::string> errors;
  std::optional<std::pair<std::string, std::string>> config_rejection;
  // The manifest's config, read by config_get / config_string (borrowed
  // from the manifest entry, which outlives init).
  const boost::json::object* config = nullptr;
  // Why a config accessor refused its arguments (a too-small struct_size):
  // added to the failure message if init then fails, so the plugin author
  // learns why without a debugger.
  std::vector<std::string> notes;
};
