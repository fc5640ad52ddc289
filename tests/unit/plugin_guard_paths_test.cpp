// plugins/guard-paths through the real loader: roots, read/write split,
// traversal, symlinks (escapes, dangling, loops), deny globs, encodings and
// bad configs.  Every denial also asserts that the tool body did not run.
#include "library_support.hpp"

#include <toolgate/toolgate.h>

using namespace tgtest;
namespace fs = std::filesystem;

namespace {

// A project tree:  work/{a.txt, out/, .env, sub/}  outside/{secret, deep/}
//                  work/escape -> outside, work/deeplink -> outside/deep,
//                  work/dangling -> outside/new, work/loop1 <-> work/loop2
struct PathsFixture : LibraryFixture {
  TempDir tree;
  std::string work, outside, home;

  PathsFixture() {
    work = (tree.path / "work").string();
    outside = (tree.path / "outside").string();
    home = (tree.path / "home").string();
    fs::create_directories(work + "/out");
    fs::create_directories(work + "/sub");
    fs::create_directories(outside + "/deep");
    fs::create_directories(home);
    tree.write("work/a.txt", "a");
    tree.write("work/.env", "SECRET=1");
    tree.write("outside/secret", "s");
    fs::create_directory_symlink(outside, work + "/escape");
    fs::create_directory_symlink(outside + "/deep", work + "/deeplink");
    fs::create_symlink(outside + "/new", work + "/dangling");
    fs::create_symlink(work + "/loop2", work + "/loop1");
    fs::create_symlink(work + "/loop1", work + "/loop2");
    add_tool("fs.read", TG_TOOL_READ_ONLY);
    add_tool("fs.write", TG_TOOL_DESTRUCTIVE);
    add_tool("fs.edit", 0);
  }

  json::object config(json::object extra = {}) {
    json::object c{{"read_roots", json::array{work.c_str()}},
                   {"write_roots", json::array{(work + "/out").c_str()}},
                   {"base", work.c_str()},
                   {"home", home.c_str()}};
    for (auto& kv : extra) c[kv.key()] = kv.value();
    return c;
  }

  // Runs `tool` with {"path": p}; returns "" when allowed, else the reason.
  std::string try_path(const std::string& tool, const std::string& p) {
    int before = *body_runs;
    auto r = call(tool, {{"path", json::string_view(p.data(), p.size())}});
    if (!r.is_error) return "";
    EXPECT_EQ(*body_runs, before) << "the body ran for a denied call: " << p;
    EXPECT_EQ(code_of(r), "denied") << json::serialize(r.to_json());
    return r.error->message;
  }
};

}  // namespace

TEST(GuardPathsPlugin, ReadsAndWritesHaveSeparateRoots) {
  PathsFixture f;
  f.load("guard-paths", f.config());
  EXPECT_EQ(f.try_path("fs.read", f.work + "/a.txt"), "");
  EXPECT_EQ(f.try_path("fs.read", "a.txt"), "");  // relative to base
  EXPECT_EQ(f.try_path("fs.write", f.work + "/out/new.txt"), "");
  auto why = f.try_path("fs.write", f.work + "/a.txt");
  EXPECT_TRUE(has(why, "outside the write roots")) << why;
  EXPECT_TRUE(has(why, "fs.write: /path")) << why;
  // A tool with no read-only/destructive annotation counts as a write.
  EXPECT_TRUE(has(f.try_path("fs.edit", f.work + "/a.txt"), "write roots"));
  EXPECT_TRUE(has(f.try_path("fs.read", f.outside + "/secret"), "outside the read roots"));
  EXPECT_EQ(f.try_path("fs.read", f.work), "");  // the root itself
  // A sibling whose name starts with the root's is not inside it.
  EXPECT_NE(f.try_path("fs.read", f.work + "x/a.txt"), "");
}

