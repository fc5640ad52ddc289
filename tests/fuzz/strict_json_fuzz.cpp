// The strict JSON parser (host/src/strict_json.cpp) against Boost.JSON's
// own parser on the same text and options.  parse_strict differs from
// boost::json::parse only by refusing duplicate keys and numbers beyond a
// double's range (Boost: infinity), by reading 0e400 as zero (Boost: NaN),
// by reading a lone surrogate escape as U+FFFD (Boost: an error; compared
// on the text with that replacement made), and by reading doubles
// correctly rounded (Boost 1.81: up to an ulp or so off), so:
//   - when parse_strict succeeds, boost::json::parse succeeds with the same
//     value (doubles within 4 ulps, Boost's NaN standing for a zero and its
//     infinity for the largest double);
//   - the value, written by to_json_text, reads back the same, doubles bit
//     for bit;
//   - when boost::json::parse fails, parse_strict fails;
//   - when parse_strict fails for any other reason than a duplicate key,
//     boost::json::parse fails too, or its value holds an infinity or the
//     largest double (where correct rounding and Boost's disagree);
// and every error says where, inside the text.
//
// The first byte picks the options (comments, trailing commas, depth limit).
#include "fuzz_check.hpp"
#include "json_same.hpp"
#include "strict_json.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse.hpp>

#include <toolgate/json.hpp>

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace json = boost::json;

namespace {

// `strict` is `boost`, doubles bit for bit, except that Boost's NaN is the
// zero it should have been.
bool same(const json::value& strict, const json::value& boost) {
  return json_same(strict, boost, [](double a, double b) {
    if (std::isnan(b)) return a == 0.0;
    if (std::isinf(b)) return std::abs(a) == DBL_MAX && std::signbit(a) == std::signbit(b);
    for (int i = 0; i < 4 && a != b; ++i) b = std::nextafter(b, a);
    return a == b;
  });
}

bool bit_for_bit(const json::value& a, const json::value& b) {
  return json_same(a, b, [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

// Whether Boost.JSON reads any number of the text as an infinity (a
// handler of its own: in the value it builds, a later duplicate key may
// have replaced the number).
struct InfinityFinder {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);
  bool found = false;
  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) { return true; }
  bool on_object_end(std::size_t, json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) { return true; }
  bool on_array_end(std::size_t, json::error_code&) { return true; }
  bool on_key_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_key(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) { return true; }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return true; }
  bool on_double(double d, json::string_view, json::error_code&) {
    found = found || std::isinf(d) || std::abs(d) == DBL_MAX;
    return true;
  }
  bool on_bool(bool, json::error_code&) { return true; }
  bool on_null(json::error_code&) { return true; }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

bool has_infinity(std::string_view text, const json::parse_options& opt) {
  json::basic_parser<InfinityFinder> p(opt);
  json::error_code ec;
  p.write_some(false, text.data(), text.size(), ec);
  return p.handler().found;
}

}  // namespace

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
  // A lone surrogate escape reads as U+FFFD (where comments are not
  // allowed): Boost.JSON is asked about the text with that replacement.
  std::optional<std::string> repaired;
  if (!opt.allow_comments) repaired = toolgate::detail::replace_lone_surrogates(text);
  if (repaired) FUZZ_CHECK(repaired->size() == text.size());
  const std::string_view boost_text = repaired ? std::string_view(*repaired) : text;
  json::error_code bec;
  json::value expected = json::parse(boost_text, bec, {}, bopt);

  toolgate::detail::StrictJsonError e;
  auto v = toolgate::detail::parse_strict(text, opt, &e);
  if (v) {
    FUZZ_CHECK(!bec);
    FUZZ_CHECK(same(*v, expected));
    // Written and read again: the same value, bit for bit.
    toolgate::detail::StrictJsonOptions plain;
    plain.max_depth = opt.max_depth;
    auto again = toolgate::detail::parse_strict(toolgate::to_json_text(*v), plain, nullptr);
    FUZZ_CHECK(again && bit_for_bit(*again, *v));
    // Without an error report the answer is the same.
    FUZZ_CHECK(toolgate::detail::parse_strict(text, opt, nullptr).has_value());
    return 0;
  }
  FUZZ_CHECK(!toolgate::detail::parse_strict(text, opt, nullptr).has_value());
  if (!e.duplicate_key) FUZZ_CHECK(bec || has_infinity(boost_text, bopt));
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
