// plugins/audit through the real loader, and its hash chain (chain.hpp):
// one record per call with identity, hashes and trail; tampering found at
// the right line; rotation, restarts, concurrent and shared writers keep one
// chain; strict config.
#include "library_support.hpp"

#include <chain.hpp>

#include <fstream>
#include <sstream>
#include <thread>

using namespace tgtest;
namespace audit = tgp::audit;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void write_lines(const fs::path& p, const std::vector<std::string>& lines,
                 bool last_newline = true) {
  std::ofstream out(p, std::ios::trunc);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out << lines[i];
    if (i + 1 < lines.size() || last_newline) out << '\n';
  }
}

// Verifies `files` in order; "" when the chain holds, else "FILE:LINE: what"
// with the file name only.
std::string verify(const std::vector<fs::path>& files, bool genesis = true,
                   std::uint64_t* records = nullptr) {
  audit::Verifier v(genesis);
  for (const auto& f : files)
    if (!v.feed_file(f.string())) break;
  if (records) *records = v.records();
  if (!v.problem()) return "";
  return fs::path(v.problem()->file).filename().string() + ":" + std::to_string(v.problem()->line) +
         ": " + v.problem()->what;
}

// A fixture with the audit plugin, a rewriting pre-execute hook and a guard.
struct AuditFixture : LibraryFixture {
  fs::path log;
  explicit AuditFixture(fs::path log_path, json::object extra = {}) : log(std::move(log_path)) {
    host.add_pre_execute("test", {"rewrite"}, [](const HookCall& c) {
      if (!c.arguments.contains("rewrite")) return PreVerdict::keep();
      json::object a = c.arguments;
      a["added"] = 1;
      return PreVerdict::keep().with_arguments(std::move(a));
    });
    host.add_guard("test", {"no-deny"}, [](const HookCall& c) -> std::optional<std::string> {
      if (c.arguments.contains("deny")) return std::string("test denies");
      return std::nullopt;
    });
    json::object config = std::move(extra);
    config["path"] = log.string();
    load("audit", config);
  }
};

}  // namespace

TEST(AuditPlugin, OneRecordPerCallWithIdentityHashesVerdictsAndGeneration) {
  TempDir dir;
  const fs::path log = dir.path / "logs" / "audit.jsonl";  // the folder is created
  {
    AuditFixture f(log);
    EXPECT_FALSE(f.call("echo", {{"name", "a"}}).is_error);
    EXPECT_FALSE(f.call("echo", {{"rewrite", true}}).is_error);
    EXPECT_EQ(code_of(f.call("echo", {{"deny", true}})), "denied");
    EXPECT_EQ(code_of(f.call("echo", {{"fail", true}})), "tool_error");
  }
  auto lines = lines_of(log);
  ASSERT_EQ(lines.size(), 4u);
  std::vector<json::object> r;
  for (const auto& l : lines) r.push_back(json::parse(l).as_object());

  EXPECT_EQ(r[0].at("v"), 1);
  EXPECT_EQ(r[0].at("seq"), 1);
  EXPECT_EQ(r[0].at("prev").as_string(), audit::kGenesis);
  for (std::size_t i = 1; i < r.size(); ++i) {
    EXPECT_EQ(r[i].at("seq").to_number<int>(), static_cast<int>(i + 1));
    EXPECT_EQ(r[i].at("prev"), r[i - 1].at("hash"));
  }
  // Identity and hashes (canonical JSON, so key order does not matter).
  EXPECT_EQ(r[0].at("call").at("tool"), "echo");
  EXPECT_EQ(r[0].at("call").at("session_id"), "test");
  EXPECT_FALSE(r[0].at("call").at("call_id").as_string().empty());
  EXPECT_TRUE(r[0].at("call").as_object().contains("parent_token"));
  EXPECT_EQ(r[0].at("outcome"), "ok");
  EXPECT_TRUE(r[0].at("generation").is_number());
  EXPECT_EQ(r[0].at("sha256").at("original_arguments").as_string(),
            audit::json_sha256(json::object{{"name", "a"}}));
  EXPECT_EQ(r[0].at("sha256").at("final_arguments"), r[0].at("sha256").at("original_arguments"));
  EXPECT_EQ(r[0].at("rewritten"), false);
  EXPECT_FALSE(has(lines[0], "\"name\":\"a\""))
      << "arguments are hashed, never written: " << lines[0];

  // The rewrite: both hashes, and the trail keeps hashes of both sides.
  EXPECT_EQ(r[1].at("rewritten"), true);
  EXPECT_EQ(r[1].at("sha256").at("final_arguments").as_string(),
            audit::json_sha256(json::object{{"added", 1}, {"rewrite", true}}));
  EXPECT_TRUE(has(lines[1], "\"arguments_after_sha256\":\"" +
                                audit::json_sha256(json::object{{"rewrite", true}, {"added", 1}})))
      << lines[1];
  EXPECT_FALSE(has(lines[1], "\"arguments_after\":"));

  // The denial: outcome, error and the guard's verdict with its reason.
  EXPECT_EQ(r[2].at("outcome"), "denied");
  EXPECT_EQ(r[2].at("error").at("source"), "test/no-deny");
  bool guard_entry = false;
  for (const auto& e : r[2].at("trail").as_array())
    if (e.at("stage") == "guard" && e.at("source") == "test/no-deny" && e.at("verdict") == "deny" &&
        e.at("reason") == "test denies" && e.at("ns").is_int64())
      guard_entry = true;
  EXPECT_TRUE(guard_entry) << lines[2];
  EXPECT_EQ(r[3].at("outcome"), "tool_error");
  EXPECT_GE(r[3].at("trail_ns").as_int64(), 0);

  std::uint64_t n = 0;
  EXPECT_EQ(verify({log}, true, &n), "");
  EXPECT_EQ(n, 4u);
}

