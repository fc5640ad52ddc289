// Layers, locks, ordering, operator overrides and permission checks
// (issue 3).  Behaviour, not just errors: what runs, in which order, and
// that a locked guard keeps denying whatever a later layer or flag does.
#include "test_support.hpp"

#include <sys/stat.h>

#include <condition_variable>
#include <thread>

using namespace tgtest;

namespace {

std::string plugin_entry(const std::string& id, const std::string& path,
                         const std::string& extra = "") {
  return R"({"id":")" + id + R"(","path":")" + path + "\"" + extra + "}";
}
std::string manifest(const std::string& layer, bool locked, const std::vector<std::string>& plugins,
                     const std::string& overrides = "") {
  std::string s = R"({"toolgate":1,"layer":{"name":")" + layer + R"(","locked":)" +
                  (locked ? "true" : "false") + R"(},"plugins":[)";
  for (std::size_t i = 0; i < plugins.size(); ++i) s += (i ? "," : "") + plugins[i];
  s += "]";
  if (!overrides.empty()) s += R"(,"overrides":)" + overrides;
  return s + "}";
}
// A locked "security" layer whose testkit guard denies everything, and an
// unlocked "deployer" layer with the sample shout plugin.
std::pair<std::string, std::string> security_and_deployer(TempDir& dir) {
  return {dir.write("10.json", manifest("security", true,
                                        {plugin_entry("test.kit", test_plugin("testkit"),
                                                      R"(,"config":{"guard":"deny"})")})),
          dir.write("20.json",
                    manifest("deployer", false,
                             {plugin_entry("sample.shout", sample_plugin("sample_shout"))}))};
}

std::vector<std::string> ids(const json::object& plan, const char* stage) {
  std::vector<std::string> out;
  for (const auto& h : plan.at(stage).as_array()) out.emplace_back(h.at("id").as_string());
  return out;
}

}  // namespace

