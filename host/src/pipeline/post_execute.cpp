// Stage 6: the post-execute waterfall (docs/design.md §2.7).  Runs for executed
// and denied calls.  A denial stays a denial: hooks may only reword its
// content.
#include "invoke.hpp"
#include "stages.hpp"

namespace toolgate::detail {

static std::string_view verdict_name(PostVerdict::Kind k) {
  switch (k) {
    case PostVerdict::Kind::accept:
      return "accept";
    case PostVerdict::Kind::replace:
      return "replace";
    case PostVerdict::Kind::block:
      return "block";
  }
  return "invalid";
}

void run_post_execute(CallState& s) {
  if (s.path == CallPath::denied) {
    ToolResult r =
        ToolResult::failure(s.error->code, s.error->message, s.error->stage, s.error->source);
    r.error->denials = s.error->denials;
    s.take_candidate() = r.to_json();
  }

  const auto& kind = info(HookKind::post_execute);
  for (const auto& hook : s.gen.post_execute) {
    const bool denied = s.path == CallPath::denied;
    PostVerdict v;
    auto run = invoke_hook(s, kind.stage, hook, [&] { v = hook.fn(s.post_execute_view()); });
    if (!run.ran) continue;
    auto name = verdict_name(v.kind);
    if (!run.ok || name == "invalid")
      return hook_failed(s, kind, hook, run, run.ok ? "gave an unknown verdict" : run.error);
    s.record(kind.stage, hook.id, name, run.took,
             v.reason.empty() ? boost::json::object{} : boost::json::object{{"reason", v.reason}});
    for (auto& c : v.contexts)
      s.contexts.push_back({s.batch.next_ticket.fetch_add(1), std::move(c)});

    if (v.kind == PostVerdict::Kind::replace) {
      if (denied) {
        // Monotonic end to end: only the wording of a denial may change.
        const auto* r = v.replacement.if_object();
        const auto* content = r ? r->if_contains("content") : nullptr;
        // A replacement without content leaves a wrong shape behind, which
        // normalization reports naming this hook.
        s.take_candidate().as_object()["content"] = content ? *content : v.replacement;
      } else {
        s.take_candidate() = std::move(v.replacement);
        s.replaced_by_post_hook = true;
      }
      s.candidate_writer = hook.id;
    } else if (v.kind == PostVerdict::Kind::block && !denied) {
      std::string reason = v.reason.empty() ? "result blocked by " + hook.id : std::move(v.reason);
      s.take_candidate() =
          ToolResult::failure(error_code::denied, reason, stage::post_execute, hook.id).to_json();
      s.candidate_writer = hook.id;
      // A blocked result is a denial from here on: no later hook can turn it
      // back into a success.
      s.deny(error_code::denied, std::move(reason), stage::post_execute, hook.id);
    }
  }
}

}  // namespace toolgate::detail
