// envelope_scanner.hpp -- what a JSON-RPC message is, read without parsing
// it: its top-level "id" and whether it has a top-level "method".
//
// A peer's answer that cannot be used -- a line over the size limit (never
// buffered whole) or text that does not parse -- still has to end the
// request it answers, or that request waits for its deadline.  This scanner
// walks the bytes as they stream past (strings, escapes and nesting
// tracked; nothing buffered but the id's own text) and finds the envelope,
// so the gateway can fail exactly the request the answer was for.  A
// message is taken for an answer only when it has a top-level "result" or
// "error" and no top-level "method" (a request's or notification's id names
// nothing of ours).
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::mcp {

class EnvelopeScanner {
 public:
  void feed(std::string_view bytes);

  // The top-level "id" when the message is an answer (a top-level "result"
  // or "error", no "method") and its id is a string or an integer; nullopt
  // otherwise.
  std::optional<boost::json::value> answer_id() const;

 private:
  void on_char(char c);

  static constexpr std::size_t kMaxKey = 16;      // enough to tell "id", "method", "result"...
  static constexpr std::size_t kMaxIdText = 256;  // a longer id is not one we sent

  std::size_t depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  bool expect_key_ = false;  // at depth 1, the next string is a key
  bool string_is_key_ = false;
  std::string key_;            // the key being read (first kMaxKey bytes)
  std::string last_key_;       // the last complete key at depth 1
  bool capturing_id_ = false;  // inside the value of the top-level "id"
  bool id_complete_ = false;
  bool id_too_long_ = false;
  std::string id_text_;
  bool has_method_ = false;
  bool has_answer_ = false;  // a top-level "result" or "error"
  bool broken_ = false;      // not an object at the top, or unbalanced
};

// The answer id of a whole message's text (EnvelopeScanner over all of it).
std::optional<boost::json::value> answer_id_of(std::string_view text);

}  // namespace toolgate::mcp
