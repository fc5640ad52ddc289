// options.hpp -- what check, plan and call share: manifests as positional
// arguments, operator overrides, error and exit-code conventions.
//
// Exit codes, every command: 0 success, 1 failure (invalid manifest, a call
// that ended as an error), 2 usage error.  Errors go to stderr as
// "toolgate CMD: error: ..."; results go to stdout.
#pragma once

#include "commands.hpp"

#include <toolgate/host.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace toolgate::cli {

// Thrown for bad command lines: printed with the usage, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CommonOptions {
  std::vector<std::string> manifests;
  LoadOptions load;
};

// Parses the shared options out of `args`; returns the rest.  Flags with a
// value: --manifest M (same as a positional M), --disable GLOB.  Flags:
// --allow-insecure-plugin-permissions, --strict / --no-strict (refuse
// plugins with a bad build; `out` holds the command's default).  Also reads
// TOOLGATE_DISABLE (comma-separated globs).
Args parse_common(const Args& args, CommonOptions& out,
                  const std::vector<std::string>& value_flags = {},
                  const std::vector<std::string>& bool_flags = {});

// When no manifest was given, the default folders (default_manifests.hpp);
// throws std::runtime_error when they hold none or are unsafe.
void use_default_manifests_if_none(CommonOptions& o);

// The sample tools every command offers (greet, slow).
std::vector<ToolDefinition> sample_tools();

// Registers the sample tools and `extra_tools` (stubs) on `host`; a stub
// whose name is taken is a UsageError.
void register_cli_tools(Host& host, std::vector<ToolDefinition> extra_tools);

// A host with the sample tools (and `extra_tools`, e.g. stubs) and the
// manifests loaded; throws LoadError.
std::unique_ptr<Host> make_host(const CommonOptions& o, LoadReport* report = nullptr,
                                std::vector<ToolDefinition> extra_tools = {});

// This program's own path, for child processes (probes).
std::string self_exe();

// The JSON text of a call of `tool` whose arguments are the JSON text
// `arguments` (--args), built as a document: the arguments are parsed (a
// duplicate key refused) and nested, never spliced into the text, so no
// argument string can rename the tool.  nullopt with `*why` when they are
// not valid JSON.
std::optional<std::string> call_document(const std::string& tool, const std::string& arguments,
                                         std::string* why);

// The value of a numeric option: decimal digits only (no sign, no
// spaces), between `min` and `max`; otherwise a UsageError naming `flag`,
// what it takes and what was given.  (std::stoull read "-1" as 2^64-1.)
std::uint64_t number_option(const std::string& flag, const std::string& text, std::uint64_t min,
                            std::uint64_t max, const char* unit);

// The tools of every `--stub NAME[:SCHEMA]` in parsed leftovers (call,
// watch): NAME is the tool's name (no spaces, no ':', at most 128 bytes),
// SCHEMA its input schema, a JSON object given inline or as @FILE.
// UsageError naming the option when one is malformed.
std::vector<ToolDefinition> stub_tools(const Args& rest);

// Code Mode from the command line: `--code-mode` turns it on, `--code-sandbox
// bubblewrap|none` picks the sandbox (none logs a warning on every run).
// The flags to pass to parse_common, and what they ask for (nullopt: off).
std::optional<CodeModeOptions> code_mode_flags(const Args& rest);

// `--tools fs [--workspace DIR]`: toolgate's file tools (fs.read, fs.write,
// fs.edit, fs.list) rooted at DIR (default: the current folder).  Empty
// without --tools; UsageError for another tool set or a missing folder.
std::vector<ToolDefinition> tool_set_flags(const Args& rest);

// The value of `--flag VALUE` in parsed leftovers, if present.
std::optional<std::string> flag_value(const Args& rest, const std::string& flag);
bool has_flag(const Args& rest, const std::string& flag);

}  // namespace toolgate::cli
