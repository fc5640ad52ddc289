// Stage 6: the post-execute waterfall (docs/design.md §2.7).  Runs for executed
// and denied calls.  A denial stays a denial: hooks may only reword it (its
// content, its message, each denial's reason).
#include "invoke.hpp"
#include "stages.hpp"

namespace toolgate::detail {

namespace json = boost::json;

// A replacement on a denied call rewords the denial and nothing more
// (docs/design.md §2.7): the engine takes the replacement's `content`, its
// `error.message` and the `reason` of each entry of `error.denials`, and
// keeps everything else -- isError, the code, stage and source, the absence
// of a value, and every denial's source.  A redactor can then mask a secret
// that a guard quoted from the arguments wherever the client would see it.
// Returns what does not fit (the hook's answer is then a failure), or "".
static std::string reword_denial(json::object& candidate, const json::value& replacement) {
  const auto* r = replacement.if_object();
  const auto* content = r ? r->if_contains("content") : nullptr;
  const auto* error = r ? r->if_contains("error") : nullptr;
  auto& cerr = candidate["error"].as_object();  // built from the denial: always there
  const json::string* message = nullptr;
  const json::array* reworded = nullptr;
  if (error) {
    if (!error->is_object()) return "reworded a denial with an error that is not an object";
    const auto& e = error->get_object();
    if (const auto* m = e.if_contains("message")) {
      if (!m->is_string()) return "reworded a denial with an error.message that is not a string";
      message = &m->get_string();
    }
    if (const auto* d = e.if_contains("denials")) {
      static const json::array none;
      const auto* o = cerr.if_contains("denials");
      const json::array& original = o && o->is_array() ? o->get_array() : none;
      reworded = d->if_array();
      bool fits = reworded && reworded->size() == original.size();
      for (std::size_t i = 0; fits && i < original.size(); ++i) {
        const auto* entry = (*reworded)[i].if_object();
        const auto* source = entry ? entry->if_contains("source") : nullptr;
        const auto* reason = entry ? entry->if_contains("reason") : nullptr;
        const auto* was = original[i].if_object();
        const auto* was_source = was ? was->if_contains("source") : nullptr;
        fits = was_source && source && *source == *was_source && reason && reason->is_string();
      }
      if (!fits)
        return "reworded a denial but changed its denials: error.denials must list the " +
               std::to_string(original.size()) +
               " original denials, in order, with their sources; only each reason may change";
    }
  }
  // A replacement without content leaves a wrong shape behind, which
  // normalization reports naming this hook.
  candidate["content"] = content ? *content : replacement;
  if (message) cerr["message"] = *message;
  if (reworded && !reworded->empty()) {
    auto& original = cerr["denials"].as_array();
    for (std::size_t i = 0; i < original.size(); ++i)
      original[i].as_object()["reason"] = (*reworded)[i].as_object().at("reason");
  }
  return {};
}

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
      return hook_failed(s, kind, hook, run,
                         run.ok ? "gave an unknown verdict " +
                                      std::to_string(static_cast<int>(v.kind)) +
                                      " (a post-execute hook answers accept, replace or block)"
                                : run.error);
    // Monotonic end to end: on a denial only the wording may change, and a
    // rewording that does not fit is a failure before anything of the
    // hook's is kept (its contexts included).
    if (v.kind == PostVerdict::Kind::replace && denied)
      if (auto problem = reword_denial(s.take_candidate().as_object(), v.replacement);
          !problem.empty())
        return hook_failed(s, kind, hook, run, problem);
    s.record(kind.stage, hook.id, name, run.took, [&] {
      return v.reason.empty() ? boost::json::object{} : boost::json::object{{"reason", v.reason}};
    });
    for (auto& c : v.contexts)
      s.contexts.push_back({s.batch.next_ticket.fetch_add(1), std::move(c)});

    if (v.kind == PostVerdict::Kind::replace) {
      if (!denied) {
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
