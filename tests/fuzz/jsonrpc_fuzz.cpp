// The JSON-RPC layer of the MCP gateway (host/src/mcp/jsonrpc.cpp):
// parse_message and classify on arbitrary lines.  Checked:
//   - parse_message never throws, and a message is of exactly one kind with
//     what that kind needs (a request has a non-empty method and a valid
//     id, a response exactly one of result and error, ...);
//   - text that is not JSON is a parse error, and only such text is;
//   - classify on the parsed value agrees with parse_message;
//   - the error reply the gateway would send for an invalid message, and a
//     result reply to a request, are themselves valid responses that carry
//     the same id;
//   - a valid message, written out again (as the gateway forwards it),
//     parses as the same message (doubles within a few units in the last
//     place: Boost.JSON 1.81 does not always read a double's text back
//     exactly);
//   - id_key tells a string id from a number id.
#include "fuzz_check.hpp"
#include "json_same.hpp"
#include "jsonrpc.hpp"
#include "strict_json.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace json = boost::json;
namespace mcp = toolgate::mcp;
using Kind = mcp::Message::Kind;

namespace {

// The same value, a double within a few units in the last place: Boost.JSON
// 1.81 does not always read a number's text back to the double it was
// written from (its parser is not correctly rounded).
bool close(const json::value& a, const json::value& b) {
  return json_same(a, b, [](double x, double y) {
    for (int i = 0; i < 4 && x != y; ++i) x = std::nextafter(x, y);
    return x == y;
  });
}

void check_reply(const json::object& reply, const json::value& id) {
  const std::string text = json::serialize(reply);
  mcp::Message m = mcp::parse_message(text);
  FUZZ_CHECK(m.kind == Kind::response);
  FUZZ_CHECK(m.id() == id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mcp::Message m = mcp::parse_message(text);

  switch (m.kind) {
    case Kind::invalid:
      FUZZ_CHECK(m.body.empty());
      FUZZ_CHECK(!m.problem.empty());
      FUZZ_CHECK(m.error_code == mcp::rpc_error::parse_error ||
                 m.error_code == mcp::rpc_error::invalid_request);
      FUZZ_CHECK(m.reply_id.is_null() || mcp::valid_id(m.reply_id));
      check_reply(mcp::make_error(m.reply_id, m.error_code, m.problem), m.reply_id);
      break;
    case Kind::request:
      FUZZ_CHECK(!m.method().empty());
      FUZZ_CHECK(mcp::valid_id(m.id()));
      check_reply(mcp::make_result(m.id(), json::object()), m.id());
      check_reply(mcp::make_error(m.id(), mcp::rpc_error::method_not_found, m.method()), m.id());
      break;
    case Kind::notification:
      FUZZ_CHECK(!m.method().empty());
      FUZZ_CHECK(!m.body.contains("id"));
      break;
    case Kind::response:
      FUZZ_CHECK(m.method().empty());
      FUZZ_CHECK(m.body.contains("result") != m.body.contains("error"));
      FUZZ_CHECK(mcp::valid_id(m.id()) || (m.id().is_null() && m.body.contains("error")));
      break;
  }
  if (m.kind != Kind::invalid) {
    const auto* version = m.body.if_contains("jsonrpc");
    FUZZ_CHECK(version && version->is_string() && version->get_string() == "2.0");
    (void)m.params();
    // The gateway forwards what it parsed: written out, it is the same
    // message again.
    mcp::Message forwarded = mcp::parse_message(json::serialize(m.body));
    FUZZ_CHECK(forwarded.kind == m.kind);
    FUZZ_CHECK(close(json::value(forwarded.body), json::value(m.body)));
  }

  // Only text that does not parse is a parse error.
  toolgate::detail::StrictJsonOptions opt;
  opt.max_depth = mcp::max_message_depth;
  auto v = toolgate::detail::parse_strict(text, opt, nullptr);
  FUZZ_CHECK(v.has_value() ==
             !(m.kind == Kind::invalid && m.error_code == mcp::rpc_error::parse_error));
  if (v) {
    mcp::Message again = mcp::classify(std::move(*v));
    FUZZ_CHECK(again.kind == m.kind);
    FUZZ_CHECK(again.body == m.body);
    FUZZ_CHECK(again.reply_id == m.reply_id);
  }

  if (mcp::valid_id(m.id())) {
    const std::string key = mcp::id_key(m.id());
    FUZZ_CHECK(!key.empty() && key[0] == (m.id().is_string() ? 's' : 'n'));
  }
  return 0;
}
