// ABI 1.2: a plugin reads its config through config_get / config_string
// and declares a config schema the host checks before init.  The C test
// plugin is tests/plugins/c_config.c; the production plugins all declare
// schemas.
#include "library_support.hpp"

#include "sample_tools.hpp"

#include <toolgate/toolgate.h>

#include <fstream>

using namespace tgtest;

namespace {

struct ConfigLoading : ::testing::Test {
  TempDir dir;
  Fixture f;

  void load(const std::string& build, const json::object& config) {
    f.host.load_manifest(dir.write(
        "m.json", manifest_for("test.c-config", test_plugin("c_config_" + build), config)));
  }
  // The LoadError of a load that must fail.
  std::optional<LoadError> load_error(const std::string& build, const json::object& config) {
    try {
      load(build, config);
    } catch (const LoadError& e) {
      EXPECT_EQ(e.file(), (dir.path / "m.json").string());
      EXPECT_FALSE(e.fix().empty());
      return e;
    }
    ADD_FAILURE() << "loaded: " << json::serialize(config);
    return std::nullopt;
  }
  std::string marker() const { return (dir.path / "init-ran").string(); }
  bool init_ran() const { return std::filesystem::exists(marker()); }
};

}  // namespace

TEST_F(ConfigLoading, InitReadsNestedValuesThroughTheAccessors) {
  load("ok", {{"marker", marker()},
              {"name", "fs"},
              {"paths", json::array{"/a", "/b/c"}},
              {"limits", {{"max", 5}}},
              {"mode", "strict"}});
  EXPECT_TRUE(init_ran());
  auto r = f.call("echo");
  ASSERT_TRUE(r.error);
  // whole: the five keys; missing: TG_NOT_FOUND (3); mismatch:
  // TG_TYPE_MISMATCH (4); a pointer without '/': TG_INVALID_ARGUMENT (2).
  EXPECT_EQ(
      r.error->message,
      "name=fs paths=/a,/b/c max=5 mode=strict whole=5 missing=3 mismatch=4 nopointer=2 args=0");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST_F(ConfigLoading, ArgGetSharesTheLookupAndExplainsATooSmallStruct) {
  load("ok", {{"name", "x"}, {"paths", json::array{"/a"}}});
  // "" is the whole arguments object, as for config_get.
  auto r = f.call("echo", {{"a", 1}, {"b", 2}, {"c", 3}});
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find(" args=3"), std::string::npos) << r.error->message;
  // A guard failing after arg_get refused a zero struct_size: the host
  // says why, and the call fails closed.
  r = f.call("echo", {{"bad_struct", 1}});
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("arg_get: tg_json_value.struct_size is 0, smaller than a "
                                  "tg_json_value"),
            std::string::npos)
      << r.error->message;
  EXPECT_EQ(*f.body_runs, 0);
}

TEST_F(ConfigLoading, AnIntegralDoubleIsAnIntegerForTheSchemaAndForConfigGet) {
  // The schema's "integer" accepts 5.0, so config_get must report it as
  // TG_JSON_INT for a plugin that trusts the schema and reads `integer`.
  load("ok", {{"name", "x"}, {"paths", json::array{"/a"}}, {"limits", {{"max", 5.0}}}});
  auto r = f.call("echo");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find(" max=5 "), std::string::npos) << r.error->message;
}

TEST_F(ConfigLoading, OptionalKeysAreNotFound) {
  load("ok", {{"name", "x"}, {"paths", json::array{"/only"}}});
  auto r = f.call("echo");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(
      r.error->message,
      "name=x paths=/only max=none mode=none whole=2 missing=3 mismatch=4 nopointer=2 args=0");
}

