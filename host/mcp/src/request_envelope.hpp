// request_envelope.hpp -- MCP 2026-07-28's per-request metadata, put into
// every request the gateway sends to a server that speaks that version.
//
// Under 2026-07-28 there is no initialize: each request names the protocol
// version and the client's capabilities in params._meta
// ("io.modelcontextprotocol/protocolVersion", ".../clientCapabilities",
// optionally ".../clientInfo").  The gateway puts its own values there --
// whatever the sender wrote, so a client cannot declare capabilities to the
// server past the gateway -- and adds a default clientInfo when the sender
// gave none.  The request's text is edited in place (raw_json.hpp), so the
// rest of it reaches the server with the bytes it came with.
#pragma once

#include <toolgate/trace_context.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace toolgate::mcp {

struct RequestEnvelope {
  boost::json::object set;       // params._meta members given these values, replacing the sender's
  boost::json::object defaults;  // params._meta members added when the sender wrote none
  bool empty() const { return set.empty() && defaults.empty(); }
};

// The gateway's envelope towards a 2026-07-28 server: that version, the
// client capabilities the gateway vouches for -- none by default, so the
// server asks nothing; a tools/call gets the questions the client can
// answer (input_requests.hpp), which the gateway takes through the
// pipeline -- and toolgate as the client unless the request names its own.
RequestEnvelope gateway_envelope(boost::json::object capabilities = {});

// The request with the envelope's members in params._meta.  A request
// without params gets them; params that are not an object are left as they
// are (the server refuses the request).  When the text cannot be edited in
// place (a key written with escapes), the parsed request is written again.
std::string with_envelope(std::string_view request_text, const RequestEnvelope& envelope);

// The W3C trace context a message carries in params._meta (the keys
// "traceparent" and "tracestate", which MCP reserves for it in every
// version); empty when there is none or it is not valid.
TraceContext trace_context_in(const boost::json::object& params);

// What to add to a request that carries no trace context of its own when
// its transport brought one (the listener's traceparent / tracestate
// headers): an envelope of defaults, so the body's own always wins.
RequestEnvelope trace_envelope(const TraceContext& trace);

}  // namespace toolgate::mcp
