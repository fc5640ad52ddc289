// runner_process.hpp -- one Code Mode runner: node running runner.mjs in a
// sandbox, and the channel to it (docs/design.md §17.3).
//
// The process is started, used for one run and killed: never reused, so
// nothing one script leaves behind reaches the next.  Everything read from
// it is untrusted input: lines are bounded, and every wait has a deadline.
#pragma once

#include <toolgate/signal.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace toolgate::detail {

// Why a runner cannot be started, and how to fix it: what run_code answers
// instead of running unconfined.
class RunnerUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunnerSpawn {
  bool sandboxed = true;  // false: the operator chose sandbox "none"
  std::string node;       // a program name (PATH) or path
  std::string bwrap;      // likewise; unused without the sandbox
  std::uint64_t address_space_bytes = 1ull << 30;
  unsigned heap_megabytes = 256;  // V8's old-space limit, below the rlimit
  unsigned cpu_seconds = 330;     // RLIMIT_CPU: a backstop to the host's deadline
  std::uint64_t tmp_bytes = 64ull << 20;
  // No RLIMIT_NPROC: it counts every process of the user (and never binds
  // root), so no value is both safe and meaningful.  The sandbox's seccomp
  // filter refuses every new process instead (docs/design.md §17.3).
};

class RunnerProcess {
 public:
  using Clock = std::chrono::steady_clock;
  // Starts one runner; throws RunnerUnavailable (node or bwrap missing, the
  // seccomp filter cannot be built, fork fails).  A sandbox that fails to
  // set itself up shows later, as a runner that never says "ready".
  static std::unique_ptr<RunnerProcess> start(const RunnerSpawn& how);
  ~RunnerProcess();  // kills it and reaps it
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  enum class Io { ok, closed, timed_out, stopped, too_long };
  // Writes `line` and a newline.  stopped: `stop` fired first.
  Io write_line(std::string_view line, Clock::time_point deadline, const Signal* stop);
  // Reads the next line (without its newline) into `line`; too_long when
  // more than max_bytes arrive without one.
  Io read_line(std::string& line, std::size_t max_bytes, Clock::time_point deadline,
               const Signal* stop);

  // SIGKILL to the whole process group, then reap.  Idempotent.
  void kill();
  // SIGKILL only, without reaping: safe from another thread while the
  // owner uses the process (the run's watchdog).
  void signal_kill() const;
  pid_t pid() const { return pid_; }
  // Whether it has exited already (without waiting); reaps it if so.
  bool exited();
  // "exited with status 1", "was killed by signal 9 (Killed)": after kill()
  // or exited(); waits up to `grace` for it to end by itself first.
  std::string how_it_ended(std::chrono::milliseconds grace);
  // The last few KiB it wrote to stderr (bwrap's and node's complaints).
  std::string stderr_tail();

  Clock::time_point started_at() const { return started_; }

 private:
  RunnerProcess() = default;
  bool pump_stderr();  // reads what is there; false at EOF
  // Guards reaping against signal_kill(): a pid is signalled only while it
  // is still ours (never after waitpid, when it may name someone else).
  mutable std::mutex reap_mutex_;
  pid_t pid_ = -1;
  int channel_ = -1;  // our end of the socket: the runner's stdin and stdout
  int stderr_ = -1;
  int status_ = 0;
  bool reaped_ = false;
  std::string pending_;  // bytes read past the last line
  std::string stderr_tail_;
  Clock::time_point started_{};
};

}  // namespace toolgate::detail