TEST_F(ConfigLoading, ASchemaViolationFailsTheLoadBeforeInitRuns) {
  struct Case {
    json::object config;
    std::string pointer;  // inside the config
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"name", "x"}, {"paths", json::array{"/a", 3}}}, "/paths/1", "must be a string, got 3"},
      {{{"name", "x"}}, "/paths", "missing required key \"paths\""},
      {{{"name", ""}, {"paths", json::array{"/a"}}}, "/name", "must not be empty"},
      {{{"name", "x"}, {"paths", json::array{}}}, "/paths", "must not be empty"},
      {{{"name", "x"}, {"paths", json::array{"/a"}}, {"limits", {{"max", 0}}}},
       "/limits/max",
       "must be at least 1, got 0"},
      {{{"name", "x"}, {"paths", json::array{"/a"}}, {"limits", {{"min", 1}}}},
       "/limits/min",
       "unknown key \"min\"; remove it or use one of: max"},
      {{{"name", "x"}, {"paths", json::array{"/a"}}, {"mode", "loose"}},
       "/mode",
       "\"loose\" is not one of \"strict\", \"lax\""},
      {{{"name", "x"}, {"paths", json::array{"/a"}}, {"nmae", "y"}},
       "/nmae",
       "unknown key \"nmae\""},
  };
  for (const auto& c : cases) {
    json::object config = c.config;
    config["marker"] = marker();
    auto e = load_error("ok", config);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->json_path(), "/plugins/0/config" + c.pointer);
    const std::string what = e->what();
    EXPECT_NE(what.find("plugin \"test.c-config\""), std::string::npos) << what;
    EXPECT_NE(what.find("config" + c.pointer + ": " + c.message), std::string::npos) << what;
    EXPECT_NE(e->fix().find("init was not run"), std::string::npos) << e->fix();
    EXPECT_FALSE(init_ran()) << "init ran for " << json::serialize(config);
  }
  EXPECT_TRUE(f.host.describe().at("plugins").as_array().empty());
}

