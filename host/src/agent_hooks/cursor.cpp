// Cursor: agent hooks (cursor.com/docs/hooks, "Reference"): preToolUse,
// postToolUse, postToolUseFailure, and the older per-kind events
// beforeShellExecution, beforeMCPExecution, beforeReadFile,
// afterShellExecution, afterMCPExecution.
//
// - The session is `conversation_id` (no session_id on tool events); only
//   pre/postToolUse carry a tool-use id.  No subagent marker is documented
//   on tool events, so agent_id stays empty.
// - ask exists only on beforeShellExecution and beforeMCPExecution;
//   elsewhere an ask is a deny.  Only preToolUse takes `updated_input`;
//   elsewhere a rewrite is a deny (the call would otherwise run unrewritten).
// - There is NO documented way to block or replace a built-in tool's result
//   after it ran: postToolUse has `additional_context` (and
//   `updated_mcp_tool_output` for MCP tools only).  A blocked or replaced
//   result of a built-in tool therefore CANNOT BE ENFORCED here: the model
//   still sees the original, and the denial is only put loudly into
//   additional_context.  afterShellExecution and afterMCPExecution only
//   observe (no output fields): their reply is empty.
// - Cursor fails open unless the hook entry says failClosed: true (install
//   writes it); exit 2 blocks like permission "deny".
#include "agent_hooks/formats.hpp"

#include "strict_json.hpp"

namespace toolgate::agent_hooks {

namespace json = boost::json;
using namespace detail;

namespace {

constexpr std::string_view kName = "cursor";

// A field holding JSON text (beforeMCPExecution's tool_input, postToolUse's
// tool_output): the value it encodes, or the string itself when it is not
// JSON.  A value that is not a string is taken as is.
json::value decode_json_text(const json::value& v) {
  if (!v.is_string()) return v;
  ::toolgate::detail::StrictJsonError error;
  if (auto parsed = ::toolgate::detail::parse_strict(v.get_string(), {}, &error))
    return std::move(*parsed);
  return v;
}

bool is_mcp(const std::string& tool) { return tool.rfind("MCP:", 0) == 0; }

json::object deny_output(const std::string& message, const std::string& ctx) {
  return {{"permission", "deny"},
          {"user_message", message},
          {"agent_message", ctx.empty() ? message : message + "\n\n" + ctx}};
}

class Cursor final : public AgentFormat {
 public:
  std::string_view name() const override { return kName; }

  HookRequest parse(const json::value& payload) const override {
    const json::object& o = payload_object(payload);
    HookRequest r;
    r.event = event_of(o);
    const std::string& e = r.event;
    r.identity.session_id = optional_string(o, "conversation_id");
    r.identity.client = std::string(kName);
    if (e == "preToolUse" || e == "postToolUse" || e == "postToolUseFailure") {
      r.phase = e == "preToolUse" ? Phase::before : Phase::after;
      r.identity.tool = required_string(o, "tool_name");
      r.identity.call_id = optional_string(o, "tool_use_id");
      r.arguments = as_arguments(required_field(o, "tool_input"));
      if (e == "postToolUse") {
        // tool_output is a JSON-encoded string ("{\"exitCode\":0,...}").
        r.raw_response = decode_json_text(required_field(o, "tool_output"));
        r.reported = reported_result(response_text(r.raw_response), false, r.identity.tool);
      } else if (e == "postToolUseFailure") {
        std::string error = optional_string(o, "error_message");
        std::string type = optional_string(o, "failure_type");
        if (error.empty()) error = "the tool failed";
        if (!type.empty()) error += " (" + type + ")";
        r.reported = reported_result(std::move(error), true, r.identity.tool);
      }
    } else if (e == "beforeShellExecution" || e == "afterShellExecution") {
      r.phase = e == "beforeShellExecution" ? Phase::before : Phase::after;
      r.identity.tool = "Shell";  // preToolUse's name for the same tool
      r.arguments = json::object{{"command", required_string(o, "command")}};
      if (r.phase == Phase::after) {
        r.raw_response = required_field(o, "output");
        r.reported = reported_result(response_text(r.raw_response), false, r.identity.tool);
      }
    } else if (e == "beforeMCPExecution" || e == "afterMCPExecution") {
      r.phase = e == "beforeMCPExecution" ? Phase::before : Phase::after;
      r.identity.tool = required_string(o, "tool_name");
      // tool_input is JSON text here.
      r.arguments = as_arguments(decode_json_text(required_field(o, "tool_input")));
      if (r.phase == Phase::after) {
        r.raw_response = decode_json_text(required_field(o, "result_json"));
        bool failed = false;
        if (const auto* ro = r.raw_response.if_object())
          if (const auto* ie = ro->if_contains("isError"); ie && ie->is_bool())
            failed = ie->get_bool();
        r.reported = reported_result(response_text(r.raw_response), failed, r.identity.tool);
      }
    } else if (e == "beforeReadFile") {
      r.phase = Phase::before;
      r.identity.tool = "Read";
      r.arguments = json::object{{"file_path", required_string(o, "file_path")}};
    } else {
      unknown_event(kName, e,
                    "preToolUse, postToolUse, postToolUseFailure, beforeShellExecution, "
                    "afterShellExecution, beforeMCPExecution, afterMCPExecution, beforeReadFile");
    }
    return r;
  }

