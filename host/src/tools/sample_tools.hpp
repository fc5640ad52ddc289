// sample_tools.hpp -- the tools the demo and the tests call.
#pragma once

#include <toolgate/hooks.hpp>

namespace toolgate::samples {

// greet {"name": "World"} -> "Hello, World!"  (read-only, idempotent)
ToolDefinition greeting_tool();

// slow {"ms": 2000} -> sleeps cooperatively, honouring its signal; ends as
// "timeout" or "cancelled" when the signal fires first.
ToolDefinition slow_tool();

}  // namespace toolgate::samples
