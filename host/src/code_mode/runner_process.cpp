// Starting a Code Mode runner in its sandbox, and its channel
// (docs/design.md §17.3).
#include "runner_process.hpp"

#include "runner_source.hpp"

#include <seccomp.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace toolgate::detail {

namespace {

// The program `name` names: itself when it holds a '/', else the first
// executable regular file of that name in PATH.  Resolved before fork.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = (end == start ? "." : dirs.substr(start, end - start)) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

std::string real_path(const std::string& p) {
  char* r = ::realpath(p.c_str(), nullptr);
  if (!r) return p;
  std::string out(r);
  std::free(r);
  return out;
}

// The seccomp filter every sandboxed runner gets (compiled once): no new
// processes.  fork and vfork fail with EPERM, clone fails unless it makes a
// thread (node needs threads), and clone3 -- whose flags sit in memory a
// filter cannot read -- answers ENOSYS, so the C library falls back to
// clone.  libseccomp writes the program: it also refuses syscalls of
// foreign ABIs (x32, i386 on x86-64), which a hand-written filter easily
// forgets.
const std::string& no_new_processes_filter() {
  static std::once_flag once;
  static std::string program;
  static std::string error;
  std::call_once(once, [] {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
      error = "seccomp_init failed";
      return;
    }
    int rc = 0;
#ifdef __NR_fork
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fork), 0);
#endif
#ifdef __NR_vfork
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(vfork), 0);
#endif
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // Memory no rlimit counts: a memfd's pages count against no address
    // space until mapped (only its size is bounded, by RLIMIT_FSIZE, and
    // their number by RLIMIT_NOFILE), SysV shared memory outlives its
    // mapping, and io_uring's rings are the kernel's.  Node uses none of
    // them; native code a script loads (process.dlopen) could.
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(memfd_create), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(shmget), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_setup), 0);
    int fd = ::memfd_create("toolgate-seccomp", MFD_CLOEXEC);
    if (rc == 0 && fd >= 0 && seccomp_export_bpf(ctx, fd) == 0) {
      off_t size = ::lseek(fd, 0, SEEK_END);
      program.resize(static_cast<std::size_t>(std::max<off_t>(size, 0)));
      if (::pread(fd, program.data(), program.size(), 0) != static_cast<ssize_t>(program.size()))
        program.clear();
    }
    if (fd >= 0) ::close(fd);
    seccomp_release(ctx);
    if (program.empty()) error = "building the seccomp filter failed";
  });
  if (program.empty()) throw RunnerUnavailable("Code Mode cannot start a sandbox: " + error);
  return program;
}

