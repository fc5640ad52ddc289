// Broken manifests: each must produce its exact error (JSON path and
// problem), never crash, and leave nothing half loaded.
#include "test_support.hpp"

#include <toolgate/toolgate.h>

using namespace tgtest;

namespace {

struct Broken {
  const char* name;
  std::vector<std::string> layers;  // manifest texts, stacked in order
  std::string path;                 // expected LoadError::json_path()
  std::string problem;              // expected LoadError::problem(), exactly
  LoadOptions options = {};
};

// $P(x) in a text is replaced by the path of test plugin x; $D by the temp dir.
std::string expand(std::string s, const std::string& dir) {
  for (std::size_t pos; (pos = s.find("$P(")) != std::string::npos;) {
    auto end = s.find(')', pos);
    std::string name = s.substr(pos + 3, end - pos - 3);
    std::string path = name.rfind("sample_", 0) == 0 ? sample_plugin(name) : test_plugin(name);
    s.replace(pos, end - pos + 1, path);
  }
  for (std::size_t pos; (pos = s.find("$D")) != std::string::npos;) s.replace(pos, 2, dir);
  return s;
}

std::string one(const std::string& id, const std::string& plugin, const std::string& extra = "") {
  return "{\"toolgate\":1,\"plugins\":[{\"id\":\"" + id + "\",\"path\":\"$P(" + plugin + ")\"" +
         extra + "}]}";
}

const std::string security_layer =
    R"x({"toolgate":1,"layer":{"name":"security","locked":true},
        "plugins":[{"id":"test.kit","path":"$P(testkit)"}]})x";

std::string later(const std::string& overrides) {
  return R"x({"toolgate":1,"layer":{"name":"deployer"},"overrides":)x" + overrides + "}";
}

const std::string host_abi =
    std::to_string(TOOLGATE_ABI_MAJOR) + "." + std::to_string(TOOLGATE_ABI_MINOR);

