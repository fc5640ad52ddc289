// formats.hpp -- the four adapters (internal to toolgate_agent_hooks).
#pragma once

#include "agent_hooks/agent_format.hpp"

#include <vector>

namespace toolgate::agent_hooks {

const AgentFormat& claude_code_format();
const AgentFormat& codex_format();
const AgentFormat& gemini_cli_format();
const AgentFormat& cursor_format();
const std::vector<const AgentFormat*>& all_formats();

}  // namespace toolgate::agent_hooks
