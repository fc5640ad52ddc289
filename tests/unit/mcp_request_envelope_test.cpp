// MCP 2026-07-28's per-request _meta, edited into the requests the gateway
// sends a server of that version (host/mcp/src/request_envelope.hpp).
#include "jsonrpc.hpp"
#include "request_envelope.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

using namespace toolgate::mcp;
namespace json = boost::json;

namespace {
const json::object& meta_of(const json::value& request) {
  return request.at("params").at("_meta").as_object();
}
}  // namespace

TEST(McpRequestEnvelope, ReplacesTheSendersCapabilitiesAndKeepsItsIdentityAndBytes) {
  // The client declared elicitation and named itself; its arguments hold a
  // number no writer spells this way and a string with escapes.
  const std::string sent =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":1,)"
      R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},)"
      R"("io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},)"
      R"("name":"t","arguments":{"n":5E-1,"s":"a\nb"}}})";
  const std::string out = with_envelope(sent, gateway_envelope());
  const auto v = json::parse(out);
  const auto& meta = meta_of(v);
  EXPECT_EQ(meta.at("io.modelcontextprotocol/protocolVersion"), "2026-07-28");
  EXPECT_EQ(meta.at("io.modelcontextprotocol/clientCapabilities"), json::object{});
  EXPECT_EQ(meta.at("io.modelcontextprotocol/clientInfo").at("name"), "c");
  EXPECT_EQ(meta.at("progressToken"), 1);
  EXPECT_NE(out.find(R"("arguments":{"n":5E-1,"s":"a\nb"})"), std::string::npos) << out;
}

TEST(McpRequestEnvelope, AddsParamsAndMetaWhereThereAreNone) {
  const auto bare = json::parse(
      with_envelope(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", gateway_envelope()));
  EXPECT_EQ(meta_of(bare).at("io.modelcontextprotocol/clientInfo").at("name"), "toolgate");
  EXPECT_EQ(meta_of(bare).size(), 3u);
  const auto no_meta = json::parse(
      with_envelope(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c2"}})",
                    gateway_envelope()));
  EXPECT_EQ(no_meta.at("params").at("cursor"), "c2");
  EXPECT_EQ(meta_of(no_meta).at("io.modelcontextprotocol/protocolVersion"), "2026-07-28");
}

TEST(McpRequestEnvelope, AKeyWrittenWithEscapesIsNeverDuplicated) {
  // "_meta" spelled with an escape: a raw edit would add a second _meta,
  // and the server might read the sender's.  The parsed request is written
  // again instead, with one _meta holding the gateway's values.
  const std::string sent =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"\u005fmeta":)"
      R"({"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}},"name":"t"}})";
  const std::string out = with_envelope(sent, gateway_envelope());
  Message m = parse_message(out);  // the strict parser refuses duplicate keys
  ASSERT_EQ(m.kind, Message::Kind::request) << m.problem << "\n" << out;
  EXPECT_EQ(meta_of(m.body).at("io.modelcontextprotocol/clientCapabilities"), json::object{});
  // The same for an escaped key inside _meta.
  const std::string inner =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":)"
      R"({"io.modelcontextprotocol/clientCapabilitie\u0073":{"sampling":{}}}}})";
  Message mi = parse_message(with_envelope(inner, gateway_envelope()));
  ASSERT_EQ(mi.kind, Message::Kind::request) << mi.problem;
  EXPECT_EQ(meta_of(mi.body).at("io.modelcontextprotocol/clientCapabilities"), json::object{});
}

TEST(McpRequestEnvelope, ParamsThatAreNoObjectAreLeftForTheServerToRefuse) {
  const std::string sent = R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})";
  EXPECT_EQ(with_envelope(sent, gateway_envelope()), sent);
}
