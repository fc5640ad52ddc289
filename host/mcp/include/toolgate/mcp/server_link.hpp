// server_link.hpp -- how the gateway reaches its MCP server: a pair of
// descriptors carrying JSON-RPC lines, and a lifetime to end.
//
// The gateway speaks MCP's stdio framing to whatever is behind this: a
// child process on pipes (child_process.hpp) or a bridge that carries each
// message over Streamable HTTP to a remote server (http_upstream.hpp).  So
// the relay, the pipeline and the protocol eras are written once.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace toolgate::mcp {

class ServerLink {
 public:
  virtual ~ServerLink() = default;
  virtual int stdin_fd() const = 0;   // the gateway writes the server's messages here
  virtual int stdout_fd() const = 0;  // and reads the server's from here
  // No more messages: the server is asked to end (a process's stdin is
  // closed; an HTTP session is deleted).
  virtual void close_stdin() = 0;
  // Its end status once it has ended, or nullopt if it is still running
  // after `timeout`.
  virtual std::optional<int> wait_for(std::chrono::milliseconds timeout) = 0;
  // SIGTERM / SIGKILL: end now (a process group is signalled; an HTTP
  // bridge drops its connections).
  virtual void send_signal(int sig) = 0;
  // What an end status means, for logs and errors ("exited with status 3").
  virtual std::string describe_end(int status) const = 0;
};

}  // namespace toolgate::mcp
