// The build check shared by `toolgate inspect` and the loaders
// (loading/plugin_build_check.hpp): what it finds in deliberately bad
// builds, how it summarises thousands of symbols, and what the loaders do
// with it -- a warning naming plugin, path, problem and fix by default, a
// refusal in strict mode (LoadOptions::strict_plugin_builds); and the
// permission fix the loaders and inspect share.
#include "test_support.hpp"

#include "loading/elf_file.hpp"
#include "loading/file_permissions.hpp"
#include "loading/plugin_build_check.hpp"

#include <dlfcn.h>
#include <unistd.h>

using namespace tgtest;
namespace detail = toolgate::detail;

namespace {

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

const detail::BuildProblem* find(const std::vector<detail::BuildProblem>& ps,
                                 const std::string& code) {
  for (const auto& p : ps)
    if (p.code == code) return &p;
  return nullptr;
}

std::vector<detail::BuildProblem> problems_of_loaded(const std::string& plugin) {
  auto img = detail::read_elf(test_plugin(plugin));
  void* h = ::dlopen(test_plugin(plugin).c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << ::dlerror();
  auto out = detail::bad_build_problems(img, h);
  if (h) ::dlclose(h);
  return out;
}

}  // namespace

TEST(BuildCheck, AHelperBuiltPluginHasNoProblem) {
  EXPECT_TRUE(detail::image_problems(detail::read_elf(test_plugin("testkit"))).empty());
  EXPECT_TRUE(problems_of_loaded("testkit").empty());
  EXPECT_TRUE(problems_of_loaded("reload_guard_a").empty());
}

TEST(BuildCheck, ExtraExportsAndGnuUniqueSymbolsAreFoundDemangled) {
  auto ps = problems_of_loaded("bad_build_exports");
  const auto* extra = find(ps, "extra_exports");
  ASSERT_TRUE(extra);
  EXPECT_HAS(extra->message, "besides toolgate_plugin_entry: ");
  EXPECT_HAS(extra->message, "bad_build_extra_export");
  EXPECT_HAS(extra->fix, "toolgate_add_plugin()");
  EXPECT_HAS(extra->fix, "version script");
  const auto* unique = find(ps, "gnu_unique");
  ASSERT_TRUE(unique);
  // Demangled: "shared_counter()::counter", not "_ZZ14shared_countervE7counter".
  EXPECT_HAS(unique->message, "shared_counter()::counter");
  EXPECT_HAS(unique->fix, "-fno-gnu-unique");
  EXPECT_TRUE(extra->bad_build && unique->bad_build);
  EXPECT_FALSE(find(ps, "host_symbols"));
}

TEST(BuildCheck, ASymbolOnlyTheHostDefinesIsFoundOnceLoaded) {
  // The file alone is clean (hidden, version script): only the loaded
  // image shows that std::terminate came from this test program.
  EXPECT_TRUE(
      detail::image_problems(detail::read_elf(test_plugin("bad_build_host_symbol"))).empty());
  auto ps = problems_of_loaded("bad_build_host_symbol");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].code, "host_symbols");
  EXPECT_HAS(ps[0].message,
             "1 undefined symbol(s) that no library it links defines: std::terminate()");
  EXPECT_HAS(ps[0].message, "without -z defs");
  EXPECT_HAS(ps[0].fix, "-Wl,-z,defs");
}

TEST(BuildCheck, ImagesTheLoaderRefusesAnywayAreNotBadBuilds) {
  auto no_entry = detail::image_problems(detail::read_elf(test_plugin("variant_no_entry")));
  const auto* p = find(no_entry, "no_entry");
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->bad_build);
  TempDir dir;
  auto fake = dir.write("fake.so", "not a plugin");
  auto ps = detail::image_problems(detail::read_elf(fake));
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].code, "not_a_plugin_image");
  EXPECT_FALSE(ps[0].bad_build);
}

TEST(BuildCheck, LongSymbolListsAreTruncatedAndDemangled) {
  std::vector<std::string> names;
  for (int i = 0; i < 2819; ++i) names.push_back("_Z3fooi");
  names[0] = "plain_c_name";  // C names stay as they are ("f" is no "float")
  auto s = detail::symbol_list(names);
  EXPECT_EQ(s.rfind("plain_c_name, foo(int), foo(int)", 0), 0u) << s;
  EXPECT_HAS(s, " (and 2809 more)");
  EXPECT_LT(s.size(), 200u);
  EXPECT_EQ(detail::demangled("f"), "f");
  EXPECT_EQ(detail::demangled("_Z3fooi"), "foo(int)");
  EXPECT_EQ(detail::demangled("_Znot-a-mangled-name"), "_Znot-a-mangled-name");
  EXPECT_EQ(detail::symbol_list({"a", "b"}), "a, b");
}

namespace {

struct StrictLoading : ::testing::Test {
  TempDir dir;
  Host host;
  std::filesystem::path manifest(const std::string& plugin, const std::string& id) {
    return dir.write("m.json", manifest_for(id, test_plugin(plugin)));
  }
};

}  // namespace

