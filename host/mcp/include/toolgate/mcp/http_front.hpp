// http_front.hpp -- `toolgate mcp --listen`: MCP clients over Streamable
// HTTP, in front of one gateway (host/README "Serve over HTTP").
//
// The front end speaks HTTP and nothing else: every request it accepts is
// relayed, as one line, to a Gateway whose client side is a pair of pipes,
// and the gateway's answer comes back the same way.  So an HTTP client
// gets exactly the pipeline, policy and byte-exact relay a stdio client
// gets.  Under 2026-07-28 requests carry everything in themselves (no
// session), so one gateway serves every HTTP client: the front end gives
// each request an id of its own on the way in and puts the client's back
// on the answer, byte for byte.
//
// What it refuses before anything is relayed: a Host that is not a
// loopback name (on a loopback listener), a foreign Origin (403), a
// missing or wrong bearer token when tokens are configured (401), another
// path (404) or method (405), a body that is not JSON (415), over the size
// limit (413) or not a single JSON-RPC request, and headers that disagree
// with the body (400, HeaderMismatch).  Closing the HTTP stream of a
// request cancels it (the gateway is told with notifications/cancelled).
// subscriptions/listen gets an SSE stream.  Every other request gets a
// single JSON response, unless progress for it comes first (its
// _meta.progressToken, replaced by the request's own id on the way in so
// that two clients' tokens cannot meet) and the client accepts
// text/event-stream: then the answer is an SSE stream, the progress its
// first events and the response its last.  Log messages are not sent.
//
// 2025-era clients (2025-06-18, 2025-11-25) are served too, through a
// session the listener keeps and translates into 2026-07-28 requests for
// the same gateway (legacy_http.hpp): initialize, Mcp-Session-Id, the GET
// stream for list changes, questions asked on a call's SSE stream, and
// DELETE to end the session.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace toolgate::mcp {

struct HttpListenOptions {
  std::string address = "127.0.0.1";  // a non-loopback address needs tokens
  std::uint16_t port = 0;             // 0: any free port (port() says which)
  // Origins allowed besides the listener's own (http://127.0.0.1:PORT, ...).
  std::vector<std::string> allow_origins;
  // Bearer tokens (http_checks.hpp read_token_file); empty: none asked for.
  std::vector<std::string> tokens;
  std::size_t max_body_bytes = std::size_t{4} << 20;
  std::size_t max_header_bytes = std::size_t{16} << 10;
  std::size_t max_connections = 256;  // more are closed as they come
  // A request must arrive whole within this, and a connection may sit idle
  // between requests this long (slow-loris: a trickle does not extend it).
  std::chrono::milliseconds request_timeout{30000};
  // Each write must finish within this (a client that never reads).
  std::chrono::milliseconds write_timeout{30000};
  // An SSE comment this often on an open subscriptions/listen stream.
  std::chrono::milliseconds keepalive{15000};
  // Notifications queued for a subscriber that does not read, before its
  // stream is closed.
  std::size_t max_queued_events = 1024;
  // 2025-era clients' sessions (initialize, Mcp-Session-Id) held at once;
  // an initialize over the limit gets 503 once idle sessions are ended.
  std::size_t max_sessions = 1024;
  // A session with no request, stream or call in progress for this long
  // is ended (its id then gets 404, and the client initializes again).
  std::chrono::milliseconds session_idle_timeout{std::chrono::hours(1)};
  // A question the listener asks a 2025-era client (an approval, a
  // server's question) must be answered within this, or the call ends
  // with an error (a person may be deciding: minutes, not seconds).
  std::chrono::milliseconds question_timeout{std::chrono::minutes(10)};
};

// Bearer tokens (--token-file): one per line, blank lines and lines
// starting with '#' skipped, surrounding spaces trimmed.  The file must be
// a regular file owned by this user that no one else can read or write
// (mode 0600 or stricter), hold at least one token, and each token must be
// at least 16 characters of visible ASCII; otherwise std::runtime_error
// saying which rule and how to fix it.
std::vector<std::string> read_token_file(const std::filesystem::path& file);

class HttpFront {
 public:
  // Binds and listens; throws std::runtime_error naming the address when
  // it cannot, or when a non-loopback address has no tokens.  Writes the
  // client's messages to `to_gateway` and reads the gateway's from
  // `from_gateway` (lines, at most `max_message_bytes` each); owns neither.
  HttpFront(HttpListenOptions options, int to_gateway, int from_gateway,
            std::size_t max_message_bytes);
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  std::uint16_t port() const;
  // Serves until stop() or the gateway's output ends.
  void run();
  // Any thread: closes the listener and every connection (a request in
  // progress is cancelled), and makes run() return.
  void stop();

  struct Impl;  // http_front.cpp (public so its connections can name it)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolgate::mcp
