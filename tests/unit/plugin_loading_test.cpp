// Loading plugins from manifests: every load error is clear (file, JSON
// path, what, fix), nothing crashes, and a failed load changes nothing.
#include "test_support.hpp"

#include <toolgate/toolgate.h>

using namespace tgtest;

namespace {

struct Loading : ::testing::Test {
  TempDir dir;
  Host host;
  // Loads and returns the LoadError's text; fails the test if it loaded.
  std::string load_error(const std::string& manifest_text) {
    auto path = dir.write("m.json", manifest_text);
    try {
      host.load_manifest(path);
    } catch (const LoadError& e) {
      EXPECT_EQ(e.file(), path.string());
      EXPECT_FALSE(e.fix().empty());
      return e.what();
    }
    ADD_FAILURE() << "loaded: " << manifest_text;
    return "";
  }
  std::string variant(const std::string& v, const std::string& id = "test.variant") {
    return load_error(manifest_for(id, test_plugin("variant_" + v)));
  }
};

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << haystack

}  // namespace

TEST_F(Loading, AValidPluginLoadsAndAnnouncesItself) {
  auto rec = std::make_shared<Recorder>();
  host.subscribe([rec](const Event& e) { (*rec)(e); });
  host.load_manifest(dir.write("m.json", manifest_for("test.variant", test_plugin("variant_ok"))));
  auto d = host.describe();
  EXPECT_EQ(d.at("guard").as_array().at(0), "test.variant/variant");
  ASSERT_EQ(rec->of_type("plugin/loaded").size(), 1u);
  EXPECT_EQ(rec->of_type("plugin/loaded")[0].data.at("plugin"), "test.variant");
}

TEST_F(Loading, APluginBuiltForAnOlderMinorLoads) {
  // ABI 1.0 descriptors end before export_state: the host reads only the
  // fields that fit and treats the rest as absent.
  host.load_manifest(
      dir.write("m.json", manifest_for("test.variant", test_plugin("variant_abi_1_0"))));
  EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);
}

TEST_F(Loading, PathsAreRelativeToTheManifestAndCommentsAreAllowed) {
  std::filesystem::create_directories(dir.path / "plugins");
  std::filesystem::copy_file(test_plugin("variant_ok"), dir.path / "plugins" / "v.so");
  host.load_manifest(dir.write("m.json", R"({
    // a comment
    "toolgate": 1,
    "plugins": [ { "id": "test.variant", "path": "plugins/v.so", }, ],
  })"));
  EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);
}

TEST_F(Loading, MissingFile) {
  auto e = load_error(manifest_for("test.variant", (dir.path / "nope.so").string()));
  EXPECT_HAS(e, "/plugins/0/path");
  EXPECT_HAS(e, "does not exist");
}

TEST_F(Loading, NotASharedLibrary) {
  auto fake = dir.write("fake.so", "this is not an ELF file");
  auto e = load_error(manifest_for("test.variant", fake.string()));
  EXPECT_HAS(e, "cannot be loaded");
}

TEST_F(Loading, MissingEntrySymbol) {
  auto e = variant("no_entry");
  EXPECT_HAS(e, "does not export the entry symbol toolgate_plugin_entry");
}

TEST_F(Loading, MajorMismatchNamesBothVersions) {
  auto e = variant("major_mismatch");
  EXPECT_HAS(e, "ABI 2.0");
  EXPECT_HAS(
      e, "ABI " + std::to_string(TOOLGATE_ABI_MAJOR) + "." + std::to_string(TOOLGATE_ABI_MINOR));
}

// ABI negotiation, both directions (toolgate.h section 1).
TEST_F(Loading, APluginNeedingANewerHostMinorIsRefusedNamingBothVersions) {
  auto e = variant("minor_newer");
  EXPECT_HAS(e, "needs a host of ABI 1.99 or newer");
  EXPECT_HAS(e, "this host speaks ABI " + std::to_string(TOOLGATE_ABI_MAJOR) + "." +
                    std::to_string(TOOLGATE_ABI_MINOR));
}

