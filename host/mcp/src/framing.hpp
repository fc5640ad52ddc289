// framing.hpp -- MCP's stdio transport: JSON-RPC messages, one per line.
//
// Messages are delimited by '\n' and must not contain embedded newlines.  A
// line longer than the limit is dropped whole (up to its newline) and
// reported as `oversize`, so one bad message cannot make the reader buffer
// without bound or lose its place in the stream.  The dropped line is still
// scanned as it streams past, so an oversize *answer* names the request it
// was for (see envelope_scanner.hpp).
#pragma once

#include "envelope_scanner.hpp"

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::mcp {

struct Frame {
  enum class Kind { message, oversize } kind = Kind::message;
  std::string text;       // the line without its '\n' (and without a trailing '\r')
  std::size_t bytes = 0;  // oversize: how long the line was (at least)
  // oversize: the id of the request it answers, when it is an answer.
  std::optional<boost::json::value> answer_id;
};

// Splits a byte stream into frames.  Blank lines are skipped.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_bytes) : max_(max_bytes) {}
  // Appends every frame completed by `bytes` to `out`.
  void feed(std::string_view bytes, std::vector<Frame>& out);
  // At end of stream: the last line if it had no newline (a partial
  // message is still handed on; it fails to parse if it was cut).
  std::optional<Frame> finish();

 private:
  void complete(std::vector<Frame>& out);
  std::size_t max_;
  std::string line_;
  bool discarding_ = false;    // inside an oversize line
  std::size_t discarded_ = 0;  // its length so far
  EnvelopeScanner scanner_;    // over the oversize line
};

// Reads frames from a file descriptor.  wake() (any thread) makes a
// blocked next() return end-of-stream.
class LineReader {
 public:
  LineReader(int fd, std::size_t max_bytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  // The next frame; nullopt at end of stream, on a read error or after wake().
  std::optional<Frame> next();
  void wake();
  // Whether another frame is already here: split and waiting, or bytes
  // readable now (a poll that does not wait).  For the reading thread.
  bool more_waiting() const;

 private:
  int fd_;
  int wake_[2] = {-1, -1};
  LineSplitter splitter_;
  std::vector<Frame> ready_;
  std::size_t pos_ = 0;
  bool eof_ = false;
};

// Writes one message per line; thread-safe; a write that fails (the peer
// closed its end) marks the writer broken and every later write fails.
class LineWriter {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}
  bool write(std::string_view message);
  bool broken() const;
  // Every later write fails; returns once no write is in progress, so the
  // descriptor can then be closed safely.
  void shut();

 private:
  mutable std::mutex mutex_;
  int fd_;
  bool broken_ = false;
};

}  // namespace toolgate::mcp
