// shell_parse.hpp -- splitting a shell command line the way a POSIX shell
// would, far enough to know which programs it runs and where it writes.
//
// Substring matching cannot tell `echo "sudo is bad"` from `s\u"do" ls`, so
// the guard parses: quotes ('...', "...", $'...'), backslash escapes, line
// continuations, comments, the operators ; & && || | |& and newlines,
// subshells ( ), groups { }, function definitions, redirections, command
// substitution $( ) and backticks, process substitution <( ) >( ), and
// parameter / arithmetic expansion (kept as text, marked dynamic).  Every
// simple command anywhere -- inside substitutions, groups and function
// bodies too -- ends up in one flat list, because every one of them runs.
//
// Where it is unsure it over-approximates (here-document bodies are parsed
// as commands): for a guard, a false alarm is better than a miss.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tgp::shell {

struct Word {
  std::string text;                        // after quote removal; expansions kept as written
  bool dynamic = false;                    // holds $var, ${...}, $(...), `...` or $((...))
  std::vector<std::size_t> substitutions;  // indices of commands run by $(...) etc. in it
};

struct Redirect {
  std::string op;  // ">", ">>", ">|", "&>", "&>>", "<", "<<", "<>", ">&", "<&", "<<<"
  Word target;
  bool writes() const;
};

struct Command {
  std::vector<Word> words;
  std::vector<Redirect> redirects;
  // (pipeline id, stage) of every pipeline this command is part of: its own
  // and those of the groups/subshells around it ("(curl x) | sh").
  std::vector<std::pair<int, int>> pipelines;
  std::vector<std::string> functions;  // names of the function bodies it is in
};

struct Script {
  std::vector<Command> commands;
};

struct Limits {
  std::size_t max_depth = 16;  // nesting of ( ), { }, $( ), `...`
};

// Parses `text`; nullopt and a reason in *error for input a shell would
// reject (unterminated quotes, unbalanced parentheses) or that nests too
// deeply.
std::optional<Script> parse(std::string_view text, std::string* error, Limits limits = {});

}  // namespace tgp::shell
