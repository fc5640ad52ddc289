// tool_pins.hpp -- pinning the MCP server's tool definitions (the rug-pull
// defence).
//
// A server can change what a tool says it does after the user approved it:
// a new description is a new instruction to the model, a new schema a new
// way to call it.  Each tool the server lists is pinned -- a SHA-256 over
// its definition -- on first sight in the session, or from a pin file
// (`toolgate mcp pin` writes one).  A definition that no longer matches its
// pin, or a tool a pin file does not name, has drifted: by configuration its
// calls are refused and it is left out of the tools/list the client sees
// (block, the default), the user is asked before each call (ask), or it is
// only logged (allow).  host/README.md, "MCP gateway", says the rest.
//
// Replicas: with a shared store (shared_store.hpp) and no pin file, "first
// sight" is the first sight by any replica, and the store holds the pins.
// A tool whose pin the store cannot tell counts as drifted until a later
// listing reaches the store (fail closed) -- unlike a drift, that passes.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::mcp {

// The definition's members that are pinned, in canonical JSON (keys sorted
// at every level, numbers in their shortest form): name, title,
// description, inputSchema, outputSchema, annotations.  Anything else (its
// _meta, icons) may change freely.
std::string canonical_tool_text(const boost::json::object& tool);
// "sha256:" + the lowercase hex SHA-256 of canonical_tool_text.
std::string tool_pin(const boost::json::object& tool);

// A pin file: {"toolgate_pins": 1, "tools": {"NAME": "sha256:HEX", ...}}.
using PinMap = std::map<std::string, std::string, std::less<>>;
// Parses a pin file's text strictly; nullopt and `*why` (what and where)
// when it is not one.
std::optional<PinMap> parse_pin_file(std::string_view text, std::string* why);
// Reads one; throws std::runtime_error naming the file and the problem.
PinMap read_pin_file(const std::filesystem::path& file);
// The text of a pin file for `pins` (sorted, one tool per line).
std::string pin_file_text(const PinMap& pins);

enum class OnDrift { block, ask, allow };

class SharedStore;

class ToolPins {
 public:
  // `file`: the pins from a pin file (every tool must be in it), or
  // nullopt to pin each tool on first sight -- in `shared` (not owned,
  // may be null) when given, so that every replica pins alike.
  ToolPins(std::optional<PinMap> file, OnDrift on_drift, std::string file_name = {},
           SharedStore* shared = nullptr);

  // A tool definition as listed: pinned now if it was not; when it drifts
  // now, why (nullopt when it matches, or had drifted already: drift()
  // says).  Once drifted, a tool stays drifted for the session, whatever
  // it lists later.
  std::optional<std::string> check(const boost::json::object& tool);
  // Why `tool` drifted (or could not be checked), or nullopt.
  std::optional<std::string> drift(std::string_view tool) const;
  OnDrift on_drift() const { return on_drift_; }

 private:
  mutable std::mutex mutex_;
  PinMap pins_;
  bool from_file_;
  std::string file_name_;
  OnDrift on_drift_;
  SharedStore* shared_;
  std::map<std::string, std::string, std::less<>> drifted_;  // tool -> why
  // Tools whose pin the shared store could not tell at their last listing.
  std::map<std::string, std::string, std::less<>> unchecked_;  // tool -> why
};

}  // namespace toolgate::mcp
