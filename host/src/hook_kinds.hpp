// hook_kinds.hpp -- the one table of hook kinds.
//
// Every list the engine keeps about hook kinds is derived from this table:
// the capability bits a plugin may declare, the stage names in results,
// events and plans, the words in error messages, which manifest settings a
// kind takes, what a plugin's callback of that kind may change through the
// C ABI, and the callback types (C++ and C) a registration holds.
//
// Adding a hook kind (docs/design.md §14): a row here (and its enum value),
// its C typedef and register_* entry in toolgate.h with an adapter in
// abi/adapters.cpp, and its stage file in pipeline/.
#pragma once

#include <toolgate/toolgate.h>
#include <toolgate/hooks.hpp>
#include <toolgate/result.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>

namespace toolgate::detail {

enum class HookKind : std::uint8_t {
  pre_execute,
  guard,
  execute_wrapper,
  post_execute,
  result_observer,
  fs_guard,
};
inline constexpr std::size_t kHookKindCount = 6;

// What a callback may change through the C ABI (tg_host_api's set_*).
namespace abi_right {
inline constexpr std::uint32_t set_arguments = 0x01;  // pre-execute rewrites
inline constexpr std::uint32_t set_reason = 0x02;     // ask / deny / block reasons
inline constexpr std::uint32_t set_result = 0x04;     // post-execute replace
inline constexpr std::uint32_t add_context = 0x08;    // post-execute contexts
inline constexpr std::uint32_t set_value = 0x10;      // a tool body's value
inline constexpr std::uint32_t set_content = 0x20;    // render / finalizeContent
}  // namespace abi_right

struct HookKindInfo {
  HookKind kind;
  std::uint32_t capability;          // the TG_CAP_* bit a plugin declares
  std::string_view stage;            // in results, events, trails and plans
  std::string_view noun;             // in messages: "guard", "pre-execute hook", ...
  std::string_view capability_name;  // `toolgate inspect`: "pre-execute", ...
  bool ordered;                      // priority / before / after mean something
  bool shadowable;                   // "mode": "shadow" (record, never deny)
  std::uint32_t abi_rights;          // abi_right::* bits
};

inline constexpr std::array<HookKindInfo, kHookKindCount> kHookKinds{{
    {HookKind::pre_execute, TG_CAP_PRE_EXECUTE, stage::pre_execute, "pre-execute hook",
     "pre-execute", true, false, abi_right::set_arguments | abi_right::set_reason},
    {HookKind::guard, TG_CAP_GUARD, stage::guard, "guard", "guard", false, true,
     abi_right::set_reason},
    {HookKind::execute_wrapper, TG_CAP_EXECUTE_WRAPPER, stage::execute, "execute wrapper",
     "execute-wrapper", true, false, 0},
    {HookKind::post_execute, TG_CAP_POST_EXECUTE, stage::post_execute, "post-execute hook",
     "post-execute", true, false,
     abi_right::set_reason | abi_right::set_result | abi_right::add_context},
    {HookKind::result_observer, TG_CAP_RESULT_OBSERVER, stage::observer, "result observer",
     "result-observer", false, false, 0},
    {HookKind::fs_guard, TG_CAP_FS_GUARD, stage::fs_guard, "fs guard", "fs-guard", false, true,
     abi_right::set_reason},
}};

// An execute wrapper as the engine keeps it: `around`, the one function
// the onion calls (pipeline/execute.cpp), and for a wrapper registered in
// two halves, the halves as well.  Its `around` then calls them around
// next(), so a chain with any one-function wrapper runs as one; a chain of
// halves only can run around a body that answers later without holding a
// thread (pipeline/async_call.cpp).
struct WrapperFns {
  WrapperFns() = default;
  WrapperFns(ExecuteWrapperFn f) : around(std::move(f)) {}  // NOLINT: one function
  explicit WrapperFns(WrapperHalves h);                     // pipeline/execute.cpp
  explicit operator bool() const { return static_cast<bool>(around); }
  bool in_halves() const { return static_cast<bool>(halves.before); }
  ExecuteWrapperFn around;
  WrapperHalves halves;  // empty for a one-function wrapper
};

// The callbacks, one alternative per kind in table order: a registration
// holds exactly one, and its index is its kind.
using HookFn =
    std::variant<PreExecuteFn, GuardFn, WrapperFns, PostExecuteFn, ResultObserverFn, FsGuardFn>;

// A plugin's execute wrapper: one callback (toolgate.h 5.3) or two halves
// (5.3b, `after` optional).
struct CWrapperFns {
  tg_execute_wrapper_fn around = nullptr;
  tg_wrapper_before_fn before = nullptr;
  tg_wrapper_after_fn after = nullptr;
  // Registration refuses a NULL callback: here, neither form.
  friend bool operator==(const CWrapperFns& f, std::nullptr_t) { return !f.around && !f.before; }
};
// The C callbacks as a plugin registered them.  Pre- and post-execute
// callbacks have the same C type, so alternatives are always addressed by
// index (std::in_place_index), never by type.
using CHookFn = std::variant<tg_pre_execute_fn, tg_guard_fn, CWrapperFns, tg_post_execute_fn,
                             tg_result_observer_fn, tg_fs_guard_fn>;
template <HookKind K>
using FnOf = std::variant_alternative_t<static_cast<std::size_t>(K), HookFn>;
template <HookKind K>
using CFnOf = std::variant_alternative_t<static_cast<std::size_t>(K), CHookFn>;

constexpr const HookKindInfo& info(HookKind k) { return kHookKinds[static_cast<std::size_t>(k)]; }
constexpr HookKind kind_of(const HookFn& fn) { return static_cast<HookKind>(fn.index()); }

constexpr std::optional<HookKind> kind_of_capability(std::uint32_t cap) {
  for (const auto& k : kHookKinds)
    if (k.capability == cap) return k.kind;
  return std::nullopt;
}

constexpr std::uint32_t all_hook_capabilities() {
  std::uint32_t bits = 0;
  for (const auto& k : kHookKinds) bits |= k.capability;
  return bits;
}

// The table is in enum order, and the variants follow it.
constexpr bool table_in_order() {
  for (std::size_t i = 0; i < kHookKinds.size(); ++i)
    if (static_cast<std::size_t>(kHookKinds[i].kind) != i) return false;
  return true;
}
static_assert(table_in_order(), "kHookKinds rows must be in HookKind order");
static_assert(std::variant_size_v<HookFn> == kHookKindCount &&
                  std::variant_size_v<CHookFn> == kHookKindCount,
              "HookFn and CHookFn need one alternative per hook kind, in table order");
static_assert((all_hook_capabilities() & TG_CAP_TOOLS) == 0, "TG_CAP_TOOLS is not a hook kind");

}  // namespace toolgate::detail
