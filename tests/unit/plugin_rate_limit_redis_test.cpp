// plugins/rate-limit with its buckets in Redis: three replicas (three hosts,
// each loading the plugin) share one limit through a real redis-server that
// the test starts on a loopback port; the store killed mid-run denies, with
// the reason, and serves again when it is back.
#include "../support/redis_server.hpp"
#include "library_support.hpp"

#include <chrono>
#include <thread>

using namespace tgtest;
using tgtest_redis::free_port;
using tgtest_redis::RedisServer;

namespace {

bool have_redis() { return std::system("command -v redis-server >/dev/null 2>&1") == 0; }

ToolResult call_in(Fixture& f, const std::string& session, const std::string& tool = "echo") {
  ToolCall c;
  c.identity.tool = tool;
  c.identity.session_id = session;
  c.arguments = json::object{};
  return f.host.call(std::move(c));
}

json::object config(int port, json::object limit, json::object store_extra = {}) {
  json::object store{{"redis", "127.0.0.1:" + std::to_string(port)},
                     {"prefix", "tg-test-" + std::to_string(::getpid()) + ":"}};
  for (const auto& kv : store_extra) store[kv.key()] = kv.value();
  return {{"limits", json::array{std::move(limit)}}, {"store", std::move(store)}};
}

}  // namespace

#define REQUIRE_REDIS()                                                                     \
  if (!have_redis())                                                                        \
  GTEST_SKIP() << "redis-server is not installed (packaging/install-deps.sh installs it); " \
                  "the shared rate limit is not tested"

TEST(RateLimitRedis, ThreeReplicasShareOneLimit) {
  REQUIRE_REDIS();
  RedisServer redis(free_port());
  ASSERT_TRUE(redis.available());
  LibraryFixture replicas[3];
  for (auto& r : replicas)
    r.load("rate-limit",
           config(redis.port(),
                  {{"name", "shared"}, {"per", "global"}, {"count", 5}, {"seconds", 3600}}));
  int allowed = 0;
  std::string denial;
  for (int i = 0; i < 15; ++i) {
    auto r = call_in(replicas[i % 3], "s");
    if (!r.is_error)
      ++allowed;
    else
      denial = r.error->message;
  }
  EXPECT_EQ(allowed, 5) << "a limit of 5 holds for the sum across three replicas";
  EXPECT_TRUE(has(denial, "rate limit \"shared\" (5 per 3600 s) exceeded by echo")) << denial;
  EXPECT_EQ(*replicas[0].body_runs + *replicas[1].body_runs + *replicas[2].body_runs, 5);
}

TEST(RateLimitRedis, PerSessionBucketsAreSharedPerSession) {
  REQUIRE_REDIS();
  RedisServer redis(free_port());
  ASSERT_TRUE(redis.available());
  LibraryFixture a, b;
  for (auto* f : {&a, &b})
    f->load("rate-limit", config(redis.port(), {{"count", 1}, {"seconds", 3600}}));
  EXPECT_FALSE(call_in(a, "s1").is_error);
  EXPECT_EQ(code_of(call_in(b, "s1")), "denied");  // the same session, on the other replica
  EXPECT_FALSE(call_in(b, "s2").is_error);         // another session has its own bucket
}

TEST(RateLimitRedis, AStoreThatIsDownDeniesSayingWhyAndServesWhenBack) {
  REQUIRE_REDIS();
  const int port = free_port();
  RedisServer redis(port);
  LibraryFixture f;
  ASSERT_TRUE(redis.available());
  f.load("rate-limit", config(port, {{"count", 1000}, {"seconds", 1}}, {{"timeout_ms", 1000}}));
  EXPECT_FALSE(call_in(f, "s").is_error);
  redis.stop();
  auto down = call_in(f, "s");
  EXPECT_EQ(code_of(down), "denied");
  EXPECT_TRUE(has(down.error->message,
                  "rate limit store redis://127.0.0.1:" + std::to_string(port) + " did not answer"))
      << down.error->message;
  EXPECT_TRUE(has(down.error->message, "on_error is \"deny\"")) << down.error->message;
  EXPECT_EQ(*f.body_runs, 1) << "nothing ran while the limit could not be checked";
  // Within a timeout of the failure the store is not tried again: the
  // next call is denied at once, with the same reason.
  auto again = call_in(f, "s");
  EXPECT_EQ(code_of(again), "denied");
  EXPECT_TRUE(has(again.error->message, "not tried again")) << again.error->message;
  redis.start();
  ASSERT_TRUE(redis.available());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // the 1 s timeout has passed
  EXPECT_FALSE(call_in(f, "s").is_error) << "the store is reached again without a restart";
}

