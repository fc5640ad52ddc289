#include "upstream_connections.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <openssl/ssl.h>
#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <stdexcept>

namespace toolgate::mcp {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

std::optional<std::chrono::seconds> keep_alive_timeout(std::string_view value) {
  // A list of name=value parameters; only "timeout" matters here.
  while (!value.empty()) {
    const auto comma = value.find(',');
    auto item = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    const auto eq = item.find('=');
    if (eq != 7) continue;
    bool named = true;
    for (std::size_t i = 0; i < 7; ++i)
      named &= std::tolower(static_cast<unsigned char>(item[i])) == "timeout"[i];
    if (!named) continue;
    const auto digits = item.substr(8);
    long long n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size() || n < 0) return std::nullopt;
    return std::chrono::seconds(n);
  }
  return std::nullopt;
}

UpstreamConnections::UpstreamConnections(HttpUrl url, ssl::context* tls,
                                         std::chrono::milliseconds connect_timeout)
    : url_(std::move(url)), tls_(tls), connect_timeout_(connect_timeout) {}

bool UpstreamConnections::still_open(int fd) {
  // Open with nothing to read: the peek would block.  0 is the server's
  // close; bytes nobody asked for mean the connection is not in a known
  // state.  Either way it is dropped.
  char byte;
  const auto n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

std::unique_ptr<UpstreamConnection> UpstreamConnections::take(
    const std::function<void(int)>& on_socket) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<Idle> stale;  // closed outside the lock
  {
    std::lock_guard lock(mutex_);
    while (!idle_.empty()) {
      Idle i = std::move(idle_.back());
      idle_.pop_back();
      if (i.usable_until > now && still_open(i.connection->fd())) {
        on_socket(i.connection->fd());
        return std::move(i.connection);
      }
      stale.push_back(std::move(i));
    }
  }
  return connect(on_socket);
}

void UpstreamConnections::give_back(std::unique_ptr<UpstreamConnection> c,
                                    std::optional<std::chrono::seconds> server_timeout) {
  auto keep = server_timeout ? *server_timeout - std::chrono::seconds(1) : default_idle;
  if (keep > max_idle_time) keep = max_idle_time;
  if (keep <= std::chrono::seconds(0)) return;
  std::unique_ptr<UpstreamConnection> dropped;  // closed outside the lock
  std::lock_guard lock(mutex_);
  if (closed_) return;
  if (idle_.size() >= max_idle) {
    dropped = std::move(idle_.front().connection);  // the oldest goes
    idle_.erase(idle_.begin());
  }
  idle_.push_back({std::move(c), std::chrono::steady_clock::now() + keep});
}

void UpstreamConnections::close_all() {
  std::vector<Idle> all;
  std::lock_guard lock(mutex_);
  closed_ = true;
  all.swap(idle_);
}

std::unique_ptr<UpstreamConnection> UpstreamConnections::connect(
    const std::function<void(int)>& on_socket) {
  auto c = std::make_unique<UpstreamConnection>();
  tcp::resolver resolver(c->ioc);
  boost::system::error_code ec;
  const auto endpoints = resolver.resolve(url_.host, url_.port, ec);
  if (ec) throw std::runtime_error("cannot resolve " + url_.host + ": " + ec.message());
  if (tls_)
    c->tls_stream.emplace(c->ioc, *tls_);
  else
    c->tcp_stream.emplace(c->ioc);
  auto& s = c->lowest();
  s.expires_after(connect_timeout_);
  s.async_connect(endpoints, [&](boost::system::error_code e, const tcp::endpoint&) { ec = e; });
  c->ioc.run();
  if (ec)
    throw std::runtime_error(
        "cannot connect to " + url_.host + ":" + url_.port + ": " +
        (ec == beast::error::timeout ? std::string("timed out") : ec.message()));
  on_socket(c->fd());
  if (c->tls_stream) {
    if (!SSL_set_tlsext_host_name(c->tls_stream->native_handle(), url_.host.c_str()))
      throw std::runtime_error("cannot set the TLS server name");
    c->tls_stream->set_verify_mode(ssl::verify_peer);
    c->tls_stream->set_verify_callback(ssl::host_name_verification(url_.host));
    s.expires_after(connect_timeout_);
    c->tls_stream->async_handshake(ssl::stream_base::client,
                                   [&](boost::system::error_code e) { ec = e; });
    c->ioc.restart();
    c->ioc.run();
    if (ec)
      throw std::runtime_error(
          "the TLS handshake with " + url_.host +
          " failed: " + (ec == beast::error::timeout ? std::string("timed out") : ec.message()));
  }
  s.expires_never();
  return c;
}

}  // namespace toolgate::mcp
