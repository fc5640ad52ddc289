// mcp.cpp -- `toolgate mcp [M...] [--disable G] [--events FILE]
//              [--max-message-bytes N] [--pins FILE] [--on-drift D]
//              [--server-protocol P] -- CMD ARGS...`
//           and `toolgate mcp pin [--pins FILE] [--server-protocol P] -- CMD ARGS...`
//           (the tools' pins).
// The MCP gateway: starts CMD as the MCP server and relays MCP between the
// client on our stdin/stdout and the server, running every tools/call
// through the pipeline of the manifests.  stdout carries protocol only,
// written through a private descriptor (fd 1 itself is pointed at stderr,
// so a plugin's printf cannot corrupt the stream); logs go to stderr.  Exit status: 0 when the
// client closed its input (the server was shut down), 1 when the server exited or could not start
// or a manifest did not load, 2 on a usage error, 128 + N after signal N (SIGINT, SIGTERM), with
// the server shut down.
#include "options.hpp"
#include "stop_signals.hpp"

#include <toolgate/mcp/child_process.hpp>
#include <toolgate/mcp/gateway.hpp>
#include <toolgate/mcp/http_front.hpp>
#include <toolgate/mcp/http_upstream.hpp>
#include <toolgate/mcp/server_group.hpp>

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace toolgate::cli {

namespace {

// How long a server gets to answer the server/discover probe before it is
// taken for one of the older protocol (which may ignore a request that
// comes before initialize).
constexpr std::chrono::seconds probe_timeout{10};
// How long each server of a group gets for each answer while the group
// starts (initialize, tools/list): npx may fetch the server first.
constexpr std::chrono::seconds group_answer_timeout{60};

// --server-protocol: "auto" probes with server/discover (MCP 2026-07-28's
// backward-compatibility rule) and falls back to the older protocol;
// "2026-07-28" requires that version; "legacy" skips the probe and speaks
// 2025-06-18 / 2025-11-25, for servers that misbehave when probed.  A
// server that exits when probed (some older ones end on any request before
// initialize) is started again and spoken to in the older protocol.
// How the server is reached: the command after `--` started as a child
// process, or -- when it is a single http:// or https:// URL -- a bridge
// to a remote server (http_upstream.hpp), with the gateway's own
// credentials (--upstream-token-file: the first token of a file only its
// owner can read) and CAs (--upstream-ca).
using StartServer = std::function<std::unique_ptr<mcp::ServerLink>()>;

// --servers FILE: the servers of a group (server_group.hpp), each started
// as the file says; one that cannot be started is reported and left out.
StartServer group_starter(const std::filesystem::path& file, std::size_t max_message_bytes) {
  auto config = mcp::read_server_group_config(file);
  return [config, max_message_bytes]() -> std::unique_ptr<mcp::ServerLink> {
    std::vector<mcp::ServerGroup::Member> members;
    std::string failures;
    for (const auto& s : config.servers) {
      mcp::ServerGroup::Member m{s.name, s.prefixed ? s.name + config.separator : "", nullptr};
      try {
        if (!s.command.empty()) {
          m.link = mcp::ChildProcess::spawn(s.command);
        } else {
          std::string why;
          auto url = mcp::parse_http_url(s.url, &why);
          if (!url) throw std::runtime_error(why);
          mcp::HttpUpstreamOptions o;
          o.url = *url;
          o.max_message_bytes = max_message_bytes;
          if (!s.token_file.empty()) o.bearer_token = mcp::read_token_file(s.token_file).front();
          if (!s.ca_file.empty()) o.ca_file = s.ca_file.string();
          m.link = mcp::HttpUpstream::open(o);
        }
      } catch (const std::exception& e) {
        spdlog::error("the MCP server \"{}\" of the group cannot be started: {}", s.name, e.what());
        failures += "; \"" + s.name + "\": " + e.what();
        continue;
      }
      members.push_back(std::move(m));
    }
    if (members.empty())
      throw std::runtime_error("no MCP server of the group could be started" + failures);
    return mcp::ServerGroup::start(std::move(members), group_answer_timeout, max_message_bytes);
  };
}

StartServer server_starter(const std::vector<std::string>& command, const Args& rest) {
  const bool url = command.size() == 1 && (command.front().starts_with("http://") ||
                                           command.front().starts_with("https://"));
  if (!url) {
    for (const char* f : {"--upstream-token-file", "--upstream-ca"})
      if (flag_value(rest, f))
        throw UsageError(std::string(f) + " goes with a server URL after -- (https://HOST/mcp)");
    return [command] { return mcp::ChildProcess::spawn(command); };
  }
  std::string why;
  auto parsed = mcp::parse_http_url(command.front(), &why);
  if (!parsed) throw UsageError(why);
  mcp::HttpUpstreamOptions o;
  o.url = *parsed;
  if (auto f = flag_value(rest, "--upstream-token-file"))
    o.bearer_token = mcp::read_token_file(*f).front();
  if (auto f = flag_value(rest, "--upstream-ca")) o.ca_file = *f;
  const bool local = o.url.host == "127.0.0.1" || o.url.host == "localhost" || o.url.host == "::1";
  if (!o.url.tls && !o.bearer_token.empty() && !local)
    spdlog::warn("the token for {} is sent in clear text (http://, not https://)", o.url.text);
  return [o] { return mcp::HttpUpstream::open(o); };
}

mcp::ServerProtocol choose_server_protocol(std::unique_ptr<mcp::ServerLink>& server,
                                           const StartServer& start, const std::string& mode) {
  if (mode == "legacy") return {};
  auto probe = mcp::probe_server(*server, probe_timeout);
  using Outcome = mcp::ServerProbe::Outcome;
  switch (probe.outcome) {
    case Outcome::modern:
      spdlog::info("the MCP server speaks MCP 2026-07-28: {}", probe.detail);
      return probe.protocol;
    case Outcome::unsupported:
      throw std::runtime_error("the MCP server cannot be spoken to: " + probe.detail +
                               ", and toolgate speaks 2026-07-28, 2025-11-25 and 2025-06-18 "
                               "(a server of the 2026 era that refuses 2026-07-28 gets no "
                               "initialize, as MCP says)");
    case Outcome::legacy:
    case Outcome::no_answer:
    case Outcome::exited:
      break;
  }
  if (mode == "2026-07-28")
    throw std::runtime_error(
        "the MCP server does not speak MCP 2026-07-28, which "
        "--server-protocol 2026-07-28 requires: " +
        probe.detail + " (start without --server-protocol to speak an older version)");
  if (probe.outcome == Outcome::exited) {
    spdlog::warn(
        "the MCP server ended when probed with server/discover ({}); starting it again and "
        "speaking the older protocol to it (--server-protocol legacy skips the probe)",
        probe.detail);
    server.reset();
    server = start();
  } else if (probe.outcome == Outcome::no_answer) {
    // Its start was held up by the probe's whole timeout: say how to avoid that.
    spdlog::warn(
        "the MCP server speaks an older protocol than 2026-07-28, it seems: {}; "
        "--server-protocol legacy skips the probe and this wait",
        probe.detail);
  } else {
    spdlog::info("the MCP server speaks an older protocol than 2026-07-28: {}", probe.detail);
  }
  return {};
}

std::string server_protocol_mode(const Args& rest) {
  auto mode = flag_value(rest, "--server-protocol").value_or("auto");
  if (mode != "auto" && mode != "2026-07-28" && mode != "legacy")
    throw UsageError("--server-protocol takes auto, 2026-07-28 or legacy, not \"" + mode + "\"");
  return mode;
}

// `toolgate mcp pin [--pins FILE] -- CMD`: CMD's tools' pins, to FILE
// (written whole, then renamed into place) or stdout.
int run_mcp_pin(const Args& before, const std::vector<std::string>& command) {
  std::optional<std::string> out;
  std::string mode = "auto";
  Args upstream;  // --upstream-token-file, --upstream-ca
  std::optional<std::string> servers;
  for (std::size_t i = 1; i < before.size(); ++i) {
    if (before[i] == "--servers" && i + 1 < before.size()) {
      servers = before[++i];
    } else if (before[i].starts_with("--servers=")) {
      servers = before[i].substr(10);
    } else if (before[i] == "--pins" && i + 1 < before.size()) {
      out = before[++i];
    } else if (before[i].starts_with("--pins=")) {
      out = before[i].substr(7);
    } else if (before[i] == "--server-protocol" && i + 1 < before.size()) {
      mode = server_protocol_mode({"--server-protocol", before[++i]});
    } else if ((before[i] == "--upstream-token-file" || before[i] == "--upstream-ca") &&
               i + 1 < before.size()) {
      upstream.push_back(before[i]);
      upstream.push_back(before[++i]);
    } else {
      throw UsageError(
          "mcp pin takes only --pins FILE, --server-protocol P, --upstream-token-file F, "
          "--upstream-ca F and --servers FILE, not \"" +
          before[i] + "\"");
    }
  }
  if (servers && (!command.empty() || !upstream.empty()))
    throw UsageError(
        "mcp pin --servers FILE pins the tools of the servers in FILE (each server's settings "
        "go there); give no command, --upstream-token-file or --upstream-ca with it");
  // A server that ends at once must be an error from write(), not our death.
  std::signal(SIGPIPE, SIG_IGN);
  mcp::GatewayOptions options;
  // A group is spoken to in the older protocol, like `toolgate mcp --servers`.
  const auto start = servers ? group_starter(*servers, options.max_message_bytes)
                             : server_starter(command, upstream);
  auto server = start();
  options.server_protocol = choose_server_protocol(server, start, servers ? "legacy" : mode);
  const std::string text = mcp::fetch_pin_file(*server, options);
  server.reset();
  if (!out) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  const std::string tmp = *out + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  const bool ok = std::fputs(text.c_str(), f) >= 0;
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), out->c_str()) != 0)
    throw std::runtime_error("cannot write " + *out + ": " + std::strerror(errno));
  spdlog::info("wrote the pins of the MCP server's tools to {}", *out);
  return 0;
}

