// sample_tools.hpp -- the tools the demo and the tests call.
#pragma once

#include <toolgate/hooks.hpp>

namespace toolgate::samples {

// greet {"name": "World"} -> "Hello, World!"  (read-only, idempotent)
ToolDefinition greeting_tool();

// slow {"ms": 2000} -> sleeps cooperatively, honouring its signal; ends as
// "timeout" or "cancelled" when the signal fires first.
ToolDefinition slow_tool();

// todo.write {"todos": [{"content": "...", "status": "pending" |
// "in_progress" | "completed"}]} -> the list, checked; it also appends a
// tool-owned `todo/write` event (the list) to the session log, which is how
// an agent's UI follows a plan without parsing results.
ToolDefinition todo_tool();

// A test bench tool (`toolgate call --stub NAME[:SCHEMA]`): any name, any
// arguments; it succeeds with {"tool": NAME, "arguments": ARGS} as its value
// and says so in one text block, so a guard or hook can be exercised
// without writing a tool.  `input_schema` is only shown (the host does not
// validate arguments against schemas).  Marked destructive: a stub stands
// for a tool nothing is known about.
ToolDefinition stub_tool(std::string name, boost::json::value input_schema);

}  // namespace toolgate::samples
