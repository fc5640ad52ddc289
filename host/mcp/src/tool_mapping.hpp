// tool_mapping.hpp -- MCP tools and results <-> the pipeline's shapes.
#pragma once

#include <toolgate/hooks.hpp>
#include <toolgate/result.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace toolgate::mcp {

// MCP ToolAnnotations -> toolgate annotation bits, with the spec's defaults
// for absent hints: destructiveHint true (only meaningful when not
// read-only), idempotentHint false, openWorldHint true.  A tool without
// annotations is therefore destructive and open-world: the strict side.
std::uint32_t annotation_bits(const boost::json::value& annotations);

// One entry of a tools/list result -> a definition without `execute` (the
// caller supplies it).  nullopt and a reason when it has no usable name.
std::optional<ToolDefinition> tool_definition(const boost::json::value& tool, std::string* why);

// A server's CallToolResult (the "result" of its tools/call response) ->
// what the tool body returns.  isError: true is a tool failure whose message
// is the text of its content; structuredContent (an object) is the value,
// and without it the value is null (no structuredContent).
ToolOutput output_from_call_result(const boost::json::value& result, std::string_view tool);

// A JSON-RPC error answering a forwarded tools/call -> a tool failure.
ToolOutput output_from_rpc_error(const boost::json::value& error, std::string_view tool);
// The same for any forwarded request: `refused` ("the MCP server refused
// tools/call for T") followed by the error's code, message and data (all
// of which the hooks must read: an unchanged failure is relayed as it came).
ToolOutput failure_from_rpc_error(const boost::json::value& error, std::string refused);

// The pipeline's outcome -> the CallToolResult for the client.  A success
// carries content, structuredContent (only when the value is an object) and
// isError false.  Any error -- a denial, an approval refusal, a timeout, a
// tool or plugin failure -- is isError true with the result's content (text
// naming the reason) and _meta["toolgate/error"] = {code, message, stage,
// source[, denials]}.
boost::json::object call_result_from(const ToolResult& r);

// What the server answered a forwarded tools/call with, as it came: its
// CallToolResult, or its JSON-RPC error object.  `failure_message` is the
// message the tool body made of an error (empty for a success).
struct ServerAnswer {
  // Never null, never changed: shared with the parsed response it is part
  // of (the gateway keeps the answer without copying it); replaced whole.
  std::shared_ptr<const boost::json::object> body;
  bool rpc_error = false;
  std::string failure_message;
  std::string text;  // `body` as the server wrote it (empty when unknown)
};

// What goes back to the client for a call whose tool body forwarded to the
// server: the server's own answer when no hook changed the outcome -- its
// _meta, its unknown fields, an error result's images and structured
// content, a JSON-RPC error's code and data (so a 2025-11-25 URL
// elicitation error, -32042, can start its flow) -- otherwise the rebuilt
// call_result_from(r).  Unchanged means: the final result is exactly what
// the body produced from that answer (content, structured content; for an
// error its code, stage, source, message and content) and, for a JSON-RPC
// error, no additional context has to travel with it.
//
// When the server's answer goes back and its text is known, `text` holds
// it byte for byte (raw_json.hpp) -- for an error result with toolgate's
// _meta["toolgate/error"] spliced in -- and is what is sent; `body` is the
// same answer parsed.  A server's _meta that already names
// "toolgate/error" is never relayed as text (the client would read the
// server's copy of a duplicate key): it is rebuilt with toolgate's.
struct Relay {
  enum class Kind { result, rpc_error } kind = Kind::result;
  // The result (contexts added) or the error object; empty for a result
  // relayed as `text` (not built when the server's own text goes back).
  boost::json::object body;
  std::string text;  // when not empty: what to send as the body
};
Relay relay_for(const ToolResult& r, const std::optional<ServerAnswer>& answer,
                std::string_view tool, const std::vector<std::string>& contexts);

// The params of the tools/call the gateway sends the server for a client's
// call: the client's own params text (`client_text`, parsed as
// `client_params`) with the arguments replaced only when a hook rewrote
// them (`final_arguments` differs from what the client sent).  "task" is
// removed, unless `as_task`: then it is kept, or "task": {} is added (the
// server runs the call as a task of its own, which the tool body waits on
// -- client_tasks.hpp: the client never sees the server's task).  With
// `round_trip_is_ours` (a 2026-07-28 client: the gateway speaks the older
// protocol to the server, so a multi round-trip answer is to the gateway's
// own question) "inputResponses" and "requestState" are removed too.  Everything
// else -- numbers as the client spelled them, integers beyond 64 bits, _meta
// -- reaches the server byte for byte.  Written from the parsed params when
// the text is unknown or does not hold a key plainly.
std::string forward_params(std::string_view client_text, const boost::json::object& client_params,
                           std::string_view tool, const boost::json::object& final_arguments,
                           bool as_task = false, bool round_trip_is_ours = false);

// Additional contexts queued by post-execute hooks (docs/design.md §6) for one
// tools/call.  MCP has no slot for a user message after a batch, and each
// tools/call is a batch of one, so they travel in the call's own result:
// appended as text blocks after its content (the model reads them) and
// listed in _meta["toolgate/additional_contexts"] (for clients that show
// them apart).  Nothing is appended when there are none.
void add_contexts(boost::json::object& call_result, const std::vector<std::string>& contexts);

}  // namespace toolgate::mcp
