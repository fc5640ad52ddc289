// Stages 3-5: the execute-wrapper onion, the tool body, render
// (docs/design.md §2.5, §2.6).  Wrappers get opaque results from `next` and
// can return only one of those: a wrapper cannot fabricate a result or change
// the arguments.
#include "../json_util.hpp"
#include "invoke.hpp"
#include "stages.hpp"

#include "../stable_arena.hpp"

#include <boost/container/small_vector.hpp>
#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <condition_variable>
#include <mutex>

namespace toolgate::detail {
namespace {

using Results = StableArena<ExecResult, 2>;

// Constructs a result in place from what `make` returns: the body's result
// is built where the arena keeps it, not built and then moved there (a
// move of an ExecResult is five strings and a JSON value, ~150
// instructions).
template <class Make>
struct InPlace {
  Make make;
  operator ExecResult() { return make(); }  // NOLINT: the point is the conversion
};
template <class Make>
InPlace(Make) -> InPlace<Make>;

// Where the onion's results live for the whole call: one arena per caller
// of Chain::run -- run_execute (slot 0) and the next() of wrapper i (slot
// i + 1).  A result is built once, in the arena of the level that made it
// (the body's, or a wrapper's own failure), and handed up the onion by
// reference: a wrapper returning what next() gave it moves and copies
// nothing.
class ResultSlots {
 public:
  explicit ResultSlots(std::size_t n) {
    if (n > inline_.size()) heap_ = std::make_unique<std::optional<Results>[]>(n);
  }
  Results& operator[](std::size_t i) {
    auto& slot = heap_ ? heap_[i] : inline_[i];
    if (!slot) slot.emplace();
    return *slot;
  }

 private:
  std::array<std::optional<Results>, 3> inline_;  // up to two wrappers
  std::unique_ptr<std::optional<Results>[]> heap_;
};

struct Chain {
  explicit Chain(CallState& state)
      : s(state),
        slots(state.gen.wrappers.size() + 1),
        base_view(state.view(info(HookKind::execute_wrapper).stage)) {}
  CallState& s;
  ResultSlots slots;
  // What a wrapper sees, built once: in this stage only `attempt` moves
  // (a retry's next() runs the body again), so each level copies this and
  // sets it, instead of building a view from the call's state.
  const HookCall base_view;
  std::optional<ExecResult> wrapper_failure;  // the first (wrapper_returned)

  // The result of the wrappers from `from` inwards and the body; a result
  // made at this level is kept in `into`.
  const ExecResult& run(std::size_t from, const std::shared_ptr<Signal>& signal, Results& into);
};

ExecResult run_body(CallState& s, const std::shared_ptr<Signal>& signal);

class ChainNext final : public Next {
 public:
  ChainNext(Chain& c, std::size_t from) : chain_(c), from_(from) {}
  const ExecResult& operator()(const std::shared_ptr<Signal>& signal) override {
    if (!signal) throw std::invalid_argument("next() needs a signal");
    const ExecResult& r = chain_.run(from_, signal, chain_.slots[from_]);
    issued_.emplace_back(&r);
    return r;
  }
  bool issued(const ExecResult* r) const {
    for (auto* p : issued_)
      if (p == r) return true;
    return false;
  }

