// install.hpp -- adding toolgate's hook entries to an agent's settings file
// and removing them again.  Pure text in, text out: the caller reads the
// file, writes new_text only when changed (and nothing when these throw).
#pragma once

#include "agent_hooks/agent_format.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace toolgate::agent_hooks {

struct SettingsEdit {
  std::filesystem::path path;
  std::string new_text;
  bool changed;
};

// The settings file for `agent` at `scope` ("user": under `home`;
// "project": under `project_dir`): ~/.claude/settings.json,
// .claude/settings.json, ~/.codex/hooks.json, .codex/hooks.json,
// ~/.gemini/settings.json, .gemini/settings.json, ~/.cursor/hooks.json,
// .cursor/hooks.json.  std::invalid_argument for another scope.
std::filesystem::path settings_path(const AgentFormat&, std::string_view scope,
                                    const std::filesystem::path& home,
                                    const std::filesystem::path& project_dir);

// Adds the before- and after-tool hook entries running `command` (e.g.
// "/usr/bin/toolgate hook claude-code") to `existing` (empty string = no
// file).  Idempotent: when every entry is already there (matched by the
// command string) the text comes back unchanged, byte for byte.  Every
// other key and hook is kept.  std::runtime_error (with the JSON position)
// when `existing` is not JSON or has an unexpected shape at the hooks key.
// The hook timeout is 10 s (Gemini: 10000 ms), above the hook client's own
// 5 s bound.
std::string install_hooks(const AgentFormat&, std::string_view existing, std::string_view command);

// Removes exactly the entries install_hooks added (matched by the command
// string), dropping matcher groups, event arrays and a hooks object left
// empty by the removal but nothing else.  Unchanged text when there is
// nothing to remove.
std::string uninstall_hooks(const AgentFormat&, std::string_view existing,
                            std::string_view command);

// `word` as one word of a POSIX shell command line: as it is when it holds
// only characters no shell treats specially, else in single quotes (each
// ' written as '\'').  The agents run a hook's command through a shell: an
// unquoted program path with a space or a `$` in it would fail with 127
// on every call, which the agents take as "go on".
std::string shell_word(std::string_view word);

// `v` as JSON text indented by two spaces, keys in their order, with a
// final newline.
std::string pretty_json(const boost::json::value& v);

}  // namespace toolgate::agent_hooks
