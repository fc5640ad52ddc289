// code_mode_tool.hpp -- the run_code tool a generation carries when Code
// Mode is on (docs/design.md §17.1).
#pragma once

#include "../generation.hpp"
#include "code_run.hpp"
#include "runner_pool.hpp"

#include <toolgate/code_mode.hpp>

#include <memory>
#include <string>

namespace toolgate::detail {

// Code Mode's settings and its runner pool: one per host, shared by every
// generation's run_code.
struct CodeMode {
  explicit CodeMode(CodeModeOptions o);
  CodeModeOptions options;
  RunnerPool pool;
};

using ToolMap = std::map<std::string, std::shared_ptr<const ToolEntry>, std::less<>>;

// TypeScript declarations of `tools` (all but run_code), as a script sees
// them: what run_code's description carries and `toolgate tools
// --typescript` prints.
std::string code_mode_declarations(const ToolMap& tools);

// run_code, with `tools` (the generation's other tools) as its bindings.
ToolDefinition make_run_code_tool(std::shared_ptr<CodeMode> mode, CodeRunHost host,
                                  const ToolMap& tools);

}  // namespace toolgate::detail
