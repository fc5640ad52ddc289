// agent_format.hpp -- each coding agent's own hook format, in toolgate's
// terms: what a hook payload asks (parse), and what the hook process prints
// and exits with for toolgate's answer (before / after / fail_closed).
//
// Pure: no I/O.  `toolgate hook AGENT` reads the payload from stdin, asks
// the daemon, and writes the HookReply; this library only translates.  The
// formats follow each agent's published hook documentation (the fixtures in
// tests/agent_hooks/fixtures/<agent>/SOURCE.md cite the pages and sections).
#pragma once

#include <toolgate/host.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::agent_hooks {

enum class Phase { before, after };

// What an agent's hook payload asks, in toolgate's terms.
struct HookRequest {
  Phase phase = Phase::before;
  std::string event;  // the agent's own event name ("PreToolUse")
  // tool, call_id (the agent's tool-use id; empty when the agent has none),
  // session_id, client (= format name), agent_id (subagent; empty for the
  // main agent)
  CallIdentity identity;
  // the tool input (before and after); a non-object input is wrapped as
  // {"input": value}
  boost::json::object arguments;
  // after: the tool's output as a result (text content; isError when the
  // agent says the tool failed)
  ToolResult reported;
  // after: the tool's output exactly as the agent sent it (null when it sent
  // none): a replacement that must keep the tool's own shape (Claude Code's
  // updatedToolOutput) is built from it.
  boost::json::value raw_response;
};

// The daemon's decision, in toolgate's terms.
struct BeforeAnswer {
  SplitBegin::Verdict verdict = SplitBegin::Verdict::deny;
  boost::json::object arguments;  // final arguments (allow/ask)
  bool rewritten = false;
  std::string reason;     // deny / ask
  std::string denied_by;  // deny: the error's source ("plugin/hook") and code, for the message
  std::vector<std::string> additional_contexts;
  // deny: the error's code (error_code::*): plugin_error makes the message
  // say the plugin failed rather than that it denied.
  std::string error_code;

  // The answer for a SplitBegin (denied_by/error_code from its result's
  // error, reason from SplitBegin::reason or the error's message).
  static BeforeAnswer from(const SplitBegin& begin);
};

struct AfterAnswer {
  SplitOutcome::Kind kind = SplitOutcome::Kind::accepted;
  ToolResult result;  // final result (blocked: the denial; replaced: the replacement)
  std::vector<std::string> additional_contexts;

  static AfterAnswer from(const SplitOutcome& outcome);
};

// What the hook process prints and exits with.
struct HookReply {
  std::string stdout_text;
  std::string stderr_text;
  int exit_code = 0;
};

// A payload the adapter cannot read; what() names the field and what was wrong.
class BadPayload : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

class AgentFormat {
 public:
  virtual ~AgentFormat() = default;
  // "claude-code", "codex", "gemini-cli", "cursor"
  virtual std::string_view name() const = 0;
  // throws BadPayload
  virtual HookRequest parse(const boost::json::value& payload) const = 0;
  virtual HookReply before(const HookRequest& r, const BeforeAnswer& a) const = 0;
  virtual HookReply after(const HookRequest& r, const AfterAnswer& a) const = 0;
  // The agent's BLOCKING answer for any failure (daemon down, timeout, bad
  // payload, bad answer): `message` already names the cause and the fix;
  // the reply blocks the tool in this agent (exit code 2 with the message on
  // stderr, which all four agents document as blocking).
  virtual HookReply fail_closed(std::optional<Phase> phase, const std::string& message) const = 0;
};

// nullptr for an unknown name
const AgentFormat* find_format(std::string_view name);
// the four, sorted
std::vector<std::string_view> format_names();

// ---- helpers shared by the adapters -----------------------------------------
namespace detail {

// The payload as an object, or BadPayload ("the hook payload is not a JSON
// object (it is an array)").
const boost::json::object& payload_object(const boost::json::value& payload);
// A required string field; BadPayload naming the field when it is missing,
// not a string or empty.
std::string required_string(const boost::json::object& o, std::string_view key);
// An optional string field: "" when absent or null; BadPayload when present
// with another type.
std::string optional_string(const boost::json::object& o, std::string_view key);
// A required field of any type.
const boost::json::value& required_field(const boost::json::object& o, std::string_view key);
// The first key of `original` a rewrite dropped from `rewritten`, or "".
// For agents that merge rewritten arguments into the original ones (Gemini
// CLI; Cursor may), where a dropped argument would survive.
std::string removed_argument(const boost::json::object& original,
                             const boost::json::object& rewritten);
// A tool input as arguments: an object as is, anything else as {"input": v}.
boost::json::object as_arguments(const boost::json::value& v);
// A tool's response as text: a string as is; an MCP result's text blocks;
// a shell result's stdout (and stderr); Gemini's llmContent; else the JSON.
std::string response_text(const boost::json::value& v);
// The reported result: text content; a tool_error failure when `failed`.
ToolResult reported_result(std::string text, bool failed, const std::string& tool);
// The text of a result as the model would read it: its text blocks, else
// its error message, else its value as JSON.
std::string result_text(const ToolResult& r);
// The text that replaces a tool's output: result_text, or -- when that is
// blank (a blanked result, images only, no content) -- a sentence saying
// the output was replaced.  Never blank: Codex ignores a "block" whose
// reason is blank, and the original output would reach the model.
std::string replacement_text(const ToolResult& r);
// Contexts joined with blank lines.
std::string join_contexts(const std::vector<std::string>& contexts);
// The deny message the model sees: "toolgate: denied by <source>: <reason>"
// for a policy decision, "toolgate: the plugin <source> failed: <reason>"
// for a plugin_error.
std::string deny_message(const BeforeAnswer& a);
// The message for an ask in an agent that has none: a deny saying so.
std::string ask_denied_message(std::string_view agent, const BeforeAnswer& a);
// The message for a blocked result.
std::string blocked_message(const AfterAnswer& a);
// One JSON object as a line of text.
std::string json_line(const boost::json::object& o);
// The event name (required "hook_event_name").
std::string event_of(const boost::json::object& o);
// BadPayload for an event this adapter does not handle.
[[noreturn]] void unknown_event(std::string_view agent, const std::string& event,
                                std::string_view handled);
// fail_closed's reply: exit 2, the message on stderr (never empty).
HookReply blocking_exit(const std::string& message);

}  // namespace detail
}  // namespace toolgate::agent_hooks
