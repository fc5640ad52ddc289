// socket_server.hpp -- the Unix socket of `toolgate serve`: who may connect,
// how much they may send, how many at once (docs/design.md §16.2).
//
// Safe by construction: the socket's folder is created 0700 (0750 with a
// group) and refused if it already exists owned by someone else or
// writable by others; the socket is 0600 (0660 with a group); every peer's
// credentials (SO_PEERCRED) are checked against the allowed users before
// its first request is read.  A connection is served by a thread of its
// own, one request line at a time; the number of connections, the size of
// a line and a connection's idle time are bounded.
#pragma once

#include "protocol.hpp"

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace toolgate::serve {

struct ServerOptions {
  std::filesystem::path socket_path;
  std::optional<gid_t> group;  // socket 0660 and folder 0750, owned by this group
  // Users allowed to connect, besides the daemon's own user.
  std::vector<uid_t> allowed_uids;
  // Members of `group` are allowed too (their peer gid or supplementary
  // groups are not visible through SO_PEERCRED: the primary gid counts).
  std::size_t max_message_bytes = 8u << 20;
  std::size_t max_connections = 256;
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};
};

// The socket path to use when none is given: $TOOLGATE_SOCKET, else
// /run/toolgate/toolgate.sock for root, else
// $XDG_RUNTIME_DIR/toolgate/toolgate.sock.  nullopt (with *why) when none applies.
std::optional<std::filesystem::path> default_socket_path(std::string* why);
// (A client's default is hook_client::default_socket().)

class SocketServer {
 public:
  // Creates the folder and binds the socket; throws std::runtime_error
  // naming the path, what was wrong and the fix.
  SocketServer(ServerOptions options, Protocol& protocol);
  ~SocketServer();  // stop(), then removes the socket file
  SocketServer(const SocketServer&) = delete;
  SocketServer& operator=(const SocketServer&) = delete;

  // Accepts and serves until stop(); returns once every connection has ended.
  void run();
  // From any thread (a signal thread): ends run().
  void stop();
  std::size_t active_connections() const { return active_.load(); }

 private:
  // `space`: the peer's call-id namespace (Protocol::answer).
  void serve_connection(int fd, const std::string& space);
  bool peer_allowed(int fd, std::string* who, std::string* space) const;

  ServerOptions options_;
  Protocol& protocol_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: readable once stop() was called
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> active_{0};
  std::mutex done_mutex_;
  std::condition_variable done_;
};

}  // namespace toolgate::serve
