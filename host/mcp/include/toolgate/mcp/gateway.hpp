// gateway.hpp -- `toolgate mcp`: an MCP client on one side, an MCP server
// (a child process) on the other, every tools/call through the pipeline.
//
// Threads: the caller of run() reads the client; one thread reads the
// server; tool calls run on a pool of workers (many in flight).  Requests in
// both directions get fresh ids from the gateway (src/peer.hpp), so its own
// requests (forwarded tools/call, elicitation, tools/list refreshes) never
// collide with the peers'.
#pragma once

#include <toolgate/host.hpp>
#include <toolgate/mcp/child_process.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace toolgate::mcp {

// The protocol spoken to the server (host/README "Protocol eras").
struct ServerProtocol {
  // false: 2025-06-18 / 2025-11-25, which begin with initialize (the
  // client's, relayed, or the gateway's own for a 2026-07-28 client).
  // true: MCP 2026-07-28 -- no initialize, every request carries the
  // version and the gateway's (empty) client capabilities in its _meta.
  bool modern = false;
  // modern: the server's answer to server/discover (its DiscoverResult) as
  // JSON text: its capabilities, identity and instructions.
  std::string discover_result;
};

// What probing a server with server/discover found (MCP 2026-07-28's stdio
// backward-compatibility rule).
struct ServerProbe {
  enum class Outcome {
    modern,       // it answered with a DiscoverResult naming 2026-07-28
    legacy,       // any other error: it speaks an older version
    no_answer,    // no answer in time: taken for an older version (which may ignore a
                  // request before initialize)
    exited,       // it closed its output (older servers that end on any request before
                  // initialize do this): start it again and speak the older version
    unsupported,  // a 2026-07-28-era server that does not offer 2026-07-28: no fallback
  } outcome = Outcome::legacy;
  ServerProtocol protocol;  // modern: what to put in GatewayOptions
  std::string detail;       // what the server answered (or did not), for logs and errors
};

// Sends server/discover to a server that was just started, before anything
// else, and reads its output until the answer, its end, or `timeout`.
// Nothing the server writes before its answer is kept (a server writes
// nothing unasked before it is initialized).  SIGPIPE must be ignored.
ServerProbe probe_server(ServerLink& server, std::chrono::milliseconds timeout);

// Where replicas of the gateway keep what they share (README "Running
// several replicas"): a Redis server, 7.0 or later.
struct SharedStoreOptions {
  std::string host;
  int port = 6379;
  // A file only this user can read, holding the password (AUTH); empty:
  // none sent.
  std::filesystem::path password_file;
  // Every key starts with this.  Replicas of one deployment (one upstream
  // server, one policy) share a prefix; other deployments use their own.
  std::string prefix;
  // For connecting and for each reply.  After a failure the store is not
  // tried again for this long.
  std::chrono::milliseconds timeout{250};
};

struct GatewayOptions {
  // Longer lines from either peer are dropped whole and answered -32700.
  std::size_t max_message_bytes = std::size_t{16} << 20;
  // Calls running at once (each holds a worker thread while it waits for
  // the server); more queue.  High, so that slow calls do not hold quick
  // ones back (src/worker_pool.hpp); a limit on threads, not on clients.
  std::size_t max_calls_in_flight = 1024;
  // When the client closes its input: how long the server gets to exit
  // after its stdin is closed, then after SIGTERM, before SIGKILL.
  std::chrono::milliseconds shutdown_grace{2000};
  std::chrono::milliseconds terminate_grace{2000};
  // When the gateway shuts down: how long calls still running get to end
  // after they are cancelled.  A hook that never returns cannot be
  // interrupted in process, so past this the gateway gives up on them (see
  // run()) instead of waiting forever.
  std::chrono::milliseconds call_drain_grace{5000};
  // How often a waiting call re-checks its signal (a client's cancellation
  // wakes it at once; this bounds the latency of other signals).
  std::chrono::milliseconds signal_check{5};
  std::string session_id = "mcp";
  // Tool pinning (src/tool_pins.hpp): the pin file (empty: each tool is
  // pinned when the session first lists it) and what a tool whose
  // definition drifted gets -- "block" (its calls are denied by the guard
  // toolgate.mcp/pins and it is left out of tools/list), "ask" (the user is
  // asked before each call) or "allow" (logged only).
  std::filesystem::path pin_file;
  std::string on_drift = "block";
  // Replicas (src/shared_store.hpp).  With a store, tools are pinned on
  // their first sight by any replica (unless a pin file names them all),
  // and a spent approval is spent for every replica.  A key file (each
  // line one key of at least 32 characters, only this user may read it)
  // seals the approvals' requestState with its first key and opens states
  // sealed with any of them, so a retry may reach any replica that holds
  // the file; it needs the store (a key shared without the spent approvals
  // would let one approval run once per replica).  Without a key file each
  // process makes its own key.
  std::optional<SharedStoreOptions> shared_store;
  std::filesystem::path seal_key_file;
  // Code Mode (docs/design.md §17.7), for a host on which enable_code_mode
  // was called: run_code joins the client's tools/list, alongside the
  // server's tools or instead of them (a direct call of a server tool is
  // then refused); the server's tools are the script's bindings either
  // way, and each of its calls is a tools/call to the server through the
  // pipeline.
  enum class CodeTools { off, alongside, only };
  CodeTools code_tools = CodeTools::off;
  // Tools the gateway serves itself, besides the server's (toolgate's file
  // tools: `toolgate mcp --tools fs`): listed after the server's on the
  // last page, called through the pipeline in this process.  A server tool
  // of the same name is not served.
  std::vector<ToolDefinition> own_tools = {};
  // What the server speaks (probe_server finds out); the older protocol
  // unless set.
  ServerProtocol server_protocol = {};
};

// `toolgate mcp pin`: initializes `server`, lists every tool, and returns
// the text of a pin file for them (src/tool_pins.hpp).  Throws
// std::runtime_error when the server does not answer usably.
std::string fetch_pin_file(ServerLink& server, const GatewayOptions& options = {});

class Gateway {
 public:
  // Registers the server's tools in `host` (as tools/list results pass) and
  // sets its approver; `host` must not run calls of those tools after the
  // gateway is destroyed.  Reads the client from `client_in`, writes it to
  // `client_out`.
  Gateway(Host& host, int client_in, int client_out, ServerLink& server,
          GatewayOptions options = {});
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // Relays until the client closes its input -- then shuts the server down
  // (stdin closed, SIGTERM, SIGKILL) and returns 0 -- or until the server
  // exits, which fails every pending call and returns 1; exit_reason() says
  // why.
  //
  // If calls are still running call_drain_grace after shutdown began, their
  // threads are abandoned: run() returns 1, exit_reason() names each stuck
  // call, and abandoned_calls() is true -- the process must then end (e.g.
  // std::_Exit) without destroying the gateway or the host, whose code the
  // stuck threads are still in.
  int run();
  // From any thread (a signal thread on SIGTERM): run() proceeds as if the
  // client had closed its input -- calls in flight cancelled, the server
  // shut down (stdin closed, SIGTERM, SIGKILL) -- and returns.
  void request_stop();
  std::string exit_reason() const;
  bool abandoned_calls() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolgate::mcp
