// The MCP stdio framing (host/src/mcp/framing.cpp) and the envelope
// scanner (host/src/mcp/envelope_scanner.cpp).
//
// Input: byte 0 picks the line limit, byte 1 the chunk size; the rest is
// the stream.  Checked:
//   - LineSplitter yields the same frames however the stream is chunked,
//     and the same as LineReader reading it from a pipe;
//   - the frames are those of a plain model of the format: the stream cut
//     at each '\n' (and at its end); a line over the limit is one oversize
//     frame of its length, with the answer id the scanner reads in it;
//     any other line loses one trailing '\r' (CRLF), has every other '\r'
//     as a space (JSON whitespace a CR-splitting peer would read as a line
//     end), and, unless blank, is a message;
//   - on a line that is valid JSON (no duplicate keys, no escaped top-level
//     keys), the scanner's answer id is exactly what the parsed message
//     says: the top-level "id" of an answer ("result" or "error", no
//     "method") when it is a string or an integer.
#include "envelope_scanner.hpp"
#include "framing.hpp"
#include "fuzz_check.hpp"
#include "jsonrpc.hpp"
#include "strict_json.hpp"

#include <toolgate/mcp/gateway.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace json = boost::json;
using toolgate::mcp::Frame;

namespace {

bool same(const Frame& a, const Frame& b) {
  return a.kind == b.kind && a.text == b.text && a.bytes == b.bytes && a.answer_id == b.answer_id;
}

bool same(const std::vector<Frame>& a, const std::vector<Frame>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

std::vector<Frame> split(std::string_view stream, std::size_t max, std::size_t chunk) {
  toolgate::mcp::LineSplitter s(max);
  std::vector<Frame> out;
  while (!stream.empty()) {
    std::size_t n = std::min(chunk, stream.size());
    s.feed(stream.substr(0, n), out);
    stream.remove_prefix(n);
  }
  if (auto last = s.finish()) out.push_back(std::move(*last));
  return out;
}

// The stream through a pipe (it fits: at most 64 KiB), read by LineReader.
std::vector<Frame> read_pipe(std::string_view stream, std::size_t max) {
  int fds[2];
  FUZZ_CHECK(::pipe2(fds, O_CLOEXEC) == 0);
  while (!stream.empty()) {
    ssize_t n = ::write(fds[1], stream.data(), stream.size());
    FUZZ_CHECK(n > 0);
    stream.remove_prefix(static_cast<std::size_t>(n));
  }
  ::close(fds[1]);
  std::vector<Frame> out;
  {
    toolgate::mcp::LineReader reader(fds[0], max);
    while (auto f = reader.next()) out.push_back(std::move(*f));
  }
  ::close(fds[0]);
  return out;
}

bool blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

// The frames of `stream` by the letter of framing.hpp, line by line.
std::vector<Frame> model(std::string_view stream, std::size_t max) {
  std::vector<Frame> out;
  while (!stream.empty()) {
    const std::size_t nl = stream.find('\n');
    std::string_view line = stream.substr(0, nl);
    stream.remove_prefix(nl == std::string_view::npos ? stream.size() : nl + 1);
    if (line.size() > max) {
      toolgate::mcp::EnvelopeScanner scanner;
      scanner.feed(line);
      out.push_back({Frame::Kind::oversize, {}, line.size(), scanner.answer_id()});
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string text(line);
    std::replace(text.begin(), text.end(), '\r', ' ');
    if (!blank(text)) out.push_back({Frame::Kind::message, text, text.size(), {}});
  }
  return out;
}

// Whether a top-level key of `line` (valid JSON) is written with an
// escape: the scanner deliberately does not decode those.
bool escaped_top_level_key(std::string_view line) {
  std::size_t depth = 0;
  bool key_next = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      const bool key = depth == 1 && key_next;
      key_next = false;
      for (++i; line[i] != '"'; ++i)
        if (line[i] == '\\') {
          if (key) return true;
          ++i;
        }
    } else if (c == '{' || c == '[') {
      ++depth;
      key_next = depth == 1;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',') {
      key_next = depth == 1;
    }
  }
  return false;
}

// What the scanner should say about a line, from the parsed message;
// nullopt when the line is not comparable (not strict JSON, or a top-level
// key with an escape).
std::optional<std::optional<json::value>> expected_answer_id(std::string_view line) {
  auto v = toolgate::detail::parse_strict(line, {}, nullptr);
  if (!v || escaped_top_level_key(line)) return std::nullopt;
  std::optional<json::value> none;
  const auto* o = v->if_object();
  const auto* id = o ? o->if_contains("id") : nullptr;
  if (!o || o->contains("method") || !(o->contains("result") || o->contains("error")) || !id ||
      !toolgate::mcp::valid_id(*id))
    return none;
  return std::optional<json::value>(*id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t max =
      data[0] == 0 ? toolgate::mcp::GatewayOptions{}.max_message_bytes : data[0];
  const std::size_t chunk = 1 + data[1] % 16;
  const std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);

  const auto whole = split(stream, max, stream.size() + 1);
  FUZZ_CHECK(same(whole, model(stream, max)));
  FUZZ_CHECK(same(whole, split(stream, max, chunk)));
  if (stream.size() <= 60000) FUZZ_CHECK(same(whole, read_pipe(stream, max)));

  for (const auto& f : whole) {
    if (f.kind == Frame::Kind::oversize) continue;
    toolgate::mcp::EnvelopeScanner scanner;
    scanner.feed(f.text);
    auto got = scanner.answer_id();
    if (got) FUZZ_CHECK(toolgate::mcp::valid_id(*got));
    // The scanner keeps at most 256 bytes of an id: compare on lines
    // shorter than that.
    if (f.text.size() < 256)
      if (auto want = expected_answer_id(f.text)) FUZZ_CHECK(got == *want);
  }
  return 0;
}