// --listen [HOST:]PORT and the options that go with it, or nullopt
// without --listen (stdio).  IPv6 hosts in brackets: [::1]:8080.
std::optional<mcp::HttpListenOptions> listen_options(const Args& rest) {
  auto listen = flag_value(rest, "--listen");
  for (const char* f : {"--token-file", "--allow-origin", "--max-connections", "--http-timeout-ms",
                        "--question-timeout-ms"})
    if (!listen && flag_value(rest, f))
      throw UsageError(std::string(f) + " goes with --listen [HOST:]PORT");
  if (!listen) return std::nullopt;
  mcp::HttpListenOptions o;
  std::string port = *listen;
  if (const auto colon = listen->rfind(':'); colon != std::string::npos) {
    std::string host = listen->substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    o.address = host;
    port = listen->substr(colon + 1);
  }
  o.port = static_cast<std::uint16_t>(number_option("--listen", port, 0, 65535, "port"));
  if (auto f = flag_value(rest, "--token-file")) o.tokens = mcp::read_token_file(*f);
  if (auto origins = flag_value(rest, "--allow-origin")) {
    std::string_view v = *origins;
    while (!v.empty()) {
      const auto comma = v.find(',');
      if (auto one = v.substr(0, comma); !one.empty()) o.allow_origins.emplace_back(one);
      v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
    }
  }
  if (auto n = flag_value(rest, "--max-connections"))
    o.max_connections =
        static_cast<std::size_t>(number_option("--max-connections", *n, 1, 100000, "connections"));
  if (auto n = flag_value(rest, "--http-timeout-ms")) {
    const auto ms = std::chrono::milliseconds(
        number_option("--http-timeout-ms", *n, 100, 3600000, "milliseconds"));
    o.request_timeout = ms;
    o.write_timeout = ms;
  }
  // How long a 2025-era session's client has to answer the gateway's
  // question (an approval, a server's question) before its call ends.
  if (auto n = flag_value(rest, "--question-timeout-ms"))
    o.question_timeout = std::chrono::milliseconds(
        number_option("--question-timeout-ms", *n, 100, 86400000, "milliseconds"));
  return o;
}

