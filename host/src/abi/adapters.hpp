// adapters.hpp -- turn a plugin's C callbacks into the engine's C++ hooks.
//
// Each adapter builds a tg_call for the invocation, runs the callback
// (serialized if the plugin asked), and checks the answer strictly: a
// failure status, an unknown verdict or a malformed answer throws
// HookFailure, which the stage turns into its fail-closed outcome.
#pragma once

#include "abi_types.hpp"

#include <toolgate/hooks.hpp>

#include <memory>

namespace toolgate::detail {

using PluginPtr = std::shared_ptr<PluginInstance>;

PreExecuteFn adapt_pre_execute(PluginPtr p, tg_pre_execute_fn fn, void* user_data);
GuardFn adapt_guard(PluginPtr p, tg_guard_fn fn, void* user_data);
ExecuteWrapperFn adapt_execute_wrapper(PluginPtr p, tg_execute_wrapper_fn fn, void* user_data);
PostExecuteFn adapt_post_execute(PluginPtr p, tg_post_execute_fn fn, void* user_data);
ResultObserverFn adapt_result_observer(PluginPtr p, tg_result_observer_fn fn, void* user_data);
ToolDefinition adapt_tool(PluginPtr p, tg_init_ctx::PendingTool t);

}  // namespace toolgate::detail
