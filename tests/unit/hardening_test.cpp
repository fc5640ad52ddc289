// Fail-open paths found by an attacker's review (issue 13): a layer that
// vanished, permission checks bypassed through symlinks, and a pin checked
// on other bytes than those loaded.  Each test asserts the outcome that
// matters: the guard still denies, the tool body does not run, the file is
// refused.
#include "test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

using namespace tgtest;
namespace fs = std::filesystem;

namespace {

std::string guard_layer(const std::string& name) {
  return json::serialize(json::object{{"toolgate", 1},
                                      {"layer", {{"name", name}, {"locked", true}}},
                                      {"plugins", json::array{{{"id", "test.kit"},
                                                               {"path", test_plugin("testkit")},
                                                               {"config", {{"guard", "deny"}}}}}}});
}
const std::string empty_layer = R"({"toolgate":1})";

std::string maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_refused(Host& host, const fs::path& manifest, const std::string& needle) {
  try {
    host.load_manifest(manifest);
    ADD_FAILURE() << "loaded " << manifest;
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

// A security layer replaced by a dangling symlink used to be skipped: the
// reload "succeeded" without its guard and the next call ran.
TEST(Hardening, ALayerThatBecameADanglingSymlinkIsNotSkipped) {
  TempDir dir;
  auto stack = dir.path / "stack";
  fs::create_directories(stack);
  std::ofstream(stack / "10-security.json") << guard_layer("security");
  std::ofstream(stack / "20-deployer.json") << empty_layer;
  Fixture f;
  ReloadOptions ro;
  ro.manifests = {stack};
  ASSERT_TRUE(f.host.enable_reload(ro).ok);
  EXPECT_EQ(code_of(f.call("echo")), "denied");

  fs::rename(stack / "10-security.json", dir.path / "moved.json");
  fs::create_symlink(dir.path / "gone.json", stack / "10-security.json");
  auto r = f.host.reload();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("10-security.json\", which is a dangling symlink"), std::string::npos)
      << r.error;
  EXPECT_EQ(code_of(f.call("echo")), "denied");
  EXPECT_EQ(*f.body_runs, 0);
}

// The same at the first load: the layer that is a dangling symlink is not
// skipped (the rest of the stack used to load without it, and calls ran
// unguarded); no stack loads, and every call is denied.
TEST(Hardening, AStackWhoseSecurityLayerIsADanglingSymlinkDoesNotServe) {
  TempDir dir;
  auto stack = dir.path / "stack";
  fs::create_directories(stack);
  fs::create_symlink(dir.path / "security-layer-not-mounted.json", stack / "10-security.json");
  std::ofstream(stack / "20-deployer.json") << empty_layer;
  Fixture f;
  ReloadOptions ro;
  ro.manifests = {stack};
  auto r = f.host.enable_reload(ro);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.calls_denied);
  EXPECT_EQ(code_of(f.call("echo")), "denied");
  EXPECT_EQ(*f.body_runs, 0);
  Host plain;
  EXPECT_THROW(plain.load_manifests({stack}), LoadError);
}

TEST(Hardening, AFolderOrFifoNamedLikeAManifestIsRefused) {
  TempDir dir;
  auto stack = dir.path / "stack";
  fs::create_directories(stack / "30-extra.json");
  std::ofstream(stack / "10-a.json") << empty_layer;
  Host host;
  try {
    host.load_manifests({stack});
    ADD_FAILURE() << "a folder named *.json was skipped";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.problem(),
              "the manifest folder holds \"30-extra.json\", which is a folder: its layer cannot "
              "be loaded");
  }
  fs::remove(stack / "30-extra.json");
  ASSERT_EQ(::mkfifo((stack / "40-pipe.json").c_str(), 0600), 0);
  EXPECT_THROW(host.load_manifests({stack}), LoadError);
}

