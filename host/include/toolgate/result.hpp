// result.hpp -- the one model-facing outcome of a tool call
// (docs/design.md §4).
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace toolgate {

// The closed set of error codes.  Every error result carries exactly one.
namespace error_code {
inline constexpr std::string_view denied = "denied";
inline constexpr std::string_view approval_rejected = "approval_rejected";
inline constexpr std::string_view approval_cancelled = "approval_cancelled";
inline constexpr std::string_view approval_unavailable = "approval_unavailable";
inline constexpr std::string_view timeout = "timeout";
inline constexpr std::string_view cancelled = "cancelled";
inline constexpr std::string_view plugin_error = "plugin_error";
inline constexpr std::string_view tool_error = "tool_error";
inline constexpr std::string_view invalid_arguments = "invalid_arguments";
inline constexpr std::string_view snapshot_failed = "snapshot_failed";
inline constexpr std::string_view unknown_tool = "unknown_tool";
// A split-phase call begun but never completed: the caller did not report
// the tool's result before the call expired (HostOptions::split_call_expiry).
inline constexpr std::string_view not_completed = "not_completed";
}  // namespace error_code

// True for the codes above: the set is closed, and a result carrying any
// other code does not parse (ToolResult::from_json).
bool is_error_code(std::string_view code);

// Stage names: the slot names used in results, events, logs and docs.
namespace stage {
inline constexpr std::string_view call = "tool/call";
inline constexpr std::string_view pre_execute = "tools/pre-execute";
inline constexpr std::string_view approval = "approval";
inline constexpr std::string_view guard = "guard";
inline constexpr std::string_view fs_guard = "fs/guard";  // a tool's file mutation
inline constexpr std::string_view execute = "tools/execute";
inline constexpr std::string_view tool_body = "tool/body";  // was "execute" before 0.2
inline constexpr std::string_view render = "render";
inline constexpr std::string_view post_execute = "tools/post-execute";
inline constexpr std::string_view normalize = "normalize";
inline constexpr std::string_view finalize = "finalizeContent";
inline constexpr std::string_view observer = "tools/result";
}  // namespace stage

struct ErrorInfo {
  std::string code;     // one of error_code::*
  std::string message;  // human-readable, names what failed
  std::string stage;    // one of stage::*
  std::string source;   // "plugin-id/hook-name", a tool name, or "host"
  // Guards: every denying guard, in a deterministic order (by guard id).
  boost::json::array denials;
};

// The result shape.  `content` is an array of MCP content blocks; `value`
// maps to MCP structuredContent.
struct ToolResult {
  bool is_error = false;
  boost::json::array content;
  std::optional<boost::json::value> value;
  std::optional<ErrorInfo> error;

  boost::json::object to_json() const;
  // Builds a result from the result-shape JSON; nullopt and a reason in
  // *why if the shape is wrong.
  static std::optional<ToolResult> from_json(const boost::json::value& v, std::string* why);
  // The same, moving content and value out of `v` instead of copying.
  static std::optional<ToolResult> from_json(boost::json::value&& v, std::string* why);

  static ToolResult success(boost::json::value value, boost::json::array content);
  static ToolResult failure(std::string_view code, std::string message, std::string_view stage,
                            std::string source);
};

// One text content block.
boost::json::object text_block(std::string_view text);

}  // namespace toolgate
