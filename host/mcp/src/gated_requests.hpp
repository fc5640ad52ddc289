// gated_requests.hpp -- the MCP requests other than tools/call that run
// through the pipeline, as calls of reserved names.
//
// A server can read files as resources, a prompt can carry anything, and a
// server can ask the client's model (sampling) or its user (elicitation,
// worded like the gateway's own approval prompt).  Relayed unguarded, each
// is a way around the policy.  These requests run the whole pipeline as a
// call named "mcp/" + the method (a name no MCP tool can have: tool names
// have no '/'), with the request's params as the arguments, so guards,
// pre-execute rewrites, approval, post-execute hooks and observers apply
// to them exactly as to tools (host/README.md, "MCP gateway").
#pragma once

#include "tool_mapping.hpp"

#include <toolgate/hooks.hpp>
#include <toolgate/result.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::mcp {

inline constexpr std::string_view reserved_prefix = "mcp/";

struct GatedMethod {
  std::string_view method;    // "resources/read"
  std::string_view name;      // the call name, "mcp/resources/read"
  bool from_client;           // sent by the client (else by the server)
  std::uint32_t annotations;  // toolgate annotation bits
  std::string_view description;
};

// Every gated method, in a fixed order.
const std::vector<GatedMethod>& gated_methods();
// The gated method `method` sent by that peer, or nullptr (relayed as is).
const GatedMethod* gated_method(std::string_view method, bool from_client);
// The gated method whose call name is `name`, or nullptr.
const GatedMethod* gated_call(std::string_view name);
// Whether `name` is reserved (starts with "mcp/"): a server tool of that
// name is refused.
bool is_reserved_name(std::string_view name);

// The Host's definitions of the reserved calls, each running `body`.
std::vector<ToolDefinition> gated_definitions(
    const std::function<ToolOutput(const ToolContext&)>& body);

// The peer's JSON-RPC response to a forwarded gated request -> what the
// body returns: a result is the value (the whole result object; no
// content blocks), an error a tool failure naming its code and message.
ToolOutput output_from_response(const boost::json::object& response, std::string_view method);

// The JSON-RPC code of an error the gateway answers a gated request with
// when the pipeline refused or failed it (data: {"toolgate/error": {code,
// message, stage, source}}).  In the implementation-defined server range.
inline constexpr std::int64_t refused_code = -32001;

// What goes back to the requester.  Unchanged -- the final result's value
// is the peer's result and nothing else was added, or the failure is the
// one the body made of the peer's error -- it is the peer's own answer,
// byte for byte when its text is known.  A refusal or failure is a
// JSON-RPC error (refused_code).  A result a post-execute hook replaced
// goes back as its value, which must be an object (the method's result);
// anything else is an error, never a guess.  Additional contexts travel in
// the result's _meta["toolgate/additional_contexts"].
Relay reply_for_request(const ToolResult& r, const std::optional<ServerAnswer>& answer,
                        const GatedMethod& method, const std::vector<std::string>& contexts);

}  // namespace toolgate::mcp
