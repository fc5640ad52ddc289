// parse_strict (host/src/strict_json.*): a duplicate key anywhere is refused
// with both positions (Boost.JSON alone keeps the last copy silently, which
// let a second "layer" unlock a locked layer); everything else parses as
// Boost.JSON parses it.
#include "strict_json.hpp"
#include "test_support.hpp"

using namespace tgtest;
using toolgate::detail::parse_strict;
using toolgate::detail::StrictJsonError;
using toolgate::detail::StrictJsonOptions;

namespace {
StrictJsonError refused(std::string_view text, StrictJsonOptions o = {}) {
  StrictJsonError e;
  EXPECT_FALSE(parse_strict(text, o, &e).has_value()) << text;
  return e;
}
}  // namespace

TEST(StrictJson, ParsesWhatBoostParses) {
  const std::string texts[] = {
      R"({"a":1,"b":[1,2,{"a":1,"b":2}],"c":{"a":{"a":null}},"d":"x\u0000y","e":-0.5})", "[]", "{}",
      "\"s\"", "1e300", "18446744073709551615", "true",
      // Equal keys in different objects are no duplicate, a closed
      // object's keys included (escaped or not).
      R"([{"k":1},{"k":2}])",
      R"({"a":{"x":1,"a-long-key-past-sso":2},"a-long-key-past-sso":3,"x":4})",
      R"({"o":{"pq":1},"pq":{"pq":1}})"};
  for (const auto& t : texts) {
    StrictJsonError e;
    auto v = parse_strict(t, {}, &e);
    ASSERT_TRUE(v) << t << ": " << e.message;
    EXPECT_EQ(*v, json::parse(t)) << t;
  }
}

TEST(StrictJson, RefusesADuplicateAtTheTopWithBothPositions) {
  auto e = refused("{\"layer\":1,\n \"layer\":2}");
  EXPECT_TRUE(e.duplicate_key);
  EXPECT_EQ(e.key, "layer");
  EXPECT_EQ(e.pointer, "");
  EXPECT_EQ(e.first_line, 1u);
  EXPECT_EQ(e.first_column, 2u);
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, 2u);
  EXPECT_EQ(e.message,
            "duplicate key \"layer\" in the object at the top level (line 1, column 2, and again "
            "at line 2, column 2)");
}

TEST(StrictJson, NamesTheObjectHoldingTheDuplicate) {
  auto e = refused(R"({"plugins":[{"id":"a"},{"hooks":{"g":{},"g":{}}}]})");
  EXPECT_EQ(e.pointer, "/plugins/1/hooks");
  EXPECT_EQ(e.key, "g");
  EXPECT_EQ(e.first_column, 34u);
  EXPECT_EQ(e.column, 41u);
  // Pointer tokens are escaped (RFC 6901).
  EXPECT_EQ(refused(R"({"a/b~":{"x":1,"x":1}})").pointer, "/a~1b~0");
}

TEST(StrictJson, AClosedObjectsKeysDoNotHideOrFakeADuplicate) {
  auto e = refused(R"({"o":{"p\u0071":1,"r":2},"k":{"pq":1,"s":0,"pq":2}})");
  EXPECT_EQ(e.key, "pq");
  EXPECT_EQ(e.pointer, "/k");
  EXPECT_EQ(refused(R"({"a":{"b":{"c":1}},"d":1,"d":2})").pointer, "");
}

TEST(StrictJson, ComparesKeysAfterUnescaping) {
  auto e = refused(R"({"a":1,"\u0061":2})");
  EXPECT_TRUE(e.duplicate_key);
  EXPECT_EQ(e.key, "a");
  EXPECT_EQ(e.column, 8u);  // the escaped copy's opening quote
}

TEST(StrictJson, KeysThatComeInPiecesAreComparedWhole) {
  // Keys longer than the parser's buffer, with escapes, reach the check in
  // pieces; so do many escaped keys in one object.  Equal ones are
  // refused, and ones that differ only at the end are not confused.
  const std::string body(9000, 'x');
  const std::string a = "\"" + body + "\\u0061\"", a_plain = "\"" + body + "a\"";
  const std::string b = "\"" + body + "\\u0062\"";
  auto e = refused("{" + a + ":1,\"k\":{\"" + std::string(70, 'y') + "\\n\":0}," + a_plain + ":2}");
  EXPECT_TRUE(e.duplicate_key);
  EXPECT_EQ(e.key, body + "a");
  StrictJsonError none;
  EXPECT_TRUE(parse_strict("{" + a + ":1," + b + ":2}", {}, &none)) << none.message;
  std::string many = "{";
  for (int i = 0; i < 40; ++i)
    many += "\"\\u00" + std::to_string(30 + i % 10) + std::to_string(i) + "\":0,";
  EXPECT_TRUE(parse_strict(many + "\"z\":0}", {}, &none)) << none.message;
  EXPECT_EQ(refused(many + "\"\\u00377\":1}").key, "77");  // the key of i = 7
}

