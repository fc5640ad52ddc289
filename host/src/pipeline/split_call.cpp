// Split-phase calls (docs/design.md §3.1): the same stages as run_call(),
// cut where the tool body would run, because someone else runs it.
#include "split_call.hpp"

#include "stages.hpp"

namespace toolgate::detail {

static std::vector<std::string> context_texts(std::vector<QueuedContext>& queued) {
  std::vector<std::string> texts;
  texts.reserve(queued.size());
  for (auto& q : queued) texts.push_back(std::move(q.text));
  return texts;
}

SplitBegin begin_split(SplitCall& c, ToolCall call, const SplitBeginOptions& options) {
  CallState& s = c.state;
  start_call(s, call);
  DecideOptions how;
  how.external_tool = true;
  how.caller_approves = options.caller_approves;
  guarded_stage(s, [&] { decide_call(s, call, how); });

  SplitBegin out;
  out.call_id = s.identity.call_id;
  if (s.path == CallPath::running) {
    out.verdict =
        s.decision == Decision::ask ? SplitBegin::Verdict::ask : SplitBegin::Verdict::allow;
    out.rewritten = s.rewritten.has_value();
    out.arguments = s.arguments();
    if (out.verdict == SplitBegin::Verdict::ask) out.reason = s.decision_reason;
    return out;
  }
  // Denied or failed: the call ends now, with its one tool/result.
  if (s.path == CallPath::denied) guarded_stage(s, [&] { run_post_execute(s); });
  std::vector<QueuedContext> contexts;
  finish_call(s, &contexts);
  out.verdict = SplitBegin::Verdict::deny;
  out.reason = s.result.error ? s.result.error->message : "denied";
  out.result = std::move(s.result);
  out.additional_contexts = context_texts(contexts);
  return out;
}

SplitBegin refuse_split(SplitCall& c, std::string why) {
  CallState& s = c.state;
  s.fail(error_code::invalid_arguments, std::move(why), stage::call, "host");
  finish_call(s, nullptr);
  SplitBegin out;
  out.call_id = s.identity.call_id;
  out.reason = s.result.error ? s.result.error->message : "refused";
  out.result = std::move(s.result);
  return out;
}

SplitOutcome complete_split(SplitCall& c, ToolResult reported) {
  CallState& s = c.state;
  // Execute wrappers wrap a body the host runs; this one ran elsewhere.
  s.record(stage::execute, "host", "not-run", std::chrono::nanoseconds(0),
           {{"why", "split-phase call: the caller ran the tool and reported its result"}});
  s.path = CallPath::executed;
  s.attempts = 1;
  s.produced = std::move(reported);
  s.candidate_writer = s.identity.tool;
  guarded_stage(s, [&] { run_post_execute(s); });
  SplitOutcome out;
  out.kind = s.path == CallPath::denied || s.path == CallPath::failed ? SplitOutcome::Kind::blocked
             : s.replaced_by_post_hook                                ? SplitOutcome::Kind::replaced
                                       : SplitOutcome::Kind::accepted;
  std::vector<QueuedContext> contexts;
  finish_call(s, &contexts);
  // Normalization and finalize run after the verdict above: when either
  // failed, the result is the host's own failure, and the caller must not
  // hand the model the output the host could not check.
  if (const auto& e = s.result.error;
      e && (e->stage == stage::normalize || (e->stage == stage::finalize && e->source == "host")))
    out.kind = SplitOutcome::Kind::blocked;
  out.result = std::move(s.result);
  out.additional_contexts = context_texts(contexts);
  return out;
}

void expire_split(SplitCall& c, std::string why) {
  CallState& s = c.state;
  s.fail(error_code::not_completed, std::move(why), stage::execute, "host");
  finish_call(s, nullptr);
}

}  // namespace toolgate::detail
