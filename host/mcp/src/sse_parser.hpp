// sse_parser.hpp -- Server-Sent Events, as an MCP server's Streamable HTTP
// response carries JSON-RPC messages (one per event, in its data lines).
//
// Per the HTML standard's event-stream rules, the subset MCP needs: lines
// end with LF, CRLF or CR; "data:" lines are joined with LF; a blank line
// ends the event; comments (":") and other fields (event, id, retry) are
// skipped.  An event's data over the limit is dropped whole and reported.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace toolgate::mcp {

class SseParser {
 public:
  // `on_data` gets each complete event's data (events without data are
  // skipped); `on_oversize` the size of one dropped for being over `max_bytes`.
  SseParser(std::size_t max_bytes, std::function<void(std::string)> on_data,
            std::function<void(std::size_t)> on_oversize = {})
      : max_(max_bytes), on_data_(std::move(on_data)), on_oversize_(std::move(on_oversize)) {}
  void feed(std::string_view bytes);

 private:
  void line_done();
  std::size_t max_;
  std::function<void(std::string)> on_data_;
  std::function<void(std::size_t)> on_oversize_;
  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool oversize_ = false;
  std::size_t dropped_ = 0;
  bool after_cr_ = false;
};

}  // namespace toolgate::mcp
