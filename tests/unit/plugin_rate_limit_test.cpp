// plugins/rate-limit through the real loader: per-session and global
// buckets, refill, refunds across limits, concurrency and bad configs.
#include "library_support.hpp"

#include <toolgate/toolgate.h>

#include <thread>

#include <dlfcn.h>

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
  f.load("rate-limit",
         limit({{"name", "echo"}, {"tools", "echo"}, {"count", 2}, {"seconds", 3600}}));
  EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  auto r = call_in(f, "echo", "a");
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_TRUE(
      has(r.error->message, "rate limit \"echo\" (2 per 3600 s per session) exceeded by echo"))
      << r.error->message;
  // 1800 s minus the time the three calls took (1799.99 on a loaded
  // sanitizer run): the half-interval, not an exact figure.
  EXPECT_TRUE(has(r.error->message, "next call is allowed in 1800.") ||
              has(r.error->message, "next call is allowed in 1799."))
      << r.error->message;
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
  f.load("rate-limit",
         {{"limits",
           json::array{
               json::object{{"name", "all"}, {"count", 2}, {"seconds", 3600}},
               json::object{{"name", "x"}, {"tools", "x"}, {"count", 1}, {"seconds", 3600}}}}});
  EXPECT_FALSE(f.call("x").is_error);                     // all: 1 left, x: 0
  EXPECT_TRUE(has(f.call("x").error->message, "\"x\""));  // denied by x; "all" refunded
  EXPECT_FALSE(f.call("echo").is_error);                  // all: 0 left
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
        if (!call_in(f, "echo", std::string("s").append(std::to_string(t))).is_error) ++ok;
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
      {limit({{"count", 1}, {"seconds", 1}, {"per", "user"}}), "/plugins/0/config/limits/0/per",
       "not one of"},
      {limit({{"count", 1}, {"seconds", 1}, {"rate", 1}}), "/plugins/0/config/limits/0/rate",
       "unknown key"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("rate-limit", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}

// ---- state handoff across a hot reload ----------------------------------------------

TEST(RateLimitPlugin, BucketsSurviveAHotReload) {
  LibraryFixture f;
  auto manifest = [&](json::object extra_limit_keys, int max_sessions) {
    json::object l{{"name", "echo"}, {"tools", "echo"}, {"count", 2}, {"seconds", 3600}};
    for (auto& kv : extra_limit_keys) l[kv.key()] = kv.value();
    return f.dir.write("m.json",
                       manifest_for("toolgate.rate-limit", library_plugin("rate-limit"),
                                    {{"max_sessions", max_sessions}, {"limits", json::array{l}}}));
  };
  ReloadOptions ro;
  ro.manifests = {manifest({}, 100)};
  ro.watch = false;
  ASSERT_TRUE(f.host.enable_reload(ro).ok);
  json::object three{{"count", 3}};
  manifest(three, 100);
  ASSERT_TRUE(f.host.reload().ok);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  EXPECT_EQ(code_of(call_in(f, "echo", "a")), "denied");
  EXPECT_FALSE(call_in(f, "echo", "b").is_error);  // b: 2 left
  EXPECT_FALSE(call_in(f, "echo", "c").is_error);  // c: 2 left

  // A config change loads a fresh instance; the old one hands its buckets over.
  manifest(three, 200);
  auto r = f.host.reload();
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.reloaded, std::vector<std::string>{"toolgate.rate-limit"});
  EXPECT_EQ(code_of(call_in(f, "echo", "a")), "denied");  // still empty
  EXPECT_FALSE(call_in(f, "echo", "b").is_error);
  EXPECT_FALSE(call_in(f, "echo", "b").is_error);
  EXPECT_EQ(code_of(call_in(f, "echo", "b")), "denied");  // exactly the 2 it had left

  // A smaller burst clamps what was handed over: c had 2, now at most 1.
  manifest({{"count", 1}}, 200);
  ASSERT_TRUE(f.host.reload().ok);
  EXPECT_FALSE(call_in(f, "echo", "c").is_error);
  EXPECT_EQ(code_of(call_in(f, "echo", "c")), "denied");
  EXPECT_FALSE(call_in(f, "echo", "d").is_error);  // new sessions start full

  // A limit that changed from per-session to global starts full.
  manifest({{"count", 1}, {"per", "global"}}, 200);
  ASSERT_TRUE(f.host.reload().ok);
  EXPECT_FALSE(call_in(f, "echo", "a").is_error);
  EXPECT_EQ(code_of(call_in(f, "echo", "b")), "denied");
}

// The descriptor's export_state / import_state called directly, on an
// instance initialised through a minimal host table (no guard is run).
TEST(RateLimitPlugin, ImportRefusesAnIncompatibleState) {
  void* h = ::dlopen(library_plugin("rate-limit").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << ::dlerror();
  auto entry = reinterpret_cast<tg_entry_fn>(::dlsym(h, TOOLGATE_ENTRY_SYMBOL));
  ASSERT_NE(entry, nullptr);
  const tg_plugin_descriptor* d = entry();
  ASSERT_TRUE(d->export_state && d->import_state);
  tg_host_api api{};
  api.struct_size = sizeof api;
  api.abi_major = TOOLGATE_ABI_MAJOR;
  api.abi_minor = TOOLGATE_ABI_MINOR;
  api.register_guard = [](tg_init_ctx*, const tg_hook_options*, tg_guard_fn) -> tg_status {
    return TG_OK;
  };
  api.init_error = [](tg_init_ctx*, const char*) {};
  api.reject_config = [](tg_init_ctx*, const char*, const char*) {};
  const std::string config = R"({"limits":[{"name":"n","count":1,"seconds":3600}]})";
  void* state = nullptr;
  ASSERT_EQ(d->init(&api, nullptr, {config.data(), config.size()}, &state), TG_OK);

  tg_str out{};
  ASSERT_EQ(d->export_state(state, &out), TG_OK);
  const auto exported = json::parse(std::string_view(out.data, out.size));
  EXPECT_EQ(exported.at("format"), "toolgate.rate-limit");
  EXPECT_EQ(exported.at("version"), 1);
  EXPECT_EQ(exported.at("limits").at(0).at("name"), "n");
  auto import = [&](const std::string& s) { return d->import_state(state, {s.data(), s.size()}); };
  EXPECT_EQ(import(json::serialize(exported)), TG_OK);
  EXPECT_EQ(import(R"({"format":"toolgate.rate-limit","version":1,"limits":[]})"), TG_OK);
  // Another version or format, or a malformed document: refused.
  EXPECT_NE(import(R"({"format":"toolgate.rate-limit","version":2,"limits":[]})"), TG_OK);
  EXPECT_NE(import(R"({"format":"acme.rate","version":1,"limits":[]})"), TG_OK);
  EXPECT_NE(import(R"([])"), TG_OK);
  EXPECT_NE(import(R"({"format":"toolgate.rate-limit","version":1})"), TG_OK);
  EXPECT_NE(
      import(
          R"({"format":"toolgate.rate-limit","version":1,"limits":[{"name":"n","per":"session","tokens":"many","sessions":[]}]})"),
      TG_OK);
  EXPECT_NE(
      import(
          R"({"format":"toolgate.rate-limit","version":1,"limits":[{"name":"n","per":"session","tokens":1,"sessions":[["s",-1,0]]}]})"),
      TG_OK);
  d->shutdown(state);
  ::dlclose(h);
}
