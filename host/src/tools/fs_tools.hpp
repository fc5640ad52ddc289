// fs_tools.hpp -- toolgate's file tools (docs/design.md §2.13): fs.read,
// fs.write, fs.edit and fs.list, rooted at a workspace folder.
//
// Written against the public tool API only, as any tool author would: every
// change goes through ToolContext's write_intent / edit_intent first (so the
// fs guards and read-before-edit see the real path), and every read is
// reported with observed().
#pragma once

#include <toolgate/hooks.hpp>

#include <cstddef>
#include <filesystem>
#include <vector>

namespace toolgate::fs_tools {

struct Options {
  // Every path is relative to this folder (an absolute path must lie in
  // it); a path that resolves outside -- through `..` or a link -- is
  // refused by the tools themselves, before any guard runs.
  std::filesystem::path workspace;
  std::size_t max_file_bytes = 4u << 20;  // fs.read / fs.edit refuse larger files
  std::size_t max_entries = 1000;         // fs.list stops there and says so
};

// fs.read  {"path"}                                   -> {"path", "content"}
// fs.write {"path", "content"}                        -> {"path", "bytes", "created"}
// fs.edit  {"path", "old", "new", "replace_all"?}     -> {"path", "replacements"}
// fs.list  {"path"?}                                  -> {"path", "entries": [{name, type, size}]}
// Throws std::invalid_argument when the workspace is not an existing folder.
std::vector<ToolDefinition> tools(const Options& options);

}  // namespace toolgate::fs_tools
