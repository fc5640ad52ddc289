// mcp.cpp -- `toolgate mcp [M...] [--disable G] [--events FILE]
//              [--max-message-bytes N] -- CMD ARGS...`
// The MCP gateway: starts CMD as the MCP server and relays MCP between the
// client on our stdin/stdout and the server, running every tools/call
// through the pipeline of the manifests.  stdout carries protocol only;
// logs go to stderr.  Exit status: 0 when the client closed its input (the
// server was shut down), 1 when the server exited or could not start or a
// manifest did not load, 2 on a usage error.
#include "options.hpp"

#include "../mcp/child_process.hpp"
#include "../mcp/gateway.hpp"

#include <spdlog/spdlog.h>

#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>

namespace toolgate::cli {

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
  if (!dashdash || command.empty())
    throw UsageError(
        "mcp needs the server's command after --, e.g. toolgate mcp M -- npx -y SERVER");
  CommonOptions o;
  auto rest = parse_common(before, o, {"--events", "--max-message-bytes"});
  mcp::GatewayOptions go;
  go.session_id = "mcp-" + std::to_string(::getpid());
  if (auto n = flag_value(rest, "--max-message-bytes"))
    go.max_message_bytes = static_cast<std::size_t>(
        number_option("--max-message-bytes", *n, 1024, std::uint64_t{1} << 40, "bytes"));

  // The server's tools come from tools/list; the sample tools are not offered.
  auto host = std::make_unique<Host>();
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
  auto server = mcp::ChildProcess::spawn(command);
  int status;
  std::string reason;
  {
    mcp::Gateway gateway(*host, STDIN_FILENO, STDOUT_FILENO, *server, go);
    status = gateway.run();
    reason = gateway.exit_reason();
  }
  if (status != 0) std::fprintf(stderr, "toolgate mcp: error: %s\n", reason.c_str());
  return status;
}

}  // namespace toolgate::cli
