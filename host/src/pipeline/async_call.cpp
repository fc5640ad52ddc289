// A call whose tool body answers later (docs/design.md §3.2): the stages
// up to the body run on the caller's thread, the rest on the thread that
// completes the body.  Between the two nothing waits: the call's state
// lives on the heap, owned by the body's ToolCompletion.
#include "stages.hpp"

#include <memory>

namespace toolgate::detail {
namespace {

struct AsyncCall {
  AsyncCall(std::shared_ptr<const Generation> g, const HostOptions& o, const EventBus& b,
            AsyncCallDone d)
      : gen(std::move(g)), state(*gen, o, b, batch), done(std::move(d)) {}
  std::shared_ptr<const Generation> gen;  // held until the call ends (hot reload)
  BatchContext batch;
  CallState state;
  AsyncCallDone done;
  std::chrono::steady_clock::time_point body_started;
  HalvesChain wrappers;                 // in two halves, around the body
  std::shared_ptr<Signal> body_signal;  // the innermost wrapper's signal
};

// Post-execute (when its path has one), then the one tool/result; `done`
// is called last, after the call's state is gone.
void finish_async(std::unique_ptr<AsyncCall> a) {
  CallState& s = a->state;
  if (s.path == CallPath::denied || s.path == CallPath::executed)
    guarded_stage(s, [&] { run_post_execute(s); });
  std::vector<QueuedContext> contexts;
  finish_call(s, &contexts);
  ToolResult result = std::move(s.result);
  AsyncCallDone done = std::move(a->done);
  a.reset();
  done(std::move(result), std::move(contexts));
}

class AsyncBodyCompletion final : public ToolCompletion::Sink {
 public:
  explicit AsyncBodyCompletion(std::unique_ptr<AsyncCall> a) : call_(std::move(a)) {}
  void complete(ToolOutput out) noexcept override {
    auto a = std::move(call_);
    CallState& s = a->state;
    guarded_stage(s, [&] {
      a->wrappers.finish(
          s, body_result(s, std::move(out), true, {}, a->body_started, *a->body_signal));
    });
    finish_async(std::move(a));
  }

 private:
  std::unique_ptr<AsyncCall> call_;
};

}  // namespace

void run_call_async(std::shared_ptr<const Generation> gen, const HostOptions& options,
                    const EventBus& bus, ToolCall&& call, AsyncCallDone done) {
  auto a = std::make_unique<AsyncCall>(std::move(gen), options, bus, std::move(done));
  CallState& s = a->state;
  start_call(s, call);
  bool body_later = false;
  guarded_stage(s, [&] {
    decide_call(s, call, {});
    if (s.path != CallPath::running) return;
    if (!body_runs_async(s)) return run_execute(s);
    // nullptr: a wrapper's before failed, and the call with it.
    a->body_signal = a->wrappers.begin(s);
    body_later = a->body_signal != nullptr;
  });
  if (!body_later) return finish_async(std::move(a));

  // From here the completion owns the call: once the body completes it
  // (perhaps before execute_async returns) nothing here may touch `s`.
  announce_body(s);
  a->body_started = s.now();
  const HookCall view = s.view(stage::tool_body);
  const ToolContext ctx{view, a->body_signal};
  // The body's std::function lives in the generation: held here too, for
  // a body that completes (and so ends the call) before it returns.
  const auto generation = a->gen;
  const AsyncExecuteFn& body = s.tool->def.execute_async;
  std::string what;
  // A body that throws drops its completion on the way out, which ends the
  // call as a tool_error (ToolCompletion's destructor).
  guarded([&] { body(ctx, ToolCompletion(std::make_unique<AsyncBodyCompletion>(std::move(a)))); },
          &what);
}

}  // namespace toolgate::detail