TEST(StrictJson, FindsADuplicateAmongManyKeys) {
  // Over the pairwise threshold: the sorted check.  Also cheap for a
  // hostile object with many distinct keys.
  std::string text = "{";
  for (int i = 0; i < 5000; ++i)
    text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k4321\":0}";
  auto e = refused(text);
  EXPECT_EQ(e.key, "k4321");
  EXPECT_NE(e.first_line, 0u);
  text.replace(text.rfind("k4321"), 5, "k5000");
  StrictJsonError none;
  EXPECT_TRUE(parse_strict(text, {}, &none)) << none.message;
}

TEST(StrictJson, SyntaxErrorsSayWhere) {
  auto e = refused("{\n  \"a\": }");
  EXPECT_FALSE(e.duplicate_key);
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.message, "at line 2, column 8: syntax error");
  EXPECT_FALSE(refused("{} x").duplicate_key);
  EXPECT_FALSE(refused("// c\n{}").duplicate_key);  // comments only when asked
  StrictJsonOptions manifest;
  manifest.allow_comments = manifest.allow_trailing_commas = true;
  StrictJsonError none;
  EXPECT_TRUE(parse_strict("// c\n{\"a\":[1,],}", manifest, &none)) << none.message;
  EXPECT_TRUE(refused("{\"a\":1,/*x*/\"a\":2}", manifest).duplicate_key);
}

TEST(StrictJson, KeepsTheDepthLimit) {
  StrictJsonOptions o;
  o.max_depth = 4;
  EXPECT_FALSE(refused("[[[[[1]]]]]", o).duplicate_key);
  StrictJsonError none;
  EXPECT_TRUE(parse_strict("[[[[1]]]]", o, &none));
}

// Where two readers could disagree: a guard reads one copy, the tool (or
// the server behind the gateway, which parses the text again) the other.
TEST(StrictJson, ACallWithADuplicateArgumentRunsNothing) {
  Fixture f;
  auto r =
      f.host.call_json(R"({"tool":"echo","arguments":{"path":"/tmp/ok","path":"/etc/shadow"}})");
  EXPECT_EQ(code_of(r), "invalid_arguments");
  EXPECT_NE(r.error->message.find("duplicate key \"path\" in the object at /arguments"),
            std::string::npos)
      << r.error->message;
  r = f.host.call_json(R"({"tool":"echo","tool":"other","arguments":{}})");
  EXPECT_EQ(code_of(r), "invalid_arguments");
  EXPECT_EQ(*f.body_runs, 0);
}

// Issue 17 item 2: "\ud83d" alone is valid JSON (JavaScript sends it when
// a string is cut inside an emoji) and was refused, failing the whole
// message.  It reads as U+FFFD; a proper pair and every other escape read
// as before; the error offsets of a text that still fails stay right.
TEST(StrictJson, ALoneSurrogateReadsAsTheReplacementCharacter) {
  const std::string fffd = "\xEF\xBF\xBD";
  struct Case {
    const char* text;
    std::string want;
  };
  const Case cases[] = {
      {R"("\ud83d")", fffd},
      {R"("a\ud83dz")", "a" + fffd + "z"},
      {R"("\udc00")", fffd},                      // a trailing half alone
      {R"("\ud83d\ud83d")", fffd + fffd},         // two leading halves
      {R"("\ud83d\u0041")", fffd + "A"},          // followed by no trailing half
      {R"("\ud83d\ude00")", "\xF0\x9F\x98\x80"},  // a proper pair: the emoji
      {R"("\\ud83d")", "\\ud83d"},                // an escaped backslash, then text
      {R"("\"\ud83d")", "\"" + fffd},             // after an escaped quote
      {R"("\uD83D")", fffd},                      // upper-case hex
  };
  for (const auto& c : cases) {
    StrictJsonError e;
    auto v = parse_strict(c.text, {}, &e);
    ASSERT_TRUE(v) << c.text << ": " << e.message;
    EXPECT_EQ(std::string(v->as_string()), c.want) << c.text;
  }
  // In keys and nested values too, and the key is then compared as read.
  auto v = parse_strict(R"({"k\ud83d":["\udc01"]})", {}, nullptr);
  ASSERT_TRUE(v);
  EXPECT_EQ(json::serialize(*v), "{\"k" + fffd + "\":[\"" + fffd + "\"]}");
  auto dup = refused(R"({"\ud83d":1,"\udc00":2})");
  EXPECT_TRUE(dup.duplicate_key);  // both read as U+FFFD: one key twice
  // A later syntax error is still reported where it is.
  auto bad = refused(R"({"a":"\ud83d", x})");
  EXPECT_EQ(bad.column, 16u) << bad.message;
  // Manifests (comments allowed) keep refusing it: their text is ours.
  StrictJsonOptions manifest;
  manifest.allow_comments = true;
  refused(R"({"a":"\ud83d"})", manifest);
}
