// UI cards (docs/design.md §2.12): a tool's present_call / present_result
// output, checked like any content and handed to the embedder -- the card
// sink and the tool/card event -- never to the model.  A card that fails
// changes nothing in the call; it is reported and dropped.
#include "../json_util.hpp"
#include "stages.hpp"

#include <spdlog/spdlog.h>

namespace toolgate::detail {

namespace {

// What is wrong with a card's content, or empty.
std::string card_problem(const boost::json::array& content) {
  for (std::size_t i = 0; i < content.size(); ++i)
    if (auto p = check_content_block(content[i]); !p.empty())
      return "/" + std::to_string(i) + ": " + p;
  const boost::json::value v(content);
  if (auto at = find_invalid_utf8(v)) return "invalid UTF-8 at " + *at;
  if (auto at = find_non_finite(v)) return "a non-finite number at " + *at;
  return {};
}

template <class Make>
void present(const CallState& s, std::string_view phase, Make&& make) {
  const bool sink = static_cast<bool>(s.gen.card_sink);
  if (!sink && !s.bus.active()) return;  // nobody would see it
  boost::json::array content;
  std::string problem;
  if (guarded([&] { content = make(); }, &problem)) problem = card_problem(content);
  if (!problem.empty()) {
    spdlog::warn("tool {}: its {} card was dropped: {}", s.identity.tool, phase, problem);
    if (s.bus.active()) s.emit("tool/card", {{"phase", phase}, {"error", problem}});
    return;
  }
  if (s.bus.active()) s.emit("tool/card", {{"phase", phase}, {"content", content}});
  std::string what;
  if (sink && !guarded([&] { s.gen.card_sink(Card{phase, s.identity, content}); }, &what))
    spdlog::warn("the card sink failed on tool {}'s {} card: {}", s.identity.tool, phase, what);
}

}  // namespace

void present_call_card(const CallState& s) {
  if (!s.tool || !s.tool->def.present_call) return;
  present(s, "call", [&] { return s.tool->def.present_call(s.original_arguments); });
}

void present_result_card(const CallState& s) {
  if (!s.tool || !s.tool->def.present_result) return;
  present(s, "result", [&] { return s.tool->def.present_result(s.arguments(), s.result); });
}

}  // namespace toolgate::detail
