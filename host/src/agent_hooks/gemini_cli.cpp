// Gemini CLI: BeforeTool and AfterTool hooks (google-gemini/gemini-cli
// docs/hooks/reference.md "Tool hooks", docs/hooks/index.md "Exit codes").
//
// Gemini has no tool-call id (call_id stays empty: the daemon correlates
// before and after some other way), no subagent marker and no documented
// ask, so an ask is a deny.  A BeforeTool rewrite (hookSpecificOutput.
// tool_input) MERGES into the model's arguments, so a rewrite that removes
// an argument cannot be expressed and is denied instead.  BeforeTool has no
// documented field for model context: contexts go to the reason on a deny
// and to systemMessage (shown to the user) on an allow.  Exit codes other
// than 0 and 2 let the call through, so failures are exit 2.
#include "agent_hooks/formats.hpp"

namespace toolgate::agent_hooks {

namespace json = boost::json;
using namespace detail;

namespace {

constexpr std::string_view kName = "gemini-cli";

json::object deny_output(std::string message, const std::string& ctx) {
  if (!ctx.empty()) message += "\n\n" + ctx;
  return {{"decision", "deny"}, {"reason", std::move(message)}};
}

class GeminiCli final : public AgentFormat {
 public:
  std::string_view name() const override { return kName; }

  HookRequest parse(const json::value& payload) const override {
    const json::object& o = payload_object(payload);
    HookRequest r;
    r.event = event_of(o);
    if (r.event == "BeforeTool")
      r.phase = Phase::before;
    else if (r.event == "AfterTool")
      r.phase = Phase::after;
    else
      unknown_event(kName, r.event, "BeforeTool, AfterTool");
    r.identity.tool = required_string(o, "tool_name");
    r.identity.session_id = optional_string(o, "session_id");
    r.identity.client = std::string(kName);
    r.arguments = as_arguments(required_field(o, "tool_input"));
    if (r.phase == Phase::after) {
      // tool_response: {llmContent, returnDisplay, error?}.
      r.raw_response = required_field(o, "tool_response");
      bool failed = false;
      std::string text = response_text(r.raw_response);
      if (const auto* ro = r.raw_response.if_object()) {
        if (const auto* e = ro->if_contains("error"); e && !e->is_null()) {
          failed = true;
          if (text.empty() || !ro->contains("llmContent")) {
            const auto* eo = e->if_object();
            const json::value* m = eo ? eo->if_contains("message") : nullptr;
            text = m && m->is_string() ? std::string(m->get_string()) : response_text(*e);
          }
        }
      }
      r.reported = reported_result(std::move(text), failed, r.identity.tool);
    }
    return r;
  }

  HookReply before(const HookRequest& r, const BeforeAnswer& a) const override {
    std::string ctx = join_contexts(a.additional_contexts);
    json::object out;
    switch (a.verdict) {
      case SplitBegin::Verdict::allow: {
        if (a.rewritten) {
          if (std::string removed = detail::removed_argument(r.arguments, a.arguments);
              !removed.empty()) {
            out = deny_output("toolgate: the policy removed the argument \"" + removed +
                                  "\", and Gemini CLI merges rewritten arguments into the "
                                  "original ones, so it cannot be removed; the call is denied",
                              ctx);
          }
          if (!out.empty()) break;
        }
        out["decision"] = "allow";
        if (a.rewritten)
          out["hookSpecificOutput"] =
              json::object{{"hookEventName", "BeforeTool"}, {"tool_input", a.arguments}};
        if (!ctx.empty()) out["systemMessage"] = ctx;
        break;
      }
      case SplitBegin::Verdict::ask:
        out = deny_output(ask_denied_message("Gemini CLI", a), ctx);
        break;
      case SplitBegin::Verdict::deny:
        // "The reason is sent to the agent as a tool error."
        out = deny_output(deny_message(a), ctx);
        break;
    }
    return HookReply{json_line(out), {}, 0};
  }

  HookReply after(const HookRequest&, const AfterAnswer& a) const override {
    json::object out;
    // decision "deny": "the reason replaces the tool result sent to the
    // model" -- the block, and the way to replace a result.
    if (a.kind == SplitOutcome::Kind::blocked) {
      out["decision"] = "deny";
      out["reason"] = blocked_message(a);
    } else if (a.kind == SplitOutcome::Kind::replaced) {
      out["decision"] = "deny";
      out["reason"] = replacement_text(a.result);
    }
    if (std::string ctx = join_contexts(a.additional_contexts); !ctx.empty())
      out["hookSpecificOutput"] =
          json::object{{"hookEventName", "AfterTool"}, {"additionalContext", ctx}};
    HookReply reply;
    if (!out.empty()) reply.stdout_text = json_line(out);
    return reply;
  }

  HookReply fail_closed(std::optional<Phase>, const std::string& message) const override {
    // Exit 2 ("System Block"): BeforeTool blocks with stderr as the reason;
    // AfterTool hides the result and shows stderr instead.
    return blocking_exit(message);
  }
};

}  // namespace

const AgentFormat& gemini_cli_format() {
  static const GeminiCli f;
  return f;
}

}  // namespace toolgate::agent_hooks
