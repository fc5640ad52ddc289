// generation.hpp -- one immutable set of everything that serves calls: the
// tools and the resolved hook tables of every stage.  A call takes one
// snapshot at entry and runs entirely on it; registering or loading builds
// a new generation and publishes it atomically.
#pragma once

#include "tool_filter.hpp"

#include <toolgate/hooks.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace toolgate::detail {

enum class StageKind { pre_execute, guard, execute_wrapper, post_execute, result_observer };

// Common to every hook: its identity ("owner/name"), where it applies, where
// it came from (for `toolgate plan`) and what keeps its code alive (a loaded
// plugin image, or nothing).
struct HookInfo {
  std::string id;
  ToolFilter filter;
  int priority = 0;
  std::size_t order = 0;  // position in the resolved stage order
  std::string plugin;     // plugin id, or the embedder's owner name
  std::string layer;      // manifest layer, or "host" for embedder hooks
  bool locked = false;    // registered by a locked layer
  std::vector<std::string> before, after;
  std::shared_ptr<const void> keep_alive;
};

struct PreExecuteHook : HookInfo {
  PreExecuteFn fn;
};
struct GuardHook : HookInfo {
  GuardFn fn;
  bool shadow = false;
};
struct ExecuteWrapperHook : HookInfo {
  ExecuteWrapperFn fn;
};
struct PostExecuteHook : HookInfo {
  PostExecuteFn fn;
};
struct ResultObserverHook : HookInfo {
  ResultObserverFn fn;
};

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
  std::map<std::string, std::shared_ptr<const ToolEntry>, std::less<>> tools;
  Approver approver;
  // Loaded plugins, kept alive while this generation is in use.
  std::vector<std::shared_ptr<const void>> plugins;
  std::vector<std::string> plugin_ids;
};

}  // namespace toolgate::detail
