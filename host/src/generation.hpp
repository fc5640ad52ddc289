// generation.hpp -- one immutable set of everything that serves calls: the
// tools and the resolved hook tables of every stage.  A call takes one
// snapshot at entry and runs entirely on it; registering or loading builds
// a new generation and publishes it atomically.
#pragma once

#include "hook_kinds.hpp"
#include "tool_filter.hpp"

#include <toolgate/hooks.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace toolgate::detail {

// Common to every hook: its identity ("owner/name"), where it applies, where
// it came from (for `toolgate plan`) and what keeps its code alive (a loaded
// plugin image, or nothing).
struct HookInfo {
  std::string id;
  ToolFilter filter;
  int priority = 0;
  std::string plugin;            // plugin id, or the embedder's owner name
  std::string layer;             // manifest layer, or "host" for embedder hooks
  bool locked = false;           // registered by a locked layer
  bool shadow = false;           // guards in shadow mode: record, never deny
  DeniesAlwaysFn denies_always;  // its static verdict, when it has one
  std::vector<std::string> before, after;
  std::shared_ptr<const void> keep_alive;
};

// A resolved hook of kind K: its common data and its callback.
template <HookKind K>
struct Hook : HookInfo {
  FnOf<K> fn;
};
using PreExecuteHook = Hook<HookKind::pre_execute>;
using GuardHook = Hook<HookKind::guard>;
using ExecuteWrapperHook = Hook<HookKind::execute_wrapper>;
using PostExecuteHook = Hook<HookKind::post_execute>;
using ResultObserverHook = Hook<HookKind::result_observer>;
using FsGuardHook = Hook<HookKind::fs_guard>;

class FsObservations;  // pipeline/fs_gate.hpp

struct ToolEntry {
  ToolDefinition def;
  std::string owner;  // "host" for embedder tools, else the plugin id
  std::shared_ptr<const void> keep_alive;
};

struct Generation {
  std::uint64_t number = 0;
  // Non-empty: no valid plugin stack is loaded, and every call is denied.
  std::string invalid_reason;
  // Waterfalls are sorted: priority (higher first), then registration order.
  std::vector<PreExecuteHook> pre_execute;
  // Guards are sorted by id: the order cannot change the outcome, and the
  // report of denials is deterministic.
  std::vector<GuardHook> guards;
  std::vector<ExecuteWrapperHook> wrappers;  // first = outermost
  std::vector<PostExecuteHook> post_execute;
  std::vector<ResultObserverHook> observers;  // registration order
  std::vector<FsGuardHook> fs_guards;         // sorted by id, like guards
  // What each session has seen of the files (read-before-edit, §2.13):
  // the host's, shared by every generation.
  std::shared_ptr<FsObservations> fs_observations;

  // A stage's table by kind, for code that treats every kind alike.
  template <HookKind K>
  std::vector<Hook<K>>& hooks() {
    if constexpr (K == HookKind::pre_execute)
      return pre_execute;
    else if constexpr (K == HookKind::guard)
      return guards;
    else if constexpr (K == HookKind::execute_wrapper)
      return wrappers;
    else if constexpr (K == HookKind::post_execute)
      return post_execute;
    else if constexpr (K == HookKind::result_observer)
      return observers;
    else
      return fs_guards;
  }
  template <HookKind K>
  const std::vector<Hook<K>>& hooks() const {
    return const_cast<Generation*>(this)->hooks<K>();
  }
  std::map<std::string, std::shared_ptr<const ToolEntry>, std::less<>> tools;
  Approver approver;
  CardSink card_sink;
  // Loaded plugins, kept alive while this generation is in use.
  std::vector<std::shared_ptr<const void>> plugins;
  std::vector<std::string> plugin_ids;
};

// Calls f(std::integral_constant<HookKind, K>{}) for every hook kind K, in
// table order: code that treats all kinds alike, e.g.
//   for_each_kind([&](auto k) { use(gen.hooks<k.value>(), info(k.value)); });
template <class F>
void for_each_kind(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<HookKind, static_cast<HookKind>(I)>{}), ...);
  }
  (std::make_index_sequence<kHookKindCount>{});
}

}  // namespace toolgate::detail
