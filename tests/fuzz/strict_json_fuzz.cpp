// The strict JSON parser (host/src/strict_json.cpp) against Boost.JSON's
// own parser on the same text and options.  parse_strict differs from
// boost::json::parse only by refusing duplicate keys, so:
//   - when parse_strict succeeds, boost::json::parse succeeds with an equal value;
//   - when boost::json::parse fails, parse_strict fails;
//   - when parse_strict fails for any reason but a duplicate key,
//     boost::json::parse fails too;
// and every error says where, inside the text.
//
// The first byte picks the options (comments, trailing commas, depth limit).
#include "fuzz_check.hpp"
#include "strict_json.hpp"

#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace json = boost::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr std::size_t depths[] = {64, 1, 8, 256};
  toolgate::detail::StrictJsonOptions opt;
  opt.allow_comments = (data[0] & 1) != 0;
  opt.allow_trailing_commas = (data[0] & 2) != 0;
  opt.max_depth = depths[(data[0] >> 2) & 3];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  json::parse_options bopt;
  bopt.allow_comments = opt.allow_comments;
  bopt.allow_trailing_commas = opt.allow_trailing_commas;
  bopt.max_depth = opt.max_depth;
  json::error_code bec;
  json::value expected = json::parse(text, bec, {}, bopt);

  toolgate::detail::StrictJsonError e;
  auto v = toolgate::detail::parse_strict(text, opt, &e);
  if (v) {
    FUZZ_CHECK(!bec);
    FUZZ_CHECK(*v == expected);
    // Without an error report the answer is the same.
    FUZZ_CHECK(toolgate::detail::parse_strict(text, opt, nullptr).has_value());
    return 0;
  }
  FUZZ_CHECK(!toolgate::detail::parse_strict(text, opt, nullptr).has_value());
  if (!e.duplicate_key) FUZZ_CHECK(bec);
  FUZZ_CHECK(!e.message.empty());
  FUZZ_CHECK(e.offset <= text.size());
  FUZZ_CHECK(e.line >= 1 && e.column >= 1);
  if (e.duplicate_key) {
    // Both copies, when located, are keys: their text starts with a quote.
    FUZZ_CHECK(e.offset < text.size() && text[e.offset] == '"');
    FUZZ_CHECK(e.first_line >= 1 && e.first_column >= 1);
    FUZZ_CHECK(e.first_line < e.line || (e.first_line == e.line && e.first_column < e.column));
  }
  return 0;
}
