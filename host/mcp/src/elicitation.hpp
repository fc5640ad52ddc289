// elicitation.hpp -- the Host's approver as an MCP elicitation.
//
// When a pre-execute hook asks, the gateway sends the client
// elicitation/create (form mode, an empty requestedSchema) with the reason,
// the tool, the exact final arguments and the hook that asked -- only if
// the client's initialize declared elicitation with form support.  accept
// -> allowed once, decline -> rejected, cancel -> cancelled, a JSON-RPC
// error -> unavailable, an unknown action -> rejected (never allow on an
// answer we do not understand).
#pragma once

#include <toolgate/hooks.hpp>

#include <boost/json/object.hpp>

#include <string_view>

namespace toolgate::mcp {

// Whether the client's initialize params declare elicitation in form mode.
bool client_can_elicit_forms(const boost::json::object& init_params);

// The params of elicitation/create asking to approve `r`; `mode: "form"`
// only from protocol version 2025-11-25 on.
boost::json::object elicitation_params(const ApprovalRequest& r, std::string_view protocol_version);

// The client's JSON-RPC response to elicitation/create -> the answer.
ApprovalAnswer approval_from_response(const boost::json::object& response);

}  // namespace toolgate::mcp
