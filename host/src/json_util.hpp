// json_util.hpp -- small JSON checks shared by normalization and call parsing.
#pragma once

#include <toolgate/json.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::detail {

bool valid_utf8(std::string_view s);
// `s` with every byte that starts no well-formed UTF-8 sequence replaced by
// U+FFFD: for text that must reach a result or an event whatever its source
// wrote (an error message, a denial reason).
std::string to_valid_utf8(std::string_view s);

// The longest prefix of UTF-8 text `s` of at most `max_bytes` that does not
// end inside a character: where to cut a long text shown to a person.
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

// The JSON Pointer of the first string (or key) that is not valid UTF-8, or
// nullopt when all are.  Iterative: deep input cannot blow the stack.
std::optional<std::string> find_invalid_utf8(const boost::json::value& v);

// The JSON Pointer of the first non-finite number (NaN, an infinity), which
// JSON cannot write, or nullopt when there is none.  A walk over the
// containers alone (strings are not read): cheap enough for every call's
// arguments, the only way an embedder's in-process value can carry one.
std::optional<std::string> find_non_finite(const boost::json::value& v);
// What a tool is told when its result holds one at `where` (a JSON Pointer).
std::string non_finite_in_result(std::string_view where);

// One walk over a value for normalization: whether every string and key is
// valid UTF-8, whether every number is finite (JSON cannot write NaN or an
// infinity), and the exact length of its JSON text as to_json_text writes
// it (counting stops once past `stop_after`).  Replaces a UTF-8 walk plus a
// full serialization, the largest cost of an empty call's result.
struct JsonScan {
  bool valid_utf8 = true;
  bool finite = true;
  std::size_t bytes = 0;
};
JsonScan scan_json(const boost::json::value& v, std::size_t stop_after);

// Parses untrusted JSON text with a nesting limit (strict_json.hpp: a
// duplicate key is refused).  Public (toolgate/json.hpp) so that the MCP
// gateway, built on the embedding API alone, parses with it too; the
// engine's own callers keep calling it detail::parse_untrusted.
using toolgate::parse_untrusted;

// Checks one MCP content block; returns the problem or an empty string.
std::string check_content_block(const boost::json::value& block);

}  // namespace toolgate::detail