TEST(GuardPathsPlugin, DotDotAndRepeatedSlashesAreNormalised) {
  PathsFixture f;
  f.load("guard-paths", f.config());
  EXPECT_EQ(f.try_path("fs.read", f.work + "//sub/.././/a.txt"), "");
  EXPECT_EQ(f.try_path("fs.read", "./sub/../a.txt"), "");
  EXPECT_NE(f.try_path("fs.read", "../outside/secret"), "");
  EXPECT_NE(f.try_path("fs.read", "sub/../../outside/secret"), "");
  EXPECT_NE(f.try_path("fs.read", f.work + "/../outside/secret"), "");
  EXPECT_NE(f.try_path("fs.read", "../../../../../../../../etc/hostname"), "");
  // A write through ".." from the write root into the read-only part.
  EXPECT_NE(f.try_path("fs.write", f.work + "/out/../a.txt"), "");
}

TEST(GuardPathsPlugin, SymlinksAreResolvedLikeTheKernelDoes) {
  PathsFixture f;
  f.load("guard-paths", f.config());
  auto why = f.try_path("fs.read", "escape/secret");
  EXPECT_TRUE(has(why, "resolves to \"" + fs::canonical(f.outside).string() + "/secret\"")) << why;
  // Lexically "work/secret" (inside), but ".." climbs from the link's
  // target: the kernel opens outside/secret.
  EXPECT_NE(f.try_path("fs.read", "deeplink/../secret"), "");
  // A dangling link: writing through it would create outside/new.
  EXPECT_TRUE(has(f.try_path("fs.read", "dangling"), "outside the read roots"));
  EXPECT_TRUE(has(f.try_path("fs.read", "loop1/x"), "too many levels of symbolic links"));
  // ".." after a link into the tree that lands back inside is fine.
  EXPECT_EQ(f.try_path("fs.read", "escape/../work/a.txt"), "");
}

TEST(GuardPathsPlugin, DenyGlobsApplyInsideTheRoots) {
  PathsFixture f;
  fs::create_directories(f.work + "/.ssh");
  f.load("guard-paths", f.config({{"deny", json::array{"*.lock", "/**/secrets/**"}}}));
  EXPECT_TRUE(has(f.try_path("fs.read", ".env"), "matches the deny pattern \"**/.env\""));
  EXPECT_TRUE(has(f.try_path("fs.read", "sub/../.ssh/id_ed25519"), "**/.ssh/**"));
  EXPECT_TRUE(has(f.try_path("fs.read", "deep/Cargo.lock"), "\"*.lock\""));
  EXPECT_TRUE(has(f.try_path("fs.read", "a/secrets/b/c"), "/**/secrets/**"));
  EXPECT_EQ(f.try_path("fs.read", "Cargo.lock.txt"), "");
}

// A deny glob's plain segments are looked for before the full match: they
// must still be matched in order and in place, not merely be present.
TEST(GuardPathsPlugin, DenyGlobsWithPlainSegmentsMatchThemInPlace) {
  PathsFixture f;
  f.load("guard-paths", f.config({{"deny", json::array{"**/cfg/gcloud/**", "keys/*.pem"}}}));
  EXPECT_TRUE(has(f.try_path("fs.read", "a/cfg/gcloud/creds"), "**/cfg/gcloud/**"));
  EXPECT_EQ(f.try_path("fs.read", "gcloud/cfg/x"), "");    // both there, out of order
  EXPECT_EQ(f.try_path("fs.read", "cfg/x/gcloud/y"), "");  // not adjacent
  EXPECT_TRUE(has(f.try_path("fs.read", "cfg/gcloud"), "**/cfg/gcloud/**"));  // "**": none too
  EXPECT_TRUE(has(f.try_path("fs.read", "d/keys/a.pem"), "keys/*.pem"));
  EXPECT_EQ(f.try_path("fs.read", "keys/d/a.pem"), "");
}

// Deny globs are matched with the path's rows on the stack up to 63
// segments and on the heap beyond: both sides of that line must match.
TEST(GuardPathsPlugin, DenyGlobsMatchVeryDeepPaths) {
  PathsFixture f;
  f.load("guard-paths", f.config({{"deny", json::array{"**/secrets/**"}}}));
  for (int depth : {60, 61, 62, 63, 64, 65, 200}) {
    std::string deep;
    for (int i = 0; i < depth; ++i) deep.append("d").append(std::to_string(i)).append("/");
    EXPECT_TRUE(has(f.try_path("fs.read", deep + "secrets/key"), "**/secrets/**")) << depth;
    EXPECT_TRUE(has(f.try_path("fs.read", "secrets/" + deep + "key"), "**/secrets/**")) << depth;
    EXPECT_EQ(f.try_path("fs.read", deep + "public/key"), "") << depth;
  }
}

