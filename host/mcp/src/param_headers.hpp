// param_headers.hpp -- MCP 2026-07-28's Mcp-Param-* headers: a tool may mark
// properties of its inputSchema with "x-mcp-header": "Name", and a client
// then mirrors those arguments into `Mcp-Param-Name` headers of its
// tools/call (so HTTP intermediaries can route on them).  A server checks
// them against the body and refuses a call whose headers are missing or
// disagree (400, HeaderMismatch).
//
// The gateway is such a client for an HTTP upstream (http_upstream.cpp): it
// learns each tool's declarations from the tools/list results it relays, and
// derives the headers from the arguments actually sent -- after any hook's
// rewrite -- never from what its own client sent.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <utility>
#include <vector>

namespace toolgate::mcp {

struct ParamHeader {
  std::string name;               // after "Mcp-Param-"
  std::vector<std::string> path;  // property names from the arguments' root
};

// The declarations of a tool's inputSchema, found through chains of
// "properties" (the only places the spec allows them).  One whose name is
// not an HTTP token, or that repeats another's name in any case, is left
// out and named in *skipped.
std::vector<ParamHeader> param_headers_of(const boost::json::value& input_schema,
                                          std::vector<std::string>* skipped);

// Header name ("Mcp-Param-Account") and value for each declaration whose
// argument is a string, a boolean or a number; absent and null ones send
// none.  Values are in the spec's text form (true/false, decimal numbers)
// and in the Base64 sentinel form when not plain visible ASCII.
std::vector<std::pair<std::string, std::string>> param_header_values(
    const std::vector<ParamHeader>& declared, const boost::json::object& arguments);

}  // namespace toolgate::mcp
