// analyze.hpp -- deciding whether a parsed command line is dangerous.
#pragma once

#include "shell_parse.hpp"

#include "../common/glob.hpp"

#include <string>
#include <vector>

namespace tgp::shell {

struct Rules {
  bool rm_rf_root = true;                   // rm -r on /, ~, $HOME, a bare $VAR, system dirs
  bool pipe_to_shell = true;                // curl ... | sh, sh <(curl ...), bash -c "$(curl ...)"
  bool privilege = true;                    // sudo, doas, su, pkexec, run0
  bool block_devices = true;                // writing /dev/sd*, dd of=/dev/..., mkfs, wipefs
  bool fork_bomb = true;                    // a function that calls itself (:(){ :|:& };:)
  bool dynamic_programs = true;             // program name from an expansion ($X args)
  std::vector<std::string> deny_programs;   // name globs
  std::vector<std::string> allow_programs;  // non-empty: allow-list mode
  std::size_t max_depth = 8;                // nested sh -c / eval re-parsing
};

// Returns "" when the script may run, else why not.  Nested scripts
// (sh -c "...", eval "...") are parsed and checked too.
std::string analyze(const Script& script, const Rules& rules, std::size_t depth = 0);

// The program's basename ("/usr/bin/sudo" -> "sudo").
std::string basename_of(const std::string& word);

}  // namespace tgp::shell
