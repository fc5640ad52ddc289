#include <toolgate/mcp/child_process.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace toolgate::mcp {

namespace {

// What posix_spawnp would run: `name` itself when it contains a '/', else
// the first executable regular file of that name in PATH.  Resolved before
// fork, so the child only calls execve.
std::string resolve_program(const std::string& name, int* error) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  *error = ENOENT;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      *error = EACCES;
    }
    start = end + 1;
  }
  return "";
}

void close_both(int fds[2]) {
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace

std::unique_ptr<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty()) throw std::runtime_error("no server command given");
  auto cannot_start = [&](int error) {
    return std::runtime_error("cannot start the MCP server \"" + argv[0] +
                              "\": " + std::strerror(error));
  };
  int resolve_error = 0;
  const std::string program = resolve_program(argv[0], &resolve_error);
  if (program.empty()) throw cannot_start(resolve_error);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // in: its stdin; out: its stdout; report: the errno of a failed execve
  // (closed on a successful exec, so a read of 0 bytes means it started).
  int in[2], out[2], report[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw cannot_start(errno);
  if (::pipe2(out, O_CLOEXEC) != 0) {
    int e = errno;
    close_both(in);
    throw cannot_start(e);
  }
  if (::pipe2(report, O_CLOEXEC) != 0) {
    int e = errno;
    close_both(in);
    close_both(out);
    throw cannot_start(e);
  }
  // No signal handler may run in the child between fork and exec.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: async-signal-safe calls only, up to execve.
    ::setpgid(0, 0);                          // a process group of its own
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);       // dies if the gateway dies first
    if (::getppid() != parent) ::_exit(127);  // ...which it already has
    ::dup2(in[0], STDIN_FILENO);              // dup2 clears FD_CLOEXEC on the copy
    ::dup2(out[1], STDOUT_FILENO);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(program.c_str(), args.data(), environ);
    int e = errno;
    [[maybe_unused]] auto n = ::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(in[0]);
  ::close(out[1]);
  ::close(report[1]);
  if (pid < 0) {
    ::close(in[1]);
    ::close(out[0]);
    ::close(report[0]);
    throw cannot_start(fork_error);
  }
  // Also from here: whichever runs first, the group exists before anyone
  // signals it (EACCES once the child has exec'd is fine: it did it).
  ::setpgid(pid, pid);
  int exec_error = 0;
  ssize_t got;
  while ((got = ::read(report[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (got > 0) {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    ::close(in[1]);
    ::close(out[0]);
    throw cannot_start(exec_error);
  }
  std::unique_ptr<ChildProcess> c(new ChildProcess());
  c->pid_ = pid;
  c->in_ = in[1];
  c->out_ = out[0];
  return c;
}

ChildProcess::~ChildProcess() {
  close_stdin();
  if (out_ >= 0) ::close(out_);
  if (pid_ > 0 && !status_) {
    ::kill(-pid_, SIGKILL);
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  } else if (pid_ > 0) {
    // The server has exited; whatever it started and left behind in its
    // group goes with it.
    ::kill(-pid_, SIGKILL);
  }
}

void ChildProcess::close_stdin() {
  if (in_ >= 0) {
    ::close(in_);
    in_ = -1;
  }
}

std::optional<int> ChildProcess::wait_for(std::chrono::milliseconds timeout) {
  if (status_) return status_;
  auto until = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = st;
      return status_;
    }
    if (r < 0 && errno != EINTR) {
      // Not our child any more (reaped elsewhere): nothing to wait for.
      status_ = 0;
      return status_;
    }
    if (std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(20)) pause *= 2;
  }
}

void ChildProcess::send_signal(int sig) {
  if (pid_ > 0 && !status_) ::kill(-pid_, sig);
}

std::string ChildProcess::describe(int st) {
  if (WIFEXITED(st)) return "exited with status " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st))
    return "was killed by signal " + std::to_string(WTERMSIG(st)) + " (" +
           ::strsignal(WTERMSIG(st)) + ")";
  return "stopped (wait status " + std::to_string(st) + ")";
}

}  // namespace toolgate::mcp
