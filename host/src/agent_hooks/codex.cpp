// OpenAI Codex CLI: lifecycle hooks PreToolUse and PostToolUse
// (developers.openai.com/codex/hooks: "PreToolUse", "PostToolUse",
// "Common output fields").
//
// Codex has no ask ("permissionDecision: "ask" ... parsed but not supported
// yet": the hook run is marked failed and the call goes on), so an ask is a
// deny here.  updatedInput is accepted only with allow, and for Bash and
// apply_patch only with a string `command`: any other shape is "reported as
// an error" and the call continues unchanged, so such a rewrite is denied.
// Failures are exit 2 with the reason on stderr (exit 2 without stderr does
// not block).
#include "agent_hooks/formats.hpp"

namespace toolgate::agent_hooks {

namespace json = boost::json;
using namespace detail;

namespace {

constexpr std::string_view kName = "codex";

// The tools whose updatedInput must be {"command": string}.
bool command_shaped(const std::string& tool) {
  return tool == "Bash" || tool == "apply_patch" || tool == "Edit" || tool == "Write";
}

// The tools whose updatedInput Codex applies (its hooks page: Bash and
// apply_patch with a string "command"; MCP tools, named mcp__server__tool).
bool rewritable(const std::string& tool) {
  return tool == "Bash" || tool == "apply_patch" || tool.rfind("mcp__", 0) == 0;
}

json::object deny_output(const std::string& message) {
  return {{"hookSpecificOutput", json::object{{"hookEventName", "PreToolUse"},
                                              {"permissionDecision", "deny"},
                                              {"permissionDecisionReason", message}}}};
}

class Codex final : public AgentFormat {
 public:
  std::string_view name() const override { return kName; }

  HookRequest parse(const json::value& payload) const override {
    const json::object& o = payload_object(payload);
    HookRequest r;
    r.event = event_of(o);
    if (r.event == "PreToolUse")
      r.phase = Phase::before;
    else if (r.event == "PostToolUse")
      r.phase = Phase::after;
    else
      unknown_event(kName, r.event, "PreToolUse, PostToolUse");
    r.identity.tool = required_string(o, "tool_name");
    r.identity.call_id = optional_string(o, "tool_use_id");
    // "Subagent hooks use the parent session id"; agent_id is the child
    // thread's id (absent for the root agent).
    r.identity.session_id = optional_string(o, "session_id");
    r.identity.client = std::string(kName);
    r.identity.agent_id = optional_string(o, "agent_id");
    r.arguments = as_arguments(required_field(o, "tool_input"));
    if (r.phase == Phase::after) {
      // PostToolUse also runs after a Bash command that exits non-zero; the
      // payload does not say so apart from the text, and an MCP result says
      // it with isError.
      r.raw_response = required_field(o, "tool_response");
      bool failed = false;
      if (const auto* ro = r.raw_response.if_object())
        if (const auto* e = ro->if_contains("isError"); e && e->is_bool()) failed = e->get_bool();
      r.reported = reported_result(response_text(r.raw_response), failed, r.identity.tool);
    }
    return r;
  }

  HookReply before(const HookRequest& r, const BeforeAnswer& a) const override {
    HookReply reply;
    std::string ctx = join_contexts(a.additional_contexts);
    json::object out;
    switch (a.verdict) {
      case SplitBegin::Verdict::allow: {
        json::object specific{{"hookEventName", "PreToolUse"}};
        if (a.rewritten && !rewritable(r.identity.tool)) {
          // Codex's docs take updatedInput for Bash, apply_patch and MCP
          // tools only and report any other as an error -- and then run the
          // call with its original arguments: deny instead.
          out = deny_output("toolgate: the policy rewrote the arguments of " + r.identity.tool +
                            ", and Codex applies rewritten arguments only to Bash, apply_patch "
                            "and MCP tools, so the call is denied");
          break;
        }
        if (a.rewritten) {
          const json::value* cmd = a.arguments.if_contains("command");
          if (command_shaped(r.identity.tool) && (!cmd || !cmd->is_string())) {
            out = deny_output("toolgate: the policy rewrote the arguments of " + r.identity.tool +
                              " without a string \"command\", which Codex cannot run, so the "
                              "call is denied");
            break;
          }
          specific["permissionDecision"] = "allow";
          specific["updatedInput"] = a.arguments;
        }
        if (!ctx.empty()) specific["additionalContext"] = ctx;
        if (specific.size() > 1) out["hookSpecificOutput"] = std::move(specific);
        break;
      }
      case SplitBegin::Verdict::ask:
        out = deny_output(ask_denied_message("Codex", a));
        break;
      case SplitBegin::Verdict::deny:
        out = deny_output(deny_message(a));
        break;
    }
    if (a.verdict != SplitBegin::Verdict::allow && !ctx.empty())
      out["hookSpecificOutput"].as_object()["additionalContext"] = ctx;
    if (!out.empty()) reply.stdout_text = json_line(out);
    return reply;
  }

  HookReply after(const HookRequest&, const AfterAnswer& a) const override {
    json::object out;
    // decision "block": "Codex records the feedback, replaces the tool
    // result with that feedback, and continues" -- so a replacement is a
    // block whose reason is the replacement text.
    if (a.kind == SplitOutcome::Kind::blocked) {
      out["decision"] = "block";
      out["reason"] = blocked_message(a);
    } else if (a.kind == SplitOutcome::Kind::replaced) {
      out["decision"] = "block";
      out["reason"] = replacement_text(a.result);
    }
    if (std::string ctx = join_contexts(a.additional_contexts); !ctx.empty())
      out["hookSpecificOutput"] =
          json::object{{"hookEventName", "PostToolUse"}, {"additionalContext", ctx}};
    HookReply reply;
    if (!out.empty()) reply.stdout_text = json_line(out);
    return reply;
  }

  HookReply fail_closed(std::optional<Phase>, const std::string& message) const override {
    // Exit 2 with stderr: blocks on PreToolUse; on PostToolUse the stderr
    // replaces the tool result, as a block does.
    return blocking_exit(message);
  }
};

}  // namespace

const AgentFormat& codex_format() {
  static const Codex f;
  return f;
}

}  // namespace toolgate::agent_hooks
