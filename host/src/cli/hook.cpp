// hook.cpp -- `toolgate hook AGENT [--socket PATH] [--timeout-ms MS]
//                              [--no-daemon [M...]]`
//             `toolgate hook install|uninstall AGENT [--user|--project]
//                              [--dir DIR] [--command CMD]`
// The command an agent's own hook system runs for each of its tool calls
// (docs/design.md §16.3).  The work is hook_client/ (shared with the small
// `toolgate-hook`, which agents are given by `install`); this adds what only
// the full program can do: decide in process (--no-daemon) and edit an
// agent's settings file.
#include "options.hpp"

#include "../agent_hooks/agent_format.hpp"
#include "../agent_hooks/install.hpp"
#include "../hook_client/hook_client.hpp"
#include "../serve/protocol.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace toolgate::cli {

namespace json = boost::json;
namespace fs = std::filesystem;
using agent_hooks::AgentFormat;
using hook_client::Decider;

namespace {

// --no-daemon: a host in this process, behind the same protocol code.
class LocalDecider final : public Decider {
 public:
  explicit LocalDecider(const CommonOptions& o) : host_(make_host(o)), protocol_(*host_) {}
  json::object ask(const json::object& request) override {
    return json::parse(protocol_.answer(to_json_text(request))).as_object();
  }

 private:
  std::unique_ptr<Host> host_;
  serve::Protocol protocol_;
};

std::string names() {
  std::string list;
  for (auto n : agent_hooks::format_names()) list += (list.empty() ? "" : ", ") + std::string(n);
  return list;
}

const AgentFormat& format_named(const std::string& name) {
  const AgentFormat* f = agent_hooks::find_format(name);
  if (!f) throw UsageError("unknown agent \"" + name + "\" (the agents: " + names() + ")");
  return *f;
}

int run_install(const Args& args, bool install) {
  const char* verb = install ? "install" : "uninstall";
  if (args.size() < 2)
    throw UsageError(std::string("hook ") + verb + " needs an agent (" + names() + ")");
  const AgentFormat& f = format_named(args[1]);
  Args rest(args.begin() + 2, args.end());
  std::string scope = has_flag(rest, "--project") ? "project" : "user";
  if (has_flag(rest, "--project") && has_flag(rest, "--user"))
    throw UsageError("give --user or --project, not both");
  fs::path dir = flag_value(rest, "--dir").value_or(fs::current_path().string());
  std::string command;
  if (auto c = flag_value(rest, "--command")) {
    command = *c;
  } else {
    // The small client when it is installed beside this program (it starts
    // several times faster: README "Agents' own tools"), else this program.
    fs::path fast = fs::path(self_exe()).parent_path() / "toolgate-hook";
    command = ::access(fast.c_str(), X_OK) == 0
                  ? agent_hooks::shell_word(fast.string()) + " " + std::string(f.name())
                  : agent_hooks::shell_word(self_exe()) + " hook " + std::string(f.name());
  }
  const char* home = std::getenv("HOME");
  if (scope == "user" && (!home || !*home))
    throw UsageError("HOME is not set; use --project or set HOME");
  fs::path path = agent_hooks::settings_path(f, scope, home ? home : "", dir);
  std::string existing;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (!in) throw std::runtime_error(path.string() + ": cannot be read");
    existing = s.str();
  }
  std::string updated;
  try {
    updated = install ? agent_hooks::install_hooks(f, existing, command)
                      : agent_hooks::uninstall_hooks(f, existing, command);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what() + "; the file was not changed");
  }
  if (updated == existing) {
    std::printf("%s: already %s, nothing changed\n", path.c_str(),
                install ? "installed" : "without toolgate's hooks");
    return 0;
  }
  fs::create_directories(path.parent_path());
  if (!existing.empty()) {
    fs::path backup = path.string() + ".toolgate-backup";
    std::ofstream(backup, std::ios::binary | std::ios::trunc) << existing;
    std::printf("backup: %s\n", backup.c_str());
  }
  // Written to a temporary file and renamed: the agent never reads half a file.
  fs::path tmp = path.string() + ".toolgate-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << updated;
    if (!out) throw std::runtime_error(tmp.string() + ": cannot be written");
  }
  fs::rename(tmp, path);
  std::printf("%s: %s the %s hooks running `%s`\n", path.c_str(), install ? "added" : "removed",
              std::string(f.name()).c_str(), command.c_str());
  return 0;
}

}  // namespace

int run_hook(const Args& args) {
  if (args.empty()) throw UsageError("hook needs an agent (" + names() + ")");
  if (args[0] == "install" || args[0] == "uninstall")
    return run_install(args, args[0] == "install");
  const AgentFormat& format = format_named(args[0]);
  Args rest_in(args.begin() + 1, args.end());
  CommonOptions o;
  auto rest = parse_common(rest_in, o, {"--socket", "--timeout-ms"}, {"--no-daemon"});
  const bool in_process = has_flag(rest, "--no-daemon");
  if (!in_process && !o.manifests.empty())
    throw UsageError("manifests are read by the daemon; give them only with --no-daemon");
  const auto timeout = std::chrono::milliseconds(number_option(
      "--timeout-ms", flag_value(rest, "--timeout-ms").value_or("5000"), 1, 600000, "ms"));
  fs::path socket = flag_value(rest, "--socket").value_or(hook_client::default_socket().string());
  std::signal(SIGPIPE, SIG_IGN);  // a closed stdout is checked (hook_client)
  return hook_client::answer_hook(
      format, "toolgate hook " + std::string(format.name()),
      [&]() -> std::unique_ptr<Decider> {
        if (!in_process) return hook_client::daemon_decider(socket, timeout);
        try {
          use_default_manifests_if_none(o);
          return std::make_unique<LocalDecider>(o);
        } catch (const LoadError& e) {
          throw hook_client::HookFailure(std::string("--no-daemon: the manifests did not load: ") +
                                         e.what());
        }
      },
      // --no-daemon loads every plugin within the same bound.
      timeout + std::chrono::milliseconds(500));
}

}  // namespace toolgate::cli