TEST(GuardPathsPlugin, ASymlinkNamedLikeADeniedFileIsDeniedToo) {
  PathsFixture f;
  fs::create_symlink(f.work + "/a.txt", f.work + "/.env.local");
  fs::create_symlink(f.work + "/.env", f.work + "/innocent");
  f.load("guard-paths", f.config());
  EXPECT_NE(f.try_path("fs.read", ".env.local"), "");  // by its own name
  EXPECT_NE(f.try_path("fs.read", "innocent"), "");    // by its target
}

TEST(GuardPathsPlugin, TheBuiltinDenyListCanBeDropped) {
  PathsFixture f;
  f.load("guard-paths", f.config({{"builtin_deny", false}}));
  EXPECT_EQ(f.try_path("fs.read", ".env"), "");
}

TEST(GuardPathsPlugin, HomeUriAndNulTricks) {
  PathsFixture f;
  f.load("guard-paths", f.config());
  EXPECT_TRUE(has(f.try_path("fs.read", "~/notes"), "outside the read roots"));
  EXPECT_TRUE(has(f.try_path("fs.read", "~root/.bashrc"), "another user's home"));
  EXPECT_EQ(f.try_path("fs.read", "file://" + f.work + "/a%2etxt"), "");
  EXPECT_NE(f.try_path("fs.read", "file://" + f.work + "/%2e%2e/outside/secret"), "");
  EXPECT_TRUE(has(f.try_path("fs.read", "file://evil.example/etc/passwd"), "remote host"));
  // In a plain path, "%2e%2e" is a file name, not "..".
  EXPECT_EQ(f.try_path("fs.read", "%2e%2e/a.txt"), "");
  EXPECT_TRUE(has(f.try_path("fs.read", std::string("a.txt\0/../../x", 14)), "NUL byte"));
  EXPECT_TRUE(has(f.try_path("fs.read", ""), "is empty"));
}

TEST(GuardPathsPlugin, ListsWildcardsAndNonStrings) {
  PathsFixture f;
  f.load("guard-paths", f.config());
  EXPECT_FALSE(f.call("fs.read", {{"paths", json::array{"a.txt", "sub"}}}).is_error);
  auto r = f.call("fs.read", {{"paths", json::array{"a.txt", "../outside/secret"}}});
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_TRUE(has(r.error->message, "/paths/1")) << r.error->message;
  // A list where one path was expected: every element is checked.
  EXPECT_EQ(code_of(f.call("fs.read", {{"path", json::array{"a.txt", "/etc/passwd"}}})), "denied");
  // Something that is not a path string cannot be checked: denied.
  r = f.call("fs.read", {{"path", 42}});
  EXPECT_TRUE(has(r.error->message, "/path is not a path string"));
  r = f.call("fs.read", {{"file_path", json::object{{"p", "/etc/passwd"}}}});
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_FALSE(f.call("fs.read", {{"path", nullptr}}).is_error);         // left out
  EXPECT_FALSE(f.call("fs.read", {{"other", "/etc/passwd"}}).is_error);  // not a path argument
}

TEST(GuardPathsPlugin, ConfiguredPointersAndWriteTools) {
  PathsFixture f;
  f.add_tool("fs.copy", TG_TOOL_READ_ONLY);
  f.load("guard-paths",
         f.config({{"arguments",
                    json::array{json::object{{"tools", "fs.copy"},
                                             {"pointers", json::array{"/from", "/to/*/dest"}}}}},
                   {"write_tools", json::array{"fs.copy"}}}));
  // Only fs.copy is covered now, and it counts as a write.
  EXPECT_FALSE(f.call("fs.read", {{"path", "/etc/passwd"}}).is_error);
  auto out = [&](const char* p) { return json::array{json::object{{"dest", p}}}; };
  EXPECT_FALSE(f.call("fs.copy", {{"from", "out/a"}, {"to", out("out/b")}}).is_error);
  EXPECT_EQ(code_of(f.call("fs.copy", {{"from", "a.txt"}, {"to", out("out/b")}})), "denied");
  EXPECT_EQ(code_of(f.call("fs.copy", {{"from", "out/a"}, {"to", out("../x")}})), "denied");
}

