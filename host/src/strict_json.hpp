// strict_json.hpp -- one parser for JSON text that decides policy.
//
// Boost.JSON keeps the last of two equal keys in an object and drops the
// first without a word.  In a manifest that let a second "layer" object
// unlock a locked layer, and a second "plugins" key make a guard vanish; in
// a call's arguments it lets a guard read one value while a tool (or the
// MCP server behind the gateway, which parses the text again) reads the
// other.  Every JSON text toolgate takes from outside -- manifests, calls,
// arguments, MCP messages, what plugins hand the host -- goes through this
// parser, which refuses a duplicate key and says where both copies are.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::detail {

// An object key as a JSON Pointer token (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string pointer_token(std::string_view key);

struct StrictJsonOptions {
  std::size_t max_depth = 64;
  bool allow_comments = false;         // manifests only
  bool allow_trailing_commas = false;  // manifests only
  boost::json::storage_ptr storage;    // where the parsed values live
};

// Why a text was refused, with where: `offset` is the byte the parser
// stopped at (for a duplicate key: where its second copy starts), `line`
// and `column` count from 1.  For a duplicate key, `pointer` is the JSON
// Pointer of the object holding it and `first_*` where its first copy is.
struct StrictJsonError {
  // "at line 3, column 16: syntax error", or "duplicate key \"k\" in the
  // object at /p (line 1, column 2, and again at line 4, column 2)".
  std::string message;
  std::size_t offset = 0, line = 1, column = 1;
  bool duplicate_key = false;
  std::string key, pointer;
  std::size_t first_line = 0, first_column = 0;
};

// RFC 8259 (section 8.2) allows an escaped surrogate without its partner
// ("\ud83d" alone): JavaScript peers send one when a string is cut inside
// an emoji, and Boost.JSON 1.81 refuses it, which failed the whole message.
// The text with each lone surrogate escape replaced by "\ufffd" (the
// replacement character; six bytes for six, so every offset an error
// reports stays right), or nullopt when there is none (found without
// copying).  For text without comments, where every '"' outside a string
// opens one: parse_strict uses it unless comments are allowed.
std::optional<std::string> replace_lone_surrogates(std::string_view text);

// Parses `text` as one JSON document; nullopt and `*error` filled when it
// is not valid JSON (under `options`) or an object repeats a key.  Keys are
// compared after unescaping, so "a" and "\u0061" are the same key.  A
// number beyond a double's range (1e400) is refused too: Boost.JSON would
// make it infinity, which it then writes as the non-JSON `Infinity` (and
// 0e400 is zero, not Boost's NaN).  An escaped surrogate without its
// partner ("\ud83d" alone, valid JSON that JavaScript produces when it cuts
// a string inside an emoji) is read as U+FFFD, the replacement character,
// instead of failing the text (not in text with comments: manifests).
// Unescaped invalid UTF-8 is still refused.
std::optional<boost::json::value> parse_strict(std::string_view text,
                                               const StrictJsonOptions& options,
                                               StrictJsonError* error);

}  // namespace toolgate::detail
