#include "adapters.hpp"

#include "../hook_failure.hpp"

#include <string>
#include <utility>

namespace toolgate::detail {
namespace {

std::string status_name(tg_status st) {
  switch (st) {
    case TG_ERROR:
      return "TG_ERROR";
    case TG_INVALID_ARGUMENT:
      return "TG_INVALID_ARGUMENT";
    case TG_NOT_FOUND:
      return "TG_NOT_FOUND";
    case TG_TYPE_MISMATCH:
      return "TG_TYPE_MISMATCH";
    case TG_CONFIG_REJECTED:
      return "TG_CONFIG_REJECTED";
    case TG_CANCELLED:
      return "TG_CANCELLED";
    case TG_TIMEOUT:
      return "TG_TIMEOUT";
    case TG_WRONG_STAGE:
      return "TG_WRONG_STAGE";
    default:
      return "unknown status " + std::to_string(st);
  }
}

// Throws the failure a non-OK status or a malformed answer stands for.
void check_answer(const tg_call& c, tg_status st) {
  const tg_call::Answers* a = c.answered();
  if (st != TG_OK)
    throw HookFailure(!a || a->error.empty() ? "returned " + status_name(st)
                                             : a->error + " (" + status_name(st) + ")");
  if (a && !a->malformed.empty()) throw HookFailure("malformed answer: " + a->malformed);
}

// The common case, an OK status and no answer block (nothing malformed
// can be in it), decided inline.
inline void check(const tg_call& c, tg_status st) {
  if (st != TG_OK || c.answered()) check_answer(c, st);
}

// The reason a deny, ask or block gave ("" when it gave none).
std::string reason_of(tg_call& c) {
  tg_call::Answers* a = c.answered();
  return a && a->reason ? std::move(*a->reason) : std::string();
}

// `valid` lists the verdicts the kind answers, as the header names them.
[[noreturn]] void unknown_verdict(int32_t v, const char* valid) {
  throw HookFailure("answered an unknown verdict " + std::to_string(v) + " (the valid ones are " +
                    valid + ")");
}

}  // namespace

template <>
PreExecuteFn adapt<HookKind::pre_execute>(PluginPtr p, tg_pre_execute_fn fn, void* ud) {
  return [p = std::move(p), fn, ud](const HookCall& view) {
    tg_call c(view, AbiStage::pre_execute, p.get());
    int32_t verdict = -1;
    check(c, p->invoke([&] { return fn(ud, &c, &verdict); }));
    PreVerdict v;
    switch (verdict) {
      case TG_PRE_KEEP:
        v.kind = PreVerdict::Kind::keep;
        break;
      case TG_PRE_ALLOW:
        v.kind = PreVerdict::Kind::allow;
        break;
      case TG_PRE_ASK:
        v.kind = PreVerdict::Kind::ask;
        break;
      case TG_PRE_DENY:
        v.kind = PreVerdict::Kind::deny;
        break;
      default:
        unknown_verdict(verdict,
                        "TG_PRE_KEEP (0), TG_PRE_ALLOW (1), TG_PRE_ASK (2), TG_PRE_DENY (3)");
    }
    if (auto* a = c.answered()) {
      if (a->reason) v.reason = std::move(*a->reason);
      v.arguments = std::move(a->new_arguments);
    }
    return v;
  };
}

template <>
GuardFn adapt<HookKind::guard>(PluginPtr p, tg_guard_fn fn, void* ud) {
  return [p = std::move(p), fn, ud](const HookCall& view) -> std::optional<std::string> {
    tg_call c(view, AbiStage::guard, p.get());
    int32_t verdict = -1;
    check(c, p->invoke([&] { return fn(ud, &c, &verdict); }));
    if (verdict == TG_GUARD_ABSTAIN) return std::nullopt;
    if (verdict == TG_GUARD_DENY) return reason_of(c);
    unknown_verdict(
        verdict, "TG_GUARD_ABSTAIN (0), TG_GUARD_DENY (1)");  // fail closed: never read as abstain
  };
}

namespace {

// What a plugin's wrapper in two halves keeps from its `before` to its
// `after`: the plugin's state, and the arena of the signals `before` was
// given and made (a child signal lives until `after` returns).
struct HalvesLevel {
  SignalArena arena;
  void* plugin_state = nullptr;
};

WrapperHalves adapt_halves(PluginPtr p, tg_wrapper_before_fn before, tg_wrapper_after_fn after,
                           void* ud) {
  WrapperHalves h;
  h.before = [p, before, after, ud](const HookCall& view, const std::shared_ptr<Signal>& signal,
                                    WrapperHalves::State& state) -> std::shared_ptr<Signal> {
    auto level = std::make_shared<HalvesLevel>();
    tg_call c(view, AbiStage::wrapper, p.get());
    const tg_signal* given = level->arena.add_first(signal);
    // On entry the signal it got: a before that stores a failed
    // signal_child (NULL) fails instead of passing its deadline over.
    const tg_signal* chosen = given;
    void* plugin_state = nullptr;
    const tg_status st = p->invoke([&] { return before(ud, &c, given, &chosen, &plugin_state); });
    if (st != TG_OK) check(c, st);  // throws; after is not called (toolgate.h 5.3b)
    // before returned TG_OK: after is called whatever the host then makes
    // of its answer, so the plugin can free its state.
    std::string refused;
    try {
      check(c, st);
    } catch (const HookFailure& e) {
      refused = e.what();
    }
    // Check the handle before touching it: a fabricated pointer is never
    // dereferenced.
    if (refused.empty() && !chosen)
      refused =
          "before answered no signal (signal_child failed?): leave *out_signal as it is to "
          "pass the signal on";
    else if (refused.empty() && !level->arena.holds(chosen))
      refused =
          "before answered a signal the host did not give it (leave *out_signal as it "
          "is, or set a child from signal_child)";
    else if (refused.empty() && plugin_state && !after)
      refused = "before set a state, but the wrapper has no after to hand it to";
    level->plugin_state = plugin_state;
    if (!refused.empty()) {
      if (after) {
        const ExecResult failure{true,    {},
                                 {},      std::string(error_code::plugin_error),
                                 refused, std::string(stage::execute),
                                 {}};
        tg_call done(view, AbiStage::wrapper, p.get());
        const tg_result r{&failure};
        (void)p->invoke([&] { return after(ud, &done, &r, plugin_state); });
      }
      throw HookFailure(refused);
    }
    if (after) state = std::move(level);
    return chosen->signal;
  };
  if (after)
    h.after = [p = std::move(p), after, ud](const HookCall& view, const ExecResult& result,
                                            WrapperHalves::State& state) {
      auto* level = static_cast<HalvesLevel*>(state.get());
      tg_call c(view, AbiStage::wrapper, p.get());
      const tg_result r{&result};
      check(c, p->invoke([&] { return after(ud, &c, &r, level ? level->plugin_state : nullptr); }));
    };
  return h;
}

}  // namespace

template <>
WrapperFns adapt<HookKind::execute_wrapper>(PluginPtr p, CWrapperFns fns, void* ud) {
  if (!fns.around) return WrapperFns(adapt_halves(std::move(p), fns.before, fns.after, ud));
  return ExecuteWrapperFn([p = std::move(p), fn = fns.around, ud](
                              const HookCall& view, const std::shared_ptr<Signal>& signal,
                              Next& next) -> const ExecResult& {
    tg_call c(view, AbiStage::wrapper, p.get());
    SignalArena arena;
    const tg_signal* s = arena.add_first(signal);
    tg_next n{&next, {}};
    const tg_result* out = nullptr;
    check(c, p->invoke([&] { return fn(ud, &c, s, &n, &out); }));
    // Check the handle before touching it: a fabricated pointer is never
    // dereferenced.
    if (!out || !n.owns(out)) throw HookFailure("returned a result it did not get from next");
    return *out->result;
  });
}

template <>
PostExecuteFn adapt<HookKind::post_execute>(PluginPtr p, tg_post_execute_fn fn, void* ud) {
  return [p = std::move(p), fn, ud](const HookCall& view) {
    tg_call c(view, AbiStage::post_execute, p.get());
    int32_t verdict = -1;
    check(c, p->invoke([&] { return fn(ud, &c, &verdict); }));
    PostVerdict v;
    switch (verdict) {
      case TG_POST_ACCEPT:
        v.kind = PostVerdict::Kind::accept;
        break;
      case TG_POST_REPLACE:
        if (!c.answered() || !c.answered()->new_result)
          throw HookFailure("answered REPLACE without set_result");
        v.kind = PostVerdict::Kind::replace;
        v.replacement = std::move(*c.answered()->new_result);
        break;
      case TG_POST_BLOCK:
        v.kind = PostVerdict::Kind::block;
        break;
      default:
        unknown_verdict(verdict, "TG_POST_ACCEPT (0), TG_POST_REPLACE (1), TG_POST_BLOCK (2)");
    }
    if (auto* a = c.answered()) {
      if (a->reason) v.reason = std::move(*a->reason);
      v.contexts = std::move(a->contexts);
    }
    return v;
  };
}

template <>
ResultObserverFn adapt<HookKind::result_observer>(PluginPtr p, tg_result_observer_fn fn, void* ud) {
  return [p = std::move(p), fn, ud](const Outcome& outcome) {
    HookCall view{outcome.identity, outcome.final_arguments, outcome.original_arguments,
                  stage::observer};
    view.context = outcome.context;
    view.denied = outcome.result.is_error && outcome.result.error &&
                  outcome.result.error->code != error_code::tool_error;
    tg_call c(view, AbiStage::observer, p.get());
    c.outcome = &outcome;
    check(c, p->invoke([&] { return fn(ud, &c); }));
  };
}

template <>
FsGuardFn adapt<HookKind::fs_guard>(PluginPtr p, tg_fs_guard_fn fn, void* ud) {
  return [p = std::move(p), fn, ud](const FsGuardCall& fc) -> std::optional<std::string> {
    tg_call c(fc.call, AbiStage::fs_guard, p.get());
    const auto& i = fc.intent;
    auto str = [](std::string_view v) { return tg_str{v.data(), v.size()}; };
    tg_fs_intent intent{
        sizeof(tg_fs_intent), i.kind == FsIntentKind::write ? TG_FS_WRITE : TG_FS_EDIT,
        str(i.path),          str(i.requested),
        i.exists ? 1u : 0u,   i.via_link ? 1u : 0u,
        str(i.content_hash)};
    int32_t verdict = -1;
    check(c, p->invoke([&] { return fn(ud, &c, &intent, &verdict); }));
    if (verdict == TG_GUARD_ABSTAIN) return std::nullopt;
    if (verdict == TG_GUARD_DENY) return reason_of(c);
    unknown_verdict(verdict, "TG_GUARD_ABSTAIN (0), TG_GUARD_DENY (1)");
  };
}

HookFn adapt_hook(PluginPtr p, const CHookFn& fn, void* ud) {
  // The alternative the plugin registered, adapted into the same one.
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    HookFn out;
    ((fn.index() == I
          ? (void)out.emplace<I>(adapt<static_cast<HookKind>(I)>(p, std::get<I>(fn), ud))
          : void()),
     ...);
    return out;
  }
  (std::make_index_sequence<kHookKindCount>{});
}