TEST_F(Loading, APluginFromANewerSdkNeedingOnlyThisHostLoadsAndSeesWhatTheHostLacks) {
  // Its descriptor is longer than this host's and its header knows a host
  // API member this host does not have: it loads, and TOOLGATE_HOST_HAS
  // tells it the member is absent (its guard says so).
  Fixture f;
  f.host.load_manifest(
      dir.write("m.json", manifest_for("test.variant", test_plugin("variant_future"))));
  auto r = f.call("echo");
  ASSERT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->message, "future_member: absent");
  EXPECT_EQ(*f.body_runs, 0);
  // The plain "larger descriptor" build loads too.
  Host host;
  host.load_manifest(
      dir.write("big.json", manifest_for("test.variant", test_plugin("variant_big_descriptor"))));
  EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);
}

TEST_F(Loading, InitFailureCarriesThePluginsMessage) {
  auto e = variant("init_fails");
  EXPECT_HAS(e, "failed to initialise");
  EXPECT_HAS(e, "the variant's database is unreachable");
}

TEST_F(Loading, RejectedConfigNamesTheJsonPath) {
  auto e =
      load_error(manifest_for("test.kit", test_plugin("testkit"), {{"reject", "/limits/max"}}));
  EXPECT_HAS(e, "/plugins/0/config/limits/max");
  EXPECT_HAS(e, "testkit rejects this");
  auto e2 = load_error(manifest_for("sample.timeout", sample_plugin("sample_timeout_wrapper"),
                                    {{"timeout_ms", -5}}));
  EXPECT_HAS(e2, "/plugins/0/config/timeout_ms");
  EXPECT_HAS(e2, "positive integer");
}

TEST_F(Loading, DeclaredIdMustMatchTheManifest) {
  auto e = variant("ok", "someone.else");
  EXPECT_HAS(e, "declares id \"test.variant\" but the manifest says \"someone.else\"");
}

TEST_F(Loading, CapabilitiesAreChecked) {
  EXPECT_HAS(variant("unregistered_cap"), "declared a guard (TG_CAP_GUARD) but registered none");
  EXPECT_HAS(variant("undeclared_cap"), "did not declare that capability");
}

TEST_F(Loading, MissingManifest) {
  EXPECT_THROW(host.load_manifest(dir.path / "absent.json"), LoadError);
}

TEST_F(Loading, AFailedLoadLeavesTheActiveGenerationUntouched) {
  host.load_manifest(
      dir.write("a.json", manifest_for("test.kit", test_plugin("testkit"), {{"guard", "deny"}})));
  auto before = host.generation();
  auto text = json::serialize(json::object{
      {"toolgate", 1},
      {"plugins",
       json::array{
           json::object{{"id", "test.c-status"}, {"path", test_plugin("c_status")}},
           json::object{{"id", "test.variant"}, {"path", test_plugin("variant_init_fails")}}}}});
  load_error(text);
  EXPECT_EQ(host.generation(), before);
  EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);  // c_status not half-loaded
  ToolCall c;
  c.identity.tool = "c_tool";
  EXPECT_EQ(code_of(host.call(c)), "unknown_tool");
}

TEST_F(Loading, TheSamePluginCannotBeLoadedTwice) {
  host.load_manifest(dir.write("a.json", manifest_for("test.variant", test_plugin("variant_ok"))));
  EXPECT_HAS(variant("ok"), "already loaded");
}

TEST_F(Loading, DisabledPluginsAreNotLoaded) {
  host.load_manifest(dir.write(
      "m.json",
      R"({"toolgate": 1, "plugins": [{"id": "test.variant", "path": "/nonexistent.so", "enabled": false}]})"));
  EXPECT_TRUE(host.describe().at("plugins").as_array().empty());
}