 private:
  Chain& chain_;
  std::size_t from_;
  // Inline for the usual one or two next() calls: no allocation.
  boost::container::small_vector<const ExecResult*, 4> issued_;
};

ExecResult wrapper_error(const std::string& id, std::string message) {
  return ExecResult{true,
                    {},
                    {},
                    std::string(error_code::plugin_error),
                    std::move(message),
                    std::string(info(HookKind::execute_wrapper).stage),
                    id};
}

ExecResult wrapper_failed(const HookInfo& w, const std::string& what) {
  return wrapper_error(w.id, "execute wrapper " + w.id + " failed: " + what);
}

// A wrapper level is done with `out` (the result it returned, or its own
// failure when `failed`): its trail entry, and the first failure of a
// wrapper kept -- sticky: an outer wrapper (say, a retry) cannot launder a
// broken inner wrapper into a success.
void wrapper_recorded(CallState& s, const HookInfo& w, const ExecResult& out, bool failed,
                      std::chrono::nanoseconds took, std::optional<ExecResult>& first_failure) {
  if (s.tracing) {
    boost::json::object extra;
    if (out.is_error) extra["code"] = out.error_code;
    if (failed) extra["error"] = out.message;
    s.record(info(HookKind::execute_wrapper).stage, w.id, out.is_error ? "error" : "ok", took,
             std::move(extra));
  }
  if (out.is_error && out.error_code == error_code::plugin_error && out.source == w.id &&
      !first_failure)
    first_failure = out;
}
// The common case -- no trail, a result that is not an error -- decided
// inline: once per wrapper level on every call.
inline void wrapper_returned(CallState& s, const HookInfo& w, const ExecResult& out, bool failed,
                             std::chrono::nanoseconds took,
                             std::optional<ExecResult>& first_failure) {
  if (s.tracing || out.is_error) wrapper_recorded(s, w, out, failed, took, first_failure);
}

const ExecResult& Chain::run(std::size_t from, const std::shared_ptr<Signal>& signal,
                             Results& into) {
  const auto& wrappers = s.gen.wrappers;
  std::size_t i = from;
  while (i < wrappers.size() && !applies(wrappers[i], s)) ++i;
  if (i == wrappers.size()) return into.emplace_back(InPlace{[&] { return run_body(s, signal); }});

  const auto& w = wrappers[i];
  const auto& kind = info(HookKind::execute_wrapper);
  ChainNext next(*this, i + 1);
  // Per level: a plugin's tg_call refers to this view until its wrapper
  // returns, and an inner level may see a later attempt.
  HookCall view = base_view;
  view.attempt = s.attempts;
  const ExecResult* chosen = nullptr;
  auto run = invoke_hook(s, kind.stage, w, [&] { chosen = &w.fn.around(view, signal, next); });
  const ExecResult* out = chosen;
  if (!run.ok)
    out = &into.emplace_back(wrapper_failed(w, run.error));
  else if (!next.issued(chosen))
    out = &into.emplace_back(wrapper_error(
        w.id, "execute wrapper " + w.id + " returned a result it did not get from next"));
  wrapper_returned(s, w, *out, out != chosen, run.took, wrapper_failure);
  return *out;
}

}  // namespace

// The body's output as the chain's result, recorded in the trail.
ExecResult body_result(CallState& s, ToolOutput out, bool ok, const std::string& what,
                       std::chrono::steady_clock::time_point start, const Signal& signal) {
  const auto& tool = *s.tool;
  auto took = s.now() - start;
  ExecResult r;
  r.stage = stage::tool_body;
  r.source = tool.def.name;
  if (!ok) out = ToolOutput::failure("tool " + tool.def.name + " " + what);
  if (s.fs_refusal) {
    // A refused mutation ends the attempt as that refusal: a body that
    // wrote anyway, or swallowed the answer, cannot report success.
    s.record(stage::tool_body, tool.def.name, "fs-denied", s.now() - start,
             {{"code", s.fs_refusal->code}});
    // Built in `r`, like every other outcome: one named result is returned
    // in place (no move of the result out of this function).
    r.is_error = true;
    r.error_code = s.fs_refusal->code;
    r.message = s.fs_refusal->message;
    r.stage = s.fs_refusal->stage;
    r.source = s.fs_refusal->source;
    return r;
  }
  if (out.ok) {
    // Taken in the storage the body built them in (an MCP server's answer:
    // its one block, toolgate/json.hpp), not copied by an assignment.
    replace_keeping_storage(r.value, std::move(out.value));
    r.content = std::move(out.content);
  } else {
    r.is_error = true;
    r.message = out.message.empty() ? "tool " + tool.def.name + " failed" : out.message;
    // A tool that gave up because its signal fired ends as timeout or
    // cancelled; any other code a tool claims is a plain tool_error.
    auto st = signal.state();
    if (st == SignalState::timed_out)
      r.error_code = error_code::timeout;
    else if (st == SignalState::cancelled)
      r.error_code = error_code::cancelled;
    else if (out.error_code == error_code::timeout || out.error_code == error_code::cancelled ||
             out.error_code == error_code::snapshot_failed)
      r.error_code = out.error_code;
    else
      r.error_code = error_code::tool_error;
  }
  s.record(stage::tool_body, tool.def.name, r.is_error ? "error" : "ok", took, [&] {
    return r.is_error ? boost::json::object{{"code", r.error_code}} : boost::json::object{};
  });
  return r;
}

namespace {

// An asynchronous body waited for on this thread (wrappers around it, or
// Host::call): the completion hands its output over and wakes the waiter.
class WaitedCompletion final : public ToolCompletion::Sink {
 public:
  struct Latch {
    std::mutex mutex;
    std::condition_variable cv;
    std::optional<ToolOutput> out;
  };
  explicit WaitedCompletion(std::shared_ptr<Latch> latch) : latch_(std::move(latch)) {}
  void complete(ToolOutput out) noexcept override {
    std::lock_guard lock(latch_->mutex);
    latch_->out = std::move(out);
    latch_->cv.notify_all();
  }