TEST(GuardPathsPlugin, UnannotatedToolsCanBeTreatedAsReads) {
  PathsFixture f;
  f.load("guard-paths", f.config({{"unannotated", "read"}}));
  EXPECT_EQ(f.try_path("fs.edit", "a.txt"), "");
  EXPECT_NE(f.try_path("fs.write", "a.txt"), "");  // destructive is always a write
}

TEST(GuardPathsPlugin, BadConfigs) {
  struct Case {
    json::object config;
    const char* path;
    const char* text;
  };
  std::vector<Case> cases = {
      {{}, "/plugins/0/config/read_roots", "missing required key"},
      {{{"read_roots", json::array{"relative/dir"}}},
       "/plugins/0/config/read_roots/0",
       "must be an absolute path"},
      {{{"read_roots", "/tmp"}, {"unannotated", "maybe"}},
       "/plugins/0/config/unannotated",
       "not one of"},
      {{{"read_roots", "/tmp"}, {"roots", "/tmp"}}, "/plugins/0/config/roots", "unknown key"},
      {{{"read_roots", "/tmp"},
        {"arguments", json::array{json::object{{"pointers", json::array{"path"}}}}}},
       "/plugins/0/config/arguments/0/pointers/0",
       "not a JSON Pointer"},
      {{{"read_roots", "/tmp"}, {"arguments", json::array{json::object{{"tools", "x"}}}}},
       "/plugins/0/config/arguments/0/pointers",
       "missing required key"},
      {{{"read_roots", "/tmp"}, {"base", "rel"}}, "/plugins/0/config/base", "absolute"},
      {{{"read_roots", "/tmp"}, {"builtin_deny", "no"}},
       "/plugins/0/config/builtin_deny",
       "true or false"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("guard-paths", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}

// One manifest for every project (docs/design.md §8.1): the allowed folder
// is ${workspace}, given when the stack loads; without a value it does not
// load at all (a guard never gets an empty or guessed root).
TEST(GuardPathsPlugin, RootsFromAManifestVariable) {
  PathsFixture f;
  const std::string m =
      f.dir.write("vars.json", manifest_for("toolgate.guard-paths", library_plugin("guard-paths"),
                                            {{"read_roots", json::array{"${workspace}"}},
                                             {"base", "${workspace}"},
                                             {"home", f.home.c_str()}}));
  try {
    f.host.load_manifest(m);
    FAIL() << "a manifest with an undefined variable loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.json_path(), "/plugins/0/config/read_roots/0");
    EXPECT_TRUE(has(e.problem(), "variable ${workspace} has no value (none is defined)"))
        << e.problem();
    EXPECT_TRUE(has(e.fix(), "--var workspace=VALUE")) << e.fix();
  }
  LoadOptions o;
  o.variables["workspace"] = f.work;
  f.host.load_manifest(m, o);
  EXPECT_EQ(f.try_path("fs.read", f.work + "/a.txt"), "");
  EXPECT_EQ(f.try_path("fs.read", "a.txt"), "");  // base is the workspace too
  EXPECT_TRUE(has(f.try_path("fs.read", f.outside + "/secret"), "outside the read roots"));
}

// "client_roots": "intersect" (ABI 1.6 client context): the manifest's
// roots narrowed to the calling client's roots, never widened.
namespace {
ToolResult call_with_roots(PathsFixture& f, const std::string& tool, const std::string& p,
                           std::optional<json::array> roots) {
  ToolCall c;
  c.identity.tool = tool;
  c.identity.session_id = "s1";
  c.identity.client = "mcp";
  if (roots)
    c.identity.client_context =
        std::make_shared<const json::object>(json::object{{"roots", *roots}});
  c.arguments = json::object{{"path", p}};
  return f.host.call(std::move(c));
}
}  // namespace

TEST(GuardPathsPlugin, ClientRootsNarrowTheConfiguredRootsAndNeverWidenThem) {
  PathsFixture f;
  // Wide configured roots: the whole tree; the client has only work/sub open.
  f.load("guard-paths", f.config({{"read_roots", json::array{f.tree.path.string()}},
                                  {"write_roots", json::array{f.tree.path.string()}},
                                  {"client_roots", "intersect"}}));
  const json::array sub{(f.work + "/sub").c_str()};
  f.tree.write("work/sub/in.txt", "in");
  EXPECT_FALSE(call_with_roots(f, "fs.read", f.work + "/sub/in.txt", sub).is_error);
  auto r = call_with_roots(f, "fs.read", f.work + "/a.txt", sub);
  ASSERT_EQ(code_of(r), "denied");
  EXPECT_TRUE(
      has(r.error->message, "narrowed to the client's roots, which leaves " + f.work + "/sub"))
      << r.error->message;
  // Writes narrow the same way, and so does the fs guard on a write a tool
  // body declares (a path no argument showed).
  EXPECT_EQ(code_of(call_with_roots(f, "fs.write", f.work + "/out/x", sub)), "denied");
  // The tool writes where "/dest" says -- not a pointer the argument guard
  // reads -- so only the fs guard sees that path.
  f.add_tool("mutate", TG_TOOL_READ_ONLY, [](const ToolContext& ctx) {
    auto d = ctx.write_intent(ctx.call.arguments.at("dest").as_string());
    return d.allowed ? ToolOutput::success("ok") : ToolOutput::failure(d.reason);
  });
  auto mutate = [&](const std::string& dest) {
    ToolCall c;
    c.identity.tool = "mutate";
    c.identity.session_id = "s1";
    c.identity.client_context = std::make_shared<const json::object>(json::object{{"roots", sub}});
    c.arguments = json::object{{"dest", dest}};
    return f.host.call(std::move(c));
  };
  EXPECT_FALSE(mutate(f.work + "/sub/new.txt").is_error);
  r = mutate(f.work + "/out/new.txt");
  ASSERT_TRUE(r.is_error);
  EXPECT_TRUE(has(r.error->message, "mutate: write \"")) << r.error->message;  // the fs guard
  EXPECT_TRUE(has(r.error->message, "narrowed to the client's roots")) << r.error->message;
  // A client root outside every configured root adds nothing: /etc stays out.
  r = call_with_roots(f, "fs.read", "/usr/share/dict/x",
                      json::array{"/usr", (f.work + "/sub").c_str()});
  EXPECT_EQ(code_of(r), "denied");
  // A client root wider than a configured one keeps the configured one.
  EXPECT_FALSE(call_with_roots(f, "fs.read", f.work + "/a.txt", json::array{"/"}).is_error);
  // Declared roots but none named: nothing is inside.
  r = call_with_roots(f, "fs.read", f.work + "/sub/in.txt", json::array{});
  ASSERT_EQ(code_of(r), "denied");
  EXPECT_TRUE(has(r.error->message, "which leaves none")) << r.error->message;
  // A client that named no roots at all (no context): the configured roots alone.
  EXPECT_FALSE(call_with_roots(f, "fs.read", f.work + "/a.txt", std::nullopt).is_error);
  // A relative or unresolvable client root is left out (narrower, never wider).
  r = call_with_roots(f, "fs.read", f.work + "/a.txt", json::array{"work", "/no/such/dir"});
  EXPECT_EQ(code_of(r), "denied");
}

TEST(GuardPathsPlugin, ClientRootsAreIgnoredUnlessConfigured) {
  PathsFixture f;
  f.load("guard-paths", f.config());
  EXPECT_FALSE(
      call_with_roots(f, "fs.read", f.work + "/a.txt", json::array{(f.work + "/sub").c_str()})
          .is_error);
}