TEST(Layers, ALockedGuardSurvivesDisableAllAndKeepsDenying) {
  Fixture f;
  TempDir dir;
  auto [security, deployer] = security_and_deployer(dir);
  LoadOptions o;
  o.disable = {"all"};
  auto report = f.host.load_manifests({security, deployer}, o);
  EXPECT_EQ(report.layers, (std::vector<std::string>{"security", "deployer"}));
  EXPECT_FALSE(report.kept_locked.empty());
  for (const auto& k : report.kept_locked)
    EXPECT_NE(k.find("locked by layer \"security\""), std::string::npos);
  auto plan = f.host.plan();
  EXPECT_EQ(ids(plan, "guard"), std::vector<std::string>{"test.kit/guard"});
  EXPECT_TRUE(ids(plan, "tools/post-execute").size() == 1u);  // testkit's own post; shout is off
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->source, "test.kit/guard");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(Layers, DisableGlobsSwitchOffUnlockedHooksOnly) {
  Fixture f;
  TempDir dir;
  auto m = dir.write("m.json", manifest("deployer", false,
                                        {plugin_entry("test.kit", test_plugin("testkit"),
                                                      R"(,"config":{"guard":"deny"})")}));
  LoadOptions o;
  o.disable = {"test.kit/guard"};
  f.host.load_manifests({m}, o);
  EXPECT_FALSE(f.call("echo").is_error);  // the unlocked guard is off
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(Layers, ALaterLayerCanAddGuardsButNotRemoveLockedOnes) {
  Fixture f;
  TempDir dir;
  f.host.load_manifest(dir.write(
      "10.json",
      manifest("security", true, {plugin_entry("test.variant", test_plugin("variant_ok"))})));
  f.host.load_manifest(
      dir.write("20.json", manifest("deployer", false,
                                    {plugin_entry("test.kit", test_plugin("testkit"),
                                                  R"(,"config":{"guard":"deny"})")})));
  EXPECT_EQ(ids(f.host.plan(), "guard"),
            (std::vector<std::string>{"test.kit/guard", "test.variant/variant"}));
  EXPECT_EQ(code_of(f.call("echo")), "denied");
  EXPECT_THROW(f.host.load_manifest(dir.write(
                   "30.json",
                   manifest("sneaky", false, {}, R"({"test.variant/variant":{"enabled":false}})"))),
               LoadError);
  EXPECT_EQ(ids(f.host.plan(), "guard").size(), 2u);
}

TEST(Layers, LockedWaterfallHooksHaveTheFinalWord) {
  // The locked layer's pre-execute asks; an embedder hook with a huge
  // priority answers allow -- but it runs before the locked hook, so the ask
  // stands and, with no approver, the call is denied.
  Fixture f;
  TempDir dir;
  f.host.add_pre_execute("deployer", {"auto-approve", {}, 1000000},
                         [](const HookCall&) { return PreVerdict::allow(); });
  f.host.load_manifest(dir.write(
      "10.json",
      manifest("security", true,
               {plugin_entry("test.kit", test_plugin("testkit"), R"(,"config":{"pre":"ask"})")})));
  EXPECT_EQ(ids(f.host.plan(), "tools/pre-execute"),
            (std::vector<std::string>{"deployer/auto-approve", "test.kit/pre"}));
  EXPECT_EQ(code_of(f.call("echo")), "approval_unavailable");
  EXPECT_EQ(*f.body_runs, 0);
  // Wrappers: the locked one is outermost.
  f.host.add_execute_wrapper("deployer", {"inner", {}, 1000000},
                             [](const HookCall&, const std::shared_ptr<Signal>& s,
                                Next& n) -> const ExecResult& { return n(s); });
  EXPECT_EQ(ids(f.host.plan(), "tools/execute"),
            (std::vector<std::string>{"test.kit/wrapper", "deployer/inner"}));
}

TEST(Layers, OrderingPriorityThenLayerThenManifestThenRegistration) {
  Host host;
  TempDir dir;
  auto m = dir.write("m.json", manifest("one", false,
                                        {plugin_entry("test.c-status", test_plugin("c_status")),
                                         plugin_entry("test.kit", test_plugin("testkit"),
                                                      R"(,"hooks":{"post":{"priority":5}})")}));
  host.add_post_execute("host", {"h1"}, [](const HookCall&) { return PostVerdict::accept(); });
  host.load_manifest(m);
  // test.kit/post has priority 5; then the embedder (layer "host") first,
  // then manifest order.
  EXPECT_EQ(ids(host.plan(), "tools/post-execute"),
            (std::vector<std::string>{"test.kit/post", "host/h1", "test.c-status/post"}));
}

TEST(Layers, BeforeAndAfterBeatPriority) {
  Host host;
  TempDir dir;
  auto m = dir.write(
      "m.json", manifest("one", false,
                         {plugin_entry("test.c-status", test_plugin("c_status"),
                                       R"(,"hooks":{"pre":{"priority":-5,"before":["test.kit"]}})"),
                          plugin_entry("test.kit", test_plugin("testkit"),
                                       R"(,"hooks":{"pre":{"priority":50}})")}));
  host.load_manifest(m);
  EXPECT_EQ(ids(host.plan(), "tools/pre-execute"),
            (std::vector<std::string>{"test.c-status/pre", "test.kit/pre"}));
}

TEST(Layers, AManifestToolFilterMeansTheHookIsNeverCalledForOtherTools) {
  Fixture f;
  TempDir dir;
  f.host.load_manifest(dir.write(
      "m.json",
      manifest(
          "one", false,
          {plugin_entry(
              "test.kit", test_plugin("testkit"),
              R"(,"config":{"guard":"deny"},"hooks":{"guard":{"tools":["fs.*","!fs.stat"]}})")})));
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(*f.body_runs, 1);
  for (const auto& e : f.recorder->of_type("hook/invoked"))
    EXPECT_NE(e.data.at("source"), "test.kit/guard");  // not even invoked
  auto plan = f.host.plan("fs.read");
  EXPECT_EQ(ids(plan, "guard"), std::vector<std::string>{"test.kit/guard"});
  EXPECT_TRUE(ids(f.host.plan("fs.stat"), "guard").empty());
}

TEST(Layers, ShadowModeFromTheManifest) {
  Fixture f;
  TempDir dir;
  f.host.load_manifest(dir.write(
      "m.json",
      manifest(
          "one", false,
          {plugin_entry("test.kit", test_plugin("testkit"),
                        R"(,"config":{"guard":"deny"},"hooks":{"guard":{"mode":"shadow"}})")})));
  EXPECT_FALSE(f.call("echo").is_error);
  bool would = false;
  for (const auto& e : f.recorder->of_type("hook/result"))
    would |= e.data.at("verdict") == "would-deny";
  EXPECT_TRUE(would);
}

TEST(Layers, AFolderLoadsItsManifestsInByteWiseNameOrder) {
  Host host;
  TempDir dir;
  std::filesystem::create_directories(dir.path / "stack");
  // 'B' (0x42) sorts before 'a' (0x61): B is the first, locked layer.
  std::ofstream(dir.path / "stack" / "B.json")
      << manifest("first", true, {plugin_entry("test.variant", test_plugin("variant_ok"))});
  std::ofstream(dir.path / "stack" / "a.json")
      << manifest("second", false, {}, R"({"test.variant/variant":{"enabled":false}})");
  std::ofstream(dir.path / "stack" / "notes.txt") << "ignored";
  try {
    host.load_manifests({dir.path / "stack"});
    ADD_FAILURE() << "the later layer disabled a locked guard";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.file(), (dir.path / "stack" / "a.json").string());
  }
}