TEST_F(StrictLoading, ByDefaultABadBuildLoadsWithOneWarningPerProblem) {
  auto rec = std::make_shared<Recorder>();
  host.subscribe([rec](const Event& e) { (*rec)(e); });
  auto report = host.load_manifest(manifest("bad_build_exports", "test.bad-build"));
  // And one event per problem, for --events and embedders' subscribers.
  auto events = rec->of_type("plugin/build-warning");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data.at("plugin"), "test.bad-build");
  EXPECT_EQ(std::string(events[0].data.at("path").as_string()), test_plugin("bad_build_exports"));
  EXPECT_EQ(events[0].data.at("code"), "extra_exports");
  EXPECT_EQ(events[1].data.at("code"), "gnu_unique");
  EXPECT_HAS(std::string(events[1].data.at("fix").as_string()), "-fno-gnu-unique");
  ASSERT_EQ(report.plugins.size(), 1u);
  ASSERT_EQ(report.build_warnings.size(), 2u);  // extra exports, GNU unique
  for (const auto& w : report.build_warnings) {
    EXPECT_HAS(w, "plugin \"test.bad-build\" (" + test_plugin("bad_build_exports") + ")");
    EXPECT_HAS(w, "; fix: ");
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;  // one line each
  }
  EXPECT_HAS(report.build_warnings[0], "(extra_exports): exports ");
  EXPECT_HAS(report.build_warnings[1], "(gnu_unique): has ");
  EXPECT_EQ(host.describe().at("guard").as_array().size(), 1u);
}

TEST_F(StrictLoading, StrictRefusesABadBuildNamingPluginProblemsAndFix) {
  LoadOptions o;
  o.strict_plugin_builds = true;
  try {
    host.load_manifest(manifest("bad_build_exports", "test.bad-build"), o);
    FAIL() << "loaded a bad build in strict mode";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.json_path(), "/plugins/0/path");
    EXPECT_HAS(e.problem(), "plugin \"test.bad-build\" (" + test_plugin("bad_build_exports") + ")");
    EXPECT_HAS(e.problem(), "refused in strict mode");
    EXPECT_HAS(e.problem(), "extra_exports: exports ");
    EXPECT_HAS(e.problem(), "gnu_unique: has ");
    EXPECT_HAS(e.fix(), "toolgate_add_plugin()");
    EXPECT_HAS(e.fix(), "-fno-gnu-unique");
  }
  EXPECT_TRUE(host.describe().at("plugins").as_array().empty());
}

TEST_F(StrictLoading, StrictRefusesASymbolOnlyTheHostDefines) {
  LoadOptions o;
  o.strict_plugin_builds = true;
  auto m = manifest("bad_build_host_symbol", "test.host-symbol");
  try {
    host.load_manifest(m, o);
    FAIL() << "loaded a plugin that relies on the host's symbols in strict mode";
  } catch (const LoadError& e) {
    EXPECT_HAS(e.problem(), "refused in strict mode: its build is wrong: host_symbols: ");
    EXPECT_HAS(e.problem(), "std::terminate()");
  }
  // Not strict: loads, with the warning.
  auto report = host.load_manifest(m);
  ASSERT_EQ(report.build_warnings.size(), 1u);
  EXPECT_HAS(report.build_warnings[0], "(host_symbols)");
}

TEST_F(StrictLoading, StrictLoadsAGoodBuildWithoutWarnings) {
  LoadOptions o;
  o.strict_plugin_builds = true;
  auto report = host.load_manifest(manifest("variant_ok", "test.variant"), o);
  EXPECT_EQ(report.plugins.size(), 1u);
  EXPECT_TRUE(report.build_warnings.empty());
}

// The permission check the loaders and inspect share names the entry at
// fault, so the fix is a command for that entry, not "fix the owner".
TEST(PermissionFix, NamesTheEntryAndTheChangeForEachKind) {
  TempDir dir;
  auto file = dir.write("p.so", "x");
  EXPECT_FALSE(detail::permission_problem(file));
  std::filesystem::permissions(file, std::filesystem::perms::group_write,
                               std::filesystem::perm_options::add);
  auto writable = detail::permission_problem(file);
  ASSERT_TRUE(writable);
  EXPECT_EQ(writable->kind, detail::PermissionProblem::Kind::writable);
  EXPECT_EQ(writable->where, file);
  EXPECT_EQ(detail::permission_fix(*writable).rfind("chmod g-w,o-w " + file.string(), 0), 0u)
      << detail::permission_fix(*writable);
  EXPECT_HAS(detail::permission_fix(*writable), "--allow-insecure-plugin-permissions");
  auto link = dir.path / "dangling.so";
  std::filesystem::create_symlink(dir.path / "nothing.so", link);
  auto dangling = detail::permission_problem(link);
  ASSERT_TRUE(dangling);
  EXPECT_EQ(dangling->kind, detail::PermissionProblem::Kind::unresolvable);
  EXPECT_HAS(detail::permission_fix(*dangling), "so it resolves");
  if (::geteuid() == 0) {  // only root can give a file away
    auto other = dir.write("other.so", "x");
    ASSERT_EQ(::chown(other.c_str(), 4242, 4242), 0);
    auto foreign = detail::permission_problem(other);
    ASSERT_TRUE(foreign);
    EXPECT_EQ(foreign->kind, detail::PermissionProblem::Kind::foreign_owner);
    EXPECT_HAS(detail::permission_fix(*foreign), "(chown) " + other.string());
  }
}
