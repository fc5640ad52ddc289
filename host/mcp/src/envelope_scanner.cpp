#include "envelope_scanner.hpp"

#include "jsonrpc.hpp"

#include <boost/json/parse.hpp>

namespace toolgate::mcp {

void EnvelopeScanner::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (broken_) return;
    on_char(c);
  }
}

void EnvelopeScanner::on_char(char c) {
  // The id's value is copied as it passes, until the ',' or '}' that ends
  // it at the top level.
  if (capturing_id_) {
    if (!in_string_ && depth_ == 1 && (c == ',' || c == '}')) {
      capturing_id_ = false;
      id_complete_ = true;
    } else if (id_text_.size() < kMaxIdText) {
      id_text_ += c;
    } else {
      id_too_long_ = true;
    }
  }
  if (in_string_) {
    if (escaped_) {
      escaped_ = false;
      // An escaped key matches none we look for; capped like any key, so a
      // line of escapes buffers nothing.
      if (string_is_key_ && key_.size() <= kMaxKey) key_ += '\\';
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
      if (string_is_key_) {
        string_is_key_ = false;
        last_key_ = key_;
        if (last_key_ == "method") has_method_ = true;
        if (last_key_ == "result" || last_key_ == "error") has_answer_ = true;
      }
    } else if (string_is_key_ && key_.size() <= kMaxKey) {
      key_ += c;
    }
    return;
  }
  switch (c) {
    case '"':
      in_string_ = true;
      if (depth_ == 1 && expect_key_) {
        string_is_key_ = true;
        expect_key_ = false;
        key_.clear();
      }
      break;
    case '{':
    case '[':
      if (depth_ == 0 && c != '{') broken_ = true;  // a batch or a bare array
      ++depth_;
      if (depth_ == 1) expect_key_ = true;
      break;
    case '}':
    case ']':
      if (depth_ == 0)
        broken_ = true;
      else
        --depth_;
      break;
    case ',':
      if (depth_ == 1) expect_key_ = true;
      break;
    case ':':
      if (depth_ == 1 && last_key_ == "id") {
        capturing_id_ = true;
        id_complete_ = false;
        id_too_long_ = false;
        id_text_.clear();
      }
      break;
    default:
      break;
  }
}

std::optional<boost::json::value> answer_id_of(std::string_view text) {
  EnvelopeScanner scanner;
  scanner.feed(text);
  return scanner.answer_id();
}

std::optional<boost::json::value> EnvelopeScanner::answer_id() const {
  if (broken_ || has_method_ || !has_answer_ || !id_complete_ || id_too_long_) return std::nullopt;
  boost::system::error_code ec;
  boost::json::value id = boost::json::parse(id_text_, ec);
  if (ec || !valid_id(id)) return std::nullopt;
  return id;
}

}  // namespace toolgate::mcp
