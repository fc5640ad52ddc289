// Bugs found by the libFuzzer harnesses (tests/fuzz/), one test each; the
// input that found each is kept in tests/fuzz/corpus/NAME/crash-*.
#include "library_support.hpp"
#include "strict_json.hpp"

#include <toolgate/toolgate.h>
#include <toolgate/glob.hpp>

#include <cmath>

using namespace tgtest;

// glob: a '*' in the pattern was read as a literal when the text had a '*'
// at that place, so "*" did not match "*x" (corpus/glob/crash-star-in-text).
// Every glob user was affected: tool filters, disable globs, policy
// conditions, guard-paths' deny patterns.
TEST(FuzzRegression, GlobStarMatchesTextThatHasAStar) {
  using toolgate::sdk::glob_match;
  EXPECT_TRUE(glob_match("*", "*x"));
  EXPECT_TRUE(glob_match("fs.*", "fs.*x"));
  EXPECT_TRUE(glob_match("*.pem", "*a.pem"));
  EXPECT_TRUE(glob_match("*-.ssh/**", "u**-.ssh/**x"));
  EXPECT_FALSE(glob_match("*.pem", "*a.pemx"));
}

// ...so a guard filtered to "fs.*" never ran for a tool named "fs.*x".
TEST(FuzzRegression, GuardFilteredByGlobRunsForToolNameWithAStar) {
  Fixture f;
  ToolDefinition t;
  t.name = "fs.*x";
  t.execute = [](const ToolContext&) { return ToolOutput::success("ran"); };
  f.host.register_tool(std::move(t));
  f.host.add_guard("test", HookOptions("no-fs", {"fs.*"}),
                   [](const HookCall&) { return std::optional<std::string>("no fs"); });
  auto r = f.call("fs.*x");
  ASSERT_TRUE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(code_of(r), "denied");
}

// ...and guard-paths' deny patterns, built-in ones included, let such a
// file name through.
TEST(FuzzRegression, GuardPathsDenyGlobCatchesFileNameWithAStar) {
  LibraryFixture f;
  TempDir tree;
  const std::string work = tree.path.string();
  f.add_tool("fs.read", TG_TOOL_READ_ONLY);
  f.load("guard-paths", {{"read_roots", json::array{work.c_str()}},
                         {"base", work.c_str()},
                         {"deny", json::array{"*.lock"}}});
  for (const std::string name : {"*x.lock", ".env.*prod", "id_rsa*old"}) {
    auto r = f.call("fs.read", {{"path", json::string(work + "/" + name)}});
    ASSERT_EQ(code_of(r), "denied") << name << ": " << json::serialize(r.to_json());
    EXPECT_TRUE(has(r.error->message, "matches the deny pattern")) << r.error->message;
  }
}

// strict JSON: with comments allowed, a '/' that starts no comment where a
// value belongs made Boost.JSON 1.81 report a stopping point far outside the
// text; the error's offset was that, and its line and column the end of the
// text (corpus/strict_json/crash-bad-comment-offset).
TEST(FuzzRegression, StrictJsonErrorAfterABadCommentIsWhereTheSlashIs) {
  toolgate::detail::StrictJsonOptions o;
  o.allow_comments = true;
  toolgate::detail::StrictJsonError e;
  const std::string text = "{\n  \"toolgate\": /x 1\n}\n";
  EXPECT_FALSE(toolgate::detail::parse_strict(text, o, &e).has_value());
  EXPECT_EQ(e.offset, text.find("/x") + 1);
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, 16u);
  EXPECT_NE(e.message.find("at line 2, column 16"), std::string::npos) << e.message;
  EXPECT_FALSE(toolgate::detail::parse_strict("/\x03", o, &e).has_value());
  EXPECT_EQ(e.offset, 1u);
}

// strict JSON: a duplicate key was located by feeding the text to Boost.JSON
// a byte at a time, which in 1.81 misreads a value right after a comment:
// `toolgate check` on a manifest like the one below aborted on an assertion
// in Debug builds (and read past a one-byte buffer in Release), and other
// texts lost the copies' positions (corpus/strict_json/crash-duplicate-after-comment).
TEST(FuzzRegression, StrictJsonLocatesADuplicateKeyAfterAComment) {
  toolgate::detail::StrictJsonOptions o;
  o.allow_comments = true;
  toolgate::detail::StrictJsonError e;
  EXPECT_FALSE(
      toolgate::detail::parse_strict(R"({"toolgate":/**/1,"toolgate":1})", o, &e).has_value());
  EXPECT_TRUE(e.duplicate_key);
  EXPECT_EQ(e.first_line, 1u);
  EXPECT_EQ(e.first_column, 2u);
  EXPECT_EQ(e.column, 19u);
  EXPECT_FALSE(
      toolgate::detail::parse_strict(R"({"a": /* x */{"k": 2, "k": 3}})", o, &e).has_value());
  EXPECT_EQ(e.pointer, "/a");
  EXPECT_EQ(e.first_column, 15u);
  EXPECT_EQ(e.column, 23u);
}

// strict JSON: Boost.JSON 1.81 reads 0e400 as NaN (0 x infinity) and 1e400
// as infinity, and writes them back as NaN and Infinity, which are not JSON:
// a call with such an argument got a result, events and MCP messages that no
// JSON parser reads, and a guard comparing the NaN saw neither more nor less
// (corpus/strict_json/crash-zero-huge-exponent).  Zero is zero now, and a
// number beyond a double's range is refused.
TEST(FuzzRegression, StrictJsonReadsZeroWithAHugeExponentAsZeroAndRefusesInfinity) {
  auto v = toolgate::detail::parse_strict("[0e400,-0e99999,1e-400]", {}, nullptr);
  ASSERT_TRUE(v.has_value());
  const auto& a = v->get_array();
  EXPECT_EQ(a[0].get_double(), 0.0);
  EXPECT_FALSE(std::signbit(a[0].get_double()));
  EXPECT_TRUE(std::signbit(a[1].get_double()));
  EXPECT_EQ(a[2].get_double(), 0.0);

  toolgate::detail::StrictJsonError e;
  EXPECT_FALSE(toolgate::detail::parse_strict(R"({"a": -1e400})", {}, &e).has_value());
  EXPECT_NE(e.message.find("at line 1, column 13: exponent overflow"), std::string::npos)
      << e.message;

  Fixture f;
  auto r = f.host.call_json(R"({"tool":"echo","arguments":{"n":0e999}})");
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(*r.value, (json::object{{"n", 0.0}}));
  EXPECT_NO_THROW(json::parse(json::serialize(r.to_json())));
  for (const auto& ev : f.recorder->snapshot())
    EXPECT_NO_THROW(json::parse(json::serialize(ev.to_json())));
  r = f.host.call_json(R"({"tool":"echo","arguments":{"n":1e400}})");
  EXPECT_EQ(code_of(r), "invalid_arguments");
}
