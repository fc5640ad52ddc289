// jsonrpc.hpp -- JSON-RPC 2.0 messages as MCP uses them.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace toolgate::mcp {

namespace rpc_error {
inline constexpr std::int64_t parse_error = -32700;
inline constexpr std::int64_t invalid_request = -32600;
inline constexpr std::int64_t method_not_found = -32601;
inline constexpr std::int64_t invalid_params = -32602;
inline constexpr std::int64_t internal_error = -32603;
// MCP 2026-07-28: a request naming a protocol version the receiver does not
// speak; data: {"supported": [...], "requested": "..."}.
inline constexpr std::int64_t unsupported_version = -32022;
}  // namespace rpc_error

// Nesting limit for messages from either peer (tool schemas nest deeply,
// but not this deeply).
inline constexpr std::size_t max_message_depth = 256;

struct Message {
  enum class Kind { request, notification, response, invalid } kind = Kind::invalid;
  boost::json::object body;  // the whole message (empty when invalid)
  Message() = default;
  // `body` keeps the storage of the object it is moved from: a parsed
  // message's values stay in its one block (make_message_storage).
  Message(Kind k, boost::json::object&& b) : kind(k), body(std::move(b)) {}
  // The text it was read from, lone surrogates replaced as the parser read
  // them (toolgate/json.hpp), so a relay sends exactly what the hooks saw;
  // empty for a message the gateway made.  Relayed by editing this text
  // (raw_json.hpp), never by writing `body` again.  For an invalid message
  // read by read_message, the text as read (to find the request an
  // unusable answer was for: envelope_scanner.hpp).
  std::string text;
  // invalid: what is wrong, the JSON-RPC code for the error reply and the
  // id to reply to (null when none could be read).
  std::string problem;
  std::int64_t error_code = rpc_error::invalid_request;
  boost::json::value reply_id;

  std::string_view method() const;       // requests and notifications
  const boost::json::value& id() const;  // requests and responses
  // params as an object; an empty object when absent or not an object.
  const boost::json::object& params() const;
};

// Parses one line with the engine's strict parser (toolgate/json.hpp: an
// object repeating a key is refused, so the gateway and the server cannot
// read two different messages out of one text).  Never throws: malformed
// JSON, a duplicate key, batches (MCP 2025-06-18 removed them), a wrong
// "jsonrpc", a bad id or a message that is neither a request, a
// notification nor a response come back as Kind::invalid.
Message parse_message(std::string_view text, std::size_t max_depth = max_message_depth);

// parse_message, and the message keeps its text in `text`: a valid one
// with lone surrogates replaced as the parser read them, to be relayed by
// editing it; an invalid one as read.
Message read_message(std::string line);

// Classifies an already parsed value.
Message classify(boost::json::value v);

// A valid JSON-RPC id for MCP: a string or an integer.
bool valid_id(const boost::json::value& id);

// A stable key for an id, distinguishing 1 from "1".
std::string id_key(const boost::json::value& id);

// Compact JSON text of a value, for logs and error messages.
std::string text_of(const boost::json::value& v);

// The error for a request whose id its sender is still waiting on.
std::string id_in_use_text(const boost::json::value& id);

boost::json::object make_request(boost::json::value id, std::string_view method,
                                 boost::json::object params);
boost::json::object make_notification(std::string_view method, boost::json::object params);
boost::json::object make_result(boost::json::value id, boost::json::value result);
boost::json::object make_error(boost::json::value id, std::int64_t code, std::string_view message);
// An error response carrying an error object as it is (a server's, relayed).
boost::json::object make_error_object(boost::json::value id, boost::json::object error);

// The text of a request whose params are already JSON text.
std::string request_text(const boost::json::value& id, std::string_view method,
                         std::string_view params_text);
// A JSON-RPC error response as text, its id already JSON text ("null", or
// an id as a peer wrote it).
std::string error_text(std::string_view id_text, std::int64_t code, std::string_view message);

// The text of a response whose result (or error object) is already JSON text.
std::string response_text(const boost::json::value& id, bool is_error, std::string_view body_text);

}  // namespace toolgate::mcp
