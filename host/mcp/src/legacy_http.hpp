// legacy_http.hpp -- a 2025-era client (2025-06-18, 2025-11-25) over
// Streamable HTTP, in front of the one 2026-07-28 gateway behind
// `toolgate mcp --listen` (host/README "Serve over HTTP", "2025-era
// clients").
//
// A 2025-era client holds a session: it sends initialize, gets an
// Mcp-Session-Id, names it on every later request, hears of list changes on
// a GET stream, and is asked questions (an approval, a server's
// elicitation) as requests on the SSE stream of the call that needs them.
// The gateway behind the listener speaks 2026-07-28 to every HTTP client,
// where none of that exists.  So the listener keeps the session itself and
// translates, and the gateway, its pipeline and its policy see an ordinary
// 2026-07-28 request:
//   - initialize is answered from the gateway's server/discover;
//   - each request gets the 2026-07-28 envelope in params._meta (that
//     version, and the capabilities and clientInfo the client declared in
//     initialize -- whatever the request's own _meta says);
//   - an input_required result becomes the client's requests (their ids
//     the listener's), and its answers the retry with inputResponses and
//     the gateway's sealed requestState, which the client never sees;
//   - results lose the members only 2026-07-28 has (resultType, ttlMs,
//     cacheScope);
//   - the GET stream is a subscriptions/listen for the three list changes,
//     its notifications without the subscription id.
// These are the texts of that translation; the sockets are http_front.cpp's.
#pragma once

#include "request_envelope.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace toolgate::mcp {

// The version a 2025-era client gets for the protocolVersion it asked for
// in initialize: 2025-06-18 or 2025-11-25 as asked, else 2025-11-25 (the
// client then decides whether it can go on).
std::string legacy_version_for(const boost::json::object& initialize_params);

// The envelope every request of a session gets, from the params of the
// initialize that opened it.
RequestEnvelope legacy_envelope(const boost::json::object& initialize_params);

// The InitializeResult for `version` from the gateway's server/discover
// result: the server's capabilities without what the listener cannot carry
// to a 2025-era client (logging, resource subscriptions, tasks and
// 2026-07-28's extensions), its serverInfo and instructions.
boost::json::object legacy_initialize_result(const boost::json::object& discover_result,
                                             std::string_view version);

// A response of the gateway (a whole JSON-RPC message) without the result
// members only 2026-07-28 has; everything else keeps its bytes.
std::string without_modern_result_members(std::string text);

// The params of the subscriptions/listen that stands for a session's GET
// stream: every list change (the gateway acknowledges what it can carry).
std::string_view legacy_listen_params();

// A notification of that subscription as the 2025-era client gets it: the
// subscription's id out of _meta (and _meta out when nothing else is in
// it).  nullopt for what has no 2025 counterpart (the acknowledgement).
std::optional<std::string> legacy_notification(std::string_view text);

// A request of the listener's own to the client (a question of an
// input_required result): `id` is a JSON string, `params_text` JSON text.
std::string question_text(std::string_view id_text, std::string_view method,
                          std::string_view params_text);

}  // namespace toolgate::mcp