std::vector<Broken> cases() {
  return {
      {"syntax error with line",
       {"{\n  \"toolgate\": 1,\n  \"plugins\": [ }\n"},
       "",
       "not valid JSON at line 3, column 16: syntax error"},
      {"root not an object", {"[1]"}, "", "expected an object, found an array"},
      // Duplicate keys used to resolve to the last copy, silently: a second
      // "layer" unlocked a locked layer, a second "plugins" dropped every
      // guard, a second settings key put a guard in shadow mode.
      {"duplicate layer object",
       {R"x({"toolgate":1,"layer":{"name":"security","locked":true},"layer":{"name":"security","locked":false},"plugins":[{"id":"test.kit","path":"$P(testkit)"}]})x"},
       "",
       "duplicate key \"layer\" in the object at the top level (line 1, column 15, and again at "
       "line 1, column 57)"},
      {"duplicate plugins key",
       {R"x({"toolgate":1,"plugins":[],"plugins":[]})x"},
       "",
       "duplicate key \"plugins\" in the object at the top level (line 1, column 15, and again "
       "at line 1, column 28)"},
      {"duplicate hook setting",
       {"{\"toolgate\":1,\"plugins\":[{\"id\":\"test.kit\",\"path\":\"$P(testkit)\",\n"
        "\"hooks\":{\"guard\":{\"mode\":\"enforce\",\n\"mode\":\"shadow\"}}}]}"},
       "/plugins/0/hooks/guard",
       "duplicate key \"mode\" in the object at /plugins/0/hooks/guard (line 2, column 19, and "
       "again at line 3, column 1)"},
      {"byte order mark",
       {"\xEF\xBB\xBF{\"toolgate\":1}"},
       "",
       "the file starts with a UTF-8 byte order mark (EF BB BF)"},
      {"missing version", {R"x({"plugins":[]})x"}, "/toolgate", "missing the format version"},
      {"wrong version",
       {R"x({"toolgate":2})x"},
       "/toolgate",
       "unsupported manifest format version"},
      {"unknown top-level key",
       {R"x({"toolgate":1,"plugin":[]})x"},
       "/plugin",
       "unknown key \"plugin\""},
      {"plugins not an array",
       {R"x({"toolgate":1,"plugins":{}})x"},
       "/plugins",
       "expected an array of plugin entries"},
      {"plugin entry not an object",
       {R"x({"toolgate":1,"plugins":["x.so"]})x"},
       "/plugins/0",
       "expected an object, found a string"},
      {"unknown plugin key",
       {one("test.kit", "testkit", R"x(,"colour":1)x")},
       "/plugins/0/colour",
       "unknown key \"colour\""},
      {"missing id",
       {R"x({"toolgate":1,"plugins":[{"path":"x.so"}]})x"},
       "/plugins/0/id",
       "missing \"id\""},
      {"id wrong type",
       {R"x({"toolgate":1,"plugins":[{"id":5,"path":"x.so"}]})x"},
       "/plugins/0/id",
       "expected a string (the plugin's id), found a number"},
      {"invalid id",
       {R"x({"toolgate":1,"plugins":[{"id":"Bad Id","path":"x.so"}]})x"},
       "/plugins/0/id",
       "invalid id \"Bad Id\""},
      {"duplicate id in one manifest",
       {R"x({"toolgate":1,"plugins":[{"id":"a","path":"x.so"},{"id":"a","path":"y.so"}]})x"},
       "/plugins/1/id",
       "duplicate plugin id \"a\" (also at /plugins/0)"},
      {"missing path",
       {R"x({"toolgate":1,"plugins":[{"id":"a"}]})x"},
       "/plugins/0/path",
       "missing \"path\""},
      {"enabled wrong type",
       {one("test.kit", "testkit", R"x(,"enabled":"yes")x")},
       "/plugins/0/enabled",
       "expected true or false, found a string"},
      {"config wrong type",
       {one("test.kit", "testkit", R"x(,"config":[])x")},
       "/plugins/0/config",
       "expected an object, found an array"},
      {"sha256 malformed",
       {one("test.kit", "testkit", R"x(,"sha256":"abc")x")},
       "/plugins/0/sha256",
       "not a SHA-256 digest (64 hex digits)"},
      {"sha256 mismatch",
       {one("test.kit", "testkit", ",\"sha256\":\"" + std::string(64, '0') + "\"")},
       "/plugins/0/sha256",
       ""},  // problem checked by prefix below
      {"missing plugin file",
       {R"x({"toolgate":1,"plugins":[{"id":"a","path":"$D/nope.so"}]})x"},
       "/plugins/0/path",
       "plugin \"a\" ($D/nope.so): the plugin file does not exist"},
      {"entry symbol missing",
       {one("test.variant", "variant_no_entry")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_no_entry)): does not export the entry symbol "
       "toolgate_plugin_entry"},
      {"ABI major mismatch",
       {one("test.variant", "variant_major_mismatch")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_major_mismatch)): was built for ABI 2.0 but this host "
       "speaks ABI " +
           host_abi + " (majors must match)"},
      {"ABI minor newer",
       {one("test.variant", "variant_minor_newer")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_minor_newer)): needs a host of ABI 1.99 or newer, "
       "and this host speaks ABI " +
           host_abi},
      {"unknown capability bit",
       {one("test.variant", "variant_unknown_cap")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_unknown_cap)): declares capabilities this host does "
       "not know (0x40000000)"},
      {"unknown flag bit",
       {one("test.variant", "variant_unknown_flag")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_unknown_flag)): declares flags this host does not "
       "know (0x40000000)"},
      {"declared id differs",
       {one("other.id", "variant_ok")},
       "/plugins/0/id",
       "plugin \"other.id\" ($P(variant_ok)): declares id \"test.variant\" but the manifest says "
       "\"other.id\""},
      {"init fails",
       {one("test.variant", "variant_init_fails")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_init_fails)): failed to initialise: the variant's "
       "database is unreachable"},
      {"declared a kind but registered none",
       {one("test.variant", "variant_unregistered_cap")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_unregistered_cap)): declared a guard (TG_CAP_GUARD) "
       "but registered none"},
      {"declared several kinds but registered none of them",
       {one("test.variant", "variant_unregistered_caps")},
       "/plugins/0",
       "plugin \"test.variant\" ($P(variant_unregistered_caps)): declared an execute wrapper "
       "(TG_CAP_EXECUTE_WRAPPER), a post-execute hook (TG_CAP_POST_EXECUTE) and tools "
       "(TG_CAP_TOOLS) but registered none of them"},
      {"config rejected",
       {one("test.kit", "testkit", R"x(,"config":{"reject":"/limit"})x")},
       "/plugins/0/config/limit",
       "plugin \"test.kit\" ($P(testkit)): rejected its config at /limit: testkit rejects this"},
      {"unknown hook name",
       {one("test.kit", "testkit", R"x(,"hooks":{"nope":{}})x")},
       "/plugins/0/hooks/nope",
       "plugin \"test.kit\" registers no hook named \"nope\""},
      {"unknown hook setting",
       {one("test.kit", "testkit", R"x(,"hooks":{"guard":{"weight":1}})x")},
       "/plugins/0/hooks/guard/weight",
       "unknown key \"weight\""},
      {"bad mode",
       {one("test.kit", "testkit", R"x(,"hooks":{"guard":{"mode":"audit"}})x")},
       "/plugins/0/hooks/guard/mode",
       "unknown mode \"audit\""},
      {"mode on a non-guard",
       {one("test.kit", "testkit", R"x(,"hooks":{"pre":{"mode":"shadow"}})x")},
       "/plugins/0/hooks/pre/mode",
       "\"mode\" applies to guards only, and test.kit/pre is a tools/pre-execute hook"},
      {"priority on a guard",
       {one("test.kit", "testkit", R"x(,"hooks":{"guard":{"priority":3}})x")},
       "/plugins/0/hooks/guard",
       "guard test.kit/guard cannot be ordered: guards all run and any deny denies"},
      {"priority not an integer",
       {one("test.kit", "testkit", R"x(,"hooks":{"pre":{"priority":"high"}})x")},
       "/plugins/0/hooks/pre/priority",
       "expected an integer between -1000000 and 1000000, found a string"},
      {"before names nothing",
       {one("test.kit", "testkit", R"x(,"hooks":{"pre":{"before":["ghost/hook"]}})x")},
       "",
       "hook test.kit/pre is ordered against \"ghost/hook\", which is not loaded"},
      {"before names the hook itself",
       {one("test.kit", "testkit", R"x(,"hooks":{"pre":{"before":["test.kit/pre"]}})x")},
       "",
       "hook test.kit/pre is ordered against \"test.kit/pre\", which is itself (or its own "
       "plugin)"},
      {"after names the hook's own plugin",
       {one("test.kit", "testkit", R"x(,"hooks":{"pre":{"after":["test.kit"]}})x")},
       "",
       "hook test.kit/pre is ordered against \"test.kit\", which is itself (or its own plugin)"},
      {"NUL in a plugin path",
       {R"x({"toolgate":1,"plugins":[{"id":"a","path":"x.so\u0000/etc/passwd"}]})x"},
       "/plugins/0/path",
       "\"path\" contains a NUL character (\\u0000)"},
      {"plugin path is a folder",
       {R"x({"toolgate":1,"plugins":[{"id":"a","path":"$D"}]})x"},
       "/plugins/0/path",
       "plugin \"a\" ($D): the plugin path is a folder, not a file"},
      {"ordering cycle",
       {R"x({"toolgate":1,"plugins":[
           {"id":"test.kit","path":"$P(testkit)","hooks":{"pre":{"before":["test.c-status/pre"]}}},
           {"id":"test.c-status","path":"$P(c_status)","hooks":{"pre":{"before":["test.kit/pre"]}}}]})x"},
       "",
       "ordering cycle in tools/pre-execute: test.kit/pre -> test.c-status/pre -> test.kit/pre"},
      {"plugin loaded twice across layers",
       {one("test.kit", "testkit"), one("test.kit", "testkit")},
       "/plugins/0/id",
       "plugin \"test.kit\" is already loaded (by $D/layer0.json)"},
      {"override of an unknown id",
       {one("test.kit", "testkit"), later(R"x({"ghost":{"enabled":false}})x")},
       "/overrides/ghost",
       "\"ghost\" names no loaded plugin or hook"},
      {"whole-plugin override with ordering",
       {one("test.kit", "testkit"), later(R"x({"test.kit":{"priority":1}})x")},
       "/overrides/test.kit",
       "a whole plugin can only be enabled or disabled"},
      {"locked guard disabled",
       {security_layer, later(R"x({"test.kit/guard":{"enabled":false}})x")},
       "/overrides/test.kit~1guard",
       "hook test.kit/guard is locked by layer \"security\" ($D/layer0.json); a later layer cannot "
       "remove, disable, shadow, re-filter or reorder it"},
      {"locked guard shadowed",
       {security_layer, later(R"x({"test.kit/guard":{"mode":"shadow"}})x")},
       "/overrides/test.kit~1guard",
       "hook test.kit/guard is locked by layer \"security\" ($D/layer0.json); a later layer cannot "
       "remove, disable, shadow, re-filter or reorder it"},
      {"locked guard re-filtered",
       {security_layer, later(R"x({"test.kit/guard":{"tools":["none"]}})x")},
       "/overrides/test.kit~1guard",
       "hook test.kit/guard is locked by layer \"security\" ($D/layer0.json); a later layer cannot "
       "remove, disable, shadow, re-filter or reorder it"},
      {"locked plugin removed",
       {security_layer, later(R"x({"test.kit":{"enabled":false}})x")},
       "/overrides/test.kit",
       "hook test.kit/pre is locked by layer \"security\" ($D/layer0.json); a later layer cannot "
       "remove, disable, shadow, re-filter or reorder it"},
      {"locked hook reordered",
       {security_layer, later(R"x({"test.kit/pre":{"priority":99}})x")},
       "/overrides/test.kit~1pre",
       "hook test.kit/pre is locked by layer \"security\" ($D/layer0.json); a later layer cannot "
       "remove, disable, shadow, re-filter or reorder it"},
      {"later hook ordered against a locked one",
       {security_layer,
        one("test.c-status", "c_status", R"x(,"hooks":{"pre":{"before":["test.kit/pre"]}})x")},
       "",
       "hook test.c-status/pre cannot be ordered against test.kit/pre, which is locked by "
       "layer \"security\" ($D/layer0.json)"},
      {"disable glob matching nothing",
       {one("test.kit", "testkit")},
       "",
       "--disable ghost.* matches no plugin or hook",
       LoadOptions{{"ghost.*"}, false}},
  };
}

}  // namespace

