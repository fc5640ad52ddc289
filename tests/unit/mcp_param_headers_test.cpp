// Mcp-Param-* headers (host/mcp/src/param_headers.hpp): which properties a
// tool's inputSchema mirrors, and the header values for its arguments.
#include "param_headers.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

using namespace toolgate::mcp;
namespace json = boost::json;

TEST(McpParamHeaders, DeclarationsAreFoundThroughPropertiesOnly) {
  std::vector<std::string> skipped;
  const auto declared = param_headers_of(json::parse(R"({
    "type": "object", "x-mcp-header": "Root",
    "properties": {
      "account": {"type": "string", "x-mcp-header": "Account"},
      "target": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
      "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
      "bad": {"type": "string", "x-mcp-header": "has space"},
      "again": {"type": "string", "x-mcp-header": "ACCOUNT"}
    }})"),
                                         &skipped);
  ASSERT_EQ(declared.size(), 2u);
  EXPECT_EQ(declared[0].name, "Account");
  EXPECT_EQ(declared[0].path, (std::vector<std::string>{"account"}));
  EXPECT_EQ(declared[1].name, "Region");
  EXPECT_EQ(declared[1].path, (std::vector<std::string>{"target", "region"}));
  // The root's and the array item's are not reachable through properties;
  // a name that is no HTTP token, or repeats another in any case, is skipped.
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("not an HTTP token"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("declared twice"), std::string::npos) << skipped[1];
}

TEST(McpParamHeaders, ValuesInTheSpecsTextFormAndTheSentinelWhenNotPlainAscii) {
  const std::vector<ParamHeader> declared{
      {"S", {"s"}}, {"I", {"i"}}, {"B", {"b"}},   {"D", {"d"}},         {"U", {"u"}},
      {"N", {"n"}}, {"O", {"o"}}, {"Z", {"zoe"}}, {"Deep", {"x", "y"}}, {"Gone", {"p", "q"}}};
  const auto values = param_header_values(
      declared, json::parse(R"({"s":"plain","i":250,"b":false,"d":2.5,"n":null,"o":{"k":1},
                                "zoe":"Zoë","x":{"y":"deep value"},"p":"a parent, not q"})")
                    .as_object());
  const std::vector<std::pair<std::string, std::string>> expected{
      {"Mcp-Param-S", "plain"},
      {"Mcp-Param-I", "250"},
      {"Mcp-Param-B", "false"},
      {"Mcp-Param-D", "2.5"},
      {"Mcp-Param-Z", "=?base64?Wm/Dqw==?="},
      {"Mcp-Param-Deep", "deep value"}};
  // Absent (u), null (n), objects (o) and a path that ends early (p.q,
  // whose parent is a string) send none.
  EXPECT_EQ(values, expected);
}