TEST(AuditChain, AlteredRemovedReorderedAndTruncatedRecordsAreFoundAtTheirLine) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  {
    AuditFixture f(log);
    for (int i = 0; i < 5; ++i) f.call("echo", {{"i", i}});
  }
  const auto good = lines_of(log);
  ASSERT_EQ(good.size(), 5u);
  ASSERT_EQ(verify({log}), "");
  const fs::path t = dir.path / "t.jsonl";
  auto check = [&](std::vector<std::string> lines, const std::string& want, bool newline = true) {
    write_lines(t, lines, newline);
    std::string got = verify({t});
    EXPECT_EQ(got.substr(0, want.size()), want) << got;
  };

  // Edited in place: the record no longer matches its own hash.
  auto edited = good;
  edited[2].replace(edited[2].find("\"echo\""), 6, "\"ecxo\"");
  check(edited, "t.jsonl:3: altered");
  // Edited and re-sealed: the next record's prev no longer matches.
  auto resealed = good;
  std::string body = edited[2].substr(0, edited[2].size() - audit::kSealSize);
  resealed[2] = audit::seal(body);
  check(resealed, "t.jsonl:4: broken chain");
  // Removed: a gap in seq where it was.
  auto removed = good;
  removed.erase(removed.begin() + 2);
  check(removed, "t.jsonl:3: missing record(s): expected seq 3, found 4");
  // Reordered (swap 2 and 3): seq 3 where 2 belongs.
  auto swapped = good;
  std::swap(swapped[1], swapped[2]);
  check(swapped, "t.jsonl:2: missing record(s): expected seq 2, found 3");
  // Duplicated: seq goes backwards.
  auto dup = good;
  dup.insert(dup.begin() + 2, good[1]);
  check(dup, "t.jsonl:3: out of order: seq 2 after seq 2");
  // The first record removed: the chain does not start at the genesis.
  check({good.begin() + 1, good.end()}, "t.jsonl:1: missing record(s): expected seq 1, found 2");
  // ...which is accepted when verifying a suffix on purpose.
  write_lines(t, {good.begin() + 1, good.end()});
  EXPECT_EQ(verify({t}, false), "");
  // Cut short mid-record, and a last line with no newline.
  auto cut = good;
  cut[4].resize(cut[4].size() / 2);
  check(cut, "t.jsonl:5: not a sealed record");
  check(good, "t.jsonl:5: incomplete record", false);
  // Not JSON at all, an empty line.
  auto junk = good;
  junk[1] = "hello";
  check(junk, "t.jsonl:2: not a sealed record");
  auto blank = good;
  blank.insert(blank.begin() + 1, "");
  check(blank, "t.jsonl:2: empty line");
}

TEST(AuditPlugin, RotationKeepsTheChainAcrossFiles) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  {
    AuditFixture f(log, {{"max_bytes", 2500}, {"fsync", 3}});
    for (int i = 0; i < 12; ++i) f.call("echo", {{"i", i}});
  }
  auto rotated = audit::rotated_files(log);
  ASSERT_GE(rotated.size(), 2u);
  std::vector<fs::path> files;
  std::size_t total = 0;
  for (const auto& [index, p] : rotated) {
    EXPECT_EQ(index, files.size() + 1);
    EXPECT_LE(fs::file_size(p), 2500u);
    total += lines_of(p).size();
    files.push_back(p);
  }
  files.push_back(log);
  total += lines_of(log).size();
  EXPECT_EQ(total, 12u);
  // The first record of each new file chains to the last of the one before.
  auto last = json::parse(lines_of(files[0]).back());
  auto first = json::parse(lines_of(files[1]).front());
  EXPECT_EQ(first.at("prev"), last.at("hash"));
  EXPECT_EQ(first.at("seq").to_number<int>(), last.at("seq").to_number<int>() + 1);

  std::uint64_t n = 0;
  EXPECT_EQ(verify(files, true, &n), "");
  EXPECT_EQ(n, 12u);
  // A missing middle file, and files out of order, are found.
  auto gap = files;
  gap.erase(gap.begin() + 1);
  EXPECT_TRUE(has(verify(gap), ":1: missing record(s)")) << verify(gap);
  auto reversed = files;
  std::swap(reversed[0], reversed[1]);
  EXPECT_FALSE(verify(reversed).empty());
}

