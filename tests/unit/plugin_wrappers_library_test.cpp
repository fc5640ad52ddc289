// plugins/timeout and plugins/retry through the real loader.
#include "library_support.hpp"

#include "sample_tools.hpp"

#include <toolgate/toolgate.h>

#include <thread>

using namespace tgtest;
using namespace std::chrono_literals;

TEST(TimeoutPlugin, DefaultAndPerToolDeadlines) {
  LibraryFixture f;
  f.host.register_tool(toolgate::samples::slow_tool());
  f.add_tool("slow.other", 0, [](const ToolContext& ctx) {
    ctx.signal->wait_for(5s);
    return ctx.signal->fired() ? ToolOutput::failure("stopped", "timeout")
                               : ToolOutput::success("done");
  });
  f.load("timeout", {{"default_ms", 30},
                     {"tools", json::array{json::object{{"tools", "slow"}, {"ms", 2000}}}}});
  // "slow" has 2 s: a 100 ms sleep finishes.
  EXPECT_FALSE(f.call("slow", {{"ms", 100}}).is_error);
  // "slow.other" gets the 30 ms default.
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(code_of(f.call("slow.other")), "timeout");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST(TimeoutPlugin, ZeroMeansNoDeadline) {
  LibraryFixture f;
  f.host.register_tool(toolgate::samples::slow_tool());
  f.load("timeout", {{"default_ms", 0}});
  EXPECT_FALSE(f.call("slow", {{"ms", 50}}).is_error);
}

TEST(TimeoutPlugin, BadConfigs) {
  LibraryFixture f;
  std::string e = f.config_error("timeout", {{"default_ms", -1}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/default_ms");
  LibraryFixture g;
  e = g.config_error("timeout", {{"tools", json::array{json::object{{"tools", "x"}}}}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/tools/0/ms");
  EXPECT_TRUE(has(e, "missing required key"));
}

namespace {

json::object fast_retry(json::object extra = {}) {
  json::object c{{"max_attempts", 3}, {"initial_backoff_ms", 1}, {"max_backoff_ms", 5}};
  for (auto& kv : extra) c[kv.key()] = kv.value();
  return c;
}

}  // namespace

TEST(RetryPlugin, RetriesIdempotentToolsUpToMaxAttempts) {
  LibraryFixture f;
  f.load("retry", fast_retry());
  auto r = f.call("echo", {{"fail", true}});  // echo is annotated idempotent
  EXPECT_EQ(code_of(r), "tool_error");
  EXPECT_EQ(*f.body_runs, 3);
}

TEST(RetryPlugin, StopsAtTheFirstSuccess) {
  LibraryFixture f;
  auto tries = std::make_shared<int>(0);
  f.add_tool("flaky", TG_TOOL_IDEMPOTENT, [tries](const ToolContext&) {
    return ++*tries < 2 ? ToolOutput::failure("flaky") : ToolOutput::success("ok");
  });
  f.load("retry", fast_retry());
  auto r = f.call("flaky");
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(*f.body_runs, 2);
}

TEST(RetryPlugin, OnlySafeToolsAndNeverDestructiveOnes) {
  auto failing = [](const ToolContext&) { return ToolOutput::failure("no"); };
  LibraryFixture f;
  f.add_tool("plain", 0, failing);
  f.add_tool("listed", 0, failing);
  f.add_tool("listed.destructive", TG_TOOL_DESTRUCTIVE | TG_TOOL_IDEMPOTENT, failing);
  f.load("retry", fast_retry({{"tools", "listed*"}}));
  f.call("plain");
  EXPECT_EQ(*f.body_runs, 1);
  f.call("listed");
  EXPECT_EQ(*f.body_runs, 4);
  f.call("listed.destructive");
  EXPECT_EQ(*f.body_runs, 5);
}

TEST(RetryPlugin, OnlyTheConfiguredErrorCodes) {
  LibraryFixture f;
  f.add_tool("times-out", TG_TOOL_IDEMPOTENT,
             [](const ToolContext&) { return ToolOutput::failure("late", "timeout"); });
  f.load("retry", fast_retry());
  f.call("times-out");
  EXPECT_EQ(*f.body_runs, 1);  // default retry_on: tool_error only
  LibraryFixture g;
  g.add_tool("times-out", TG_TOOL_IDEMPOTENT,
             [](const ToolContext&) { return ToolOutput::failure("late", "timeout"); });
  g.load("retry", fast_retry({{"retry_on", json::array{"timeout"}}}));
  g.call("times-out");
  EXPECT_EQ(*g.body_runs, 3);
}

TEST(RetryPlugin, CancellingTheCallEndsTheBackoffAtOnce) {
  LibraryFixture f;
  f.load("retry", {{"max_attempts", 5}, {"initial_backoff_ms", 60000}, {"max_backoff_ms", 60000}});
  ToolCall c;
  c.identity.tool = "echo";
  c.identity.session_id = "test";
  c.arguments = json::object{{"fail", true}};
  c.signal = Signal::make();
  std::thread canceller([s = c.signal] {
    std::this_thread::sleep_for(50ms);
    s->cancel();
  });
  auto start = std::chrono::steady_clock::now();
  auto r = f.host.call(std::move(c));
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(RetryPlugin, BadConfigs) {
  struct C {
    json::object config;
    const char* path;
    const char* text;
  };
  std::vector<C> cases = {
      {{{"max_attempts", 0}}, "/plugins/0/config/max_attempts", "integer from 1 to 100"},
      {{{"retry_on", json::array{"denied"}}}, "/plugins/0/config/retry_on/0", "cannot be retried"},
      {{{"initial_backoff_ms", 500}, {"max_backoff_ms", 100}},
       "/plugins/0/config/max_backoff_ms",
       "must not be smaller"},
      {{{"jitter", 2}}, "/plugins/0/config/jitter", "number from 0 to 1"},
      {{{"attempts", 2}}, "/plugins/0/config/attempts", "unknown key"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("retry", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}
