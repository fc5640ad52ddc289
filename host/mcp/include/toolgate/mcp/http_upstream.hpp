// http_upstream.hpp -- a remote MCP server over Streamable HTTP (or HTTPS)
// behind the gateway: `toolgate mcp M... -- https://host/mcp`.
//
// A bridge, seen by the gateway as a server on a pair of pipes (a
// ServerLink): each message the gateway writes is sent as its own POST,
// and every message of the answer -- a JSON body, or each event of an SSE
// stream -- comes back as a line.  So the gateway's relay, pipeline and
// protocol eras work unchanged; the bridge adds what HTTP needs:
//  - MCP 2026-07-28 (a message whose _meta names the version): the
//    MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, derived from
//    the body actually sent (after any hook rewrote it); cancelling is
//    closing the request's stream.
//  - 2025-06-18 / 2025-11-25: the session (Mcp-Session-Id from the answer
//    to initialize, sent on every later request, deleted at the end), the
//    negotiated version header, a GET stream for what the server sends
//    unasked (list changes, its own requests), notifications/cancelled
//    posted as a message.
//  - Credentials of the gateway's own (a bearer token from its
//    configuration); nothing of the client's reaches the server.
//  - HTTPS with the system's CAs or a given CA file, the host name
//    verified; a connect or handshake over `connect_timeout` fails.
// An answer that cannot be used -- a refusal, an HTTP error, a dropped
// connection -- ends its request with a JSON-RPC error saying what
// happened, so no call waits for an answer that will not come.
#pragma once

#include <toolgate/mcp/server_link.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::mcp {

struct HttpUrl {
  bool tls = false;
  std::string host;    // a name, an IPv4 address or an IPv6 address (no brackets)
  std::string port;    // "80" / "443" when the URL has none
  std::string target;  // the path and query, "/" when empty
  std::string text;    // the URL as given, for messages
};

// An http:// or https:// URL; nullopt with *why for anything else, and for
// one with credentials in it (user:password@ -- they would be logged) or a
// fragment.
std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* why);

struct HttpUpstreamOptions {
  HttpUrl url;
  std::string bearer_token;  // sent as Authorization: Bearer; empty: none
  std::string ca_file;       // HTTPS: trust these CAs instead of the system's
  std::chrono::milliseconds connect_timeout{10000};
  std::size_t max_message_bytes = std::size_t{16} << 20;
};

class HttpUpstream final : public ServerLink {
 public:
  // Starts the bridge (no connection is made until the first message);
  // throws std::runtime_error when the CA file cannot be read.  SIGPIPE
  // must be ignored.
  static std::unique_ptr<HttpUpstream> open(HttpUpstreamOptions options);
  ~HttpUpstream() override;
  HttpUpstream(const HttpUpstream&) = delete;
  HttpUpstream& operator=(const HttpUpstream&) = delete;

  int stdin_fd() const override;
  int stdout_fd() const override;
  void close_stdin() override;
  std::optional<int> wait_for(std::chrono::milliseconds timeout) override;
  void send_signal(int sig) override;
  std::string describe_end(int status) const override;

  struct Impl;  // http_upstream.cpp

 private:
  explicit HttpUpstream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolgate::mcp