TEST(AuditPlugin, ARestartContinuesTheChainAndATornLogIsRefused) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  for (int run = 0; run < 2; ++run) {
    AuditFixture f(log, {{"max_bytes", 1}});  // every record in its own file
    f.call("echo");
    f.call("echo");
  }
  std::vector<fs::path> files;
  for (const auto& [i, p] : audit::rotated_files(log)) files.push_back(p);
  files.push_back(log);
  std::uint64_t n = 0;
  EXPECT_EQ(verify(files, true, &n), "");
  EXPECT_EQ(n, 4u);

  // A torn last record: the plugin will not fork the chain from it.
  auto lines = lines_of(log);
  write_lines(log, lines, false);
  LibraryFixture f;
  std::string e = f.config_error("audit", {{"path", log.string()}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/path") << e;
  EXPECT_TRUE(has(e, "incomplete")) << e;
  EXPECT_TRUE(has(e, "toolgate audit verify")) << e;

  // A log that ends in an empty line is refused too.
  const fs::path blank = dir.path / "blank.jsonl";
  write_lines(blank, {""});
  LibraryFixture g;
  e = g.config_error("audit", {{"path", blank.string()}});
  EXPECT_TRUE(has(e, "is empty")) << e;
}

TEST(AuditPlugin, ConcurrentCallsAndTwoWritersOnOneLogKeepOneChain) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  {
    // Two plugin instances on one log, as during a hot reload of the plugin
    // (the old one finishing in-flight calls) or two hosts sharing a file;
    // small files, so they also rotate under each other.
    AuditFixture a(log, {{"max_bytes", 6000}, {"fsync", "never"}});
    AuditFixture b(log, {{"max_bytes", 6000}, {"fsync", "never"}});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 25; ++i) (t % 2 ? a : b).call("echo", {{"t", t}, {"i", i}});
      });
    for (auto& t : threads) t.join();
  }
  std::vector<fs::path> files;
  for (const auto& [i, p] : audit::rotated_files(log)) files.push_back(p);
  files.push_back(log);
  EXPECT_GE(files.size(), 2u);
  std::uint64_t n = 0;
  EXPECT_EQ(verify(files, true, &n), "");
  EXPECT_EQ(n, 100u);
}

TEST(AuditPlugin, FsyncPolicies) {
  for (const json::value& policy :
       {json::value("always"), json::value("never"), json::value(1), json::value(10)}) {
    TempDir dir;
    const fs::path log = dir.path / "audit.jsonl";
    {
      AuditFixture f(log, {{"fsync", policy}});
      f.call("echo");
      f.call("echo");
    }
    EXPECT_EQ(verify({log}), "") << json::serialize(policy);
    EXPECT_EQ(lines_of(log).size(), 2u) << json::serialize(policy);
  }
}

TEST(AuditPlugin, BadConfigs) {
  TempDir dir;
  const std::string p = (dir.path / "a.jsonl").string();
  struct C {
    json::object config;
    const char* path;
    const char* text;
  };
  std::vector<C> cases = {
      {{}, "/plugins/0/config/path", "missing required key"},
      {{{"path", ""}}, "/plugins/0/config/path", "must name the audit log"},
      {{{"path", 3}}, "/plugins/0/config/path", "must be a string"},
      {{{"path", p}, {"fsync", "sometimes"}}, "/plugins/0/config/fsync", "must be \"always\""},
      {{{"path", p}, {"fsync", 0}}, "/plugins/0/config/fsync", "integer N from 1"},
      {{{"path", p}, {"fsync", true}}, "/plugins/0/config/fsync", "must be \"always\""},
      {{{"path", p}, {"max_bytes", -1}}, "/plugins/0/config/max_bytes", "integer from 0"},
      {{{"path", p}, {"rotate", 1}}, "/plugins/0/config/rotate", "unknown key"},
      {{{"path", dir.path.string()}}, "/plugins/0/config/path", "cannot open the audit log"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("audit", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}