// --redis HOST:PORT --redis-prefix P [--redis-password-file F]
// [--seal-key-file F]: what replicas share (README "Running several
// replicas").
void shared_state_flags(const Args& rest, mcp::GatewayOptions& go) {
  const auto address = flag_value(rest, "--redis");
  if (!address) {
    for (const char* f : {"--redis-prefix", "--redis-password-file", "--seal-key-file"})
      if (flag_value(rest, f))
        throw UsageError(std::string(f) + " goes with --redis HOST:PORT: " +
                         (std::string_view(f) == "--seal-key-file"
                              ? "a shared key without a shared store would let one approval "
                                "run once on every replica"
                              : "the store replicas share"));
    return;
  }
  mcp::SharedStoreOptions s;
  const auto colon = address->rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw UsageError("--redis takes HOST:PORT, e.g. 127.0.0.1:6379 (got \"" + *address + "\")");
  s.host = address->substr(0, colon);
  if (s.host.size() >= 2 && s.host.front() == '[' && s.host.back() == ']')
    s.host = s.host.substr(1, s.host.size() - 2);
  s.port = static_cast<int>(number_option("--redis", address->substr(colon + 1), 1, 65535, "port"));
  const auto prefix = flag_value(rest, "--redis-prefix");
  if (!prefix || prefix->empty())
    throw UsageError(
        "--redis needs --redis-prefix P: the replicas of one deployment share it (their "
        "pins and spent approvals are kept under it); give each deployment its own");
  s.prefix = *prefix;
  if (auto f = flag_value(rest, "--redis-password-file")) s.password_file = *f;
  go.shared_store = std::move(s);
  if (auto f = flag_value(rest, "--seal-key-file")) go.seal_key_file = *f;
}

}  // namespace

