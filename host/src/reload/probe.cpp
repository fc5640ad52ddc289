#include "probe.hpp"

#include "../loading/plugin_loader.hpp"

#include <toolgate/host.hpp>
#include <toolgate/json.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <iterator>
#include <string_view>

extern char** environ;

namespace toolgate::detail {

namespace {

// The child's last words on its output.  Only a probe that says one of them
// finished: a plugin that calls exit() in init, or a crash turned into an
// exit status by a handler (sanitizers, language runtimes), is a crash, even
// with exit status 0 -- it would end the host the same way.
constexpr std::string_view kProbeOk = "toolgate-probe: ok";
constexpr std::string_view kProbeRejected = "toolgate-probe: rejected: ";

struct Fd {
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

}  // namespace

std::string run_probe(const std::vector<std::string>& command, const std::filesystem::path& plugin,
                      const std::string& id, const boost::json::object& config,
                      std::chrono::milliseconds timeout) {
  std::vector<std::string> args = command;
  args.push_back(plugin.string());
  args.push_back(id);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int in[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return "probe: cannot create a pipe";
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return "probe: cannot create a pipe";
  }
  Fd in_r{in[0]}, in_w{in[1]}, err_r{err[0]}, err_w{err[1]};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_r.fd, 0);
  posix_spawn_file_actions_adddup2(&fa, err_w.fd, 2);
  posix_spawn_file_actions_adddup2(&fa, err_w.fd, 1);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return "probe: cannot start " + args[0] + ": " + std::strerror(rc);
  in_r.reset();
  err_w.reset();
  std::string text = to_json_text(config);
  // A config larger than the pipe buffer would block; configs are small,
  // and a failed write just makes the child see a truncated config.
  (void)!::write(in_w.fd, text.data(), text.size());
  in_w.reset();

  std::string output;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{err_r.fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    char buf[4096];
    ssize_t got = ::read(err_r.fd, buf, sizeof buf);
    if (got <= 0) break;  // the child closed its end: it is exiting
    if (output.size() < 16384) output.append(buf, static_cast<std::size_t>(got));
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  if (timed_out)
    return "the probe did not finish within " + std::to_string(timeout.count()) +
           " ms (init hangs?)";
  if (WIFSIGNALED(status))
    return "the plugin crashed in the probe process (signal " + std::to_string(WTERMSIG(status)) +
           ", " + strsignal(WTERMSIG(status)) + ")" + (output.empty() ? "" : ": " + output);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (auto at = output.rfind(kProbeRejected); code == 1 && at != std::string::npos)
    return output.substr(at + kProbeRejected.size());
  if (code == 0 && output.size() >= kProbeOk.size() &&
      output.compare(output.size() - kProbeOk.size(), kProbeOk.size(), kProbeOk) == 0)
    return "";
  return "the plugin crashed in the probe process (it ended with exit status " +
         std::to_string(code) + " before the probe finished)" +
         (output.empty() ? "" : ": " + output);
}

void probe_say_ok() { std::cerr << kProbeOk << std::endl; }
void probe_say_rejected(std::string_view why) { std::cerr << kProbeRejected << why << std::endl; }

int probe_main(const std::vector<std::string>& args) {
  if (args.size() != 2) {
    std::cerr << "usage: toolgate __probe PLUGIN ID < config.json\n";
    return 2;
  }
  try {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    ManifestPlugin mp;
    mp.path = args[0];
    mp.id = args[1];
    mp.json_path = "";
    if (!text.empty()) mp.config = boost::json::parse(text).as_object();
    // The parent hands us its private copy: load it as it is.
    auto loaded = load_plugin(mp, "(probe)", LoaderOptions{true}, mp.path);
    loaded.reset();  // shutdown runs too: a crash there is caught as well
    probe_say_ok();
    return 0;
  } catch (const LoadError& e) {
    probe_say_rejected(e.problem());
  } catch (const std::exception& e) {
    probe_say_rejected(e.what());
  }
  return 1;
}

}  // namespace toolgate::detail
