// plugins/rate-limit through the real loader: per-session and global
// buckets, refill, refunds across limits, concurrency and bad configs.
#include "library_support.hpp"

#include <thread>

using namespace tgtest;

namespace {

ToolResult call_in(Fixture& f, const std::string& tool, const std::string& session) {
  ToolCall c;
  c.identity.tool = tool;
  c.identity.session_id = session;
  c.arguments = json::object{};
  return f.host.call(std::move(c));
}

json::object limit(json::object l) { return {{"limits", json::array{std::move(l)}}}; }

}  // namespace

TEST(RateLimitPlugin, PerSessionBucketsDenyWithTheTimeToTheNextToken) {
  LibraryFixture f;
  f.load("rate-limit", limit({{"name", "echo"}, {"tools", "echo"}, {"count", 2}, {"seconds", 3600}}));
  EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  auto r = call_in(f, "echo", "a");
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_TRUE(has(r.error->message, "rate limit \"echo\" (2 per 3600 s per session) exceeded by echo"))
      << r.error->message;
  EXPECT_TRUE(has(r.error->message, "next call is allowed in 1800.")) << r.error->message;
  EXPECT_EQ(*f.body_runs, 2);
  EXPECT_FALSE(call_in(f, "echo", "b").is_error);  // another session has its own bucket
}

TEST(RateLimitPlugin, GlobalBucketsAreShared) {
  LibraryFixture f;
  f.load("rate-limit", limit({{"per", "global"}, {"count", 1}, {"seconds", 3600}}));
  EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  EXPECT_EQ(code_of(call_in(f, "echo", "b")), "denied");
}

TEST(RateLimitPlugin, BucketsRefill) {
  LibraryFixture f;
  f.load("rate-limit", limit({{"count", 20}, {"seconds", 1}, {"burst", 1}}));
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(code_of(f.call("echo")), "denied");
  std::this_thread::sleep_for(std::chrono::milliseconds(120));  // 20/s: one token per 50 ms
  EXPECT_FALSE(f.call("echo").is_error);
}

TEST(RateLimitPlugin, ADeniedCallGivesBackTheTokensOtherLimitsTook) {
  LibraryFixture f;
  f.add_tool("x", 0);
  f.load("rate-limit", {{"limits", json::array{
      json::object{{"name", "all"}, {"count", 2}, {"seconds", 3600}},
      json::object{{"name", "x"}, {"tools", "x"}, {"count", 1}, {"seconds", 3600}}}}});
  EXPECT_FALSE(f.call("x").is_error);                 // all: 1 left, x: 0
  EXPECT_TRUE(has(f.call("x").error->message, "\"x\""));  // denied by x; "all" refunded
  EXPECT_FALSE(f.call("echo").is_error);              // all: 0 left
  EXPECT_TRUE(has(f.call("echo").error->message, "\"all\""));
}

TEST(RateLimitPlugin, ExactlyTheBurstPassesUnderConcurrency) {
  LibraryFixture f;
  f.load("rate-limit", limit({{"per", "global"}, {"count", 37}, {"seconds", 36000}}));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i)
        if (!call_in(f, "echo", "s" + std::to_string(t)).is_error) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 37);
  EXPECT_EQ(*f.body_runs, 37);
}

TEST(RateLimitPlugin, SessionsBeyondTheCapEvictFullBucketsFirst) {
  LibraryFixture f;
  f.load("rate-limit", {{"max_sessions", 2},
                        {"limits", json::array{json::object{{"count", 1}, {"seconds", 3600}}}}});
  EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  EXPECT_FALSE(call_in(f, "echo", "b").is_error);
  EXPECT_FALSE(call_in(f, "echo", "c").is_error);  // evicts the least recently used (a)
  EXPECT_EQ(code_of(call_in(f, "echo", "c")), "denied");
  EXPECT_EQ(code_of(call_in(f, "echo", "b")), "denied");  // b kept its empty bucket
}

TEST(RateLimitPlugin, BadConfigs) {
  struct C {
    json::object config;
    const char* path;
    const char* text;
  };
  std::vector<C> cases = {
      {{}, "/plugins/0/config/limits", "missing required key"},
      {{{"limits", json::array{}}}, "/plugins/0/config/limits", "at least one limit"},
      {limit({{"seconds", 1}}), "/plugins/0/config/limits/0/count", "missing required key"},
      {limit({{"count", 1}, {"seconds", 0}}), "/plugins/0/config/limits/0/seconds", "number from"},
      {limit({{"count", 1}, {"seconds", 1}, {"per", "user"}}), "/plugins/0/config/limits/0/per", "not one of"},
      {limit({{"count", 1}, {"seconds", 1}, {"rate", 1}}), "/plugins/0/config/limits/0/rate", "unknown key"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("rate-limit", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}