// The same files named directly were refused; through a symlink they were
// accepted.  Both the path as written and the real path are checked now.
TEST(Hardening, PermissionChecksFollowSymlinks) {
  TempDir dir;
  auto open = dir.path / "open";  // writable by anyone, no sticky bit
  auto safe = dir.path / "safe";
  fs::create_directories(open);
  fs::create_directories(safe);
  ::chmod(open.c_str(), 0777);
  fs::copy_file(test_plugin("variant_ok"), open / "v.so");
  std::ofstream(open / "m.json") << manifest_for("test.variant", test_plugin("variant_ok"));
  ::chmod((open / "m.json").c_str(), 0644);
  const std::string unsafe = open.string() + " is writable by group or others";

  // A manifest that is a symlink into the open folder.
  fs::create_symlink(open / "m.json", safe / "m.json");
  Host h1;
  expect_refused(h1, safe / "m.json", unsafe);
  // A plugin that is a symlink into the open folder.
  fs::create_symlink(open / "v.so", safe / "v.so");
  auto m2 = dir.write("m2.json", manifest_for("test.variant", (safe / "v.so").string()));
  Host h2;
  expect_refused(h2, m2, unsafe);
  // A plugin reached through a symlinked folder that is the open folder.
  fs::create_directory_symlink(open, safe / "linked");
  auto m3 = dir.write("m3.json", manifest_for("test.variant", (safe / "linked" / "v.so").string()));
  Host h3;
  expect_refused(h3, m3, unsafe);
  EXPECT_TRUE(h1.describe().at("plugins").as_array().empty());

  // A symlink between safe places is fine.
  fs::copy_file(test_plugin("variant_ok"), safe / "real.so");
  fs::create_symlink(safe / "real.so", safe / "alias.so");
  auto ok = dir.write("ok.json", manifest_for("test.variant", (safe / "alias.so").string()));
  Host h4;
  h4.load_manifest(ok);
  EXPECT_EQ(h4.describe().at("plugins").as_array().size(), 1u);
}

// What is pinned is what runs: the file is copied into a private folder,
// the copy is hashed and the copy is loaded -- never the original path,
// which could be swapped between the hash and dlopen.
TEST(Hardening, APluginIsLoadedFromAPrivateCopy) {
  TempDir dir;
  auto original = dir.path / "private-copy-probe.so";
  fs::copy_file(test_plugin("variant_ok"), original);
  auto m = dir.write("m.json", manifest_for("test.variant", original.string()));
  {
    Host host;
    host.load_manifest(m);
    const std::string mapped = maps();
    EXPECT_EQ(mapped.find(original.string()), std::string::npos) << "the original was mapped";
    auto copy = mapped.find("/test.variant.");
    ASSERT_NE(copy, std::string::npos) << "no private copy is mapped";
    auto line_start = mapped.rfind('\n', copy) + 1;
    std::string line = mapped.substr(line_start, mapped.find('\n', copy) - line_start);
    EXPECT_NE(line.find("/toolgate-shadow-"), std::string::npos) << line;
    // The copy sits in a folder only we can write to.
    auto path = line.substr(line.find('/'));
    struct stat st {};
    ASSERT_EQ(::stat(fs::path(path).parent_path().c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_mode & 0777, 0700u);
  }
  // Unloaded with its host: the copy is gone too.
  EXPECT_EQ(maps().find("/test.variant."), std::string::npos);
}

// A plugin file far larger than any plugin is refused before it is read
// (an 8 GB sparse file used to be hashed for 39 s first).
TEST(Hardening, AHugePluginFileIsRefusedBeforeItIsRead) {
  TempDir dir;
  auto big = dir.path / "big.so";
  { std::ofstream out(big); }
  fs::resize_file(big, (1ull << 30) + 1);  // sparse: costs no disk
  auto m = dir.write("m.json", manifest_for("test.variant", big.string()));
  Host host;
  expect_refused(host, m, "the plugin file is 1073741825 bytes, over the 1073741824-byte limit");
}

TEST(Hardening, AHugeManifestIsRefusedBeforeItIsRead) {
  TempDir dir;
  auto big = dir.path / "big.json";
  { std::ofstream out(big); }
  fs::resize_file(big, (16u << 20) + 1);
  Host host;
  expect_refused(host, big, "the manifest is 16777217 bytes, over the 16777216-byte limit");
}
