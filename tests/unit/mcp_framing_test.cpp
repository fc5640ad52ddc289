// MCP stdio framing and JSON-RPC classification with malformed, oversize
// and partial input.
#include "test_support.hpp"

#include "framing.hpp"
#include "jsonrpc.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <csignal>
#include <thread>

using namespace tgtest;
using namespace toolgate::mcp;

namespace {
std::vector<Frame> split(LineSplitter& s, std::initializer_list<std::string_view> chunks) {
  std::vector<Frame> out;
  for (auto c : chunks) s.feed(c, out);
  return out;
}
}  // namespace

TEST(McpFraming, SplitsLinesAcrossArbitraryChunks) {
  LineSplitter s(1024);
  auto out = split(s, {"{\"a\"", ":1}\n{\"b\":", "2}\n{\"c\":3}", "\n"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].text, "{\"a\":1}");
  EXPECT_EQ(out[1].text, "{\"b\":2}");
  EXPECT_EQ(out[2].text, "{\"c\":3}");
  EXPECT_FALSE(s.finish());
}

TEST(McpFraming, StripsCarriageReturnsAndSkipsBlankLines) {
  LineSplitter s(1024);
  auto out = split(s, {"\n\r\n  \n{\"a\":1}\r\n\n"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].text, "{\"a\":1}");
}

TEST(McpFraming, ACarriageReturnInsideALineBecomesASpace) {
  // JSON reads it as whitespace; a peer that ends lines at CR would read
  // the relayed text as three messages.
  LineSplitter s(1024);
  auto out = split(s, {"{\"a\":\r{\"b\":1}\r}\r\n"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].text, "{\"a\": {\"b\":1} }");
}

TEST(McpFraming, AnOversizeLineIsDroppedWholeAndTheNextOneSurvives) {
  LineSplitter s(16);
  std::string big(40, 'x');
  // The long line arrives in pieces; its end and the next message share a chunk.
  auto out =
      split(s, {big.substr(0, 10), big.substr(10, 20), big.substr(30) + "\n{\"ok\":true}\n"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, Frame::Kind::oversize);
  EXPECT_GE(out[0].bytes, 40u);
  EXPECT_EQ(out[1].kind, Frame::Kind::message);
  EXPECT_EQ(out[1].text, "{\"ok\":true}");
}

TEST(McpFraming, ALineExactlyAtTheLimitPasses) {
  LineSplitter s(8);
  auto out = split(s, {"12345678\n123456789\n"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, Frame::Kind::message);
  EXPECT_EQ(out[1].kind, Frame::Kind::oversize);
}

TEST(McpFraming, APartialLastLineIsHandedOnAtEndOfStream) {
  LineSplitter s(1024);
  auto out = split(s, {"{\"a\":1}\n{\"cut\":"});
  ASSERT_EQ(out.size(), 1u);
  auto last = s.finish();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->text, "{\"cut\":");
  EXPECT_EQ(parse_message(last->text).error_code, rpc_error::parse_error);
}

TEST(McpJsonRpc, ClassifiesRequestsNotificationsAndResponses) {
  auto r = parse_message(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}})");
  EXPECT_EQ(r.kind, Message::Kind::request);
  EXPECT_EQ(r.method(), "tools/list");
  EXPECT_EQ(r.id(), json::value(7));
  auto n = parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(n.kind, Message::Kind::notification);
  EXPECT_TRUE(n.params().empty());
  auto ok = parse_message(R"({"jsonrpc":"2.0","id":"abc","result":{}})");
  EXPECT_EQ(ok.kind, Message::Kind::response);
  auto err = parse_message(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})");
  EXPECT_EQ(err.kind, Message::Kind::response);
}

TEST(McpJsonRpc, MalformedInputIsAnErrorNeverAThrow) {
  struct Case {
    std::string text;
    std::int64_t code;
  } cases[] = {
      {"{not json", rpc_error::parse_error},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"", rpc_error::parse_error},
      {"\"just a string\"", rpc_error::invalid_request},
      {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", rpc_error::invalid_request},
      {R"({"id":1,"method":"ping"})", rpc_error::invalid_request},
      {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","id":null,"method":"ping"})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","id":1,"method":""})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","id":1})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","id":1,"result":{},"error":{}})", rpc_error::invalid_request},
      // A request that also answers: a relay reading its envelope from the
      // text (a key written "m\u0065thod") could take it for an answer.
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","result":{}})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","method":"notifications/x","error":{}})", rpc_error::invalid_request},
      {R"({"jsonrpc":"2.0","result":{}})", rpc_error::invalid_request},
      {"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}", rpc_error::parse_error},
      {std::string(10000, '[') + std::string(10000, ']'), rpc_error::parse_error},
  };
  for (const auto& c : cases) {
    auto m = parse_message(c.text);
    EXPECT_EQ(m.kind, Message::Kind::invalid) << c.text.substr(0, 80);
    EXPECT_EQ(m.error_code, c.code) << c.text.substr(0, 80);
    EXPECT_FALSE(m.problem.empty());
  }
}

// The gateway and the server must read the same message out of one text:
// a repeated key, at the top or deep in the arguments, is refused.
TEST(McpJsonRpc, ADuplicateKeyIsRefusedNamingIt) {
  for (
      std::string_view text : {
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping"})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
          R"("params":{"name":"w","arguments":{"path":"/ok","path":"/etc/passwd"}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","n\u0061me":"b"}})",
      }) {
    auto m = parse_message(text);
    EXPECT_EQ(m.kind, Message::Kind::invalid) << text;
    EXPECT_EQ(m.error_code, rpc_error::parse_error) << text;
    EXPECT_NE(m.problem.find("duplicate key"), std::string::npos) << m.problem;
  }
}

