// child_process.hpp -- the MCP server: a child process on pipes.
//
// Its stdin and stdout are pipes to us; its stderr is ours (servers log
// there).  Signal dispositions and the mask are reset to defaults in the
// child, whatever the gateway ignores or blocks.
//
// The server's lifetime is tied to ours: it runs in a process group of its
// own (so `npx` and the node process it starts are signalled together, and
// a Ctrl-C in the terminal reaches the gateway only, which then shuts the
// server down in order), and it gets SIGKILL if the gateway dies without
// doing so (PR_SET_PDEATHSIG; that reaches the direct child -- the rest of
// the group is signalled by send_signal and the destructor).
#pragma once

#include <toolgate/mcp/server_link.hpp>

#include <sys/types.h>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace toolgate::mcp {

class ChildProcess final : public ServerLink {
 public:
  // Starts argv[0] (searched in PATH when it has no '/'); throws
  // std::runtime_error naming the command if it cannot be started.
  static std::unique_ptr<ChildProcess> spawn(const std::vector<std::string>& argv);
  ~ChildProcess() override;  // a child still running is killed (its group) and reaped
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int stdin_fd() const override { return in_; }    // write end of its stdin
  int stdout_fd() const override { return out_; }  // read end of its stdout
  void close_stdin() override;

  // Its wait status once it has exited (reaped), or nullopt if it is still
  // running after `timeout`.
  std::optional<int> wait_for(std::chrono::milliseconds timeout) override;
  // To its whole process group (the server and whatever it started).
  void send_signal(int sig) override;
  // "exited with status 3", "was killed by signal 9 (Killed)".
  static std::string describe(int wait_status);
  std::string describe_end(int status) const override { return describe(status); }

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::optional<int> status_;
};

}  // namespace toolgate::mcp
