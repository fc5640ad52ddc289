// scan_json (host/src/json_util.*): normalization's one walk must count
// exactly the bytes to_json_text writes -- the result size limit depends on
// it -- and must notice invalid UTF-8 anywhere, keys included.
#include "json_util.hpp"

#include <toolgate/json.hpp>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace json = boost::json;
using toolgate::detail::scan_json;

TEST(JsonScan, CountsExactlyTheSerializedBytes) {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls += static_cast<char>(c);
  const json::value docs[] = {
      nullptr,
      true,
      false,
      0,
      -1,
      std::numeric_limits<std::int64_t>::min(),
      std::numeric_limits<std::int64_t>::max(),
      std::numeric_limits<std::uint64_t>::max(),
      1.5,
      -0.0,
      1e300,
      "",
      "plain",
      "quote \" backslash \\ slash / tab \t newline \n",
      json::string(controls),
      "héllo wörld ✓ 😀",
      json::array{},
      json::object{},
      json::array{1, "two", nullptr, json::array{json::object{}}},
      json::object{{"k\"ey", json::array{1, 2, 3}}, {"", json::object{{"x", "y\u0001"}}}},
      json::parse(
          R"({"content":[{"type":"text","text":"Hello, World!"}],"value":{"n":[1,2.25,-3]}})"),
  };
  for (const auto& v : docs) {
    auto scan = scan_json(v, std::numeric_limits<std::size_t>::max());
    EXPECT_TRUE(scan.valid_utf8) << json::serialize(v);
    EXPECT_EQ(scan.bytes, toolgate::to_json_text(v).size()) << toolgate::to_json_text(v);
  }
}

TEST(JsonScan, FindsInvalidUtf8InValuesAndKeys) {
  json::string bad("ok \xC3\x28 not", 8);
  EXPECT_FALSE(scan_json(json::value(bad), 1 << 20).valid_utf8);
  EXPECT_FALSE(scan_json(json::array{1, json::object{{"a", bad}}}, 1 << 20).valid_utf8);
  json::object with_bad_key;
  with_bad_key[std::string_view("\xFF", 1)] = 1;
  EXPECT_FALSE(scan_json(with_bad_key, 1 << 20).valid_utf8);
  // Overlong encodings and surrogates are invalid too.
  EXPECT_FALSE(scan_json(json::string("\xC0\xAF", 2), 1 << 20).valid_utf8);
  EXPECT_FALSE(scan_json(json::string("\xED\xA0\x80", 3), 1 << 20).valid_utf8);
}

// The walk takes eight plain ASCII bytes at a time: whatever needs a look
// of its own must be seen at every position of a word, and at the end.
TEST(JsonScan, EveryPositionOfAWordIsLookedAt) {
  using toolgate::detail::valid_utf8;
  const std::string specials[] = {
      "\"",   "\\",   "\n",       std::string(1, '\x01'), std::string(1, '\0'),
      "\x1f", "\x7f", "\xC3\xA9", "\xE2\x9C\x93",         "\xF0\x9F\x98\x80"};
  const std::string invalid[] = {"\xFF", "\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xE2\x9C"};
  for (std::size_t len : {7u, 8u, 9u, 16u, 23u, 40u})
    for (std::size_t at = 0; at < len; ++at) {
      for (const auto& sp : specials) {
        std::string text(len, 'a');
        text.replace(at, 1, sp);
        const json::value v(json::string(text.data(), text.size()));
        const auto scan = scan_json(v, std::numeric_limits<std::size_t>::max());
        EXPECT_TRUE(scan.valid_utf8) << len << " " << at;
        EXPECT_TRUE(valid_utf8(text)) << len << " " << at;
        EXPECT_EQ(scan.bytes, toolgate::to_json_text(v).size()) << len << " " << at;
        // A key is looked at the same way.
        json::object o;
        o[text] = 1;
        EXPECT_EQ(scan_json(o, 1 << 20).bytes, toolgate::to_json_text(o).size());
      }
      for (const auto& bad : invalid) {
        std::string text(len, 'a');
        text.replace(at, 1, bad);
        EXPECT_FALSE(
            scan_json(json::value(json::string(text.data(), text.size())), 1 << 20).valid_utf8)
            << len << " " << at;
        EXPECT_FALSE(valid_utf8(text)) << len << " " << at;
      }
    }
}

TEST(JsonScan, StopsCountingPastTheLimit) {
  json::array big;
  for (int i = 0; i < 10000; ++i) big.emplace_back("0123456789");
  auto scan = scan_json(big, 100);
  EXPECT_GT(scan.bytes, 100u);
  EXPECT_LT(scan.bytes, json::serialize(big).size());
}

TEST(JsonScan, InvalidUtf8IsReplacedByteByByte) {
  using toolgate::detail::to_valid_utf8;
  using toolgate::detail::valid_utf8;
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(to_valid_utf8("plain ascii"), "plain ascii");
  EXPECT_EQ(to_valid_utf8("caf\xC3\xA9 \xF0\x9F\x94\x92"), "caf\xC3\xA9 \xF0\x9F\x94\x92");
  EXPECT_EQ(to_valid_utf8("a\xFF"
                          "b"),
            "a" + fffd + "b");
  EXPECT_EQ(to_valid_utf8("cut \xE2\x82"), "cut " + fffd + fffd);  // truncated sequence
  EXPECT_EQ(to_valid_utf8("\xC0\xAF"), fffd + fffd);               // overlong '/'
  EXPECT_EQ(to_valid_utf8("\xED\xA0\x80"), fffd + fffd + fffd);    // a surrogate
  for (const char* s : {"\xFF", "x\xE2\x82", "\xC0\xAF", "\xED\xA0\x80z", "\xF4\x90\x80\x80"})
    EXPECT_TRUE(valid_utf8(to_valid_utf8(s))) << s;
}

// A long text is cut for display at a character boundary, never inside one.
TEST(Utf8Prefix, CutsBeforeACharacterThatWouldNotFit) {
  using toolgate::detail::utf8_prefix;
  const std::string s = "ab\xC3\xA9z";  // "abéz": é is two bytes at 2..3
  EXPECT_EQ(utf8_prefix(s, 10), s);
  EXPECT_EQ(utf8_prefix(s, 4), "ab\xC3\xA9");
  EXPECT_EQ(utf8_prefix(s, 3), "ab");  // would end inside é
  EXPECT_EQ(utf8_prefix(s, 2), "ab");
  EXPECT_EQ(utf8_prefix("\xF0\x9F\x98\x80", 3), "");
}
