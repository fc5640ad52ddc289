// code_mode.hpp -- Code Mode (docs/design.md §17): the reserved tool
// `run_code` runs a model-written JavaScript program in a sandboxed Node.js
// process; every tool the program calls goes through the whole pipeline as
// a call of its own.
//
//   toolgate::CodeModeOptions code;               // bubblewrap sandbox by default
//   host.enable_code_mode(code);
//   host.call({{"", "run_code", "s1", ""},
//              {{"code", "const r = await tools.greet({name: 'Ada'}); return r;"}}});
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace toolgate {

// The reserved tool's name: registering a tool of this name is an error.
inline constexpr std::string_view code_mode_tool = "run_code";

struct CodeModeOptions {
  // Where scripts run.  bubblewrap: a sandbox with no network, a read-only
  // view of the system's libraries and node only, a private /tmp, no
  // inherited descriptors but the channel, an empty environment, no new
  // processes (seccomp) and rlimits.  none: node runs unconfined, with the
  // rlimits only -- for machines where the scripts are trusted; every run
  // then logs a warning.  A host that cannot set the sandbox up refuses
  // run_code, saying why; it never falls back to "none" by itself.
  enum class Sandbox { bubblewrap, none };
  Sandbox sandbox = Sandbox::bubblewrap;
  std::string node = "node";    // a program name (PATH) or a path
  std::string bwrap = "bwrap";  // likewise

  // A run's deadline when the call gives no timeout_ms, and the most
  // timeout_ms may ask for.  The host kills the runner when it passes.
  std::chrono::milliseconds default_timeout{30000};
  std::chrono::milliseconds max_timeout{300000};
  // Tool calls one run may make; the next one ends the run as an error.
  std::size_t max_sub_calls = 100;
  // console output kept per run; the rest is dropped, and the result says so.
  std::size_t max_output_bytes = 64u << 10;
  // The longest line the runner may send (a call's arguments, the return
  // value); a longer one ends the run as an error.
  std::size_t max_message_bytes = 8u << 20;
  // The runner's address space (RLIMIT_AS); V8's heap is kept to a quarter
  // of it so a memory bomb ends as "out of memory", not a crash elsewhere.
  std::uint64_t memory_bytes = 2ull << 30;
  // The private /tmp's size, and the largest file the runner may write.
  std::uint64_t tmp_bytes = 64ull << 20;
  // Runners started ahead of time, each used for one run only: a run then
  // starts in a few milliseconds instead of a cold node start.  0: none.
  unsigned prestarted_runners = 0;
  // Whether the script's console output is returned (as text content).
  bool return_output = true;

  bool operator==(const CodeModeOptions&) const = default;
};

}  // namespace toolgate
