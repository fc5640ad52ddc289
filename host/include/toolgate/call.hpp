// call.hpp -- what a tool call is: an identity and its arguments
// (docs/design.md §1.2).
#pragma once

#include <toolgate/signal.hpp>
#include <toolgate/trace_context.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace toolgate {

// Nothing in the pipeline can change a call's identity.  Hooks receive it
// read-only; the audit trail and observers always see the true identity.
struct CallIdentity {
  std::string call_id;       // unique per call; generated when empty
  std::string tool;          // the tool's name
  std::string session_id;    // the agent session
  std::string parent_token;  // non-empty for sub-calls
  // Who asks (docs/design.md §1.2): set by the entry point from what the
  // caller's transport says, never by a hook.  `client` names the program
  // whose call this is ("claude-code", "codex", "gemini-cli", "cursor";
  // empty for an embedder's own calls); `agent_id` the subagent making it
  // (empty for the main agent), so a guard can refuse subagent calls.
  // Default-initialized so that {call_id, tool, session, parent} still
  // compiles cleanly (-Wmissing-field-initializers) after they were added.
  std::string client = {};
  std::string agent_id = {};
  // Code Mode (docs/design.md §17): the run_code call a sub-call was made
  // from, and how deep (1 for a script's calls; 0 for any other call).
  // Set by the host with parent_token; a caller that sets any of the three
  // is refused (invalid_arguments).
  std::string parent_call_id = {};
  std::uint32_t depth = 0;
  // What the entry point knows about the calling client, read by hooks by
  // JSON Pointer (ABI 1.6 client_context_get), never changed by them.
  // Keys so far: "roots", an array of absolute folder paths -- the
  // client's roots (the MCP gateway: its roots/list).  Null: nothing known.
  std::shared_ptr<const boost::json::object> client_context = {};
  // W3C trace context from the caller's transport (trace_context.hpp):
  // written into the tool/call event and the observers' outcome, passed on
  // by the MCP gateway; never read to decide.  One that is not valid is
  // dropped when the call starts.
  TraceContext trace = {};
};

struct ToolCall {
  CallIdentity identity;
  boost::json::value arguments;  // must be a JSON object
  // Optional: fire it to cancel the call; the tool sees it (or a child).
  std::shared_ptr<Signal> signal;
};

}  // namespace toolgate
