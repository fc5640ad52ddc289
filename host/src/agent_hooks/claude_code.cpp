// Claude Code: command hooks on PreToolUse, PostToolUse and PostToolUseFailure
// (code.claude.com/docs/en/hooks: "PreToolUse decision control",
// "PostToolUse decision control", "Exit code 2 behavior per event").
//
// Claude Code fails open: a hook that times out, crashes or exits 1 lets the
// call through; only exit 2 or an explicit deny blocks.  So every failure
// here is exit 2 with the message on stderr, which on PreToolUse blocks the
// call and becomes the reason Claude reads.
#include "agent_hooks/formats.hpp"

#include <optional>

namespace toolgate::agent_hooks {

namespace json = boost::json;
using namespace detail;

namespace {

constexpr std::string_view kName = "claude-code";

// The tool output Claude should see instead of the original, in the shape
// the tool's own output has ("A value that doesn't match is ignored for
// built-in tools"): a string for a string, Bash's {stdout, stderr, ...} with
// the text as stdout, an MCP result for an MCP tool.  nullopt when the
// shape is unknown.  `field` is set to the hookSpecificOutput key.
std::optional<json::value> replacement_output(const HookRequest& r, const std::string& text,
                                              bool is_error, std::string& field) {
  if (r.identity.tool.rfind("mcp__", 0) == 0) {
    field = "updatedMCPToolOutput";
    return json::value(
        json::object{{"content", json::array{text_block(text)}}, {"isError", is_error}});
  }
  field = "updatedToolOutput";
  if (r.raw_response.is_string()) return json::value(text);
  if (const auto* o = r.raw_response.if_object()) {
    if (const auto* out = o->if_contains("stdout"); out && out->is_string()) {
      json::object replaced = *o;
      replaced["stdout"] = text;
      if (replaced.contains("stderr")) replaced["stderr"] = "";
      return json::value(std::move(replaced));
    }
  }
  return std::nullopt;
}

class ClaudeCode final : public AgentFormat {
 public:
  std::string_view name() const override { return kName; }

  HookRequest parse(const json::value& payload) const override {
    const json::object& o = payload_object(payload);
    HookRequest r;
    r.event = event_of(o);
    bool failure = false;
    if (r.event == "PreToolUse") {
      r.phase = Phase::before;
    } else if (r.event == "PostToolUse") {
      r.phase = Phase::after;
    } else if (r.event == "PostToolUseFailure") {
      r.phase = Phase::after;
      failure = true;
    } else {
      unknown_event(kName, r.event, "PreToolUse, PostToolUse, PostToolUseFailure");
    }
    r.identity.tool = required_string(o, "tool_name");
    r.identity.call_id = optional_string(o, "tool_use_id");
    r.identity.session_id = optional_string(o, "session_id");
    r.identity.client = std::string(kName);
    r.identity.agent_id = optional_string(o, "agent_id");
    r.arguments = as_arguments(required_field(o, "tool_input"));
    if (r.phase == Phase::after) {
      if (failure) {
        std::string error = optional_string(o, "error");
        r.reported =
            reported_result(error.empty() ? "the tool failed" : error, true, r.identity.tool);
      } else {
        r.raw_response = required_field(o, "tool_response");
        r.reported = reported_result(response_text(r.raw_response), false, r.identity.tool);
      }
    }
    return r;
  }

  HookReply before(const HookRequest&, const BeforeAnswer& a) const override {
    json::object specific{{"hookEventName", "PreToolUse"}};
    switch (a.verdict) {
      case SplitBegin::Verdict::allow:
        // A plain allow carries no permissionDecision: "allow" would skip
        // Claude Code's own permission prompt, and toolgate only ever adds
        // restrictions.  A rewrite needs a decision next to updatedInput
        // (the docs pair it with allow or ask): ask, which shows the user
        // the rewritten input -- "allow" would run it unasked, approving
        // on the policy's behalf what Claude Code might have asked about.
        if (a.rewritten) {
          specific["permissionDecision"] = "ask";
          specific["permissionDecisionReason"] = "toolgate rewrote this call's input";
          specific["updatedInput"] = a.arguments;
        }
        break;
      case SplitBegin::Verdict::ask:
        specific["permissionDecision"] = "ask";
        specific["permissionDecisionReason"] =
            "toolgate: " +
            (a.reason.empty() ? std::string("the policy asks for approval") : a.reason);
        if (a.rewritten) specific["updatedInput"] = a.arguments;
        break;
      case SplitBegin::Verdict::deny:
        specific["permissionDecision"] = "deny";
        specific["permissionDecisionReason"] = deny_message(a);  // shown to Claude
        break;
    }
    if (std::string ctx = join_contexts(a.additional_contexts); !ctx.empty())
      specific["additionalContext"] = ctx;
    HookReply reply;
    if (specific.size() > 1) reply.stdout_text = json_line({{"hookSpecificOutput", specific}});
    return reply;
  }

  HookReply after(const HookRequest& r, const AfterAnswer& a) const override {
    const bool failure_event = r.event == "PostToolUseFailure";
    json::object out;
    json::object specific{{"hookEventName", r.event.empty() ? "PostToolUse" : r.event}};
    std::string ctx = join_contexts(a.additional_contexts);
    if (a.kind != SplitOutcome::Kind::accepted) {
      std::string text =
          a.kind == SplitOutcome::Kind::blocked ? blocked_message(a) : replacement_text(a.result);
      if (failure_event) {
        // PostToolUseFailure reads only additionalContext.
        ctx = text + (ctx.empty() ? "" : "\n\n" + ctx);
      } else {
        std::string field;
        if (auto replacement = replacement_output(r, text, a.result.is_error, field))
          specific[field] = std::move(*replacement);
        // "block" puts the reason next to the result; without a replacement
        // of the right shape Claude still sees the original output too.
        out["decision"] = "block";
        out["reason"] = a.kind == SplitOutcome::Kind::blocked
                            ? text
                            : "toolgate replaced this tool's output; use this instead:\n" + text;
      }
    }
    if (!ctx.empty()) specific["additionalContext"] = ctx;
    if (specific.size() > 1) out["hookSpecificOutput"] = std::move(specific);
    HookReply reply;
    if (!out.empty()) reply.stdout_text = json_line(out);
    return reply;
  }

  HookReply fail_closed(std::optional<Phase>, const std::string& message) const override {
    // Exit 2: PreToolUse blocks with stderr as the reason shown to Claude;
    // PostToolUse cannot block (the tool ran) but shows stderr to Claude.
    return blocking_exit(message);
  }
};

}  // namespace

const AgentFormat& claude_code_format() {
  static const ClaudeCode f;
  return f;
}

}  // namespace toolgate::agent_hooks
