// hook_client.hpp -- what an agent's hook process does (docs/design.md
// §16.3): read the agent's payload, ask a Decider (the daemon, or a host in
// this process), answer in the agent's format -- failing closed on anything
// that goes wrong.  Shared by `toolgate hook` (which can also decide in
// process) and `toolgate-hook`, the small client agents run for every call:
// it links neither the engine nor the plugins' libraries, so it starts in
// about the time of an empty process (README "Agents' own tools").
#pragma once

#include "agent_hooks/agent_format.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace toolgate::hook_client {

// Something between the hook and its answer failed; the message is what
// the agent shows (cause and fix).
struct HookFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where requests go: one protocol request in, its answer out.
class Decider {
 public:
  virtual ~Decider() = default;
  virtual boost::json::object ask(const boost::json::object& request) = 0;
};

// The daemon over its Unix socket; every wait bounded by one deadline.
std::unique_ptr<Decider> daemon_decider(std::filesystem::path socket,
                                        std::chrono::milliseconds timeout);

// The whole hook: stdin to stdout/stderr; returns the exit code.  The
// decider is made only after the payload was read (make_decider may throw:
// that, too, is the agent's blocking answer).  `who` starts every message
// ("toolgate hook claude-code").  The whole hook -- reading stdin, making
// the decider, waiting -- is bounded by `bound`: past it the hook answers
// "blocked" itself and exits (an agent that kills a slow hook lets the
// call through).  Also blocks by exit code when stdout cannot be written.
int answer_hook(const agent_hooks::AgentFormat& format, const std::string& who,
                const std::function<std::unique_ptr<Decider>()>& make_decider,
                std::chrono::milliseconds bound);

// The client's default socket: $TOOLGATE_SOCKET, the user's socket if it
// exists, else the system-wide one (docs/design.md §16.2).
std::filesystem::path default_socket();

}  // namespace toolgate::hook_client
