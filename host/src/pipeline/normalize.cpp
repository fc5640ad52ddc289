// Normalization (SPEC §2.8): snapshot the candidate into an immutable,
// lossless result.  Anything that cannot be snapshotted, and any failure
// that escaped an earlier stage, becomes isError naming the stage and source.
#include "../json_util.hpp"
#include "stages.hpp"

#include <boost/json/serialize.hpp>

namespace toolgate::detail {

static std::string snapshot_problem(boost::json::value& candidate, std::size_t max_bytes,
                                    std::optional<ToolResult>& out) {
  if (auto where = find_invalid_utf8(candidate))
    return "invalid UTF-8 at " + *where;
  if (serialized_size(candidate, max_bytes) > max_bytes)
    return "the result is larger than the " + std::to_string(max_bytes) + "-byte limit";
  std::string why;
  out = ToolResult::from_json(std::move(candidate), &why);  // candidate is done with
  if (!out) return why;
  for (std::size_t i = 0; i < out->content.size(); ++i)
    if (auto p = check_content_block(out->content[i]); !p.empty())
      return "/content/" + std::to_string(i) + ": " + p;
  return {};
}

void run_normalize(CallState& s) {
  auto start = Clock::now();
  if (s.path == CallPath::failed) {
    const auto& e = *s.error;
    s.result = ToolResult::failure(e.code, e.message, e.stage, e.source);
    s.record(stage::normalize, "host", "error", Clock::now() - start,
             {{"code", e.code}});
    return;
  }
  std::optional<ToolResult> snap;
  std::string problem = snapshot_problem(s.candidate, s.options.max_result_bytes, snap);
  if (problem.empty() && s.path == CallPath::denied &&
      (!snap->is_error || snap->error->code != s.error->code))
    problem = "a denial must stay a denial";  // unreachable by construction
  if (!problem.empty()) {
    // A view of a CallState member (or a literal): the trail keeps it.
    std::string_view who = s.candidate_writer.empty() ? std::string_view("host")
                                                       : std::string_view(s.candidate_writer);
    s.result = ToolResult::failure(
        error_code::snapshot_failed,
        "the result from " + std::string(who) + " could not be snapshotted: " + problem,
        stage::normalize, std::string(who));
    s.record(stage::normalize, who, "snapshot_failed", Clock::now() - start,
             {{"problem", problem}});
    return;
  }
  s.result = std::move(*snap);
  s.record(stage::normalize, "host", "ok", Clock::now() - start);
}

}  // namespace toolgate::detail
