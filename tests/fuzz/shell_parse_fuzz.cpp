// The guard-commands plugin's shell parser and analyzer
// (plugins/guard-commands/shell_parse.cpp, analyze.cpp), as the guard runs
// them on a command argument: parse, then analyze the script under the
// default rules and under an allow-list with deny globs.  Checked: a
// refusal says why; a parsed script is well-formed (every command does
// something and is in a pipeline; substitution indices name commands);
// parsing and analysis are deterministic; nothing crashes or recurses
// without bound.
#include "fuzz_check.hpp"
#include "guard-commands/analyze.hpp"
#include "guard-commands/shell_parse.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace shell = tgp::shell;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  auto script = shell::parse(text, &error);
  if (!script) {
    FUZZ_CHECK(!error.empty());
    FUZZ_CHECK(!shell::parse(text, nullptr).has_value());
    return 0;
  }
  const std::size_t n = script->commands.size();
  for (const auto& c : script->commands) {
    FUZZ_CHECK(!c.words.empty() || !c.redirects.empty());
    FUZZ_CHECK(!c.pipelines.empty());
    for (const auto& w : c.words) {
      if (!w.substitutions.empty()) FUZZ_CHECK(w.dynamic);
      for (std::size_t k : w.substitutions) FUZZ_CHECK(k < n);
    }
    for (const auto& r : c.redirects) {
      FUZZ_CHECK(!r.op.empty());
      for (std::size_t k : r.target.substitutions) FUZZ_CHECK(k < n);
    }
  }

  static const shell::Rules defaults;
  static const shell::Rules listed = [] {
    shell::Rules r;
    r.deny_programs = {"rm", "*sh", "py?hon*"};
    r.allow_programs = {"ls", "git", "echo", "cat", "grep", "*"};
    return r;
  }();
  const std::string why = shell::analyze(*script, defaults);
  FUZZ_CHECK(why == shell::analyze(*script, defaults));
  (void)shell::analyze(*script, listed);
  (void)shell::basename_of(text.empty() ? std::string() : std::string(text));

  auto again = shell::parse(text, nullptr);
  FUZZ_CHECK(again && again->commands.size() == n);
  return 0;
}
