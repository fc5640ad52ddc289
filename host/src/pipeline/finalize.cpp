// Stage 7: finalizeContent (docs/design.md §2.9).  The tool author's last
// invariant: it may change content only, and a failure fails closed -- the
// outcome becomes an error whose content is the failure message, never the
// unfinalized content.
#include "../json_util.hpp"
#include "stages.hpp"

namespace toolgate::detail {

static std::string what_changed(const ToolResult& before, const ToolResult& after) {
  if (before.is_error != after.is_error) return "isError";
  if (before.value != after.value) return "value";
  auto error_json = [](ToolResult r) {  // everything but content and value
    r.content.clear();
    r.value.reset();
    return r.to_json();
  };
  if (error_json(before) != error_json(after)) return "error";
  return {};
}

void run_finalize(CallState& s) {
  if (!s.tool || !s.tool->def.finalize_content) return;
  const auto& def = s.tool->def;
  ToolResult copy = s.result;
  std::string what;
  auto start = s.now();
  bool ok = guarded([&] { def.finalize_content(copy); }, &what);
  std::string problem;
  if (!ok) {
    problem = "finalizeContent of tool " + def.name + " failed: " + what;
  } else if (auto field = what_changed(s.result, copy); !field.empty()) {
    problem = "finalizeContent of tool " + def.name + " changed " + field +
              " (it may change content only)";
  } else {
    for (std::size_t i = 0; i < copy.content.size() && problem.empty(); ++i)
      if (auto p = check_content_block(copy.content[i]); !p.empty())
        problem = "finalizeContent of tool " + def.name + " produced /content/" +
                  std::to_string(i) + ": " + p;
    if (problem.empty())
      if (auto where = find_invalid_utf8(boost::json::value(copy.content)))
        problem =
            "finalizeContent of tool " + def.name + " produced invalid UTF-8 at /content" + *where;
  }
  auto took = s.now() - start;
  if (!problem.empty()) {
    s.record(stage::finalize, def.name, "failed", took, {{"error", problem}});
    s.result =
        ToolResult::failure(error_code::tool_error, std::move(problem), stage::finalize, def.name);
    return;
  }
  s.record(stage::finalize, def.name, "ok", took);
  s.result = std::move(copy);
}

}  // namespace toolgate::detail
