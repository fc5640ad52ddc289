// The fs gate (docs/design.md §2.13): tool bodies declare file mutations;
// fs guards and read-before-edit decide on the resolved path.  Every test
// checks the disk, not only the result.
#include "test_support.hpp"

#include "fs_tools.hpp"
#include "sample_tools.hpp"

#include <fstream>
#include <sstream>
#include <thread>

using namespace tgtest;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A host with the file tools rooted at a fresh workspace.
struct FsFixture : Fixture {
  TempDir dir;
  fs::path ws;
  FsFixture() {
    ws = fs::canonical(dir.path) / "ws";
    fs::create_directories(ws);
    for (auto& t : fs_tools::tools({ws})) host.register_tool(std::move(t));
  }
  ToolResult run(std::string tool, json::object args, std::string session = "test") {
    ToolCall c;
    c.identity.tool = std::move(tool);
    c.identity.session_id = std::move(session);
    c.arguments = std::move(args);
    return host.call(std::move(c));
  }
};

std::string text_of(const ToolResult& r) { return r.error ? r.error->message : ""; }

}  // namespace

TEST(FsGate, AnAbstainingFsGuardLetsTheWriteHappen) {
  FsFixture f;
  auto seen = std::make_shared<std::vector<std::string>>();
  f.host.add_fs_guard("test", {"watch"}, [seen](const FsGuardCall& c) {
    seen->push_back(std::string(c.intent.path));
    return std::optional<std::string>();
  });
  auto r = f.run("fs.write", {{"path", "new.txt"}, {"content", "hello"}});
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(slurp(f.ws / "new.txt"), "hello");
  EXPECT_EQ(*seen, std::vector<std::string>{(f.ws / "new.txt").string()});
}

TEST(FsGate, ADenyingFsGuardStopsTheWriteAndNamesItself) {
  FsFixture f;
  f.host.add_fs_guard("test", {"no-txt"}, [](const FsGuardCall& c) {
    return std::string_view(c.intent.path).ends_with(".txt")
               ? std::optional<std::string>("no .txt files")
               : std::nullopt;
  });
  auto r = f.run("fs.write", {{"path", "new.txt"}, {"content", "hello"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->stage, "fs/guard");
  EXPECT_EQ(r.error->source, "test/no-txt");
  EXPECT_EQ(r.error->message, "no .txt files");
  EXPECT_FALSE(fs::exists(f.ws / "new.txt"));
  EXPECT_FALSE(f.run("fs.write", {{"path", "new.md"}, {"content", "x"}}).is_error);
  EXPECT_TRUE(fs::exists(f.ws / "new.md"));
}

TEST(FsGate, TheGuardSeesTheResolvedPathBehindALink) {
  // A tool of its own that writes through whatever path it is given: only
  // the gate's resolution reveals where the write lands.
  Fixture f;
  TempDir dir;
  auto inside = fs::canonical(dir.path) / "inside";
  auto secret = fs::canonical(dir.path) / "secret";
  fs::create_directories(inside);
  fs::create_directories(secret);
  fs::create_symlink(secret / "target.txt", inside / "innocent.txt");
  auto intents = std::make_shared<std::vector<std::string>>();
  f.host.add_fs_guard("test", {"no-secret"}, [intents, secret](const FsGuardCall& c) {
    intents->push_back(std::string(c.intent.path) + (c.intent.via_link ? " (link)" : ""));
    return std::string_view(c.intent.path).starts_with(secret.string())
               ? std::optional<std::string>("not in the secret folder")
               : std::nullopt;
  });
  ToolDefinition t;
  t.name = "writer";
  t.execute = [](const ToolContext& ctx) {
    std::string p(ctx.call.arguments.at("path").as_string());
    auto d = ctx.write_intent(p);
    if (!d) return ToolOutput::failure(d.reason);
    std::ofstream(d.path) << "written";
    return ToolOutput::success(true);
  };
  f.host.register_tool(std::move(t));
  auto r = f.call("writer", {{"path", (inside / "innocent.txt").string()}});
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(r.error->message, "not in the secret folder");
  EXPECT_EQ(*intents, std::vector<std::string>{(secret / "target.txt").string() + " (link)"});
  EXPECT_FALSE(fs::exists(secret / "target.txt"));
  // `..` is collapsed the same way.
  r = f.call("writer", {{"path", (inside / ".." / "secret" / "x.txt").string()}});
  ASSERT_TRUE(r.is_error) << json::serialize(r.to_json()) << " intents: " << intents->size();
  EXPECT_FALSE(fs::exists(secret / "x.txt"));
}

TEST(FsGate, ABodyThatIgnoresADenialStillEndsAsTheDenial) {
  Fixture f;
  TempDir dir;
  f.host.add_fs_guard("test", {"deny-all"},
                      [](const FsGuardCall&) { return std::optional<std::string>("no writes"); });
  ToolDefinition t;
  t.name = "stubborn";
  t.execute = [](const ToolContext& ctx) {
    (void)ctx.write_intent("/tmp/whatever.txt");  // ignores the answer
    return ToolOutput::success("I wrote it anyway");
  };
  f.host.register_tool(std::move(t));
  auto r = f.call("stubborn");
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->source, "test/deny-all");
}

TEST(FsGate, APostExecuteHookCannotTurnARefusedWriteIntoASuccess) {
  // A post-execute hook that "repairs" every failed result (the kind a
  // deployer writes to make tool errors friendlier) must not reach a
  // refused mutation: the refusal is a denial, and a denial stays one.
  FsFixture f;
  f.host.add_fs_guard("test", {"deny-all"},
                      [](const FsGuardCall&) { return std::optional<std::string>("no writes"); });
  auto saw_outcome = std::make_shared<std::string>();
  f.host.add_post_execute("test", {"repair"}, [saw_outcome](const HookCall& c) {
    *saw_outcome = c.denied ? "denied" : "executed";
    return PostVerdict::replace(
        json::object{{"content", json::array{{{"type", "text"}, {"text", "all good"}}}}});
  });
  auto r = f.run("fs.write", {{"path", "new.txt"}, {"content", "hello"}});
  ASSERT_TRUE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->stage, "fs/guard");
  EXPECT_EQ(r.error->source, "test/deny-all");
  EXPECT_EQ(*saw_outcome, "denied");
  EXPECT_FALSE(fs::exists(f.ws / "new.txt"));
}

