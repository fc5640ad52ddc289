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

// One adapter per hook kind (abi/adapters.cpp), C callback to C++ hook.
template <HookKind K>
FnOf<K> adapt(PluginPtr p, CFnOf<K> fn, void* user_data);
// The adapter of `fn`'s kind: the result holds the same alternative.
HookFn adapt_hook(PluginPtr p, const CHookFn& fn, void* user_data);
ToolDefinition adapt_tool(PluginPtr p, tg_init_ctx::PendingTool t);
// A hook's static verdict (toolgate.h 5.2b), for the hook `hook_id`.
DeniesAlwaysFn adapt_verdict(PluginPtr p, tg_tool_verdict_fn fn, void* user_data,
                             std::string hook_id);

}  // namespace toolgate::detail
