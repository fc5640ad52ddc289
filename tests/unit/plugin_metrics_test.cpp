// plugins/metrics through the real loader: the Prometheus textfile after
// calls (counts by outcome, histograms, denials by guard, label escaping,
// the series cap), periodic atomic replacement, and bad configs.
#include "library_support.hpp"

#include <fstream>
#include <sstream>
#include <thread>

#include <sys/stat.h>

using namespace tgtest;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

// The value of the sample whose name and labels are `series` exactly.
std::optional<double> value_of(const std::string& text, const std::string& series) {
  auto pos = ("\n" + text).find("\n" + series + " ");
  if (pos == std::string::npos) return std::nullopt;
  return std::stod(text.substr(pos + series.size() + 1));
}

struct MetricsFixture : LibraryFixture {
  explicit MetricsFixture(const fs::path& out, json::object extra = {}) {
    host.add_guard("test", {"no-deny"}, [](const HookCall& c) -> std::optional<std::string> {
      if (c.arguments.contains("deny")) return std::string("test denies");
      return std::nullopt;
    });
    extra["path"] = out.string();
    load("metrics", extra);
  }
};

}  // namespace

TEST(MetricsPlugin, CountsHistogramsAndDenialsAreWrittenAtShutdown) {
  TempDir dir;
  const fs::path out = dir.path / "toolgate.prom";
  {
    MetricsFixture f(out, {{"interval_ms", 3600000}});
    ASSERT_TRUE(fs::exists(out));  // written once at load
    EXPECT_TRUE(has_line(slurp(out), "toolgate_calls_in_flight 0"));
    f.add_tool("we\"ird\\tool", 0);
    EXPECT_FALSE(f.call("echo").is_error);
    EXPECT_FALSE(f.call("echo", {{"x", 1}}).is_error);
    EXPECT_EQ(code_of(f.call("echo", {{"fail", true}})), "tool_error");
    EXPECT_EQ(code_of(f.call("echo", {{"deny", true}})), "denied");
    EXPECT_FALSE(f.call("we\"ird\\tool").is_error);
  }
  const std::string text = slurp(out);
  EXPECT_TRUE(has_line(text, "# TYPE toolgate_calls_total counter")) << text;
  EXPECT_TRUE(has_line(text, "toolgate_calls_total{tool=\"echo\",outcome=\"ok\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "toolgate_calls_total{tool=\"echo\",outcome=\"tool_error\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "toolgate_calls_total{tool=\"echo\",outcome=\"denied\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "toolgate_calls_total{tool=\"we\\\"ird\\\\tool\",outcome=\"ok\"} 1"))
      << text;
  // The wrapper saw the three executed echo calls, not the denied one.
  EXPECT_TRUE(has_line(text, "# TYPE toolgate_tool_duration_seconds histogram")) << text;
  EXPECT_EQ(value_of(text, "toolgate_tool_duration_seconds_count{tool=\"echo\"}").value_or(-1), 3.0)
      << text;
  EXPECT_EQ(value_of(text, "toolgate_tool_duration_seconds_bucket{tool=\"echo\",le=\"+Inf\"}")
                .value_or(-1),
            3.0)
      << text;
  EXPECT_GT(value_of(text, "toolgate_tool_duration_seconds_sum{tool=\"echo\"}").value_or(-1), 0.0)
      << text;
  // Buckets are cumulative: never decreasing, ending at the count.
  double prev = 0;
  int buckets = 0;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("toolgate_tool_duration_seconds_bucket{tool=\"echo\"", 0) != 0) continue;
    double v = std::stod(l.substr(l.rfind(' ') + 1));
    EXPECT_GE(v, prev) << l;
    prev = v;
    ++buckets;
  }
  EXPECT_EQ(buckets, 16);  // 15 default bounds + +Inf
  // Per stage, one observation per trail entry: the test guard ran 5 times.
  EXPECT_EQ(value_of(text, "toolgate_stage_duration_seconds_count{stage=\"guard\"}").value_or(-1),
            5.0)
      << text;
  EXPECT_EQ(
      value_of(text, "toolgate_stage_duration_seconds_count{stage=\"tool/body\"}").value_or(-1),
      4.0)
      << text;
  EXPECT_TRUE(has_line(text, "toolgate_guard_denials_total{guard=\"test/no-deny\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "toolgate_calls_in_flight 0")) << text;
}

TEST(MetricsPlugin, CustomBucketsAndTheSeriesCap) {
  TempDir dir;
  const fs::path out = dir.path / "m.prom";
  {
    MetricsFixture f(out, {{"buckets", json::array{0.5, 2}}, {"max_tools", 1}});
    f.add_tool("other", 0);
    f.call("echo");
    f.call("other");
    f.call("other");
  }
  const std::string text = slurp(out);
  EXPECT_TRUE(has_line(text, "toolgate_tool_duration_seconds_bucket{tool=\"echo\",le=\"0.5\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "toolgate_tool_duration_seconds_bucket{tool=\"echo\",le=\"2\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "toolgate_calls_total{tool=\"_other\",outcome=\"ok\"} 2")) << text;
  EXPECT_FALSE(has(text, "tool=\"other\"")) << text;
}

TEST(MetricsPlugin, PeriodicWritesReplaceTheFileAtomically) {
  TempDir dir;
  const fs::path out = dir.path / "toolgate.prom";
  MetricsFixture f(out, {{"interval_ms", 100}});
  struct stat before {};
  ASSERT_EQ(::stat(out.c_str(), &before), 0);

  // A reader that checks every version it sees is whole.
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, partial{0};
  std::thread reader([&] {
    while (!stop) {
      std::string t = slurp(out);
      if (t.empty() && !fs::exists(out)) {
        ++partial;  // the file must never be missing
        continue;
      }
      if (t.rfind("# HELP toolgate_calls_total", 0) != 0 || !has(t, "\ntoolgate_calls_in_flight "))
        ++partial;
      ++reads;
    }
  });
  for (int i = 0; i < 20; ++i) f.call("echo");
  // Generous wait for a periodic write that includes all 20 calls.
  bool seen = false;
  for (int i = 0; i < 100 && !seen; ++i) {
    std::this_thread::sleep_for(50ms);
    seen = has_line(slurp(out), "toolgate_calls_total{tool=\"echo\",outcome=\"ok\"} 20");
  }
  stop = true;
  reader.join();
  EXPECT_TRUE(seen) << slurp(out);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(partial.load(), 0);
  struct stat after {};
  ASSERT_EQ(::stat(out.c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino)
      << "the file is replaced by rename, not rewritten in place";
  // No temp files are left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++files;
  EXPECT_EQ(files, 1);
}

TEST(MetricsPlugin, BadConfigs) {
  TempDir dir;
  const std::string p = (dir.path / "m.prom").string();
  struct C {
    json::object config;
    const char* path;
    const char* text;
  };
  std::vector<C> cases = {
      {{}, "/plugins/0/config/path", "missing required key"},
      {{{"path", (dir.path / "nope" / "m.prom").string()}},
       "/plugins/0/config/path",
       "does not exist"},
      {{{"path", p}, {"interval_ms", 10}}, "/plugins/0/config/interval_ms", "integer from 100"},
      {{{"path", p}, {"buckets", "fast"}}, "/plugins/0/config/buckets", "must be an array"},
      {{{"path", p}, {"buckets", json::array{}}}, "/plugins/0/config/buckets", "must not be empty"},
      {{{"path", p}, {"buckets", json::array{1, 0.5}}},
       "/plugins/0/config/buckets/1",
       "larger than the bound before"},
      {{{"path", p}, {"buckets", json::array{0}}},
       "/plugins/0/config/buckets/0",
       "must be more than 0, got 0"},
      {{{"path", p}, {"max_tools", 0}}, "/plugins/0/config/max_tools", "integer from 1"},
      {{{"path", p}, {"file", "x"}}, "/plugins/0/config/file", "unknown key"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("metrics", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}