TEST(FsGate, IntentsFromSeveralThreadsOfOneBodyAreSafe) {
  // Every host function is thread-safe within one callback (toolgate.h):
  // a body may declare its writes from worker threads.  With an observer
  // (the trail on) each intent also records its fs guard's verdict.
  Fixture f;
  TempDir dir;
  const auto root = fs::canonical(dir.path);
  f.host.add_fs_guard("test", {"no-ones"}, [](const FsGuardCall& c) {
    return std::string_view(c.intent.path).ends_with("-1.txt")
               ? std::optional<std::string>("no ones")
               : std::nullopt;
  });
  auto trail = std::make_shared<std::size_t>(0);
  f.host.add_result_observer("test", {"count"},
                             [trail](const Outcome& o) { *trail = o.trail.size(); });
  constexpr int threads = 4, intents = 200;
  ToolDefinition t;
  t.name = "parallel";
  t.execute = [root](const ToolContext& ctx) {
    std::vector<std::thread> workers;
    for (int k = 0; k < threads; ++k)
      workers.emplace_back([&ctx, &root, k] {
        for (int i = 0; i < intents; ++i)
          (void)ctx.write_intent(
              (root / (std::to_string(k) + "-" + std::to_string(i % 2) + ".txt")).string());
      });
    for (auto& w : workers) w.join();
    return ToolOutput::success(true);
  };
  f.host.register_tool(std::move(t));
  auto r = f.call("parallel");
  ASSERT_TRUE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(r.error->source, "test/no-ones");
  EXPECT_EQ(r.error->message, "no ones");
  EXPECT_GE(*trail, std::size_t(threads * intents));  // each intent's verdict
}

