// What the HTTP listener checks before relaying (host/mcp/src/http_checks.hpp):
// each rule on its own, without sockets (tests/mcp/http.test.mjs drives
// them through a real listener).
#include "http_checks.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace toolgate::mcp;
using namespace toolgate::mcp::http;

namespace {

Message request(const std::string& method, const std::string& params_extra = "",
                const std::string& version = "\"2026-07-28\"") {
  return parse_message(R"({"jsonrpc":"2.0","id":1,"method":")" + method + R"(","params":{)" +
                       params_extra + R"("_meta":{"io.modelcontextprotocol/protocolVersion":)" +
                       version + "}}}");
}

std::filesystem::path token_file(const std::string& text, mode_t mode) {
  static int n = 0;
  auto p = std::filesystem::temp_directory_path() /
           ("toolgate-tokens-" + std::to_string(::getpid()) + "-" + std::to_string(++n));
  std::ofstream(p) << text;
  ::chmod(p.c_str(), mode);
  return p;
}

}  // namespace

TEST(McpHttpChecks, ErrorCodesGoOutWithTheStatusTheSpecNames) {
  EXPECT_EQ(status_for_error_code(-32601), 404u);
  EXPECT_EQ(status_for_error_code(-32020), 400u);
  EXPECT_EQ(status_for_error_code(-32021), 400u);
  EXPECT_EQ(status_for_error_code(-32022), 400u);
  EXPECT_EQ(status_for_error_code(-32602), 200u);
  EXPECT_EQ(status_for_error_code(-32001), 200u);
}

TEST(McpHttpChecks, HeaderValuesArePlainOrTheBase64Sentinel) {
  EXPECT_EQ(decode_header_value("read_file"), "read_file");
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?="),
            "Hello, \xe4\xb8\x96\xe7\x95\x8c");
  EXPECT_EQ(decode_header_value("=?base64?IHBhZGRlZCA=?="), " padded ");
  EXPECT_EQ(decode_header_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), "=?base64?literal?=");
  EXPECT_FALSE(decode_header_value("=?base64?not base64!?="));
  EXPECT_FALSE(decode_header_value("=?base64?abc?="));  // not a multiple of 4
  EXPECT_FALSE(decode_header_value(" padded"));
  EXPECT_FALSE(decode_header_value("line1\nline2"));
  EXPECT_FALSE(decode_header_value("caf\xc3\xa9"));
}

TEST(McpHttpChecks, BearerTokensMatchWholeAndOnlyWhole) {
  const std::vector<std::string> tokens{"first-token-0123456789", "second-token-0123456789"};
  EXPECT_TRUE(bearer_matches("Bearer first-token-0123456789", tokens));
  EXPECT_TRUE(bearer_matches("bearer second-token-0123456789", tokens));
  EXPECT_FALSE(bearer_matches("Bearer first-token-012345678", tokens));  // a prefix
  EXPECT_FALSE(bearer_matches("Bearer first-token-01234567890", tokens));
  EXPECT_FALSE(bearer_matches("Basic first-token-0123456789", tokens));
  EXPECT_FALSE(bearer_matches("first-token-0123456789", tokens));
  EXPECT_FALSE(bearer_matches("", tokens));
  EXPECT_FALSE(bearer_matches("Bearer ", tokens));
}

TEST(McpHttpChecks, TokenFilesMustBePrivateAndHoldLongTokens) {
  const auto good =
      token_file("# comment\n\n  a-good-token-0123456789  \nanother-token-abcdef\n", 0600);
  EXPECT_EQ(read_token_file(good),
            (std::vector<std::string>{"a-good-token-0123456789", "another-token-abcdef"}));
  const auto open = token_file("a-good-token-0123456789\n", 0644);
  EXPECT_THROW(
      {
        try {
          read_token_file(open);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("chmod 600"), std::string::npos) << e.what();
          throw;
        }
      },
      std::runtime_error);
  const auto short_token = token_file("short\n", 0600);
  EXPECT_THROW(read_token_file(short_token), std::runtime_error);
  const auto spaced = token_file("a token with spaces in it\n", 0600);
  EXPECT_THROW(read_token_file(spaced), std::runtime_error);
  const auto empty = token_file("# nothing\n", 0600);
  EXPECT_THROW(read_token_file(empty), std::runtime_error);
  EXPECT_THROW(read_token_file("/nonexistent/tokens"), std::runtime_error);
  for (const auto& p : {good, open, short_token, spaced, empty}) std::filesystem::remove(p);
}

TEST(McpHttpChecks, LoopbackNamesAndOrigins) {
  EXPECT_TRUE(is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(is_loopback_address("::1"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(is_loopback_address("192.168.1.1"));
  EXPECT_FALSE(is_loopback_address("localhost"));  // an address, not a name
  EXPECT_TRUE(loopback_host_allowed("127.0.0.1:8080"));
  EXPECT_TRUE(loopback_host_allowed("localhost:8080"));
  EXPECT_TRUE(loopback_host_allowed("[::1]:8080"));
  EXPECT_TRUE(loopback_host_allowed("localhost"));
  EXPECT_FALSE(loopback_host_allowed("attacker.example:8080"));
  EXPECT_FALSE(loopback_host_allowed("localhost.attacker.example"));
  EXPECT_FALSE(loopback_host_allowed(""));
  const auto origins = allowed_origins(8080, {"https://app.example"});
  EXPECT_EQ(origins, (std::vector<std::string>{"http://127.0.0.1:8080", "http://localhost:8080",
                                               "http://[::1]:8080", "https://app.example"}));
}

TEST(McpHttpChecks, HeadersMustAgreeWithTheBody) {
  const auto call = request("tools/call", R"("name":"read_file",)");
  EXPECT_FALSE(check_request_headers(call, "2026-07-28", "tools/call", "read_file"));
  EXPECT_FALSE(check_request_headers(call, "2026-07-28", "tools/call", "=?base64?cmVhZF9maWxl?="));
  auto r = check_request_headers(call, "2026-07-28", "tools/call", "write_file");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400u);
  EXPECT_EQ(r->code, header_mismatch);
  EXPECT_NE(r->message.find("\"write_file\" does not match"), std::string::npos) << r->message;
  EXPECT_TRUE(check_request_headers(call, "2026-07-28", "tools/call", std::nullopt));
  EXPECT_TRUE(check_request_headers(call, "2026-07-28", "tools/list", "read_file"));
  EXPECT_TRUE(check_request_headers(call, "2026-07-28", std::nullopt, "read_file"));
  EXPECT_TRUE(check_request_headers(call, std::nullopt, "tools/call", "read_file"));
  r = check_request_headers(call, "2025-11-25", "tools/call", "read_file");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->code, rpc_error::unsupported_version);
  // The header's version must be the body's.
  r = check_request_headers(request("tools/list", "", "\"2099-01-01\""), "2026-07-28", "tools/list",
                            std::nullopt);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->code, header_mismatch);
  // resources/read names its uri; requests without a name need no Mcp-Name.
  const auto read = request("resources/read", R"("uri":"file:///a b",)");
  EXPECT_FALSE(check_request_headers(read, "2026-07-28", "resources/read", "file:///a b"));
  EXPECT_TRUE(check_request_headers(read, "2026-07-28", "resources/read", "file:///c"));
  EXPECT_FALSE(
      check_request_headers(request("tools/list"), "2026-07-28", "tools/list", std::nullopt));
}
