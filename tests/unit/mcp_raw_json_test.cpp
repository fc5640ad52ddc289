// Edits in JSON text (host/mcp/src/raw_json.hpp): the gateway relays a
// message by changing one member in the bytes it arrived with.
#include "raw_json.hpp"

#include <gtest/gtest.h>

using namespace toolgate::mcp;

TEST(McpRawJson, FindsTopLevelMembersOnlyPastStringsThatLookLikeJson) {
  // A nested "id" and a string holding `"id":` come first; only the
  // top-level member counts.
  const std::string t =
      R"( {"params":{"id":1,"s":"\"id\":2 } ] {"},"note":"}\\", "id" : 42 , "x":[{"id":3}]})";
  auto id = find_path(t, {"id"});
  ASSERT_TRUE(id);
  EXPECT_EQ(id->value.of(t), "42");
  EXPECT_EQ(id->member.of(t), R"("id" : 42)");
  EXPECT_EQ(
      replace_span(t, id->value, R"("g-1")"),
      R"( {"params":{"id":1,"s":"\"id\":2 } ] {"},"note":"}\\", "id" : "g-1" , "x":[{"id":3}]})");
  auto nested = find_path(t, {"params", "id"});
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->value.of(t), "1");
  EXPECT_FALSE(find_path(t, {"missing"}));
  EXPECT_FALSE(find_path(t, {"note", "id"}));  // not an object
  // An escaped key is not matched (the caller writes the parsed message).
  EXPECT_FALSE(find_path(R"({"\u0069d":1})", {"id"}));
}

TEST(McpRawJson, RemovesAMemberAndItsComma) {
  const std::string t = R"({"a":1, "task":{"x":[1,2]} ,"b":2})";
  EXPECT_EQ(remove_member(t, *find_member(t, 0, "task")), R"({"a":1, "b":2})");
  EXPECT_EQ(remove_member(t, *find_member(t, 0, "b")), R"({"a":1, "task":{"x":[1,2]} })");
  const std::string only = R"({ "task":true })";
  EXPECT_EQ(remove_member(only, *find_member(only, 0, "task")), R"({  })");
}

TEST(McpRawJson, InsertsAFirstMember) {
  EXPECT_EQ(insert_first_member(R"({"a":1})", 0, R"("k")", "[]"), R"({"k":[],"a":1})");
  EXPECT_EQ(insert_first_member("{ }", 0, R"("k")", "null"), R"({"k":null })");
  const std::string t = R"({"_meta":{"x":1},"y":2})";
  auto meta = find_member(t, 0, "_meta");
  ASSERT_TRUE(meta);
  EXPECT_EQ(insert_first_member(t, meta->value.begin, R"("t")", "0"),
            R"({"_meta":{"t":0,"x":1},"y":2})");
}

// A key searched for that holds a backslash is never matched as written.
// Below, the first key is written a-backslash-n (it is "a" and a newline),
// the second a-backslash-backslash-n (it is "a", a backslash, "n").  The
// second's decoded bytes are the first's written ones: matched as written,
// a search for the second found the first, and a peer sending both (the
// strict parser takes them: they differ) had one member's value relayed
// for the other's.
TEST(McpRawJson, AKeyWithABackslashIsNeverMatchedAsWritten) {
  const std::string text = R"({"a\n":1,"a\\n":2})";
  EXPECT_FALSE(find_member(text, 0, "a\\n"));  // a, backslash, n
  EXPECT_FALSE(find_member(text, 0, "a\n"));   // a, newline
  EXPECT_TRUE(find_member(R"({"plain":1})", 0, "plain"));
}

TEST(McpRawJson, TellsWhenAKeyIsWrittenWithEscapes) {
  EXPECT_FALSE(has_escaped_key(R"({"a":"\n\"x\"","b":{"\u0063":1}})", 0));  // values, nested keys
  EXPECT_TRUE(has_escaped_key(R"({"a":1, "\u005fmeta":{}})", 0));
  EXPECT_FALSE(has_escaped_key(R"({ })", 0));
  EXPECT_FALSE(has_escaped_key(R"([1])", 0));
}