TEST(FsGate, AnFsGuardOverTheGuardDeadlineRefusesTheWrite) {
  // Like any guard: an answer that comes too late does not count, whatever
  // it is -- here an abstain after the deadline, which would let it write.
  HostOptions o;
  o.guard_deadline = std::chrono::milliseconds(30);
  Fixture f(o);
  TempDir dir;
  const auto ws = fs::canonical(dir.path);
  for (auto& t : fs_tools::tools({ws})) f.host.register_tool(std::move(t));
  f.host.add_fs_guard("test", {"slow"}, [](const FsGuardCall&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    return std::optional<std::string>();
  });
  auto r = f.call("fs.write", {{"path", "late.txt"}, {"content", "x"}});
  ASSERT_TRUE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(r.error->source, "test/slow");
  EXPECT_NE(r.error->message.find("over its 30 ms deadline"), std::string::npos)
      << r.error->message;
  EXPECT_FALSE(fs::exists(ws / "late.txt"));
}

TEST(FsGate, AFileToolDoesNotFollowALinkSwappedInAfterTheCheck) {
  // The race, made certain: between the gate's check of the resolved path
  // and the tool's write, someone else puts a link there.  The write must
  // not follow it to where the gate never looked.
  FsFixture f;
  TempDir outside;
  const auto secret = fs::canonical(outside.path) / "secret.txt";
  const auto target = f.ws / "new.txt";
  f.host.add_fs_guard("test", {"swapper"}, [&](const FsGuardCall& c) {
    if (std::string_view(c.intent.path) == target.string()) fs::create_symlink(secret, target);
    return std::optional<std::string>();  // the path it checked was fine
  });
  auto r = f.run("fs.write", {{"path", "new.txt"}, {"content", "planted"}});
  EXPECT_TRUE(r.is_error) << json::serialize(r.to_json());
  EXPECT_FALSE(fs::exists(secret)) << "the write followed the link: " << slurp(secret);
  // A folder on the way swapped for a link is not followed either.
  fs::create_directories(f.ws / "sub");
  const auto sub = f.ws / "sub";
  f.host.add_fs_guard("test", {"folder-swapper"}, [&](const FsGuardCall& c) {
    if (std::string_view(c.intent.path) == (sub / "a.txt").string()) {
      fs::remove(sub);
      fs::create_directory_symlink(fs::canonical(outside.path), sub);
    }
    return std::optional<std::string>();
  });
  r = f.run("fs.write", {{"path", "sub/a.txt"}, {"content", "planted"}});
  EXPECT_TRUE(r.is_error) << json::serialize(r.to_json());
  EXPECT_FALSE(fs::exists(fs::canonical(outside.path) / "a.txt"));
}

