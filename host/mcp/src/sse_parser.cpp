#include "sse_parser.hpp"

namespace toolgate::mcp {

void SseParser::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;  // CRLF: the CR ended the line
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      line_done();
      continue;
    }
    // A line is kept only up to the limit; past it the event is dropped.
    if (line_.size() + data_.size() <= max_) {
      line_.push_back(c);
    } else {
      oversize_ = true;
      ++dropped_;
    }
  }
}

void SseParser::line_done() {
  if (line_.empty()) {  // a blank line: the event ends
    if (oversize_) {
      if (on_oversize_) on_oversize_(data_.size() + dropped_);
    } else if (has_data_) {
      on_data_(std::move(data_));
    }
    data_.clear();
    has_data_ = oversize_ = false;
    dropped_ = 0;
    return;
  }
  if (oversize_) {  // the part of an over-long line that was kept counts too
    dropped_ += line_.size();
    line_.clear();
    return;
  }
  std::string_view line = line_;
  std::string_view field = line.substr(0, line.find(':'));
  std::string_view value =
      field.size() < line.size() ? line.substr(field.size() + 1) : std::string_view();
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  }
  line_.clear();
}

}  // namespace toolgate::mcp