// bwrap's arguments: nothing of the host but the programs node needs,
// read-only; no network, no other namespaces shared, no capabilities, an
// empty environment, a small private /tmp.
std::vector<std::string> sandbox_argv(const RunnerSpawn& how, const std::string& bwrap,
                                      const std::string& node, int seccomp_fd) {
  std::vector<std::string> a = {bwrap};
  auto add = [&](std::initializer_list<std::string> args) { a.insert(a.end(), args); };
  // Namespaces: ipc, pid, net, uts, cgroup ("--unshare-all" only tries the
  // user namespace, so it is asked for too), and no more of them inside.
  add({"--unshare-all", "--unshare-user", "--disable-userns"});
  add({"--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL"});
  add({"--uid", "65534", "--gid", "65534", "--hostname", "toolgate-run-code"});
  // Of the host's files, the libraries and node only: no shells, no other
  // programs, no /etc, no home.
  add({"--ro-bind", "/usr/lib", "/usr/lib", "--ro-bind-try", "/usr/lib64", "/usr/lib64"});
  add({"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"});
  add({"--ro-bind", node, node, "--proc", "/proc", "--dev", "/dev"});
  add({"--size", std::to_string(how.tmp_bytes), "--tmpfs", "/tmp", "--chdir", "/tmp"});
  add({"--seccomp", std::to_string(seccomp_fd)});
  // Last: the root and /dev (with /dev/shm) become read-only -- otherwise
  // unbounded tmpfs, whose pages no rlimit counts.  /tmp, a mount of its
  // own, stays writable within its size.
  add({"--remount-ro", "/", "--remount-ro", "/dev", "--"});
  return a;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::unique_ptr<RunnerProcess> RunnerProcess::start(const RunnerSpawn& how) {
  const std::string node_found = find_program(how.node);
  if (node_found.empty())
    throw RunnerUnavailable("Code Mode needs Node.js, and \"" + how.node +
                            "\" was not found or is not executable; install it (Debian: apt "
                            "install nodejs) or name it with the node option");
  const std::string node = real_path(node_found);
  std::string bwrap;
  std::string filter;
  if (how.sandboxed) {
    bwrap = find_program(how.bwrap);
    if (bwrap.empty())
      throw RunnerUnavailable(
          "Code Mode runs scripts under bubblewrap, and \"" + how.bwrap +
          "\" was not found; install it (Debian: apt install bubblewrap), or -- only where "
          "scripts are trusted -- set the sandbox to \"none\"");
    filter = no_new_processes_filter();
  }

  // argv and envp are built before fork: the child only makes syscalls.
  std::vector<std::string> args;
  constexpr int seccomp_child_fd = 3;
  if (how.sandboxed) args = sandbox_argv(how, bwrap, node, seccomp_child_fd);
  args.push_back(node);
  args.push_back("--max-old-space-size=" + std::to_string(how.heap_megabytes));
  args.push_back("--input-type=module");
  args.push_back("--eval");
  args.push_back(std::string(runner_source()));
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  const std::string& program = how.sandboxed ? bwrap : node;

  int channel[2] = {-1, -1}, err[2] = {-1, -1}, seccomp[2] = {-1, -1};
  auto cleanup = [&] {
    for (int* fd : {&channel[0], &channel[1], &err[0], &err[1], &seccomp[0], &seccomp[1]})
      close_fd(*fd);
  };
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0 || (how.sandboxed && ::pipe2(seccomp, O_CLOEXEC) != 0)) {
    int e = errno;
    cleanup();
    throw RunnerUnavailable(std::string("Code Mode cannot start a runner: ") + std::strerror(e));
  }
  // The child's ends move to descriptors 10 and up, so that the dup2s below
  // cannot overwrite one another -- a host started with 0, 1 or 2 closed
  // would otherwise hand these out as 0..3.
  for (int* fd : {&channel[1], &err[1], &seccomp[0]}) {
    if (*fd < 0) continue;
    int moved = ::fcntl(*fd, F_DUPFD_CLOEXEC, 10);
    if (moved < 0) {
      int e = errno;
      cleanup();
      throw RunnerUnavailable(std::string("Code Mode cannot start a runner: ") + std::strerror(e));
    }
    ::close(*fd);
    *fd = moved;
  }
  struct rlimit nofile {};
  ::getrlimit(RLIMIT_NOFILE, &nofile);
  const int max_fd = nofile.rlim_cur == RLIM_INFINITY || nofile.rlim_cur > 65536
                         ? 65536
                         : static_cast<int>(nofile.rlim_cur);
  if (how.sandboxed) {
    // A few hundred bytes: fits the pipe, and bwrap reads it all at start.
    if (::write(seccomp[1], filter.data(), filter.size()) != static_cast<ssize_t>(filter.size())) {
      cleanup();
      throw RunnerUnavailable("Code Mode cannot pass the seccomp filter to bubblewrap");
    }
    close_fd(seccomp[1]);
  }

  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: async-signal-safe calls only, up to execve.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(channel[1], STDIN_FILENO);
    ::dup2(channel[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    if (how.sandboxed) ::dup2(seccomp[0], seccomp_child_fd);
    // Nothing else of the host's: every other descriptor closes (one by
    // one where the kernel has no close_range, before 5.9).
    const int first_other = how.sandboxed ? seccomp_child_fd + 1 : STDERR_FILENO + 1;
    if (::close_range(static_cast<unsigned>(first_other), ~0U, 0) != 0)
      for (int fd = first_other; fd < max_fd; ++fd) ::close(fd);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct rlimit as {
      how.address_space_bytes, how.address_space_bytes
    };
    struct rlimit cpu {
      how.cpu_seconds, how.cpu_seconds + 1
    };
    struct rlimit core {
      0, 0
    };
    struct rlimit fsize {
      how.tmp_bytes, how.tmp_bytes
    };
    // Node needs a few dozen descriptors; each one more a script holds is
    // kernel memory (and a file up to the size limit).
    struct rlimit nofile_limit {
      256, 256
    };
    // The limits last, through raw syscalls up to the exec: a sanitizer's
    // interceptors allocate, and under the address-space limit they fail
    // (ThreadSanitizer's shadow memory alone is far over 2 GiB).
    ::syscall(SYS_prlimit64, 0, RLIMIT_CPU, &cpu, nullptr);
    ::syscall(SYS_prlimit64, 0, RLIMIT_CORE, &core, nullptr);
    ::syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, &fsize, nullptr);
    ::syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &nofile_limit, nullptr);
    ::syscall(SYS_prlimit64, 0, RLIMIT_AS, &as, nullptr);
    ::syscall(SYS_execve, program.c_str(), argv.data(), envp);
    ::_exit(127);
  }
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close_fd(channel[1]);
  close_fd(err[1]);
  close_fd(seccomp[0]);
  if (pid < 0) {
    cleanup();
    throw RunnerUnavailable(std::string("Code Mode cannot start a runner: fork: ") +
                            std::strerror(fork_error));
  }
  ::setpgid(pid, pid);
  ::fcntl(channel[0], F_SETFL, ::fcntl(channel[0], F_GETFL) | O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, ::fcntl(err[0], F_GETFL) | O_NONBLOCK);
  std::unique_ptr<RunnerProcess> r(new RunnerProcess());
  r->pid_ = pid;
  r->channel_ = channel[0];
  r->stderr_ = err[0];
  r->started_ = Clock::now();
  return r;
}

