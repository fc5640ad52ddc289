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
//   - a valid message, written out again (to_json_text, as the gateway
//     writes what it builds), parses as the same message, doubles bit for
//     bit;
//   - a valid message relayed as the gateway relays it -- its own text with
//     the id edited in place (raw_json.hpp) -- parses as the same message
//     with the new id;
//   - id_key tells a string id from a number id.
#include "fuzz_check.hpp"
#include "json_same.hpp"
#include "jsonrpc.hpp"
#include "raw_json.hpp"
#include "strict_json.hpp"

#include <toolgate/json.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace json = boost::json;
namespace mcp = toolgate::mcp;
using Kind = mcp::Message::Kind;

namespace {

// The same value, doubles bit for bit: the strict parser is correctly
// rounded and to_json_text's shortest form reads back to the same bits.
bool same(const json::value& a, const json::value& b) {
  return json_same(a, b, [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; });
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
    mcp::Message forwarded = mcp::parse_message(toolgate::to_json_text(m.body));
    FUZZ_CHECK(forwarded.kind == m.kind);
    FUZZ_CHECK(same(json::value(forwarded.body), json::value(m.body)));
    // Relayed: the id edited in the text (when the text names it plainly).
    if (m.body.contains("id")) {
      if (auto span = mcp::find_path(text, {"id"})) {
        const std::string relayed = mcp::replace_span(text, span->value, "12345");
        mcp::Message r = mcp::parse_message(relayed);
        json::object expected = m.body;
        expected["id"] = 12345;
        FUZZ_CHECK(r.kind == m.kind || m.kind == Kind::response);
        FUZZ_CHECK(same(json::value(r.body), json::value(expected)));
      }
    }
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
