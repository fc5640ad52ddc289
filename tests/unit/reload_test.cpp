// Hot reload (issue 4, docs/design.md §9): swaps under load never let a call
// through unguarded; every failure leaves the old generation serving; old
// images drain and really leave the process; state is handed over.
#include "test_support.hpp"

#include "sample_tools.hpp"

#include <set>
#include <thread>

using namespace tgtest;
namespace fs = std::filesystem;

namespace {

bool toolgate_test_mapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(path) != std::string::npos) return true;
  return false;
}

// A stack with one locked layer holding reload.guard, whose file is
// replaced by "rebuilding" (copy + rename, as a build system does).
struct ReloadFixture {
  TempDir dir;
  fs::path plugin = dir.path / "guard.so";
  fs::path manifest = dir.path / "stack.json";
  std::shared_ptr<Recorder> recorder = std::make_shared<Recorder>();
  std::unique_ptr<Host> host;

  explicit ReloadFixture(const std::string& variant = "reload_guard_a", bool locked = true,
                         HostOptions ho = {}) {
    install(variant);
    write_manifest("{}", locked);
    host = std::make_unique<Host>(ho);
    host->register_tool(toolgate::samples::greeting_tool());
    host->register_tool(toolgate::samples::slow_tool());
    auto rec = recorder;
    host->subscribe([rec](const Event& e) { (*rec)(e); });
  }

  void install(const std::string& variant) {
    auto tmp = dir.path / ".guard.so.tmp";
    fs::copy_file(test_plugin(variant), tmp, fs::copy_options::overwrite_existing);
    fs::rename(tmp, plugin);  // atomic replace
  }
  // `entry`: more members of the plugin entry (",\"sha256\":...").
  void write_manifest(const std::string& config, bool locked = true,
                      const std::string& entry = "") {
    std::ofstream(manifest) << R"({"toolgate":1,"layer":{"name":"security","locked":)"
                            << (locked ? "true" : "false")
                            << R"(},"plugins":[{"id":"reload.guard","path":"guard.so","config":)"
                            << config << entry << "}]}";
  }
  // How long a build still being written is waited for: short, so the
  // cases with a truncated file do not take the default 3 s.
  std::chrono::milliseconds settle{300};
  ReloadReport enable(bool watch = false, bool probe = false) {
    ReloadOptions o;
    o.manifests = {manifest};
    o.watch = watch;
    o.settle_timeout = settle;
    if (probe) o.probe_command = {TOOLGATE_CLI, "__probe"};
    return host->enable_reload(o);
  }
  ToolResult greet(const std::string& name) {
    ToolCall c;
    c.identity.tool = "greet";
    c.arguments = json::object{{"name", name}};
    return host->call(std::move(c));
  }
  // Waits (generously) for an event of `type`; returns its data.
  std::optional<json::object> wait_for(const std::string& type,
                                       std::chrono::seconds max = std::chrono::seconds(10)) {
    auto until = std::chrono::steady_clock::now() + max;
    while (std::chrono::steady_clock::now() < until) {
      auto ev = recorder->of_type(type);
      if (!ev.empty()) return ev.back().data;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::nullopt;
  }
};

}  // namespace

TEST(Reload, ASwapChangesWhatTheGuardDenies) {
  ReloadFixture f;
  auto first = f.enable();
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(code_of(f.greet("A")), "denied");
  EXPECT_FALSE(f.greet("B").is_error);
  f.install("reload_guard_b");
  auto r = f.host->reload();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.reloaded, std::vector<std::string>{"reload.guard"});
  EXPECT_GT(r.generation, first.generation);
  EXPECT_FALSE(f.greet("A").is_error);
  EXPECT_EQ(code_of(f.greet("B")), "denied");
}