RunnerProcess::~RunnerProcess() {
  kill();
  close_fd(channel_);
  close_fd(stderr_);
}

void RunnerProcess::kill() {
  std::lock_guard lock(reap_mutex_);
  if (pid_ <= 0 || reaped_) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int st = 0;
  while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  status_ = st;
  reaped_ = true;
}

void RunnerProcess::signal_kill() const {
  std::lock_guard lock(reap_mutex_);
  if (pid_ > 0 && !reaped_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
}

bool RunnerProcess::exited() {
  std::lock_guard lock(reap_mutex_);
  if (reaped_) return true;
  int st = 0;
  if (::waitpid(pid_, &st, WNOHANG) == pid_) {
    // Nothing is signalled after the reap: the pid may name someone else
    // now.  (The seccomp filter leaves the runner no children to clean up.)
    status_ = st;
    reaped_ = true;
  }
  return reaped_;
}

std::string RunnerProcess::how_it_ended(std::chrono::milliseconds grace) {
  auto until = Clock::now() + grace;
  while (!exited() && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill();
  if (WIFEXITED(status_)) return "exited with status " + std::to_string(WEXITSTATUS(status_));
  if (WIFSIGNALED(status_))
    return "was killed by signal " + std::to_string(WTERMSIG(status_)) + " (" +
           ::strsignal(WTERMSIG(status_)) + ")";
  return "stopped";
}

bool RunnerProcess::pump_stderr() {
  char buf[4096];
  while (true) {
    ssize_t n = ::read(stderr_, buf, sizeof buf);
    if (n > 0) {
      stderr_tail_.append(buf, static_cast<std::size_t>(n));
      constexpr std::size_t keep = 4096;
      if (stderr_tail_.size() > 2 * keep) stderr_tail_.erase(0, stderr_tail_.size() - keep);
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EINTR;
  }
}

std::string RunnerProcess::stderr_tail() {
  if (stderr_ >= 0 && !pump_stderr()) close_fd(stderr_);
  constexpr std::size_t keep = 4096;
  std::string t =
      stderr_tail_.size() > keep ? stderr_tail_.substr(stderr_tail_.size() - keep) : stderr_tail_;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

namespace {
// How long to sleep in poll: until the deadline, but waking every 20 ms to
// look at the signal (a cancelled run must not wait for its deadline).
int poll_timeout(RunnerProcess::Clock::time_point deadline) {
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - RunnerProcess::Clock::now());
  return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 20));
}
}  // namespace

RunnerProcess::Io RunnerProcess::write_line(std::string_view line, Clock::time_point deadline,
                                            const Signal* stop) {
  std::string data;
  data.reserve(line.size() + 1);
  data.append(line);
  data.push_back('\n');
  std::size_t sent = 0;
  while (sent < data.size()) {
    // MSG_NOSIGNAL: a runner that died must not take the host with SIGPIPE.
    ssize_t n = ::send(channel_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return Io::closed;
    if (stop && stop->fired()) return Io::stopped;
    if (Clock::now() >= deadline) return Io::timed_out;
    pollfd p[2] = {{channel_, POLLOUT, 0}, {stderr_, POLLIN, 0}};
    ::poll(p, stderr_ >= 0 ? 2 : 1, poll_timeout(deadline));
    if (stderr_ >= 0 && (p[1].revents & (POLLIN | POLLHUP)) && !pump_stderr()) close_fd(stderr_);
  }
  return Io::ok;
}

RunnerProcess::Io RunnerProcess::read_line(std::string& line, std::size_t max_bytes,
                                           Clock::time_point deadline, const Signal* stop) {
  std::size_t scanned = 0;
  while (true) {
    auto nl = pending_.find('\n', scanned);
    if (nl != std::string::npos) {
      if (nl > max_bytes) return Io::too_long;
      line.assign(pending_, 0, nl);
      pending_.erase(0, nl + 1);
      return Io::ok;
    }
    scanned = pending_.size();
    if (pending_.size() > max_bytes) return Io::too_long;
    char buf[65536];
    ssize_t n = ::recv(channel_, buf, sizeof buf, 0);
    if (n > 0) {
      pending_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return Io::closed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Io::closed;
    if (stop && stop->fired()) return Io::stopped;
    if (Clock::now() >= deadline) return Io::timed_out;
    pollfd p[2] = {{channel_, POLLIN, 0}, {stderr_, POLLIN, 0}};
    ::poll(p, stderr_ >= 0 ? 2 : 1, poll_timeout(deadline));
    if (stderr_ >= 0 && (p[1].revents & (POLLIN | POLLHUP)) && !pump_stderr()) close_fd(stderr_);
  }
}

}  // namespace toolgate::detail