DeniesAlwaysFn adapt_verdict(PluginPtr p, tg_tool_verdict_fn fn, void* ud, std::string hook_id) {
  return [p = std::move(p), fn, ud,
          hook_id = std::move(hook_id)](const CallIdentity& who) -> std::optional<std::string> {
    auto str = [](const std::string& s) { return tg_str{s.data(), s.size()}; };
    tg_call_info info{};
    info.struct_size = sizeof(info);
    info.tool_name = str(who.tool);
    info.session_id = str(who.session_id);
    static const std::string stage = "tools/list";
    info.stage = str(stage);
    info.client = str(who.client);
    info.agent_id = str(who.agent_id);
    info.parent_call_id = str(who.parent_call_id);
    info.depth = who.depth;
    int32_t verdict = -1;
    tg_status st = p->invoke([&] { return fn(ud, &info, &verdict); });
    if (st != TG_OK)
      throw HookFailure("the static verdict of \"" + hook_id + "\" returned " + status_name(st));
    if (verdict == TG_TOOL_DENIED_ALWAYS) return std::string();
    if (verdict != TG_TOOL_MAY_PASS)
      throw HookFailure("the static verdict of \"" + hook_id + "\" answered an unknown verdict " +
                        std::to_string(verdict));
    return std::nullopt;
  };
}

