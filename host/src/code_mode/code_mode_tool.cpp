#include "code_mode_tool.hpp"

#include "typescript.hpp"

#include <algorithm>

namespace toolgate::detail {

namespace json = boost::json;

namespace {
RunnerSpawn spawn_settings(const CodeModeOptions& o) {
  RunnerSpawn s;
  s.sandboxed = o.sandbox == CodeModeOptions::Sandbox::bubblewrap;
  s.node = o.node;
  s.bwrap = o.bwrap;
  s.address_space_bytes = o.memory_bytes;
  // V8's heap well below the address space: V8 reserves much more than it
  // uses, and a heap limit ends a memory bomb with a clear message.
  s.heap_megabytes = static_cast<unsigned>(std::max<std::uint64_t>(o.memory_bytes >> 22, 32));
  // CPU time is a backstop: the host kills the runner at the run's deadline.
  s.cpu_seconds = static_cast<unsigned>(
      std::chrono::duration_cast<std::chrono::seconds>(o.max_timeout).count() + 30);
  s.tmp_bytes = o.tmp_bytes;
  return s;
}

constexpr std::string_view intro =
    "Runs a JavaScript program (ES2022) in a sandbox with no network and no files, and returns "
    "what it returns. The code is the body of an async function: use `await` and `return`. Call "
    "tools as `await tools.NAME(args)` or `await callTool(\"NAME\", args)`; each call is checked "
    "by the same policy as a direct call and runs one at a time, in the order made. A call "
    "resolves to the tool's structured value (or its content blocks when it has none), rejects "
    "with ToolError when the tool fails, and with ToolDenied when the policy refuses it -- a "
    "refusal binds for the rest of the run and is reported in the result even if the script "
    "catches it. `return` a JSON value; console.log output is returned too. Optional "
    "`timeout_ms` bounds the run.\n\nThe tools, as TypeScript:\n";
}  // namespace

CodeMode::CodeMode(CodeModeOptions o)
    : options(std::move(o)), pool(spawn_settings(options), options.prestarted_runners) {}

std::string code_mode_declarations(const ToolMap& tools) {
  std::vector<TypeScriptTool> list;
  for (const auto& [name, entry] : tools) {
    if (name == code_mode_tool || !entry->def.code_binding) continue;
    const auto& d = entry->def;
    list.push_back(TypeScriptTool{name, d.description, &d.input_schema, &d.output_schema});
  }
  return typescript_declarations(list);
}

ToolDefinition make_run_code_tool(std::shared_ptr<CodeMode> mode, CodeRunHost host,
                                  const ToolMap& tools) {
  std::vector<std::string> names;
  for (const auto& [name, entry] : tools)
    if (name != code_mode_tool && entry->def.code_binding) names.push_back(name);
  ToolDefinition t;
  t.name = std::string(code_mode_tool);
  t.description = std::string(intro) + code_mode_declarations(tools);
  t.input_schema = json::object{
      {"type", "object"},
      {"properties",
       {{"code",
         {{"type", "string"},
          {"description", "The program: the body of an async JavaScript function."}}},
        {"timeout_ms",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", mode->options.max_timeout.count()},
          {"description", "The run's deadline in milliseconds (default " +
                              std::to_string(mode->options.default_timeout.count()) + ")."}}}}},
      {"required", json::array{"code"}},
      {"additionalProperties", false}};
  t.annotations = annotation::open_world;
  t.execute = [mode, host = std::move(host), names = std::move(names)](const ToolContext& ctx) {
    return run_code(host, mode->options, mode->pool, ctx, names);
  };
  return t;
}

}  // namespace toolgate::detail