TEST(RateLimitRedis, BucketsRefillOnTheStoresClock) {
  REQUIRE_REDIS();
  RedisServer redis(free_port());
  ASSERT_TRUE(redis.available());
  LibraryFixture f;
  f.load("rate-limit", config(redis.port(), {{"count", 20}, {"seconds", 1}, {"burst", 1}}));
  EXPECT_FALSE(call_in(f, "s").is_error);
  EXPECT_EQ(code_of(call_in(f, "s")), "denied");
  std::this_thread::sleep_for(std::chrono::milliseconds(120));  // 20/s: one token per 50 ms
  EXPECT_FALSE(call_in(f, "s").is_error);
}

TEST(RateLimitRedis, ADeniedCallTakesNoTokenFromTheOtherLimits) {
  REQUIRE_REDIS();
  RedisServer redis(free_port());
  ASSERT_TRUE(redis.available());
  LibraryFixture f;
  f.add_tool("other", 0);
  json::object c = config(redis.port(), {});
  c["limits"] = json::array{
      json::object{{"name", "echo-only"}, {"tools", "echo"}, {"count", 1}, {"seconds", 3600}},
      json::object{{"name", "all"}, {"count", 2}, {"seconds", 3600}}};
  f.load("rate-limit", c);
  EXPECT_FALSE(call_in(f, "s").is_error);         // echo: both limits take one
  EXPECT_EQ(code_of(call_in(f, "s")), "denied");  // echo-only is empty: "all" keeps its token
  EXPECT_FALSE(call_in(f, "s", "other").is_error) << "the denied call took a token from \"all\"";
  EXPECT_EQ(code_of(call_in(f, "s", "other")), "denied");  // and "all" had exactly one left
}

TEST(RateLimitRedis, OnErrorAllowLetsCallsThroughWhenTheStoreIsDown) {
  REQUIRE_REDIS();
  LibraryFixture f;
  // Nothing listens on this port.
  f.load("rate-limit", config(free_port(), {{"count", 1}, {"seconds", 3600}},
                              {{"on_error", "allow"}, {"timeout_ms", 100}}));
  EXPECT_FALSE(call_in(f, "s").is_error);
  EXPECT_FALSE(call_in(f, "s").is_error);
}

TEST(RateLimitRedis, BadStoreConfigs) {
  LibraryFixture f;
  std::string e = f.config_error(
      "rate-limit", {{"limits", json::array{json::object{{"count", 1}, {"seconds", 1}}}},
                     {"store", json::object{{"redis", "localhost"}}}});
  EXPECT_TRUE(has(e, "/plugins/0/config/store/redis")) << e;
  EXPECT_TRUE(has(e, "HOST:PORT")) << e;
  LibraryFixture g;
  e = g.config_error(
      "rate-limit",
      {{"limits", json::array{json::object{{"count", 1}, {"seconds", 1}}}},
       {"store", json::object{{"redis", "127.0.0.1:6379"}, {"password_file", "/nonexistent/pw"}}}});
  EXPECT_TRUE(has(e, "/plugins/0/config/store/password_file")) << e;
  EXPECT_TRUE(has(e, "cannot read /nonexistent/pw")) << e;
  // With a store, a limit's bucket is found by its name.
  LibraryFixture h;
  e = h.config_error(
      "rate-limit",
      {{"limits", json::array{json::object{{"name", "x"}, {"count", 1}, {"seconds", 1}},
                              json::object{{"name", "x"}, {"count", 2}, {"seconds", 1}}}},
       {"store", json::object{{"redis", "127.0.0.1:6379"}}}});
  EXPECT_TRUE(has(e, "/plugins/0/config/limits/1/name")) << e;
  EXPECT_TRUE(has(e, "a name of its own")) << e;
}
