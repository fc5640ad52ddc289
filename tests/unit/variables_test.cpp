// ${NAME} in plugins' config (host/src/loading/variables.hpp).
#include "loading/variables.hpp"

#include <toolgate/host.hpp>

#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace json = boost::json;
using toolgate::LoadError;
using toolgate::detail::expand_variables;
using toolgate::detail::Variables;

namespace {
json::value expanded(json::value v, const Variables& vars = {{"ws", "/w"}, {"n", "7"}}) {
  expand_variables(v, vars, "m.json", "/plugins/0/config");
  return v;
}
std::string error_of(json::value v, const Variables& vars = {{"ws", "/w"}}) {
  try {
    expand_variables(v, vars, "m.json", "/plugins/0/config");
  } catch (const LoadError& e) {
    return e.json_path() + ": " + e.problem();
  }
  return "";
}
}  // namespace

TEST(Variables, StringsAreExpandedAtAnyDepthKeysAndOtherValuesAreNot) {
  EXPECT_EQ(expanded(json::parse(R"({"a":"${ws}/src","b":["x${n}y",{"${ws}":"${n}${n}"}],"c":7})")),
            json::parse(R"({"a":"/w/src","b":["x7y",{"${ws}":"77"}],"c":7})"));
  // "$${" is a literal "${"; a "$" alone is just a dollar.
  EXPECT_EQ(expanded(json::value("$${ws} costs $5 $ ${ws}")), json::value("${ws} costs $5 $ /w"));
  // A value is not expanded again.
  EXPECT_EQ(expanded(json::value("${ws}"), {{"ws", "${ws}"}}), json::value("${ws}"));
}

TEST(Variables, AnUndefinedOrMalformedUseIsALoadErrorSayingWhere) {
  EXPECT_EQ(error_of(json::parse(R"({"roots":["/a","${home}"]})")),
            "/plugins/0/config/roots/1: variable ${home} has no value (defined: ws)");
  EXPECT_NE(error_of(json::value("${}")).find("starts no variable"), std::string::npos);
  EXPECT_NE(error_of(json::value("${ws")).find("starts no variable"), std::string::npos);
  EXPECT_NE(error_of(json::value("${1x}")).find("starts no variable"), std::string::npos);
  EXPECT_EQ(error_of(json::parse(R"({"a/b":"${x}"})"), {}),
            "/plugins/0/config/a~1b: variable ${x} has no value (none is defined)");
}
