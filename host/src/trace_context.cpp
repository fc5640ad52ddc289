// W3C Trace Context checks (toolgate/trace_context.hpp).
#include <toolgate/trace_context.hpp>

namespace toolgate {
namespace {

bool lower_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool all_zeros(std::string_view s) { return s.find_first_not_of('0') == std::string_view::npos; }

}  // namespace

bool valid_traceparent(std::string_view v) {
  // version "-" trace-id "-" parent-id "-" flags: 2+1+32+1+16+1+2.
  constexpr std::size_t size_00 = 55;
  if (v.size() < size_00 || v[2] != '-' || v[35] != '-' || v[52] != '-') return false;
  const auto version = v.substr(0, 2), trace_id = v.substr(3, 32), parent_id = v.substr(36, 16),
             flags = v.substr(53, 2);
  if (!lower_hex(version) || !lower_hex(trace_id) || !lower_hex(parent_id) || !lower_hex(flags))
    return false;
  if (version == "ff" || all_zeros(trace_id) || all_zeros(parent_id)) return false;
  // Version 00 is exactly this long; a later one may carry more fields.
  // Those are kept to hex and dashes and the whole to 256 characters: the
  // value is passed on in an HTTP header, and from a body's _meta it could
  // otherwise carry a CR LF and a header of its own.
  if (version == "00") return v.size() == size_00;
  if (v.size() == size_00) return true;
  if (v.size() > 256 || v[size_00] != '-') return false;
  for (char c : v.substr(size_00))
    if (c != '-' && !lower_hex(std::string_view(&c, 1))) return false;
  return true;
}

bool valid_tracestate(std::string_view v) {
  if (v.size() > 512) return false;
  for (char c : v)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

TraceContext trace_context_of(std::string_view traceparent, std::string_view tracestate) {
  if (!valid_traceparent(traceparent)) return {};
  return {std::string(traceparent),
          valid_tracestate(tracestate) ? std::string(tracestate) : std::string()};
}

void add_trace_context(boost::json::object& into, const TraceContext& trace) {
  if (trace.empty()) return;
  into["traceparent"] = trace.traceparent;
  if (!trace.tracestate.empty()) into["tracestate"] = trace.tracestate;
}

}  // namespace toolgate
