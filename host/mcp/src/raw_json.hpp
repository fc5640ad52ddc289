// raw_json.hpp -- finding and replacing one member in JSON text, so that a
// message the gateway relays keeps the bytes it arrived with.
//
// Parsing a message and writing it again changes it: numbers are re-spelled
// (and, with a parser that is not correctly rounded, changed), integers
// beyond 64 bits become doubles, key order and spacing are lost.  What the
// gateway itself has to change in a relayed message is small -- the id, the
// requestId of a cancellation, a member it removes or adds -- so it edits
// the text in place instead (docs/design.md §10.2).
//
// Only for text the strict parser has already accepted: the scanner does
// not validate.  A key written with escapes ("\u0069d") is not matched
// (the lookups answer nullopt, and the caller falls back to writing the
// parsed message); since the strict parser refuses duplicate keys, a raw
// match is the member the parser read.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::mcp {

struct TextSpan {
  std::size_t begin = 0, end = 0;  // [begin, end) in the text
  std::string_view of(std::string_view text) const { return text.substr(begin, end - begin); }
};

// One object member: `member` runs from the key's opening quote to the end
// of the value, `value` is the value alone (no surrounding whitespace).
struct MemberSpan {
  TextSpan member, value;
};

// The member `key` of the object whose '{' is at `object_open`.  Keys are
// compared as written: a member whose key is written with escapes is not
// found, and neither is any `key` holding a backslash (it could equal
// another key's escaped spelling).
std::optional<MemberSpan> find_member(std::string_view text, std::size_t object_open,
                                      std::string_view key);

// Whether a key of the object whose '{' is at `object_open` is written
// with escapes: find_member cannot see such a key, so its "absent" is then
// not to be trusted.
bool has_escaped_key(std::string_view text, std::size_t object_open);

// The member at a path of keys from the top-level object ({"params",
// "requestId"}); each step but the last must be an object.
std::optional<MemberSpan> find_path(std::string_view text,
                                    std::initializer_list<std::string_view> path);

// The text with `span` replaced by `with`.
std::string replace_span(std::string_view text, TextSpan span, std::string_view with);

// The text without the member (and the comma that separated it).
std::string remove_member(std::string_view text, const MemberSpan& m);

// The text with `"key":value_text` added as the first member of the object
// whose '{' is at `object_open`.  `key_text` is the key as JSON (quoted).
std::string insert_first_member(std::string_view text, std::size_t object_open,
                                std::string_view key_text, std::string_view value_text);

}  // namespace toolgate::mcp