// A linker truncates its output, works, then writes it: a reload that
// lands in between waits for the build (quietly: no failure event, no
// failure report) instead of failing, and serves the finished build.
TEST(Reload, ABuildStillBeingWrittenIsWaitedForNotReported) {
  ReloadFixture f;
  f.settle = std::chrono::milliseconds(5000);
  auto first = f.enable();
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_TRUE(first.initial);
  std::ofstream(f.plugin, std::ios::binary | std::ios::trunc).flush();  // in place, 0 bytes
  ReloadReport r;
  std::thread reloader([&] { r = f.host->reload(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  {
    std::ifstream in(test_plugin("reload_guard_b"), std::ios::binary);
    std::ofstream out(f.plugin, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
  }
  reloader.join();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.initial);
  EXPECT_EQ(r.reloaded, std::vector<std::string>{"reload.guard"});
  EXPECT_GE(r.took, std::chrono::microseconds(0));
  EXPECT_TRUE(f.recorder->of_type("plugin/reload-failed").empty());
  EXPECT_EQ(code_of(f.greet("B")), "denied");  // variant B serves
}

// The wait is bounded: a file that stays empty is reported once the
// settle timeout has passed, and the old generation serves on.
TEST(Reload, AFileThatNeverCompletesIsReportedAfterTheSettleTimeout) {
  ReloadFixture f;
  f.settle = std::chrono::milliseconds(300);
  ASSERT_TRUE(f.enable().ok);
  std::ofstream(f.plugin, std::ios::binary | std::ios::trunc).flush();
  auto t0 = std::chrono::steady_clock::now();
  auto r = f.host->reload();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("is not an ELF file (0 bytes)"), std::string::npos) << r.error;
  EXPECT_EQ(f.recorder->of_type("plugin/reload-failed").size(), 1u);
  EXPECT_EQ(code_of(f.greet("A")), "denied");  // variant A still serves
}

// Without a settle time, the same file fails at once.
TEST(Reload, ZeroSettleTimeoutReportsAnIncompleteBuildAtOnce) {
  ReloadFixture f;
  f.settle = std::chrono::milliseconds(0);
  ASSERT_TRUE(f.enable().ok);
  std::ofstream(f.plugin, std::ios::binary | std::ios::trunc).flush();
  auto r = f.host->reload();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("is not an ELF file (0 bytes)"), std::string::npos) << r.error;
}

// An edit to the manifest alone (no plugin rebuilt) is a change: here a
// guard of an unlocked layer is switched to shadow mode and back, and each
// reload serves the edit.
TEST(Reload, AnEditedHookSettingIsAChange) {
  ReloadFixture f("reload_guard_a", /*locked=*/false);
  auto first = f.enable();
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(code_of(f.greet("A")), "denied");
  f.write_manifest("{}", false, R"(,"hooks":{"guard":{"mode":"shadow"}})");
  auto shadow = f.host->reload();
  ASSERT_TRUE(shadow.ok) << shadow.error;
  EXPECT_TRUE(shadow.changed);
  EXPECT_TRUE(shadow.reloaded.empty());  // same build and config: not reloaded
  EXPECT_GT(shadow.generation, first.generation);
  EXPECT_FALSE(f.greet("A").is_error);  // recorded, not denied
  f.write_manifest("{}", false);
  auto enforce = f.host->reload();
  ASSERT_TRUE(enforce.ok) << enforce.error;
  EXPECT_TRUE(enforce.changed);
  EXPECT_EQ(code_of(f.greet("A")), "denied");
}

// A locked waterfall hook keeps its place: a reload that changes its
// priority is refused.  (reload_guard_drop_guard registers pre-execute
// "keep" instead of the guard.)
TEST(Reload, ALockedHookCannotBeReordered) {
  ReloadFixture f("reload_guard_drop_guard");
  ASSERT_TRUE(f.enable().ok);
  auto gen = f.host->generation();
  f.write_manifest("{}", true, R"(,"hooks":{"keep":{"priority":5}})");
  auto r = f.host->reload();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("would reorder it: tools/pre-execute hook reload.guard/keep is locked"),
            std::string::npos)
      << r.error;
  EXPECT_EQ(f.host->generation(), gen);
}

TEST(Reload, SameContentIsNotReloaded) {
  ReloadFixture f;
  auto first = f.enable();
  f.install("reload_guard_a");  // a new file, same bytes
  auto r = f.host->reload();
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.generation, first.generation);
}