TEST(Permissions, PluginsWritableByOthersAreRefusedUnlessAllowed) {
  TempDir dir;
  auto open = dir.path / "open";
  std::filesystem::create_directories(open);
  std::filesystem::copy_file(test_plugin("variant_ok"), open / "v.so");
  ::chmod(open.c_str(), 0777);  // world-writable, no sticky bit
  auto m = dir.write(
      "m.json", manifest("one", false, {plugin_entry("test.variant", (open / "v.so").string())}));
  {
    Host host;
    try {
      host.load_manifest(m);
      ADD_FAILURE() << "loaded from a world-writable folder";
    } catch (const LoadError& e) {
      EXPECT_NE(e.problem().find(open.string() + " is writable by group or others"),
                std::string::npos)
          << e.problem();
      EXPECT_NE(e.fix().find("--allow-insecure-plugin-permissions"), std::string::npos);
    }
  }
  {
    Host host;
    LoadOptions o;
    o.allow_insecure_plugin_permissions = true;
    host.load_manifests({m}, o);
    EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);
  }
  ::chmod(open.c_str(), 0755);
  ::chmod((open / "v.so").c_str(), 0664);  // group-writable file
  Host host;
  EXPECT_THROW(host.load_manifest(m), LoadError);
  ::chmod((open / "v.so").c_str(), 0755);
  host.load_manifest(m);  // and fine once fixed
}

// A manifest is policy too: whoever can rewrite it chooses the guards.
TEST(Permissions, ManifestsWritableByOthersAreRefusedBeforeAnythingLoads) {
  TempDir dir;
  auto m = dir.write(
      "m.json", manifest("one", false, {plugin_entry("test.variant", test_plugin("variant_ok"))}));
  ::chmod(m.c_str(), 0666);  // anyone may rewrite the policy
  {
    Host host;
    try {
      host.load_manifest(m);
      ADD_FAILURE() << "loaded a manifest anyone can rewrite";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.file(), m.string());
      EXPECT_NE(e.problem().find(m.string() + " is writable by group or others"), std::string::npos)
          << e.problem();
      EXPECT_NE(e.fix().find("--allow-insecure-plugin-permissions"), std::string::npos);
    }
    // Refused before any plugin of it was loaded.
    EXPECT_TRUE(host.describe().at("plugins").as_array().empty());
  }
  {
    Host host;
    LoadOptions o;
    o.allow_insecure_plugin_permissions = true;
    host.load_manifests({m}, o);
    EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);
  }
  ::chmod(m.c_str(), 0644);
  Host host;
  host.load_manifest(m);  // and fine once fixed
  EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);
}

// ---- unregistering the embedder's hooks (HookHandle, Host::remove_hook) -------------------

TEST(Unregister, AHandleRemovesItsHookForLaterCallsOnly) {
  Fixture f;
  auto h = f.host.add_guard(
      "embedder", {"no"}, [](const HookCall&) -> std::optional<std::string> { return "not now"; });
  EXPECT_EQ(h.id(), "embedder/no");
  EXPECT_EQ(code_of(f.call("echo")), "denied");
  EXPECT_EQ(*f.body_runs, 0);
  const auto before = f.host.generation();
  EXPECT_TRUE(h.remove());
  EXPECT_GT(f.host.generation(), before);  // a new generation
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(*f.body_runs, 1);
  EXPECT_FALSE(h.remove());  // gone already
  HookHandle copy = f.host.add_guard(
      "embedder", {"no"}, [](const HookCall&) -> std::optional<std::string> { return "x"; });
  EXPECT_TRUE(f.host.remove_hook("embedder/no"));
  EXPECT_FALSE(copy.remove());
  EXPECT_FALSE(f.host.remove_hook("embedder/never"));
}