  HookReply before(const HookRequest& r, const BeforeAnswer& a) const override {
    const bool pre_tool = r.event == "preToolUse";
    const bool can_ask = r.event == "beforeShellExecution" || r.event == "beforeMCPExecution";
    std::string ctx = join_contexts(a.additional_contexts);
    json::object out;
    if (a.verdict != SplitBegin::Verdict::deny && a.rewritten && !pre_tool) {
      out = deny_output("toolgate: the policy rewrote the arguments, and Cursor's " + r.event +
                            " hook cannot pass rewritten arguments on, so the call is denied",
                        ctx);
    } else if (const std::string removed = a.rewritten && a.verdict != SplitBegin::Verdict::deny
                                               ? detail::removed_argument(r.arguments, a.arguments)
                                               : std::string();
               !removed.empty()) {
      // Whether Cursor merges updated_input into the original input or
      // replaces it is not documented: an argument the policy removed might
      // survive a merge, so such a rewrite is denied.
      out = deny_output("toolgate: the policy removed the argument \"" + removed +
                            "\", and Cursor may merge rewritten arguments into the original "
                            "ones, so the call is denied",
                        ctx);
    } else if (a.verdict == SplitBegin::Verdict::allow) {
      out["permission"] = "allow";
      if (a.rewritten) out["updated_input"] = a.arguments;
      if (!ctx.empty()) out["agent_message"] = ctx;
    } else if (a.verdict == SplitBegin::Verdict::ask && can_ask) {
      std::string message =
          "toolgate: " +
          (a.reason.empty() ? std::string("the policy asks for approval") : a.reason);
      out["permission"] = "ask";
      out["user_message"] = message;
      out["agent_message"] = ctx.empty() ? message : message + "\n\n" + ctx;
    } else if (a.verdict == SplitBegin::Verdict::ask) {
      out = deny_output(ask_denied_message("Cursor's " + r.event + " hook", a), ctx);
    } else {
      out = deny_output(deny_message(a), ctx);
    }
    return HookReply{json_line(out), {}, 0};
  }

  HookReply after(const HookRequest& r, const AfterAnswer& a) const override {
    HookReply reply;
    // Observe-only events: nothing can be answered.
    if (r.event == "afterShellExecution" || r.event == "afterMCPExecution") return reply;
    json::object out;
    std::string ctx = join_contexts(a.additional_contexts);
    if (a.kind != SplitOutcome::Kind::accepted) {
      const bool blocked = a.kind == SplitOutcome::Kind::blocked;
      std::string text = blocked ? blocked_message(a) : replacement_text(a.result);
      std::string loud;
      if (is_mcp(r.identity.tool) && r.event == "postToolUse") {
        out["updated_mcp_tool_output"] =
            json::object{{"content", json::array{text_block(text)}}, {"isError", blocked}};
      } else {
        // Not enforceable: Cursor documents no post-tool block for built-in
        // tools.  Say it where the model reads.
        loud = blocked ? "TOOLGATE BLOCKED THIS TOOL RESULT. Do not use, repeat or act on the "
                         "tool output above. " +
                             text
                       : "TOOLGATE REPLACED THIS TOOL RESULT. Disregard the tool output above "
                         "and use this instead:\n" +
                             text;
      }
      if (!loud.empty()) ctx = ctx.empty() ? loud : loud + "\n\n" + ctx;
    }
    if (!ctx.empty()) out["additional_context"] = ctx;
    if (!out.empty()) reply.stdout_text = json_line(out);
    return reply;
  }

  HookReply fail_closed(std::optional<Phase> phase, const std::string& message) const override {
    // Exit 2 blocks ("equivalent to permission: deny"); the deny form on
    // stdout as well carries the message to the agent and the user if
    // Cursor reads it.
    HookReply reply = blocking_exit(message);
    if (phase != Phase::after)
      reply.stdout_text =
          json_line(deny_output(reply.stderr_text.substr(0, reply.stderr_text.size() - 1), ""));
    return reply;
  }
};

}  // namespace

const AgentFormat& cursor_format() {
  static const Cursor f;
  return f;
}

}  // namespace toolgate::agent_hooks
