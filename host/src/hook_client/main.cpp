// toolgate-hook AGENT [--socket PATH] [--timeout-ms MS]
// The client an agent runs before and after each of its tool calls
// (docs/design.md §16.3): `toolgate hook AGENT` without what makes the full
// program slow to start (the engine, spdlog, RE2, OpenSSL, a shared
// libstdc++ and Boost.JSON), so a hook costs little more than an empty
// process.  Anything wrong -- an unknown agent, a bad option -- blocks the
// call: exit 2 with the message on stderr, which every supported agent
// treats as "block".
#include "hook_client.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

int refuse(const std::string& message) {
  std::fprintf(stderr, "toolgate-hook: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace toolgate;
  std::string names;
  for (auto n : agent_hooks::format_names()) names += (names.empty() ? "" : ", ") + std::string(n);
  const std::string usage =
      "usage: toolgate-hook AGENT [--socket PATH] [--timeout-ms MS] (AGENT: " + names + ")";
  if (argc < 2) return refuse(usage);
  const agent_hooks::AgentFormat* format = agent_hooks::find_format(argv[1]);
  if (!format) return refuse("unknown agent \"" + std::string(argv[1]) + "\"; " + usage);
  std::filesystem::path socket = hook_client::default_socket();
  long timeout_ms = 5000;
  for (int i = 2; i < argc; ++i) {
    std::string_view a = argv[i];
    if ((a == "--socket" || a == "--timeout-ms") && i + 1 < argc) {
      std::string value = argv[++i];
      if (a == "--socket") {
        socket = value;
      } else {
        char* end = nullptr;
        timeout_ms = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end || timeout_ms < 1 || timeout_ms > 600000)
          return refuse("--timeout-ms takes 1 to 600000 (milliseconds), not \"" + value + "\"");
      }
    } else {
      return refuse("unknown option \"" + std::string(a) + "\"; " + usage);
    }
  }
  // A closed stdout must be an error to check (emit), not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  const std::chrono::milliseconds timeout(timeout_ms);
  return hook_client::answer_hook(
      *format, "toolgate-hook " + std::string(format->name()),
      [&] { return hook_client::daemon_decider(socket, timeout); },
      timeout + std::chrono::milliseconds(500));
}