TEST(Reload, EightCallersFiftySwapsNoCallUnguardedNoneFailed) {
  ReloadFixture f;
  ASSERT_TRUE(f.enable().ok);
  std::mutex m;
  std::map<std::uint64_t, char> variant_of;  // generation -> the name it denies
  variant_of[f.host->generation()] = 'A';
  std::atomic<bool> stop{false};
  std::atomic<int> calls{0}, failures{0};
  struct Seen {
    std::string call_id;
    char name;
    bool denied;
  };
  std::vector<std::vector<Seen>> seen(8);
  std::vector<std::thread> callers;
  for (int t = 0; t < 8; ++t)
    callers.emplace_back([&, t] {
      for (int i = 0; !stop; ++i) {
        char name = (i + t) % 2 ? 'A' : 'B';
        ToolCall c;
        c.identity.tool = "greet";
        c.identity.call_id = "t" + std::to_string(t) + "-" + std::to_string(i);
        c.arguments = json::object{{"name", std::string(1, name)}};
        auto r = f.host->call(std::move(c));
        if (r.is_error && code_of(r) != "denied") ++failures;
        seen[t].push_back({"t" + std::to_string(t) + "-" + std::to_string(i), name, r.is_error});
        ++calls;
      }
    });
  for (int swap = 1; swap <= 50; ++swap) {
    char next = swap % 2 ? 'B' : 'A';
    f.install(next == 'A' ? "reload_guard_a" : "reload_guard_b");
    auto r = f.host->reload();
    ASSERT_TRUE(r.ok) << r.error;
    {
      std::lock_guard lock(m);
      variant_of[r.generation] = next;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  stop = true;
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(calls.load(), 100);
  // Which generation served each call, and did the guard run in it?
  std::map<std::string, std::uint64_t> served;
  std::set<std::string> guarded;
  for (const auto& e : f.recorder->snapshot()) {
    if (e.type == "tool/result") served[e.call_id] = e.generation;
    if (e.type == "hook/result" && e.data.at("source") == "reload.guard/guard")
      guarded.insert(e.call_id);
  }
  int checked = 0;
  for (const auto& per_thread : seen)
    for (const auto& s : per_thread) {
      ASSERT_TRUE(served.count(s.call_id)) << s.call_id;
      EXPECT_TRUE(guarded.count(s.call_id)) << s.call_id << " ran without the guard";
      char denies = variant_of.at(served[s.call_id]);
      EXPECT_EQ(s.denied, s.name == denies) << s.call_id << " generation " << served[s.call_id];
      ++checked;
    }
  EXPECT_EQ(checked, calls.load());
}

TEST(Reload, TheWatcherPicksUpARebuiltPlugin) {
  ReloadFixture f;
  ASSERT_TRUE(f.enable(/*watch=*/true).ok);
  auto before = f.host->generation();
  f.install("reload_guard_b");
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (f.host->generation() == before && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GT(f.host->generation(), before);
  EXPECT_EQ(code_of(f.greet("B")), "denied");
}

// A rebuild that lands while the previous reload is still running (between
// "new generation published" and "watching again") is not lost: the last
// build written is the one that ends up serving, every time.
TEST(Reload, BackToBackRebuildsEndWithTheLastOneServing) {
  ReloadFixture f;
  ASSERT_TRUE(f.enable(/*watch=*/true).ok);
  for (int i = 0; i < 10; ++i) {
    bool b = i % 2 == 0;
    auto before = f.host->generation();
    f.install(b ? "reload_guard_b" : "reload_guard_a");
    // Wait for the reload to publish, then rebuild again at once.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (f.host->generation() == before && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    ASSERT_GT(f.host->generation(), before) << "rebuild " << i << " was never picked up";
    // The generation just published may be an intermediate one; the build
    // written is served eventually.
    until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (code_of(f.greet(b ? "B" : "A")) != "denied" && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    ASSERT_EQ(code_of(f.greet(b ? "B" : "A")), "denied") << "rebuild " << i;
  }
}

TEST(Reload, EveryFailureLeavesTheOldGenerationServing) {
  struct Case {
    const char* name;
    std::function<void(ReloadFixture&)> break_it;
    const char* expect;
    bool probe = false;
  };
  const std::vector<Case> cases = {
      {"missing entry symbol", [](ReloadFixture& f) { f.install("variant_no_entry"); },
       "does not export the entry symbol"},
      {"ABI mismatch", [](ReloadFixture& f) { f.install("variant_major_mismatch"); }, "ABI 2.0"},
      {"crash in init, caught by the probe",
       [](ReloadFixture& f) { f.install("reload_guard_crash_init"); },
       "crashed in the probe process", true},
      {"exit(0) in init, caught by the probe",
       [](ReloadFixture& f) { f.install("reload_guard_exit_init"); },
       "crashed in the probe process (it ended with exit status 0", true},
      {"error in init", [](ReloadFixture& f) { f.install("reload_guard_fail_init"); },
       "reload_guard refuses to start"},
      {"error in init, probe", [](ReloadFixture& f) { f.install("reload_guard_fail_init"); },
       "reload_guard refuses to start", true},
      {"rejected config (manifest)", [](ReloadFixture& f) { f.write_manifest("[]"); },
       "expected an object"},
      {"truncated file",
       [](ReloadFixture& f) {
         std::ifstream in(test_plugin("reload_guard_b"), std::ios::binary);
         std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
         std::ofstream(f.dir.path / ".t", std::ios::binary).write(bytes.data(), bytes.size() / 3);
         fs::rename(f.dir.path / ".t", f.plugin);
       },
       "cannot be loaded"},
      {"a build that drops the locked guard",
       [](ReloadFixture& f) { f.install("reload_guard_drop_guard"); },
       "would drop it: guard hook reload.guard/guard is locked"},
      {"the new version refuses the state",
       [](ReloadFixture& f) { f.install("reload_guard_refuse_state"); },
       "refused the old version's state"},
      {"plugin file deleted", [](ReloadFixture& f) { fs::remove(f.plugin); }, "does not exist"},
      // Refused before any of its code runs: with a probe configured, a
      // build that would crash the probe is never handed to it.
      {"a build that misses its pin, probe",
       [](ReloadFixture& f) {
         f.install("reload_guard_crash_init");
         f.write_manifest("{}", true, ",\"sha256\":\"" + std::string(64, '0') + "\"");
       },
       "SHA-256 mismatch: the manifest pins 0000", true},
      {"a build others can write, probe",
       [](ReloadFixture& f) {
         f.install("reload_guard_crash_init");
         fs::permissions(f.plugin, fs::perms::others_write, fs::perm_options::add);
       },
       "is writable by group or others", true},
      {"a locked layer unlocked", [](ReloadFixture& f) { f.write_manifest("{}", false); },
       "would unlock it: guard hook reload.guard/guard"},
      {"a locked guard's tool filter changed",
       [](ReloadFixture& f) {
         f.write_manifest("{}", true, R"(,"hooks":{"guard":{"tools":["other.*"]}})");
       },
       "would change its tool filter"},
      {"a locked guard put in shadow mode",
       [](ReloadFixture& f) {
         f.write_manifest("{}", true, R"(,"hooks":{"guard":{"mode":"shadow"}})");
       },
       "would put it in shadow mode"},
      {"a pin added that the serving build does not match",
       [](ReloadFixture& f) {
         f.write_manifest("{}", true, ",\"sha256\":\"" + std::string(64, '1') + "\"");
       },
       "SHA-256 mismatch: the manifest pins 1111"},
      {"a locked plugin's config changed",
       [](ReloadFixture& f) { f.write_manifest(R"({"deny":"nobody"})"); },
       "would change the config of plugin \"reload.guard\", which layer \"security\" locks"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ReloadFixture f;
    ReloadOptions o;
    o.manifests = {f.manifest};
    o.watch = false;
    if (c.probe) o.probe_command = {TOOLGATE_CLI, "__probe"};
    ASSERT_TRUE(f.host->enable_reload(o).ok);
    auto gen = f.host->generation();
    c.break_it(f);
    auto r = f.host->reload();
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find(c.expect), std::string::npos) << r.error;
    EXPECT_EQ(f.host->generation(), gen);
    EXPECT_EQ(code_of(f.greet("A")), "denied");  // the old guard still serves
    EXPECT_FALSE(f.greet("B").is_error);
    auto failed = f.recorder->of_type("plugin/reload-failed");
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_NE(std::string(failed[0].data.at("error").as_string()).find(c.expect),
              std::string::npos);
    // And once fixed, it reloads.
    f.write_manifest("{}");
    f.install("reload_guard_b");
    auto fixed = f.host->reload();
    EXPECT_TRUE(fixed.ok) << fixed.error;
    EXPECT_EQ(code_of(f.greet("B")), "denied");
  }
}

TEST(Reload, AnInFlightCallDrainsOnTheOldGenerationThenItsImageLeaves) {
  ReloadFixture f;
  ASSERT_TRUE(f.enable().ok);
  auto old_gen = f.host->generation();
  // The guard applies to every tool: a slow call holds the old generation.
  std::thread slow([&] {
    ToolCall c;
    c.identity.tool = "slow";
    c.identity.call_id = "slow-call";
    c.arguments = json::object{{"ms", 300}};
    EXPECT_FALSE(f.host->call(std::move(c)).is_error);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  f.install("reload_guard_b");
  auto r = f.host->reload();
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(code_of(f.greet("B")), "denied");  // new calls: new generation
  // Not unloaded while the slow call runs.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(f.recorder->of_type("plugin/unloaded").empty());
  slow.join();
  auto unloaded = f.wait_for("plugin/unloaded");
  ASSERT_TRUE(unloaded) << "the old image was never reported unloaded";
  std::string path(unloaded->at("path").as_string());
  EXPECT_FALSE(toolgate_test_mapped(path));
  std::uint64_t slow_gen = 0;
  for (const auto& e : f.recorder->of_type("tool/result"))
    if (e.call_id == "slow-call") slow_gen = e.generation;
  EXPECT_EQ(slow_gen, old_gen);
}

TEST(Reload, APinnedImageIsReportedNotClaimedUnloaded) {
  ReloadFixture f("reload_pinned", /*locked=*/false);
  ASSERT_TRUE(f.enable().ok);
  f.greet("x");  // touches the thread_local on this (still running) thread
  f.install("reload_guard_a");
  ASSERT_TRUE(f.host->reload().ok);
  auto pinned = f.wait_for("plugin/pinned");
  ASSERT_TRUE(pinned);
  EXPECT_NE(std::string(pinned->at("why").as_string()).find("still mapped"), std::string::npos);
  EXPECT_TRUE(f.recorder->of_type("plugin/unloaded").empty());
}

// A plugin that declares TG_PLUGIN_NEVER_UNLOAD is released but never
// dlclosed: reported as pinned, with that reason, and its image stays.
TEST(Reload, ANeverUnloadPluginIsReportedPinnedWithItsReason) {
  ReloadFixture f("reload_guard_never_unload", /*locked=*/false);
  ASSERT_TRUE(f.enable().ok);
  f.install("reload_guard_a");
  ASSERT_TRUE(f.host->reload().ok);
  auto pinned = f.wait_for("plugin/pinned");
  ASSERT_TRUE(pinned);
  EXPECT_EQ(std::string(pinned->at("why").as_string()),
            "the plugin declared TG_PLUGIN_NEVER_UNLOAD");
  // Still mapped (its private copy is deleted: maps shows "(deleted)").
  EXPECT_TRUE(toolgate_test_mapped(std::string(pinned->at("path").as_string())));
  EXPECT_TRUE(f.recorder->of_type("plugin/unloaded").empty());
  EXPECT_EQ(code_of(f.greet("A")), "denied");  // the new build serves
}

// After a build with STB_GNU_UNIQUE symbols is replaced, its image stays:
// the event (and the log line, its "message") names the plugin and the
// file the manifest names, why it stays, what it costs and the fix -- not
// "plugin/pinned: {}".
TEST(Reload, APinnedBadBuildIsReportedWithPluginReasonAndFix) {
  ReloadFixture f("reload_guard_bad_build", /*locked=*/false);
  auto first = f.enable();
  ASSERT_TRUE(first.ok) << first.error;
  ASSERT_EQ(first.build_warnings.size(), 2u);  // loaded with a warning: not strict
  f.install("reload_guard_a");
  auto r = f.host->reload();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.build_warnings.empty());  // the new build is a good one
  auto pinned = f.wait_for("plugin/pinned");
  ASSERT_TRUE(pinned);
  EXPECT_EQ(std::string(pinned->at("source").as_string()), f.plugin.string());
  std::string message(pinned->at("message").as_string());
  EXPECT_NE(message.find("plugin \"reload.guard\" (" + f.plugin.string() +
                         ") stays loaded after it was replaced: "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("STB_GNU_UNIQUE"), std::string::npos) << message;
  EXPECT_NE(message.find("until it exits"), std::string::npos) << message;
  EXPECT_NE(message.find("fix: compile C++ with -fno-gnu-unique"), std::string::npos) << message;
  EXPECT_NE(message.find("toolgate inspect " + f.plugin.string()), std::string::npos) << message;
}

// Strict (LoadOptions::strict_plugin_builds): a reload to a bad build is
// rejected and the serving generation stays; without it, the build loads
// and the report carries one warning per problem.
TEST(Reload, StrictRejectsAReloadToABadBuild) {
  for (bool strict : {true, false}) {
    SCOPED_TRACE(strict ? "strict" : "not strict");
    ReloadFixture f("reload_guard_a", /*locked=*/false);
    ReloadOptions o;
    o.manifests = {f.manifest};
    o.watch = false;
    o.load.strict_plugin_builds = strict;
    ASSERT_TRUE(f.host->enable_reload(o).ok);
    auto gen = f.host->generation();
    f.install("reload_guard_host_symbol");
    auto r = f.host->reload();
    if (strict) {
      EXPECT_FALSE(r.ok);
      EXPECT_NE(r.error.find("plugin \"reload.guard\" (" + f.plugin.string() +
                             "): refused in strict mode: its build is wrong: host_symbols: "),
                std::string::npos)
          << r.error;
      EXPECT_EQ(f.host->generation(), gen);
      EXPECT_EQ(code_of(f.greet("A")), "denied");  // build A still serves
    } else {
      ASSERT_TRUE(r.ok) << r.error;
      ASSERT_EQ(r.build_warnings.size(), 1u);
      EXPECT_NE(r.build_warnings[0].find("(host_symbols)"), std::string::npos);
      EXPECT_FALSE(f.greet("A").is_error);  // the new build abstains
    }
  }
}

TEST(Reload, StateIsHandedToTheNewVersion) {
  ReloadFixture f;
  ASSERT_TRUE(f.enable().ok);
  for (int i = 0; i < 5; ++i) f.greet("x");
  f.install("reload_guard_b");
  ASSERT_TRUE(f.host->reload().ok);
  f.greet("x");
  auto seen = f.recorder->of_type("reload/seen");
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen.back().data.at("variant"), "B");
  EXPECT_EQ(seen.back().data.at("seen"), 6);  // 5 from A, carried over, +1
}

TEST(Reload, NoValidGenerationMeansEveryCallIsDenied) {
  HostOptions ho;
  ho.deny_until_loaded = true;
  ReloadFixture f("reload_guard_fail_init", true, ho);
  auto r = f.enable();
  EXPECT_FALSE(r.ok);
  auto res = f.greet("B");
  EXPECT_EQ(code_of(res), "denied");
  EXPECT_NE(res.error->message.find("no valid plugin generation"), std::string::npos);
  f.install("reload_guard_a");
  ASSERT_TRUE(f.host->reload().ok);
  EXPECT_FALSE(f.greet("B").is_error);
  EXPECT_EQ(code_of(f.greet("A")), "denied");
}

// Without deny_until_loaded too: a host told to serve a stack that fails
// its first load denies every call until a reload succeeds.
TEST(Reload, AFailedFirstLoadDeniesEvenWithoutDenyUntilLoaded) {
  ReloadFixture f("reload_guard_fail_init");
  auto r = f.enable();
  EXPECT_FALSE(r.ok);
  auto res = f.greet("B");
  EXPECT_EQ(code_of(res), "denied");
  EXPECT_NE(res.error->message.find("the manifest stack failed to load"), std::string::npos)
      << res.error->message;
  EXPECT_NE(res.error->message.find("reload_guard refuses to start"), std::string::npos);
  f.install("reload_guard_a");
  auto fixed = f.host->reload();
  ASSERT_TRUE(fixed.ok) << fixed.error;
  EXPECT_FALSE(f.greet("B").is_error);
  EXPECT_EQ(code_of(f.greet("A")), "denied");
}

// A stack loaded before enable_reload keeps serving when enable_reload's
// first load fails, and stays the reference for the locked-layer checks:
// a later reload still may not drop its locked guard.
TEST(Reload, AFailedFirstLoadKeepsAStackLoadedBeforeAndItsLocks) {
  ReloadFixture f;
  f.host->load_manifest(f.manifest);  // reload_guard_a, locked layer
  EXPECT_EQ(code_of(f.greet("A")), "denied");
  f.install("reload_guard_fail_init");
  auto r = f.enable();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(code_of(f.greet("A")), "denied");  // the loaded guard still serves
  EXPECT_FALSE(f.greet("B").is_error);
  f.install("reload_guard_drop_guard");
  auto dropped = f.host->reload();
  EXPECT_FALSE(dropped.ok);
  EXPECT_NE(dropped.error.find("would drop it"), std::string::npos) << dropped.error;
  EXPECT_EQ(code_of(f.greet("A")), "denied");
}

TEST(Reload, EventsNameTheirGeneration) {
  ReloadFixture f;
  ASSERT_TRUE(f.enable().ok);
  f.install("reload_guard_b");
  auto r = f.host->reload();
  auto reloaded = f.recorder->of_type("plugin/reloaded");
  ASSERT_FALSE(reloaded.empty());
  EXPECT_EQ(reloaded.back().generation, r.generation);
  f.greet("x");
  for (const auto& e : f.recorder->of_type("tool/result")) EXPECT_EQ(e.generation, r.generation);
}
