// Bad input from a client gets a clear error result, never a crash (§7).
#include "test_support.hpp"

using namespace tgtest;

TEST(CallJson, AWellFormedCallRuns) {
  Fixture f;
  auto r = f.host.call_json(R"({"tool":"echo","arguments":{"a":1},"call_id":"c1"})");
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(r.value->at("a"), 1);
}

TEST(CallJson, MalformedInputIsInvalidArgumentsAndRunsNothing) {
  Fixture f;
  const std::string nested(200, '[');
  const std::vector<std::string> bad = {"",
                                        "{",
                                        "[1,2]",
                                        "\"echo\"",
                                        R"({"arguments":{}})",
                                        R"({"tool":7})",
                                        R"({"tool":"echo","extra":1})",
                                        R"({"tool":"echo","call_id":5})",
                                        "{\"tool\":\"echo\",\"arguments\":{\"a\":\"\xff\xfe\"}}",
                                        R"({"tool":"echo","arguments":)" + nested};
  for (const auto& text : bad) {
    auto r = f.host.call_json(text);
    EXPECT_TRUE(r.is_error) << text;
    EXPECT_EQ(code_of(r), "invalid_arguments") << text;
    EXPECT_FALSE(r.error->message.empty());
  }
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(CallJson, NestingDeeperThanTheLimitIsRefused) {
  HostOptions o;
  o.max_json_depth = 8;
  Host host(o);
  std::string deep =
      R"({"tool":"x","arguments":{"a":)" + std::string(10, '[') + std::string(10, ']') + "}}";
  auto r = host.call_json(deep);
  EXPECT_EQ(code_of(r), "invalid_arguments");
}

TEST(CallJson, OversizeInputIsRefused) {
  HostOptions o;
  o.max_argument_bytes = 64;
  Host host(o);
  auto r = host.call_json(R"({"tool":"x","arguments":{"a":")" + std::string(100, 'a') + "\"}}");
  EXPECT_EQ(code_of(r), "invalid_arguments");
  EXPECT_NE(r.error->message.find("limit"), std::string::npos);
}

TEST(CallJson, NonObjectArgumentsAreRefused) {
  Fixture f;
  auto r = f.host.call_json(R"({"tool":"echo","arguments":[1]})");
  EXPECT_EQ(code_of(r), "invalid_arguments");
  EXPECT_EQ(*f.body_runs, 0);
}
