// code_run.hpp -- one run of run_code: the host's side of the channel to a
// runner (docs/design.md §17).
//
// The runner is untrusted.  Everything that decides an outcome lives here:
// the deadline, the count of sub-calls, the output budget, and the run's
// denials -- which bind for the rest of the run and are listed in its result
// whatever the script did with them.
#pragma once

#include "../pipeline/stages.hpp"
#include "runner_pool.hpp"

#include <toolgate/code_mode.hpp>
#include <toolgate/events.hpp>
#include <toolgate/hooks.hpp>

#include <functional>

namespace toolgate::detail {

// What a run needs of the host: running a sub-call through the pipeline,
// and the event log.
struct CodeRunHost {
  std::function<ToolResult(ToolCall, SubCallBinding&)> dispatch;
  std::function<bool()> listening;  // whether anyone reads events
  std::function<void(Event)> emit;  // publishes one event
};

// run_code's body.  `ctx` is the run_code call's own (its identity is the
// parent's, its signal the caller's); `tools` are the names the script gets
// as bindings.
ToolOutput run_code(const CodeRunHost& host, const CodeModeOptions& options, RunnerPool& pool,
                    const ToolContext& ctx, const std::vector<std::string>& tools);

// A sub-call's result, classified: whether the pipeline refused it (binding
// for the run) rather than the tool failing.
bool is_refusal(const ToolResult& r);

}  // namespace toolgate::detail
