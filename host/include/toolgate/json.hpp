// json.hpp -- the engine's strict JSON parser, for text from outside.
//
// Boost.JSON's own parser keeps the last of two equal keys in an object and
// drops the first without a word; when one reader of a text (a guard) sees
// one value and another (a tool, or an MCP server parsing the same text
// again) sees the other, a policy can be walked around.  The engine parses
// every text that decides policy -- manifests, calls, arguments, what
// plugins hand it -- with this parser (docs/design.md §10), and so does the
// MCP gateway (toolgate::mcp) for every message of either peer.  An
// embedder that takes JSON text from outside before handing it to the Host
// should too.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate {

// Parses one JSON document from untrusted text.  Refused, with nullopt and
// `*why` saying what and where (line and column; for a duplicate key, where
// both copies are): text that is not JSON, invalid UTF-8, nesting deeper
// than `max_depth`, and an object that repeats a key (compared after
// unescaping, so "a" and "\u0061" are the same key).
std::optional<boost::json::value> parse_untrusted(std::string_view text, std::size_t max_depth,
                                                  std::string* why = nullptr);

}  // namespace toolgate