TEST(McpJsonRpc, AnInvalidRequestIsAnsweredWithItsIdWhenItHasAUsableOne) {
  auto m = parse_message(R"({"jsonrpc":"2.0","id":"q1","method":7})");
  EXPECT_EQ(m.kind, Message::Kind::invalid);
  EXPECT_EQ(m.reply_id, json::value("q1"));
  auto n = parse_message("{garbage");
  EXPECT_TRUE(n.reply_id.is_null());
}

TEST(McpJsonRpc, IdKeysDistinguishNumbersFromStrings) {
  EXPECT_NE(id_key(json::value(1)), id_key(json::value("1")));
  EXPECT_EQ(id_key(json::value(1)), id_key(json::parse("1")));
}

TEST(McpLineReader, ReadsPartialWritesAndStopsAtEndOfStream) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  std::thread writer([&] {
    const std::vector<std::string_view> parts{"{\"a\"", ":1}\n{\"b\"", ":2}\n", "{\"c\":3}"};
    for (std::string_view part : parts) {
      ASSERT_EQ(::write(p[1], part.data(), part.size()), static_cast<ssize_t>(part.size()));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ::close(p[1]);
  });
  LineReader r(p[0], 1024);
  std::vector<std::string> got;
  while (auto f = r.next()) got.push_back(f->text);
  writer.join();
  ::close(p[0]);
  EXPECT_EQ(got, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"}));
}

TEST(McpLineReader, WakeEndsABlockedRead) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  LineReader r(p[0], 1024);
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    r.wake();
  });
  EXPECT_FALSE(r.next());
  waker.join();
  ::close(p[0]);
  ::close(p[1]);
}

TEST(McpLineWriter, AClosedPeerMakesWritesFailNotKillTheProcess) {
  auto old = std::signal(SIGPIPE, SIG_IGN);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ::close(p[0]);
  LineWriter w(p[1]);
  EXPECT_FALSE(w.write("{}"));
  EXPECT_TRUE(w.broken());
  EXPECT_FALSE(w.write("{}"));
  ::close(p[1]);
  std::signal(SIGPIPE, old);
}

// ---- EnvelopeScanner: which request an unusable answer was for ---------------
namespace {
std::optional<boost::json::value> scan(std::string_view text, std::size_t chunk = 0) {
  toolgate::mcp::EnvelopeScanner s;
  if (chunk == 0) {
    s.feed(text);
  } else {
    for (std::size_t i = 0; i < text.size(); i += chunk) s.feed(text.substr(i, chunk));
  }
  return s.answer_id();
}
}  // namespace

TEST(EnvelopeScanner, FindsTheTopLevelIdOfAnAnswerWhereverItIs) {
  EXPECT_EQ(scan(R"({"jsonrpc":"2.0","id":7,"result":{"content":[]}})"), boost::json::value(7));
  // After the result; ids, commas, braces and escaped quotes inside
  // strings and nested objects are not the envelope's.
  const std::string late =
      R"({"jsonrpc":"2.0","result":{"id":99,"text":"a,} \"id\":5 {"},"error_like":[1,{"id":3}],"id":"abc"})";
  EXPECT_EQ(scan(late), boost::json::value("abc"));
  for (std::size_t chunk : {1u, 2u, 7u}) EXPECT_EQ(scan(late, chunk), boost::json::value("abc"));
  EXPECT_EQ(scan(R"( { "id" : 12 , "error" : {"code":-1,"message":"m"} } )"),
            boost::json::value(12));
  // Cut short (an unparseable line) but the id and the result key were seen.
  EXPECT_EQ(scan(R"({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"te)"),
            boost::json::value(4));
}

TEST(EnvelopeScanner, NamesNothingForRequestsAndOddShapes) {
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","id":3,"method":"ping"})"));           // a request
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","id":3,"result":{},"method":"x"})"));  // not an answer
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","id":3,"resu)"));                      // no result seen
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","id":{"n":1},"result":{}})"));         // not a valid id
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","id":1.5,"result":{}})"));
  EXPECT_FALSE(scan(R"([{"jsonrpc":"2.0","id":3,"result":{}}])"));  // a batch
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","result":{"id":3}})"));     // only a nested id
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","i\u0064":3,"result":{}})"));
  EXPECT_FALSE(scan(R"({"jsonrpc":"2.0","id":")" + std::string(1000, 'z') + R"(","result":{}})"));
}

TEST(LineSplitter, AnOversizeAnswerStillNamesItsRequest) {
  toolgate::mcp::LineSplitter splitter(64);
  std::vector<toolgate::mcp::Frame> out;
  const std::string big =
      R"({"jsonrpc":"2.0","result":{"text":")" + std::string(500, 'x') + R"("},"id":42})";
  for (std::size_t i = 0; i < big.size(); i += 10)
    splitter.feed(std::string_view(big).substr(i, 10), out);
  splitter.feed("\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"p\":\"" +
                    std::string(100, 'y') + "\"}}\n",
                out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, toolgate::mcp::Frame::Kind::oversize);
  ASSERT_TRUE(out[0].answer_id);
  EXPECT_EQ(*out[0].answer_id, boost::json::value(42));
  EXPECT_EQ(out[1].kind, toolgate::mcp::Frame::Kind::oversize);
  EXPECT_FALSE(out[1].answer_id);  // a request: nothing of ours to fail
}
