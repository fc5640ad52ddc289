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

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace toolgate {

// Parses one JSON document from untrusted text.  Refused, with nullopt and
// `*why` saying what and where (line and column; for a duplicate key, where
// both copies are): text that is not JSON, invalid UTF-8, nesting deeper
// than `max_depth`, and an object that repeats a key (compared after
// unescaping, so "a" and "\u0061" are the same key).
std::optional<boost::json::value> parse_untrusted(std::string_view text, std::size_t max_depth,
                                                  std::string* why = nullptr);
// The same, with the values allocated from `storage` (make_message_storage).
std::optional<boost::json::value> parse_untrusted(std::string_view text, std::size_t max_depth,
                                                  std::string* why,
                                                  boost::json::storage_ptr storage);

// A storage for the values parsed from one message of `text_bytes`: its
// allocations are cut from one block (no malloc and free per object, key
// and string), and the block is freed when the last value using it is --
// a value copied or moved out of the message keeps it alive.  Safe to use
// from any thread; what does not fit the block (a value kept and changed
// for long) comes from the heap.  The MCP gateway parses each message of
// either peer into one.  Note that Boost.JSON moves a value *assigned* to
// a container of another storage by copying it: construct from it instead.
boost::json::storage_ptr make_message_storage(std::size_t text_bytes);

// A copy of `v` on the heap (the default storage), for a value kept long
// after its message (an id parked until a task ends): a copy made the
// usual way allocates from `v`'s own storage and keeps it alive -- for a
// parsed message, its whole block, for the sake of one id.
inline boost::json::value heap_copy(const boost::json::value& v) {
  return boost::json::value(v, boost::json::storage_ptr());
}

// `target = std::move(source)`, except that `target` takes `source`'s
// storage: Boost.JSON's move *assignment* keeps the target's storage and
// so copies every member when the two differ (a message's values moved
// into a default-constructed member), where move construction takes the
// source's allocation whole.  For boost::json::value, object and array,
// and for a type holding them whose move constructor cannot throw
// (toolgate::ToolResult).
template <class Json>
void replace_keeping_storage(Json& target, Json&& source) noexcept {
  static_assert(std::is_nothrow_move_constructible_v<Json>);
  target.~Json();
  ::new (static_cast<void*>(&target)) Json(std::move(source));
}

// parse_untrusted reads an escaped surrogate without its partner ("\ud83d"
// alone: valid JSON that JavaScript writes when it cuts a string inside an
// emoji, and that Boost.JSON 1.81 refuses) as U+FFFD, the replacement
// character.  This is the text with each such escape replaced by "\ufffd"
// (six bytes for six), or nullopt when there is none: what to relay when
// the peer must read exactly what the hooks read.
std::optional<std::string> replace_lone_surrogates(std::string_view text);

}  // namespace toolgate

namespace toolgate {

// A double JSON cannot write (NaN, an infinity) met by to_json_text; `what()`
// names where it is as a JSON Pointer.
class NonFiniteNumber : public std::invalid_argument {
 public:
  explicit NonFiniteNumber(std::string pointer);
  const std::string& pointer() const noexcept { return pointer_; }

 private:
  std::string pointer_;
};

// Writes a value as compact JSON text: what the engine puts in events, hands
// plugins and sends to MCP peers (docs/design.md §10.2).  Strings and
// integers are written as Boost.JSON writes them.  A double is written in
// the shortest form that reads back as the same double ("0.5", "1e+300",
// "0.00011133861541748047"), with ".0" after an integral one ("2.0") so it
// reads back as a double -- never Boost.JSON 1.81's "5E-1" spelling.  A
// non-finite double throws NonFiniteNumber: Boost.JSON would write NaN or
// Infinity, which is not JSON and which no peer can read.  Iterative: a
// deep value cannot exhaust the stack.
std::string to_json_text(const boost::json::value& v);
std::string to_json_text(const boost::json::object& o);
std::string to_json_text(const boost::json::array& a);
void append_json_text(std::string& out, const boost::json::value& v);

// One spelling per value: as to_json_text, with every object's keys in
// byte order, so two texts of one value (keys in another order, numbers
// spelled otherwise) give one text.  What tool pins, sealed request states
// and Code Mode's call keys are computed over.
std::string canonical_json_text(const boost::json::value& v);
void append_canonical_json_text(std::string& out, const boost::json::value& v);

// The shortest text of a double as to_json_text writes it, into `buf`
// (at least 32 bytes); returns its length, or 0 when `d` is not finite.
std::size_t write_double(double d, char* buf);

}  // namespace toolgate