ToolDefinition adapt_tool(PluginPtr p, tg_init_ctx::PendingTool t) {
  ToolDefinition d;
  d.name = t.name;
  d.description = t.description;
  d.input_schema = t.input_schema;
  d.output_schema = t.output_schema;
  d.annotations = t.annotations;
  void* ud = t.user_data;
  d.execute = [p, fn = t.execute, ud](const ToolContext& ctx) {
    tg_call c(ctx.call, AbiStage::tool_execute, p.get());
    SignalArena arena;
    const tg_signal* s = arena.add_first(ctx.signal);
    tg_status st = p->invoke([&] { return fn(ud, &c, s); });
    tg_call::Answers* a = c.answered();
    const bool explained = a && !a->error.empty();
    if (st == TG_TIMEOUT || st == TG_CANCELLED)
      return ToolOutput::failure(explained ? a->error : "the tool stopped on its signal",
                                 st == TG_TIMEOUT ? "timeout" : "cancelled");
    if (st != TG_OK) return ToolOutput::failure(explained ? a->error : "the tool failed");
    if (a && !a->malformed.empty())
      return ToolOutput::failure("the tool's answer is malformed: " + a->malformed,
                                 "snapshot_failed");
    if (!a || !a->value)
      return ToolOutput::failure("the tool returned TG_OK without set_value", "snapshot_failed");
    return ToolOutput::success(std::move(*a->value));
  };
  if (t.render)
    d.render = [p, fn = t.render, ud](const boost::json::value& value) {
      static const boost::json::object none;
      CallIdentity id;
      HookCall view{id, none, none, stage::render};
      tg_call c(view, AbiStage::tool_render, p.get());
      c.render_value = &value;
      check(c, p->invoke([&] { return fn(ud, &c); }));
      if (!c.answered() || !c.answered()->content)
        throw HookFailure("render returned TG_OK without set_content");
      return std::move(*c.answered()->content);
    };
  if (t.finalize_content)
    d.finalize_content = [p, fn = t.finalize_content, ud](ToolResult& result) {
      static const boost::json::object none;
      CallIdentity id;
      HookCall view{id, none, none, stage::finalize};
      tg_call c(view, AbiStage::tool_finalize, p.get());
      c.finalize_input = &result;
      check(c, p->invoke([&] { return fn(ud, &c); }));
      if (c.answered() && c.answered()->content) result.content = std::move(*c.answered()->content);
    };
  // UI cards: the view carries the arguments (arguments_json reads them);
  // a card's result comes in as the finalize input (result_json).
  auto card = [p, ud](tg_tool_present_fn fn, AbiStage stage, const boost::json::object& arguments,
                      const ToolResult* result) {
    static const boost::json::object none;
    CallIdentity id;
    HookCall view{
        id, arguments, none,
        stage == AbiStage::tool_present_call ? "tool/present-call" : "tool/present-result"};
    tg_call c(view, stage, p.get());
    c.finalize_input = result;
    check(c, p->invoke([&] { return fn(ud, &c); }));
    if (!c.answered() || !c.answered()->content)
      throw HookFailure("the card callback returned TG_OK without set_content");
    return std::move(*c.answered()->content);
  };
  if (t.present_call)
    d.present_call = [card, fn = t.present_call](const boost::json::object& arguments) {
      return card(fn, AbiStage::tool_present_call, arguments, nullptr);
    };
  if (t.present_result)
    d.present_result = [card, fn = t.present_result](const boost::json::object& arguments,
                                                     const ToolResult& result) {
      return card(fn, AbiStage::tool_present_result, arguments, &result);
    };
  return d;
}

}  // namespace toolgate::detail
