// The pieces of the HTTP upstream bridge that need no socket
// (host/mcp/include/toolgate/mcp/http_upstream.hpp, sse_parser.hpp,
// http_checks.hpp): which URLs are taken, how an SSE stream is cut into
// messages, how a tool name is written into a header, how long a server
// says an idle connection stays open.  The bridge itself
// is driven end to end against real SDK servers in tests/mcp/http.test.mjs.
#include <toolgate/mcp/http_upstream.hpp>

#include "http_checks.hpp"
#include "sse_parser.hpp"
#include "upstream_connections.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace toolgate::mcp;

namespace {

std::string refusal(std::string_view url) {
  std::string why;
  EXPECT_FALSE(parse_http_url(url, &why)) << url;
  return why;
}

struct Collected {
  std::vector<std::string> data;
  std::vector<std::size_t> oversize;
};

SseParser parser(Collected& c, std::size_t max = 1 << 20) {
  return SseParser(
      max, [&c](std::string d) { c.data.push_back(std::move(d)); },
      [&c](std::size_t n) { c.oversize.push_back(n); });
}

}  // namespace

TEST(McpHttpUrl, SchemeHostPortAndTarget) {
  auto u = parse_http_url("https://mcp.example.com/mcp", nullptr);
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->tls);
  EXPECT_EQ(u->host, "mcp.example.com");
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->target, "/mcp");

  u = parse_http_url("http://127.0.0.1:8931", nullptr);
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->tls);
  EXPECT_EQ(u->port, "8931");
  EXPECT_EQ(u->target, "/");

  u = parse_http_url("http://[::1]:3000/a/b?x=1", nullptr);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "3000");
  EXPECT_EQ(u->target, "/a/b?x=1");

  u = parse_http_url("http://h?q", nullptr);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->port, "80");
  EXPECT_EQ(u->target, "/?q");
}

TEST(McpHttpUrl, RefusedWithAReasonThatSaysWhat) {
  EXPECT_NE(refusal("ftp://h/").find("not an http:// or https:// URL"), std::string::npos);
  EXPECT_NE(refusal("mcp.example.com/mcp").find("not an http://"), std::string::npos);
  EXPECT_NE(refusal("https://user:secret@h/mcp").find("credentials"), std::string::npos);
  EXPECT_NE(refusal("https://h/mcp#frag").find("fragment"), std::string::npos);
  EXPECT_NE(refusal("http:///mcp").find("names no host"), std::string::npos);
  EXPECT_NE(refusal("http://h:0/").find("bad port"), std::string::npos);
  EXPECT_NE(refusal("http://h:65536/").find("bad port"), std::string::npos);
  EXPECT_NE(refusal("http://h:99999999999/").find("bad port"), std::string::npos);
  EXPECT_NE(refusal("http://h:8a/").find("bad port"), std::string::npos);
  EXPECT_NE(refusal("http://[::1/").find("bad host"), std::string::npos);
  EXPECT_NE(refusal("http://[::1]x/").find("bad host"), std::string::npos);
  // What would go into the Host header or the request line unescaped.
  EXPECT_NE(refusal("http://h\r\nX-Injected: 1/").find("bad host"), std::string::npos);
  EXPECT_NE(refusal("http://h:1/a b").find("percent-encode"), std::string::npos);
  EXPECT_NE(refusal("http://h/a\r\nX: y").find("percent-encode"), std::string::npos);
  EXPECT_NE(refusal("http://h/caf\xc3\xa9").find("percent-encode"), std::string::npos);
}

TEST(McpSseParser, EventsSplitByBlankLinesWhateverTheLineEnds) {
  Collected c;
  auto p = parser(c);
  p.feed("event: message\ndata: {\"a\":1}\n\n");
  p.feed("data: {\"b\":2}\r\n\r\n");
  p.feed("data: {\"c\":3}\r\r");
  EXPECT_EQ(c.data, (std::vector<std::string>{R"({"a":1})", R"({"b":2})", R"({"c":3})"}));
}

TEST(McpSseParser, BytesArriveInAnyPieces) {
  const std::string stream =
      "id: 7\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: keepalive\r\n\r\ndata:2\r\n\r\n";
  Collected whole;
  parser(whole).feed(stream);
  Collected bytewise;
  auto p = parser(bytewise);
  for (char ch : stream) p.feed(std::string_view(&ch, 1));
  // Two data lines join with a newline; a comment-only event carries no data.
  const std::vector<std::string> want{"{\"x\":\n1}", "2"};
  EXPECT_EQ(whole.data, want);
  EXPECT_EQ(bytewise.data, want);
  EXPECT_TRUE(whole.oversize.empty());
}

TEST(McpSseParser, AnEventOverTheLimitIsDroppedAndCountedTheNextOneIsKept) {
  Collected c;
  auto p = parser(c, 16);
  p.feed("data: " + std::string(40, 'x') + "\n\n");
  p.feed("data: small\n\n");
  ASSERT_EQ(c.oversize.size(), 1u);
  EXPECT_GE(c.oversize[0], 40u);
  EXPECT_EQ(c.data, (std::vector<std::string>{"small"}));
}

TEST(McpSseParser, AnEventWithoutAnEndIsNotDelivered) {
  Collected c;
  auto p = parser(c);
  p.feed("data: {\"cut\":");
  EXPECT_TRUE(c.data.empty());
}

TEST(McpHttpHeaders, ToolNamesGoOutPlainOrAsBase64AndComeBackTheSame) {
  EXPECT_EQ(http::encode_header_value("read_file"), "read_file");
  for (std::string name : {"read_file", "caf\xc3\xa9", " padded ", "a\nb",
                           "=?base64?x?=", "\xe4\xb8\x96\xe7\x95\x8c", "", "x"}) {
    const auto sent = http::encode_header_value(name);
    for (unsigned char ch : sent) EXPECT_TRUE(ch >= 0x20 && ch <= 0x7e) << name;
    const auto back = http::decode_header_value(sent);
    ASSERT_TRUE(back) << sent;
    EXPECT_EQ(*back, name);
  }
  EXPECT_EQ(http::encode_header_value("caf\xc3\xa9"), "=?base64?Y2Fmw6k=?=");
}

TEST(McpUpstreamConnections, TheServersKeepAliveTimeoutIsReadFromItsHeader) {
  using std::chrono::seconds;
  EXPECT_EQ(keep_alive_timeout("timeout=5"), seconds(5));
  EXPECT_EQ(keep_alive_timeout("timeout=5, max=1000"), seconds(5));
  EXPECT_EQ(keep_alive_timeout("max=1000,  Timeout=75 "), seconds(75));
  EXPECT_EQ(keep_alive_timeout("timeout=0"), seconds(0));
  EXPECT_EQ(keep_alive_timeout("max=5"), std::nullopt);
  EXPECT_EQ(keep_alive_timeout(""), std::nullopt);
  EXPECT_EQ(keep_alive_timeout("timeout=-1"), std::nullopt);
  EXPECT_EQ(keep_alive_timeout("timeout=5s"), std::nullopt);
  EXPECT_EQ(keep_alive_timeout("timeouts=5"), std::nullopt);
}