TEST_F(ConfigLoading, ATooSmallStructSizeIsExplained) {
  auto e = load_error("bad_struct", {{"name", "x"}, {"paths", json::array{"/a"}}});
  ASSERT_TRUE(e);
  const std::string what = e->what();
  EXPECT_NE(what.find("config_get failed; config_get: tg_json_value.struct_size is 0, smaller "
                      "than a tg_json_value"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("set it to sizeof(tg_json_value)"), std::string::npos) << what;
}

TEST_F(ConfigLoading, ASchemaWithAnUnsupportedKeywordFailsTheLoad) {
  auto e = load_error("bad_keyword", {{"marker", marker()}, {"name", "a@b.c"}});
  ASSERT_TRUE(e);
  const std::string what = e->what();
  EXPECT_EQ(e->json_path(), "/plugins/0");
  EXPECT_NE(what.find("plugin \"test.c-config\""), std::string::npos) << what;
  EXPECT_NE(what.find("its config_schema cannot be used: at /properties/name/format of the "
                      "schema (keyword \"format\")"),
            std::string::npos)
      << what;
  EXPECT_NE(e->fix().find("bug in the plugin"), std::string::npos) << e->fix();
  EXPECT_FALSE(init_ran());
}

TEST_F(ConfigLoading, ASchemaThatIsNotJsonFailsTheLoad) {
  auto e = load_error("bad_json", {{"marker", marker()}});
  ASSERT_TRUE(e);
  EXPECT_NE(std::string(e->what()).find("its config_schema cannot be used: at / of the schema: it "
                                        "is not valid JSON"),
            std::string::npos)
      << e->what();
  EXPECT_FALSE(init_ran());
}

TEST_F(ConfigLoading, APluginBuiltForAbi11HasNoSchemaAndLoads) {
  // Its descriptor ends before config_schema; the bytes after it hold a
  // "schema" that is not JSON, which the host must not read.
  f.host.load_manifest(dir.write(
      "m.json", manifest_for("test.variant", test_plugin("variant_abi_1_1"), {{"any", 1}})));
  EXPECT_EQ(f.host.describe().at("plugins").as_array().size(), 1u);
}

// Every production plugin declares its config schema: a clearly wrong
// config fails the load before init, naming the pointer of the bad value.
TEST(LibraryConfigSchemas, EveryPluginRejectsAClearlyWrongConfigNamingThePointer) {
  struct Case {
    const char* plugin;
    json::object config;
    const char* path;
    const char* text;
  };
  const Case cases[] = {
      {"policy",
       {{"rules", json::array{json::object{{"verdict", 3}}}}},
       "/plugins/0/config/rules/0/verdict",
       "3 is not one of"},
      {"guard-paths",
       {{"read_roots", json::array{"/w", 3}}},
       "/plugins/0/config/read_roots/1",
       "must be a string, got 3"},
      {"guard-commands",
       {{"rules", {{"privilege", "yes"}}}},
       "/plugins/0/config/rules/privilege",
       "must be true or false, got \"yes\""},
      {"guard-secrets",
       {{"entropy", {{"threshold", "high"}}}},
       "/plugins/0/config/entropy/threshold",
       "must be a number, got \"high\""},
      {"rate-limit",
       {{"limits", json::array{json::object{{"count", 1}}}}},
       "/plugins/0/config/limits/0/seconds",
       "missing required key \"seconds\""},
      {"timeout", {{"default_ms", -1}}, "/plugins/0/config/default_ms", "got -1"},
      {"retry",
       {{"retry_on", json::array{"tool_error", 7}}},
       "/plugins/0/config/retry_on/1",
       "got 7"},
      {"redact", {{"note", "no"}}, "/plugins/0/config/note", "must be true or false, got \"no\""},
      {"audit", {{"path", json::array{}}}, "/plugins/0/config/path", "must be a string"},
      {"metrics",
       {{"path", "/tmp/x.prom"}, {"buckets", json::array{0.1, "1"}}},
       "/plugins/0/config/buckets/1",
       "must be a number, got \"1\""},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error(c.plugin, c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << c.plugin << ": " << e;
    EXPECT_TRUE(has(e, c.text)) << c.plugin << ": " << e;
    // From the host's schema check, not the plugin's own reader.
    EXPECT_TRUE(has(e, ": config/")) << c.plugin << ": " << e;
  }
}

TEST(LibraryConfigSchemas, AnEmptyToolListOrArgumentListIsRefusedNotReadAsEverything) {
  // "tools": [] names no tool; read as "every tool" (the key left out) it
  // would retry every tool or lift every deadline without a word, and an
  // empty argument list left guard-paths checking nothing (found by a
  // review).
  struct Case {
    const char* plugin;
    json::object config;
    const char* path;
  };
  const Case cases[] = {
      {"guard-commands", {{"tools", json::array{}}}, "/plugins/0/config/tools"},
      {"guard-secrets", {{"tools", json::array{}}}, "/plugins/0/config/tools"},
      {"redact", {{"tools", json::array{}}}, "/plugins/0/config/tools"},
      {"retry", {{"tools", json::array{}}}, "/plugins/0/config/tools"},
      {"timeout",
       {{"tools", json::array{json::object{{"tools", json::array{}}, {"ms", 0}}}}},
       "/plugins/0/config/tools/0/tools"},
      {"policy",
       {{"rules", json::array{json::object{{"tools", json::array{}}, {"verdict", "deny"}}}}},
       "/plugins/0/config/rules/0/tools"},
      {"guard-paths",
       {{"read_roots", json::array{"/w"}}, {"arguments", json::array{}}},
       "/plugins/0/config/arguments"},
      {"guard-paths",
       {{"read_roots", json::array{"/w"}},
        {"arguments", json::array{json::object{{"pointers", json::array{}}}}}},
       "/plugins/0/config/arguments/0/pointers"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error(c.plugin, c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << c.plugin << ": " << e;
  }
}

TEST(SampleNoWorld, ReadsTheNameFromItsConfigAndItsSchemaRefusesAWrongOne) {
  {
    Fixture f;
    TempDir dir;
    f.host.register_tool(toolgate::samples::greeting_tool());
    f.host.load_manifest(dir.write(
        "m.json",
        manifest_for("sample.no-world", sample_plugin("sample_no_world"), {{"name", "Bob"}})));
    auto r = f.call("greet", {{"name", "Bob"}});
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->message, "greeting Bob is not allowed");
    EXPECT_FALSE(f.call("greet", {{"name", "World"}}).is_error);
  }
  Fixture f;
  TempDir dir;
  try {
    f.host.load_manifest(
        dir.write("m.json", manifest_for("sample.no-world", sample_plugin("sample_no_world"),
                                         {{"name", json::array{"Bob"}}})));
    ADD_FAILURE() << "loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.json_path(), "/plugins/0/config/name");
    EXPECT_NE(std::string(e.what()).find("config/name: must be a string, got an array"),
              std::string::npos)
        << e.what();
  }
}
