// trace_context.hpp -- W3C Trace Context carried with a call, so that one
// call can be followed across an agent, toolgate's replicas and the server
// behind them (docs: host/README.md, "Trace context").
//
// An entry point takes `traceparent` / `tracestate` from where its caller
// put them (MCP: a request's params._meta; HTTP: the headers of those
// names) and sets CallIdentity::trace.  The engine writes them into the
// call's tool/call event and the outcome result observers see (the audit
// plugin's records); the MCP gateway sends them on to the server.  They
// are identifiers, never decisions: nothing in the pipeline reads them to
// allow or deny.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace toolgate {

struct TraceContext {
  std::string traceparent;  // "00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>"
  std::string tracestate;   // vendor list, kept only with a valid traceparent

  bool empty() const { return traceparent.empty(); }
};

// A traceparent as W3C Trace Context (level 1) defines it: lowercase hex,
// a version other than ff (00 exactly 55 characters; a later version may
// append "-..." fields of hex and dashes, 256 characters in all), a trace
// id and a parent id that are not all zeros.
bool valid_traceparent(std::string_view value);

// A tracestate this host carries: at most 512 characters (what the
// specification requires propagators to keep), visible ASCII and spaces.
bool valid_tracestate(std::string_view value);

// The context to carry: empty when `traceparent` is not valid (W3C: then
// tracestate is dropped too); a tracestate that is not valid is dropped
// alone.  Neither is ever an error: a bad header restarts the trace.
TraceContext trace_context_of(std::string_view traceparent, std::string_view tracestate);

// Writes "traceparent" (and "tracestate" when there is one) into `into`
// when `trace` is not empty: the tool/call event's data and the outcome's
// "call" object carry them under these names.
void add_trace_context(boost::json::object& into, const TraceContext& trace);

}  // namespace toolgate
