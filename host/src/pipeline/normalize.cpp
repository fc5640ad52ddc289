// Normalization (docs/design.md §2.8): snapshot the candidate into an
// immutable, lossless result.  Anything that cannot be snapshotted, and any
// failure that escaped an earlier stage, becomes isError naming the stage and
// source.
#include "../json_util.hpp"
#include "stages.hpp"

namespace toolgate::detail {

// UTF-8 and size in one walk; the location of bad UTF-8 only once there is
// one.  `at()` names where `v` is in the result: built only for a problem,
// not on every call.
template <class At>
static std::string scan_problem(const boost::json::value& v, std::size_t max_bytes, const At& at,
                                std::size_t& bytes) {
  auto scan = scan_json(v, max_bytes);
  if (!scan.valid_utf8) return "invalid UTF-8 at " + at() + find_invalid_utf8(v).value_or("");
  if (!scan.finite) return non_finite_in_result(at() + find_non_finite(v).value_or(""));
  bytes += scan.bytes;
  return {};
}

static std::string content_at(std::size_t i) { return "/content/" + std::to_string(i); }

static std::string too_large(std::size_t max_bytes) {
  return "the result is larger than the " + std::to_string(max_bytes) + "-byte limit";
}

static std::string snapshot_problem(boost::json::value& candidate, std::size_t max_bytes,
                                    std::optional<ToolResult>& out) {
  std::size_t bytes = 0;
  if (auto p = scan_problem(
          candidate, max_bytes, [] { return std::string(); }, bytes);
      !p.empty())
    return p;
  if (bytes > max_bytes) return too_large(max_bytes);
  std::string why;
  out = ToolResult::from_json(std::move(candidate), &why);  // candidate is done with
  if (!out) return why;
  for (std::size_t i = 0; i < out->content.size(); ++i)
    if (auto p = check_content_block(out->content[i]); !p.empty()) return content_at(i) + ": " + p;
  return {};
}

// The same checks on a result the engine built itself (no JSON round trip):
// the tool's value and content still come from tool code.  Content the
// engine rendered from the value (`host_rendered`: one text block, made by
// the default render) has the engine's shape and the value's text, or the
// value's JSON: only its size is counted, its text still scanned.
static std::string check_produced(const ToolResult& r, std::size_t max_bytes, bool host_rendered) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < r.content.size(); ++i) {
    if (host_rendered) {
      // {"type":"text","text":} around the text's own JSON.
      constexpr std::size_t frame = sizeof(R"({"type":"text","text":})") - 1;
      bytes += frame;
      const auto at = [i] { return content_at(i) + "/text"; };
      if (auto p = scan_problem(r.content[i].as_object().at("text"), max_bytes, at, bytes);
          !p.empty())
        return p;
      continue;
    }
    const auto at = [i] { return content_at(i); };
    if (auto p = scan_problem(r.content[i], max_bytes, at, bytes); !p.empty()) return p;
    if (auto p = check_content_block(r.content[i]); !p.empty()) return at() + ": " + p;
  }
  if (r.value)
    if (auto p = scan_problem(
            *r.value, max_bytes, [] { return std::string("/value"); }, bytes);
        !p.empty())
      return p;
  if (bytes > max_bytes) return too_large(max_bytes);
  return {};
}

void run_normalize(CallState& s) {
  auto start = s.now();
  if (s.path == CallPath::failed) {
    const auto& e = *s.error;
    s.result = ToolResult::failure(e.code, e.message, e.stage, e.source);
    s.record(stage::normalize, "host", "error", s.now() - start, {{"code", e.code}});
    return;
  }
  std::optional<ToolResult> snap;
  std::string problem =
      s.produced
          ? check_produced(*s.produced, s.options.max_result_bytes, s.content_rendered_by_host)
          : snapshot_problem(s.candidate, s.options.max_result_bytes, snap);
  if (s.produced && problem.empty()) snap = std::move(s.produced);
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
    s.record(stage::normalize, who, "snapshot_failed", s.now() - start, {{"problem", problem}});
    return;
  }
  // An error a post-execute hook wrote into an executed call's result is
  // that hook's claim: it cannot speak for a guard or the tool.
  if (snap->error && s.path != CallPath::denied && s.replaced_by_post_hook) {
    snap->error->stage = stage::post_execute;
    snap->error->source = s.candidate_writer;
    snap->error->denials = boost::json::array();  // no guard denied this call
  }
  replace_keeping_storage(s.result, std::move(*snap));
  s.record(stage::normalize, "host", "ok", s.now() - start);
}

}  // namespace toolgate::detail
