// http_checks.hpp -- what the HTTP listener checks of a request before any
// of it reaches the gateway (host/README "Serve over HTTP").
//
// Pure functions over header values and the parsed body, so each rule is
// tested on its own (tests/unit/mcp_http_checks_test.cpp) and the listener
// (http_front.cpp) is left with sockets and routing.  Every refusal says what
// was wrong and how to fix it; each is decided before the request is
// relayed, so a refused request never reaches a hook, the pipeline or the
// server.
#pragma once

#include "jsonrpc.hpp"

#include <toolgate/mcp/http_front.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::mcp::http {

// MCP 2026-07-28 error codes that travel with an HTTP status of their own.
inline constexpr std::int64_t header_mismatch = -32020;
inline constexpr std::int64_t missing_client_capability = -32021;

// The HTTP status a JSON-RPC error response from the gateway goes out with
// (2026-07-28's Streamable HTTP): 404 for -32601, 400 for the header,
// capability and version errors, 200 for everything else (an error result
// of a tool is a 200 too).
unsigned status_for_error_code(std::int64_t code);

// `s` without spaces, tabs and carriage returns at either end (header
// values, lines of a token file).
std::string_view trim(std::string_view s);

// Bearer tokens: read_token_file in <toolgate/mcp/http_front.hpp>.
inline constexpr std::size_t min_token_length = 16;

// Whether an Authorization header value ("Bearer T") names one of
// `tokens`.  Compared as SHA-256 digests with CRYPTO_memcmp, so the time
// taken says nothing about how much of a token matched.
bool bearer_matches(std::string_view authorization, const std::vector<std::string>& tokens);
// The token of an Authorization header value ("Bearer T", the scheme in
// any case, spaces trimmed), or "" when it names none.
std::string_view bearer_token_of(std::string_view authorization);

// Whether `address` (what --listen names) is a loopback address.
bool is_loopback_address(std::string_view address);

// The origins a browser page may call the listener from: the listener's
// own (http://127.0.0.1:PORT, http://localhost:PORT, http://[::1]:PORT)
// plus `extra` (--allow-origin).
std::vector<std::string> allowed_origins(std::uint16_t port, const std::vector<std::string>& extra);

// A request's Host header on a loopback listener: the host must be
// 127.0.0.1, localhost or [::1] (a page on an attacker's name that
// resolves to 127.0.0.1 -- DNS rebinding -- sends its own name).
bool loopback_host_allowed(std::string_view host_header);

// An Mcp-Name (or Mcp-Param-*) header value as the client meant it: the
// Base64 sentinel "=?base64?...?=" decoded, or the plain value when it is
// all visible ASCII, space or tab with no space at either end.  nullopt
// when it is neither.
std::optional<std::string> decode_header_value(std::string_view value);
// The other way, for requests the gateway sends: the value as it is when
// it may be written plainly, else in the Base64 sentinel form (also when
// it looks like the sentinel itself).
std::string encode_header_value(std::string_view value);

// A refusal: the HTTP status and the JSON-RPC error that goes with it.
struct Refusal {
  unsigned status = 400;
  std::int64_t code = rpc_error::invalid_request;
  std::string message;
};

// The headers of a POST whose body is the request `m`, checked against
// the body (2026-07-28 "Server Validation"): MCP-Protocol-Version must be
// 2026-07-28 and name the body's version; Mcp-Method must be its method;
// Mcp-Name its params.name (tools/call, prompts/get) or params.uri
// (resources/read).  `version`, `method`, `name` are the header values,
// nullopt when absent.  nullopt: they agree.
std::optional<Refusal> check_request_headers(const Message& m,
                                             const std::optional<std::string_view>& version,
                                             const std::optional<std::string_view>& method,
                                             const std::optional<std::string_view>& name);

}  // namespace toolgate::mcp::http