TEST(Unregister, ACallInFlightFinishesWithTheHookItStartedWith) {
  Fixture f;
  std::mutex m;
  std::condition_variable cv;
  bool entered = false, go = false;
  ToolDefinition slow;
  slow.name = "slow.gate";
  slow.execute = [&](const ToolContext&) {
    std::unique_lock lock(m);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return go; });
    return ToolOutput::success("done");
  };
  f.host.register_tool(slow);
  std::atomic<int> post_runs{0};
  auto h = f.host.add_post_execute("embedder", {"count"}, [&](const HookCall&) {
    ++post_runs;
    return PostVerdict::accept();
  });
  std::thread caller([&] { f.call("slow.gate"); });
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return entered; });
  }
  EXPECT_TRUE(h.remove());  // while the call is in its body
  {
    std::lock_guard lock(m);
    go = true;
  }
  cv.notify_all();
  caller.join();
  EXPECT_EQ(post_runs, 1);  // the running call kept its hook
  f.call("echo");
  EXPECT_EQ(post_runs, 1);  // later calls do not see it
}

TEST(Unregister, CallsRacingRemovalsAreEachDeniedOrAllowedWholly) {
  Fixture f;
  std::atomic<bool> stop{false};
  std::atomic<int> denied{0}, allowed{0}, other{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i)
    callers.emplace_back([&] {
      while (!stop) {
        auto r = f.call("echo");
        if (!r.is_error)
          ++allowed;
        else if (code_of(r) == "denied")
          ++denied;
        else
          ++other;
      }
    });
  for (int i = 0; i < 50; ++i) {
    auto h = f.host.add_guard("embedder", {"flip"},
                              [](const HookCall&) -> std::optional<std::string> { return "no"; });
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    EXPECT_TRUE(h.remove());
  }
  stop = true;
  for (auto& t : callers) t.join();
  EXPECT_EQ(other, 0);
  EXPECT_EQ(*f.body_runs, allowed.load());  // a denied call never ran its body
}

TEST(Unregister, AManifestHookIsNotTheEmbeddersToRemoveAndALockedOneSaysSo) {
  Fixture f;
  TempDir dir;
  auto [security, deployer] = security_and_deployer(dir);
  f.host.load_manifests({security, deployer});
  try {
    f.host.remove_hook("test.kit/guard");
    FAIL() << "a locked hook was removed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("locked layer \"security\""), std::string::npos)
        << e.what();
  }
  const auto post = ids(f.host.plan(), "tools/post-execute");
  std::string shout;
  for (const auto& id : post)
    if (id.starts_with("sample.shout/")) shout = id;
  ASSERT_FALSE(shout.empty());
  try {
    f.host.remove_hook(shout);
    FAIL() << "a manifest hook was removed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--disable " + shout), std::string::npos) << e.what();
  }
  EXPECT_EQ(code_of(f.call("echo")), "denied");  // nothing changed
}

TEST(Unregister, AHandleThatOutlivesItsHostDoesNothing) {
  HookHandle h;
  EXPECT_FALSE(h.remove());  // default: names nothing
  {
    Host host;
    h = host.add_guard("embedder", {"g"},
                       [](const HookCall&) -> std::optional<std::string> { return std::nullopt; });
  }
  EXPECT_FALSE(h.remove());
}

TEST(Unregister, RemovalsRacingTheHostsDestructionAreSafe) {
  auto host = std::make_unique<Host>();
  std::vector<HookHandle> handles;
  for (int i = 0; i < 100; ++i)
    handles.push_back(host->add_guard(
        "embedder", {"g" + std::to_string(i)},
        [](const HookCall&) -> std::optional<std::string> { return std::nullopt; }));
  std::atomic<int> removed{0};
  std::thread remover([&] {
    for (auto& h : handles)
      if (h.remove()) ++removed;
  });
  std::this_thread::sleep_for(std::chrono::microseconds(300));
  host.reset();  // while removals may be running
  remover.join();
  EXPECT_LE(removed, 100);
  for (auto& h : handles) EXPECT_FALSE(h.remove());  // the host is gone
}
