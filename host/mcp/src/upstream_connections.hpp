// upstream_connections.hpp -- the HTTP upstream's connections to its one
// server: made (TCP, TLS with the host name verified, under a connect
// deadline) and kept open between messages (HTTP/1.1 keep-alive), so a call
// does not pay a TCP connect, and for https a TLS handshake, every time.
//
// A connection goes back to the pool only after an exchange that ended
// cleanly (the whole answer read, the server keeping the connection, no
// cancellation).  One is reused only while it is younger than the server's
// own idle timeout, less a second (its `Keep-Alive: timeout=N`; 4 s when it
// gives none, below the 5 s common in HTTP servers), and only when a peek
// at its socket shows it still open with nothing unread.  A request is never
// sent a second time: if a server closes a connection just as it is reused,
// that request ends with an error (a POST may not be repeated; the tool may
// have run).
#pragma once

#include <toolgate/mcp/http_upstream.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace toolgate::mcp {

// One connection, plain TCP or TLS over it; used by one thread at a time.
struct UpstreamConnection {
  boost::asio::io_context ioc;  // for the connect and handshake deadlines
  std::optional<boost::beast::tcp_stream> tcp_stream;
  std::optional<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_stream;

  boost::beast::tcp_stream& lowest() {
    return tls_stream ? boost::beast::get_lowest_layer(*tls_stream) : *tcp_stream;
  }
  int fd() { return lowest().socket().native_handle(); }
  template <class F>
  void with(F&& f) {
    if (tls_stream)
      f(*tls_stream);
    else
      f(*tcp_stream);
  }
};

// The idle time a `Keep-Alive` header value allows ("timeout=5, max=100"):
// nullopt when it names none.
std::optional<std::chrono::seconds> keep_alive_timeout(std::string_view header_value);

class UpstreamConnections {
 public:
  // `tls` is null for http://; it outlives this pool.
  UpstreamConnections(HttpUrl url, boost::asio::ssl::context* tls,
                      std::chrono::milliseconds connect_timeout);

  // An idle connection still fit for use, else a new one (throws
  // std::runtime_error saying why it could not be made).  `on_socket`
  // gets the socket as soon as there is one, before any handshake, so
  // another thread can shut it down.
  std::unique_ptr<UpstreamConnection> take(const std::function<void(int fd)>& on_socket);

  // After an exchange that ended cleanly with the server keeping the
  // connection; `server_timeout` is its Keep-Alive timeout when it gave one.
  void give_back(std::unique_ptr<UpstreamConnection> c,
                 std::optional<std::chrono::seconds> server_timeout);

  // Closes every idle connection; none is kept from then on.
  void close_all();

  static constexpr std::size_t max_idle = 64;
  static constexpr std::chrono::seconds default_idle{4};
  static constexpr std::chrono::seconds max_idle_time{60};

 private:
  std::unique_ptr<UpstreamConnection> connect(const std::function<void(int)>& on_socket);
  static bool still_open(int fd);

  struct Idle {
    std::unique_ptr<UpstreamConnection> connection;
    std::chrono::steady_clock::time_point usable_until;
  };
  HttpUrl url_;
  boost::asio::ssl::context* tls_;
  std::chrono::milliseconds connect_timeout_;
  std::mutex mutex_;
  std::vector<Idle> idle_;  // the most recently used last
  bool closed_ = false;
};

}  // namespace toolgate::mcp
