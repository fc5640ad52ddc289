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

// One walk over a value for normalization: whether every string and key is
// valid UTF-8, and the exact length of its JSON text as Boost.JSON writes it
// (counting stops once past `stop_after`).  Replaces a UTF-8 walk plus a
// full serialization, the largest cost of an empty call's result.
struct JsonScan {
  bool valid_utf8 = true;
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
