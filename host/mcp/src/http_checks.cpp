#include "http_checks.hpp"

#include "secret_files.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <boost/asio/ip/address.hpp>

#include <array>
#include <stdexcept>

namespace toolgate::mcp::http {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

namespace {

std::array<unsigned char, SHA256_DIGEST_LENGTH> digest(std::string_view s) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> d{};
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d.data());
  return d;
}

// "host:port", "[v6]:port" or a bare host -> the host as written.
std::string_view host_part(std::string_view host_header) {
  if (host_header.starts_with('[')) {
    const auto close = host_header.find(']');
    return close == std::string_view::npos ? host_header : host_header.substr(0, close + 1);
  }
  return host_header.substr(0, host_header.find(':'));
}

Refusal mismatch(std::string message) {
  return {400, header_mismatch, "Header mismatch: " + std::move(message)};
}

}  // namespace

unsigned status_for_error_code(std::int64_t code) {
  if (code == rpc_error::method_not_found) return 404;
  if (code == header_mismatch || code == missing_client_capability ||
      code == rpc_error::unsupported_version)
    return 400;
  return 200;
}

}  // namespace toolgate::mcp::http

namespace toolgate::mcp {

std::vector<std::string> read_token_file(const std::filesystem::path& file) {
  return read_secret_lines(file, "token file", http::min_token_length);
}

}  // namespace toolgate::mcp

namespace toolgate::mcp::http {

std::string_view bearer_token_of(std::string_view authorization) {
  authorization = trim(authorization);
  constexpr std::string_view scheme = "bearer ";
  if (authorization.size() <= scheme.size()) return {};
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) return {};
  return trim(authorization.substr(scheme.size()));
}

bool bearer_matches(std::string_view authorization, const std::vector<std::string>& tokens) {
  const auto token = bearer_token_of(authorization);
  if (token.empty()) return false;
  const auto presented = digest(token);
  bool found = false;
  // Every token is compared, matched or not: the time does not say which.
  for (const auto& t : tokens) {
    const auto d = digest(t);
    found |= CRYPTO_memcmp(presented.data(), d.data(), d.size()) == 0;
  }
  return found;
}

bool is_loopback_address(std::string_view address) {
  boost::system::error_code ec;
  const auto a = boost::asio::ip::make_address(std::string(address), ec);
  return !ec && a.is_loopback();
}

std::vector<std::string> allowed_origins(std::uint16_t port,
                                         const std::vector<std::string>& extra) {
  const auto p = std::to_string(port);
  std::vector<std::string> out{"http://127.0.0.1:" + p, "http://localhost:" + p,
                               "http://[::1]:" + p};
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

bool loopback_host_allowed(std::string_view host_header) {
  const auto host = host_part(trim(host_header));
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]";
}

std::optional<std::string> decode_header_value(std::string_view value) {
  constexpr std::string_view open = "=?base64?", close = "?=";
  if (value.size() >= open.size() + close.size() && value.starts_with(open) &&
      value.ends_with(close)) {
    const auto b64 = value.substr(open.size(), value.size() - open.size() - close.size());
    if (b64.size() % 4 != 0) return std::nullopt;
    std::string out(b64.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(b64.data()),
                                  static_cast<int>(b64.size()));
    if (n < 0) return std::nullopt;
    // EVP_DecodeBlock counts the bytes the '=' padding stands for.
    std::size_t len = static_cast<std::size_t>(n);
    for (std::size_t i = b64.size(); i > 0 && b64[i - 1] == '='; --i) --len;
    out.resize(len);
    return out;
  }
  for (unsigned char c : value)
    if ((c < 0x20 && c != '\t') || c > 0x7e) return std::nullopt;
  if (!value.empty() && (value.front() == ' ' || value.back() == ' ' || value.front() == '\t' ||
                         value.back() == '\t'))
    return std::nullopt;
  return std::string(value);
}

std::string encode_header_value(std::string_view value) {
  constexpr std::string_view open = "=?base64?", close = "?=";
  bool plain = !(value.starts_with(open) && value.ends_with(close));
  for (unsigned char c : value) plain &= c >= 0x20 && c <= 0x7e;
  plain &= value.empty() || (value.front() != ' ' && value.back() != ' ');
  if (plain) return std::string(value);
  std::string b64(4 * ((value.size() + 2) / 3), '\0');
  EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                  reinterpret_cast<const unsigned char*>(value.data()),
                  static_cast<int>(value.size()));
  return std::string(open) + b64 + std::string(close);
}

std::optional<Refusal> check_request_headers(const Message& m,
                                             const std::optional<std::string_view>& version,
                                             const std::optional<std::string_view>& method,
                                             const std::optional<std::string_view>& name) {
  const auto& params = m.params();
  const auto* meta = params.if_contains("_meta");
  const auto* body_version =
      meta && meta->is_object()
          ? meta->get_object().if_contains("io.modelcontextprotocol/protocolVersion")
          : nullptr;
  if (!version)
    return mismatch(
        "the MCP-Protocol-Version header is missing; this listener serves MCP 2026-07-28, whose "
        "every request names its version in that header and in _meta");
  if (*version != "2026-07-28")
    return Refusal{400, rpc_error::unsupported_version,
                   "this listener serves MCP 2026-07-28 over HTTP, not \"" + std::string(*version) +
                       "\" (run `toolgate mcp` on stdio for older clients)"};
  if (!body_version || !body_version->is_string() || body_version->get_string() != *version)
    return mismatch(
        "the MCP-Protocol-Version header says 2026-07-28 but the body's "
        "_meta[\"io.modelcontextprotocol/protocolVersion\"] " +
        (body_version ? "is " + text_of(*body_version) : std::string("is missing")));
  if (!method) return mismatch("the Mcp-Method header is missing (it must name the body's method)");
  if (*method != m.method())
    return mismatch("the Mcp-Method header \"" + std::string(*method) +
                    "\" does not match the body's method \"" + std::string(m.method()) + "\"");
  const char* member = m.method() == "resources/read"                              ? "uri"
                       : m.method() == "tools/call" || m.method() == "prompts/get" ? "name"
                                                                                   : nullptr;
  if (!member) return std::nullopt;
  if (!name)
    return mismatch("the Mcp-Name header is missing; a " + std::string(m.method()) +
                    " must carry params." + member + " in it");
  const auto decoded = decode_header_value(*name);
  if (!decoded)
    return mismatch(
        "the Mcp-Name header holds characters a header value cannot (use the "
        "=?base64?...?= form)");
  const auto* body_name = params.if_contains(member);
  if (!body_name || !body_name->is_string() || body_name->get_string() != *decoded)
    return mismatch("the Mcp-Name header \"" + *decoded + "\" does not match the body's params." +
                    member + " " + (body_name ? text_of(*body_name) : std::string("(missing)")));
  return std::nullopt;
}

}  // namespace toolgate::mcp::http