 private:
  std::shared_ptr<Latch> latch_;
};

ToolOutput run_async_body_and_wait(const ToolDefinition& def, const ToolContext& ctx) {
  auto latch = std::make_shared<WaitedCompletion::Latch>();
  def.execute_async(ctx, ToolCompletion(std::make_unique<WaitedCompletion>(latch)));
  std::unique_lock lock(latch->mutex);
  latch->cv.wait(lock, [&] { return latch->out.has_value(); });
  return std::move(*latch->out);
}

// The tool body, once: called by the innermost level of the onion, or
// directly when the call has no wrappers.
ExecResult run_body(CallState& s, const std::shared_ptr<Signal>& signal) {
  const auto& tool = *s.tool;
  announce_body(s);
  HookCall view = s.view(stage::tool_body);
  ToolOutput out;
  std::string what;
  auto start = s.now();
  bool ok = guarded(
      [&] {
        const ToolContext ctx{view, signal};
        out = tool.def.execute ? tool.def.execute(ctx) : run_async_body_and_wait(tool.def, ctx);
      },
      &what);
  return body_result(s, std::move(out), ok, what, start, *signal);
}

boost::json::array default_render(const boost::json::value& v) {
  boost::json::array content;
  if (v.is_string())
    content.push_back(text_block(v.get_string()));
  else
    content.push_back(text_block(to_json_text(v)));
  return content;
}

}  // namespace

void announce_body(CallState& s) {
  ++s.attempts;
  if (s.bus.active())
    s.emit("hook/invoked", {{"stage", stage::tool_body}, {"source", s.tool->def.name}});
}

bool body_runs_async(const CallState& s) {
  if (!s.tool->def.execute_async) return false;
  for (const auto& w : s.gen.wrappers)
    if (!w.fn.in_halves() && applies(w, s)) return false;
  return true;
}

// A wrapper in two halves, as one function for the onion: its halves
// around next().  Used when the chain cannot run in halves (a one-function
// wrapper in it, or a body that answers at once).
WrapperFns::WrapperFns(WrapperHalves h) : halves(std::move(h)) {
  if (!halves.before) return;  // no callback: registration refuses it
  around = [h = halves](const HookCall& view, const std::shared_ptr<Signal>& signal,
                        Next& next) -> const ExecResult& {
    WrapperHalves::State state;
    const auto inner = h.before(view, signal, state);
    const ExecResult& r = next(inner ? inner : signal);
    if (h.after) h.after(view, r, state);
    return r;
  };
}

std::shared_ptr<Signal> HalvesChain::begin(CallState& s) {
  const auto& kind = info(HookKind::execute_wrapper);
  std::shared_ptr<Signal> signal = s.signal;
  // Nothing a view shows changes between the befores: one for them all.
  const HookCall view = s.view(kind.stage);
  for (const auto& w : s.gen.wrappers) {
    Level level{&w, {}, {}, s.attempts};
    std::shared_ptr<Signal> inner;
    auto run = invoke_hook(s, kind.stage, w,
                           [&] { inner = w.fn.halves.before(view, signal, level.state); });
    if (!run.ran) continue;
    level.took = run.took;
    if (!run.ok) {
      // This level's failure is the chain's result: the levels outside it
      // see it on their way out, and no level inside it runs.
      ExecResult failure = wrapper_failed(w, run.error);
      wrapper_returned(s, w, failure, true, run.took, failure_);
      unwind(s, failure);
      s.fail(failure_->error_code, failure_->message, failure_->stage, failure_->source);
      return nullptr;
    }
    levels_.push_back(std::move(level));
    if (inner) signal = std::move(inner);
  }
  return signal;
}

void HalvesChain::unwind(CallState& s, const ExecResult& result) {
  if (levels_.empty()) return;  // most calls: no wrapper around the body
  const auto& kind = info(HookKind::execute_wrapper);
  const ExecResult* out = &result;
  std::optional<ExecResult> failed;
  HookCall view = s.view(kind.stage);
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    const auto& w = *it->hook;
    auto took = it->took;
    bool this_failed = false;
    if (w.fn.halves.after) {
      // Not through invoke_hook: the level was announced (hook/invoked)
      // when its before ran.
      view.attempt = it->attempt;  // as in the onion, where after sees before's view
      std::string what;
      auto start = s.now();
      if (!guarded([&] { w.fn.halves.after(view, *out, it->state); }, &what)) {
        failed = wrapper_failed(w, what);
        out = &*failed;
        this_failed = true;
      }
      took += s.now() - start;
      it->state.reset();  // the plugin's state and child signals end here
    }
    wrapper_returned(s, w, *out, this_failed, took, failure_);
  }
  levels_.clear();
}