const std::vector<std::string>& mcp_value_flags() {
  static const std::vector<std::string> flags{"--events",
                                              "--max-message-bytes",
                                              "--max-calls-in-flight",
                                              "--pins",
                                              "--on-drift",
                                              "--code-sandbox",
                                              "--tools",
                                              "--workspace",
                                              "--server-protocol",
                                              "--listen",
                                              "--token-file",
                                              "--allow-origin",
                                              "--max-connections",
                                              "--http-timeout-ms",
                                              "--question-timeout-ms",
                                              "--upstream-token-file",
                                              "--upstream-ca",
                                              "--redis",
                                              "--redis-prefix",
                                              "--redis-password-file",
                                              "--seal-key-file",
                                              "--servers"};
  return flags;
}

int run_mcp(const Args& args) {
  Args before;
  std::vector<std::string> command;
  bool dashdash = false;
  for (const auto& a : args) {
    if (!dashdash && a == "--") {
      dashdash = true;
      continue;
    }
    (dashdash ? command : before).push_back(a);
  }
  const bool group = std::find_if(before.begin(), before.end(), [](const std::string& a) {
                       return a == "--servers" || a.starts_with("--servers=");
                     }) != before.end();
  if (group && dashdash)
    throw UsageError(
        "--servers FILE names the servers; give it or a server's command after --, not both");
  if (!group && (!dashdash || command.empty()))
    throw UsageError(
        "mcp needs the server's command after --, e.g. toolgate mcp M -- npx -y SERVER "
        "(or --servers FILE for several)");
  if (!before.empty() && before.front() == "pin") return run_mcp_pin(before, command);
  CommonOptions o;
  // A production entry point fails closed: a plugin built wrong is refused
  // unless the operator says --no-strict.
  o.load.strict_plugin_builds = true;
  auto rest = parse_common(before, o, mcp_value_flags(), {"--code-mode", "--code-mode-only"});
  // --code-mode-only implies --code-mode.
  if (has_flag(rest, "--code-mode-only") && !has_flag(rest, "--code-mode"))
    rest.push_back("--code-mode");
  auto code_mode = code_mode_flags(rest);
  const auto listen = listen_options(rest);
  // SIGTERM / SIGINT (how MCP clients close a stdio server) shut the
  // gateway down in order: calls cancelled, the server stopped (its stdin
  // closed, then SIGTERM, then SIGKILL to its process group).  Taken on a
  // thread started before any plugin loads; a stop still running after
  // 10 s kills the server's group and exits (a hook that never returns
  // cannot be interrupted in process).
  std::mutex running_mutex;
  mcp::Gateway* running = nullptr;          // guarded by running_mutex
  mcp::HttpFront* running_front = nullptr;  // guarded by running_mutex
  std::atomic<pid_t> server_group{0};
  StopSignals signals("mcp", std::chrono::seconds(10),
                      {nullptr,
                       [&](int) {
                         std::lock_guard lock(running_mutex);
                         if (running) running->request_stop();
                         if (running_front) running_front->stop();
                       },
                       [&] {
                         if (pid_t g = server_group.load(); g > 0) ::kill(-g, SIGKILL);
                       }});
  mcp::GatewayOptions go;
  go.own_tools = tool_set_flags(rest);
  go.session_id = "mcp-" + std::to_string(::getpid());
  if (auto n = flag_value(rest, "--max-message-bytes"))
    go.max_message_bytes = static_cast<std::size_t>(
        number_option("--max-message-bytes", *n, 1024, std::uint64_t{1} << 40, "bytes"));
  if (auto n = flag_value(rest, "--max-calls-in-flight"))
    go.max_calls_in_flight =
        static_cast<std::size_t>(number_option("--max-calls-in-flight", *n, 1, 100000, "calls"));
  if (auto f = flag_value(rest, "--pins")) go.pin_file = *f;
  shared_state_flags(rest, go);
  const auto servers_file = flag_value(rest, "--servers");
  if (servers_file)
    for (const char* f : {"--server-protocol", "--upstream-token-file", "--upstream-ca"})
      if (flag_value(rest, f))
        throw UsageError(std::string(f) +
                         " is for one server after --; with --servers, each server's own "
                         "settings go in the servers file");
  // A group is spoken to in the older protocol: it initializes its servers itself.
  const std::string server_mode = servers_file ? "legacy" : server_protocol_mode(rest);
  if (auto d = flag_value(rest, "--on-drift")) {
    if (*d != "block" && *d != "ask" && *d != "allow")
      throw UsageError("--on-drift takes block, ask or allow, not \"" + *d + "\"");
    go.on_drift = *d;
  }

  // The gateway owns the protocol descriptors: the client's stream moves to
  // private descriptors, and fds 0 and 1 become /dev/null and stderr before
  // any plugin loads, so nothing a plugin prints (or reads) can reach the
  // protocol stream.
  int client_in = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  int client_out = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (client_in < 0 || client_out < 0 || null_in < 0 || ::dup2(null_in, STDIN_FILENO) < 0 ||
      ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw std::runtime_error(std::string("cannot set up the protocol descriptors: ") +
                             std::strerror(errno));
  ::close(null_in);

  // --listen: the client side is a pair of pipes to the HTTP front end,
  // bound now so that an address in use is reported before anything starts.
  std::unique_ptr<mcp::HttpFront> front;
  int front_to_gateway = -1;
  int gateway_to_front = -1;
  if (listen) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("cannot make the HTTP front end's pipes: ") +
                               std::strerror(errno));
    ::close(client_in);
    ::close(client_out);
    client_in = in[0];
    front_to_gateway = in[1];
    gateway_to_front = out[0];
    client_out = out[1];
    front = std::make_unique<mcp::HttpFront>(*listen, in[1], out[0], go.max_message_bytes);
    const bool v6 = listen->address.find(':') != std::string::npos;
    spdlog::info(
        "serving MCP over HTTP (2026-07-28, and 2025-era sessions) at http://{}{}{}:{}/mcp",
        v6 ? "[" : "", listen->address, v6 ? "]" : "", front->port());
  }

  // The server's tools come from tools/list; the sample tools are not offered.
  auto host = std::make_unique<Host>();
  if (code_mode) {
    host->enable_code_mode(*code_mode);
    go.code_tools = has_flag(rest, "--code-mode-only") ? mcp::GatewayOptions::CodeTools::only
                                                       : mcp::GatewayOptions::CodeTools::alongside;
  }
  use_default_manifests_if_none(o);
  {
    std::vector<std::filesystem::path> paths(o.manifests.begin(), o.manifests.end());
    auto report = host->load_manifests(paths, o.load);
    for (const auto& k : report.kept_locked) spdlog::warn("{}", k);
    spdlog::info("{} plugin(s) loaded from {} layer(s)", report.plugins.size(),
                 report.layers.size());
  }
  if (auto file = flag_value(rest, "--events")) {
    std::FILE* f = std::fopen(file->c_str(), "a");
    if (!f)
      throw std::runtime_error("cannot open " + *file +
                               " for the event log: " + std::strerror(errno));
    std::shared_ptr<std::FILE> owned(f, std::fclose);
    // A failed write is reported once on stderr (the gateway keeps serving).
    auto sink = std::make_shared<JsonLinesSink>(f, true, *file);
    host->subscribe([sink, owned](const Event& e) { (*sink)(e); });
  }

  // A peer closing its pipe must be an error from write(), not our death.
  std::signal(SIGPIPE, SIG_IGN);
  // How a stop by signal ends, whenever it came: said the same way.
  const auto stopped_on = [](int sig) {
    spdlog::info("stopped on {}", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return 128 + sig;
  };
  // A stop signal that came while the manifests loaded: nothing started.
  if (int sig = signals.received()) return stopped_on(sig);
  const auto start = servers_file ? group_starter(*servers_file, go.max_message_bytes)
                                  : server_starter(command, rest);
  // A child process's group gets SIGKILL if stopping takes too long.
  const auto group_of = [](const std::unique_ptr<mcp::ServerLink>& s) {
    const auto* child = dynamic_cast<const mcp::ChildProcess*>(s.get());
    return child ? child->pid() : 0;
  };
  auto server = start();
  server_group = group_of(server);
  go.server_protocol = choose_server_protocol(server, start, server_mode);
  server_group = group_of(server);
  if (int sig = signals.received()) return stopped_on(sig);
  int status;
  std::string reason;
  {
    auto gateway = std::make_unique<mcp::Gateway>(*host, client_in, client_out, *server, go);
    {
      std::lock_guard lock(running_mutex);
      running = gateway.get();
    }
    // A signal between received() above and here: stop at once.
    if (signals.received()) gateway->request_stop();
    if (front) {
      // The gateway on a thread of its own, the front end on this one;
      // whichever ends first ends the other: the gateway's end closes the
      // front end's input, the front end's end the gateway's.
      std::thread serving([&] {
        status = gateway->run();
        // The pipe's write end closes (the front end sees its end); the
        // descriptor stays valid, on /dev/null, for a call still writing.
        const int null_out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null_out < 0 || ::dup2(null_out, client_out) < 0) ::close(client_out);
        if (null_out >= 0) ::close(null_out);
      });
      {
        std::lock_guard lock(running_mutex);
        running_front = front.get();
      }
      if (signals.received()) front->stop();
      front->run();
      {
        std::lock_guard lock(running_mutex);
        running_front = nullptr;
      }
      gateway->request_stop();
      ::close(front_to_gateway);
      // No one reads the gateway's answers any more: its writes fail
      // (EPIPE) instead of waiting for ever on a full pipe while it stops.
      ::close(gateway_to_front);
      serving.join();
    } else {
      status = gateway->run();
    }
    {
      std::lock_guard lock(running_mutex);
      running = nullptr;
    }
    reason = gateway->exit_reason();
    if (gateway->abandoned_calls()) {
      // Threads are still inside a hook: end the process without running
      // any destructor they could race with.
      std::fprintf(stderr, "toolgate mcp: error: %s\n", reason.c_str());
      std::fflush(stderr);
      std::_Exit(1);
    }
  }
  server.reset();  // reaps it; what it left in its group is killed
  signals.finish();
  if (int sig = signals.received()) return stopped_on(sig);
  if (status != 0) std::fprintf(stderr, "toolgate mcp: error: %s\n", reason.c_str());
  return status;
}

}  // namespace toolgate::cli
