// input_requests.hpp -- a 2026-07-28 server's questions to the client.
//
// Under MCP 2026-07-28 a server does not send the client requests: it
// answers tools/call with an input_required result whose inputRequests
// (a map of keys to elicitation/create, sampling/createMessage or
// roots/list requests) the client answers by retrying the call with
// inputResponses under the same keys and the server's requestState echoed
// (the multi round-trip pattern).  The gateway stands between: it reads the
// questions from the result (each then runs through the pipeline like a
// 2025 server's request of that method), and puts the answers into the
// retry it sends.  What the gateway does with them is in gateway.cpp; this
// is the reading and writing.
#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toolgate::mcp {

struct InputRequest {
  std::string key;     // the server's name for the question
  std::string method;  // elicitation/create, sampling/createMessage or roots/list
  boost::json::object params;
  std::string params_text;  // the params as the server wrote them ("" when unknown)
};

struct InputRequired {
  std::vector<InputRequest> requests;        // in the order the server wrote them
  std::optional<std::string> request_state;  // the server's, echoed on the retry
};

// Whether a result asks for input (resultType "input_required").
bool is_input_required(const boost::json::object& result);

// The server's questions in an input_required `result` (`result_text` its
// text, or "").  Throws std::invalid_argument saying what is wrong when the
// result breaks the protocol: neither inputRequests nor requestState, a
// question that is not an object with a method and object params, a method
// other than the three, or a method the client cannot answer
// (`answerable`: see answerable_capabilities).  A server's question may
// not be named like the gateway's own ("toolgate/..."); the gateway's, read
// by the HTTP listener for a 2025-era client (legacy_http.hpp), are.
enum class QuestionsOf { server, gateway };
InputRequired read_input_required(const boost::json::object& result, std::string_view result_text,
                                  const boost::json::object& answerable,
                                  QuestionsOf of = QuestionsOf::server);

// The client capabilities that let a server ask the client something --
// elicitation, sampling and roots, as the client declared them -- out of
// everything it declared (null: nothing).  Only these are declared to a
// 2026-07-28 server on the client's behalf.
boost::json::object answerable_capabilities(const boost::json::object* declared);

// The capability a question's method needs ("elicitation" for
// elicitation/create, ...).
std::string_view capability_for(std::string_view method);

// `params_text` (an object) with "inputResponses" (each key's answer, as
// JSON text) and, when there is one, "requestState" as its first members.
std::string with_input_responses(std::string_view params_text,
                                 const std::vector<std::pair<std::string, std::string>>& answers,
                                 const std::optional<std::string>& request_state);

}  // namespace toolgate::mcp