void HalvesChain::finish(CallState& s, ExecResult&& body) {
  unwind(s, body);
  if (failure_)
    return s.fail(failure_->error_code, failure_->message, failure_->stage, failure_->source);
  take_body_result(s, std::move(body));
}

void run_execute(CallState& s) {
  if (s.gen.wrappers.empty()) return take_body_result(s, run_body(s, s.signal));
  Chain chain(s);
  const ExecResult& r = chain.run(0, s.signal, chain.slots[0]);
  if (chain.wrapper_failure) {
    auto& f = *chain.wrapper_failure;
    s.fail(f.error_code, f.message, f.stage, f.source);
    return;
  }
  // Every level has returned: nothing reads the chain's results again.
  take_body_result(s, std::move(const_cast<ExecResult&>(r)));
}

void take_body_result(CallState& s, ExecResult&& r) {
  if (s.fs_refusal) {
    // A refused file mutation ends the call as that refusal, and as a
    // denial: no post-execute hook may replace it with a success (a hook
    // that "repairs" failed results would otherwise report a write that
    // was refused -- or that the body made anyway -- as done; §2.13).
    const ErrorInfo& f = *s.fs_refusal;
    s.deny(f.code, f.message, f.stage, f.source);
    return;
  }
  s.path = CallPath::executed;
  if (r.is_error) {
    s.produced = ToolResult::failure(r.error_code, r.message, r.stage, r.source);
    s.candidate_writer = r.source;
    return;
  }
  const auto& def = s.tool->def;
  // Caught before rendering, which would have to write it.  Only a number,
  // array or object can hold one: a string or other scalar value (most
  // tools' results) is not walked.
  const bool may_hold_number = r.value.is_double() || r.value.is_structured();
  if (auto at = may_hold_number ? find_non_finite(r.value) : std::nullopt) {
    s.produced =
        ToolResult::failure(error_code::snapshot_failed,
                            "the result from " + def.name + " could not be snapshotted: " +
                                non_finite_in_result("/value" + (*at == "/" ? std::string() : *at)),
                            stage::normalize, def.name);
    s.candidate_writer = def.name;
    return;
  }
  // Stage 5: render the value into content blocks.
  boost::json::array content;
  if (r.content) {
    // The tool brought its own content (an MCP server's result).
    ToolResult pre;
    replace_keeping_storage(pre.content, std::move(*r.content));
    if (!r.value.is_null()) pre.value = std::move(r.value);
    s.produced = std::move(pre);
    s.candidate_writer = def.name;
    return;
  }
  if (def.render) {
    std::string what;
    auto start = s.now();
    bool ok = guarded([&] { content = def.render(r.value); }, &what);
    s.record(stage::render, def.name, ok ? "ok" : "failed", s.now() - start, [&] {
      return ok ? boost::json::object{} : boost::json::object{{"error", what}};
    });
    if (!ok) {
      s.fail(error_code::tool_error, "render of tool " + def.name + " " + what, stage::render,
             def.name);
      return;
    }
  } else {
    content = default_render(r.value);
    s.content_rendered_by_host = true;
  }
  s.produced = ToolResult::success(std::move(r.value), std::move(content));
  s.candidate_writer = def.name;
}

}  // namespace toolgate::detail