TEST(ManifestErrors, EachBrokenManifestProducesItsExactError) {
  auto all = cases();
  EXPECT_GE(all.size(), 25u);
  for (const auto& c : all) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    Host host;
    host.add_guard("embedder", {"baseline"}, [](const HookCall&) { return std::nullopt; });
    auto before = host.generation();
    std::vector<std::filesystem::path> files;
    for (std::size_t i = 0; i < c.layers.size(); ++i)
      files.push_back(
          dir.write("layer" + std::to_string(i) + ".json", expand(c.layers[i], dir.path.string())));
    try {
      // Earlier layers load one call at a time, like a running host adding
      // a layer; the last one must fail.
      for (std::size_t i = 0; i + 1 < files.size(); ++i) host.load_manifest(files[i], c.options);
      host.load_manifests({files.back()}, c.options);
      ADD_FAILURE() << "loaded without error";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.json_path(), c.path);
      std::string expected = expand(c.problem, dir.path.string());
      if (std::string(c.name) == "sha256 mismatch") {
        EXPECT_EQ(e.problem().find("plugin \"test.kit\" (" + test_plugin("testkit") +
                                   "): SHA-256 mismatch: the manifest pins " +
                                   std::string(64, '0') + " but the file is "),
                  0u)
            << e.problem();
      } else {
        EXPECT_EQ(e.problem(), expected);
      }
      EXPECT_FALSE(e.fix().empty());
      EXPECT_NE(std::string(e.what()).find(e.file()), std::string::npos);
    }
    // All or nothing: the failing layer changed nothing.
    if (c.layers.size() == 1) {
      EXPECT_EQ(host.generation(), before);
    }
    EXPECT_EQ(host.plan().at("guard").as_array().size(),
              c.layers.size() == 1 ? 1u : 2u);  // the baseline (+ the earlier layer's guard)
  }
}

TEST(ManifestErrors, APinnedDigestThatMatchesLoads) {
  TempDir dir;
  Host host;
  // The digest as sha256sum prints it, upper-cased to show case is ignored.
  std::string cmd = "sha256sum " + test_plugin("testkit");
  std::FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[65] = {};
  ASSERT_EQ(std::fread(buf, 1, 64, p), 64u);
  ::pclose(p);
  std::string digest(buf);
  for (auto& ch : digest) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  host.load_manifest(dir.write(
      "m.json",
      expand(one("test.kit", "testkit", ",\"sha256\":\"" + digest + "\""), dir.path.string())));
  EXPECT_EQ(host.describe().at("plugins").as_array().size(), 1u);
}