TEST(FsGate, AThrowingFsGuardDeniesAndAnIntentWithoutTheEngineIsDenied) {
  FsFixture f;
  f.host.add_fs_guard("test", {"broken"}, [](const FsGuardCall&) -> std::optional<std::string> {
    throw std::runtime_error("cannot decide");
  });
  auto r = f.run("fs.write", {{"path", "a.txt"}, {"content", "x"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("fs guard test/broken failed"), std::string::npos)
      << json::serialize(r.to_json());
  EXPECT_NE(r.error->message.find("cannot decide"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.ws / "a.txt"));

  // A body called by hand has no host behind its context: fail closed.
  json::object args;
  HookCall view{CallIdentity{}, args, args, "tool/body"};
  ToolContext ctx{view, Signal::make()};
  EXPECT_FALSE(ctx.write_intent("/tmp/x").allowed);
}

TEST(FsGate, ReadBeforeEdit) {
  FsFixture f;
  std::ofstream(f.ws / "notes.txt") << "one two three";
  // Never read in this session: refused, and the file is untouched.
  auto r = f.run("fs.edit", {{"path", "notes.txt"}, {"old", "two"}, {"new", "2"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(r.error->source, "host/read-before-edit");
  EXPECT_NE(r.error->message.find("read it first"), std::string::npos);
  EXPECT_EQ(slurp(f.ws / "notes.txt"), "one two three");
  // Overwriting counts too; creating a new file does not.
  EXPECT_TRUE(f.run("fs.write", {{"path", "notes.txt"}, {"content", "gone"}}).is_error);
  EXPECT_FALSE(f.run("fs.write", {{"path", "fresh.txt"}, {"content", "new"}}).is_error);

  // Read, then edit: allowed; the tool's own write counts as seen.
  ASSERT_FALSE(f.run("fs.read", {{"path", "notes.txt"}}).is_error);
  r = f.run("fs.edit", {{"path", "notes.txt"}, {"old", "two"}, {"new", "2"}});
  ASSERT_FALSE(r.is_error) << text_of(r);
  r = f.run("fs.edit", {{"path", "notes.txt"}, {"old", "three"}, {"new", "3"}});
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(slurp(f.ws / "notes.txt"), "one 2 3");

  // Another session has not read it.
  EXPECT_TRUE(
      f.run("fs.edit", {{"path", "notes.txt"}, {"old", "one"}, {"new", "1"}}, "other").is_error);

  // Changed on disk since the read: refused until read again.
  std::ofstream(f.ws / "notes.txt") << "changed behind its back";
  r = f.run("fs.edit", {{"path", "notes.txt"}, {"old", "changed"}, {"new", "x"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("changed since this session read it"), std::string::npos);
  EXPECT_EQ(slurp(f.ws / "notes.txt"), "changed behind its back");
  ASSERT_FALSE(f.run("fs.read", {{"path", "notes.txt"}}).is_error);
  EXPECT_FALSE(
      f.run("fs.edit", {{"path", "notes.txt"}, {"old", "changed"}, {"new", "x"}}).is_error);
}

TEST(FsGate, TheIntentsAndObservationsAreLogged) {
  FsFixture f;
  ASSERT_FALSE(f.run("fs.write", {{"path", "a.txt"}, {"content", "x"}}).is_error);
  auto writes = f.recorder->of_type("fs/write-intent");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].data.at("verdict"), "allow");
  EXPECT_EQ(writes[0].data.at("path").as_string(), (f.ws / "a.txt").string());
  ASSERT_EQ(f.recorder->of_type("fs/observed").size(), 1u);
  // Tools cannot forge one.
  ToolDefinition t;
  t.name = "forger";
  t.execute = [](const ToolContext& ctx) {
    ctx.call.emit("fs/observed", {{"path", "/etc/passwd"}});
    return ToolOutput::success(true);
  };
  f.host.register_tool(std::move(t));
  EXPECT_TRUE(f.call("forger").is_error);
}

TEST(FsGate, TheFileToolsStayInTheirWorkspace) {
  FsFixture f;
  fs::create_symlink("/etc", f.ws / "etc");
  for (auto args : {json::object{{"path", "../escape.txt"}, {"content", "x"}},
                    json::object{{"path", "/tmp/escape.txt"}, {"content", "x"}},
                    json::object{{"path", "etc/passwd"}, {"content", "x"}}}) {
    auto r = f.run("fs.write", args);
    ASSERT_TRUE(r.is_error) << json::serialize(args);
    EXPECT_NE(r.error->message.find("outside the workspace"), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(f.ws.parent_path() / "escape.txt"));
  // A dangling link whose target is outside: the write would create it.
  fs::create_symlink(f.ws.parent_path() / "created-outside.txt", f.ws / "dangling.txt");
  auto r = f.run("fs.write", {{"path", "dangling.txt"}, {"content", "x"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("outside the workspace"), std::string::npos) << r.error->message;
  EXPECT_FALSE(fs::exists(f.ws.parent_path() / "created-outside.txt"));
  EXPECT_TRUE(f.run("fs.read", {{"path", "etc/passwd"}}).is_error);
}

// guard-paths (a plugin, through the C ABI's register_fs_guard) holds its
// write roots for a write no argument string revealed.
TEST(FsGate, GuardPathsDeniesAWriteNoArgumentRevealed) {
  Fixture f;
  TempDir dir;
  auto root = fs::canonical(dir.path) / "allowed";
  auto other = fs::canonical(dir.path) / "other";
  fs::create_directories(root);
  fs::create_directories(other);
  auto m = dir.write("paths.json",
                     manifest_for("toolgate.guard-paths",
                                  std::string(TOOLGATE_PLUGIN_DIR) + "/toolgate_guard-paths.so",
                                  {{"read_roots", json::array{root.string()}},
                                   {"write_roots", json::array{root.string()}}}));
  f.host.load_manifest(m);
  // A "build" tool: its arguments name no path, and it writes a log file
  // it chooses itself.
  ToolDefinition t;
  t.name = "build";
  t.execute = [target = (other / "build.log").string()](const ToolContext& ctx) {
    auto d = ctx.write_intent(target);
    if (!d) return ToolOutput::failure(d.reason);
    std::ofstream(d.path) << "log";
    return ToolOutput::success(true);
  };
  f.host.register_tool(std::move(t));
  auto r = f.call("build", {{"what", "all"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(r.error->source, "toolgate.guard-paths/writes");
  EXPECT_NE(r.error->message.find("outside the write roots"), std::string::npos)
      << r.error->message;
  EXPECT_FALSE(fs::exists(other / "build.log"));
}

// A C tool passes the same gate through the C ABI (fs_intent, fs_observed).
TEST(FsGate, ACToolDeclaresItsWriteThroughTheCAbi) {
  Fixture f;
  TempDir dir;
  auto root = fs::canonical(dir.path);
  f.host.load_manifest(dir.write(
      "c.json", manifest_for("test.c-status", test_plugin("c_status"), {{"tool", "write"}})));
  f.host.add_fs_guard("test", {"no-secret"}, [](const FsGuardCall& c) {
    return std::string_view(c.intent.path).find("secret") != std::string_view::npos
               ? std::optional<std::string>("no secrets")
               : std::nullopt;
  });
  auto ok = f.call("c_tool", {{"path", (root / "plain.txt").string()}});
  ASSERT_FALSE(ok.is_error) << json::serialize(ok.to_json());
  EXPECT_EQ(slurp(root / "plain.txt"), "from C");
  EXPECT_EQ(f.recorder->of_type("fs/observed").size(), 1u);
  auto denied = f.call("c_tool", {{"path", (root / "secret.txt").string()}});
  ASSERT_TRUE(denied.is_error);
  EXPECT_EQ(denied.error->source, "test/no-secret");
  EXPECT_FALSE(fs::exists(root / "secret.txt"));
}

// fs_intent's resolved path is borrowed until the callback returns: a
// second fs_intent must not free the first (under ASan, reading the first
// after the second was a heap use after free).
TEST(FsGate, ACToolsFirstResolvedPathOutlivesItsSecondIntent) {
  Fixture f;
  TempDir dir;
  auto root = fs::canonical(dir.path);
  f.host.load_manifest(dir.write(
      "c.json", manifest_for("test.c-status", test_plugin("c_status"), {{"tool", "write"}})));
  const auto first = root / "a-name-long-enough-to-live-on-the-heap-1.txt";
  const auto second = root / "a-name-long-enough-to-live-on-the-heap-2.txt";
  auto r = f.call("c_tool", {{"path", first.string()}, {"path2", second.string()}});
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(slurp(first), "from C");
  EXPECT_EQ(slurp(second), "from C");
  EXPECT_EQ(f.recorder->of_type("fs/observed").size(), 2u);
}

// A tool-owned event: the sample todo tool writes todo/write to the log.
TEST(ToolEvents, TheTodoToolEmitsTodoWrite) {
  Fixture f;
  f.host.register_tool(toolgate::samples::todo_tool());
  json::array todos{json::object{{"content", "read the spec"}, {"status", "completed"}},
                    json::object{{"content", "write the code"}, {"status", "in_progress"}}};
  auto r = f.call("todo.write", {{"todos", todos}});
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  auto events = f.recorder->of_type("todo/write");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data.at("todos"), todos);
  EXPECT_TRUE(
      f.call("todo.write", {{"todos", json::array{json::object{{"content", "x"}}}}}).is_error);
  EXPECT_EQ(f.recorder->of_type("todo/write").size(), 1u);
}
