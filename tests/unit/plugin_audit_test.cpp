// plugins/audit through the real loader, and its hash chain (chain.hpp):
// one record per call with identity, hashes and trail; tampering found at
// the right line; rotation, restarts, concurrent and shared writers keep one
// chain; strict config; no writing through symbolic links; verify streams
// with a line cap and refuses devices; keyed (HMAC) chains and anchor files,
// with each attack of the table in plugins/README.md#audit against each
// mode.
#include "library_support.hpp"

#include <chain.hpp>

#include <fstream>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

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
      // Shape errors come from the schema the plugin declares (checked by the
      // host before init): each form that was allowed, and why it did not fit.
      {{{"path", p}, {"fsync", "sometimes"}},
       "/plugins/0/config/fsync",
       "\"sometimes\" is not one of \"always\", \"never\"; or must be an integer"},
      {{{"path", p}, {"fsync", 0}},
       "/plugins/0/config/fsync",
       "must be an integer from 1 to 1000000, got 0"},
      {{{"path", p}, {"fsync", true}},
       "/plugins/0/config/fsync",
       "true is not one of \"always\", \"never\"; or must be an integer, got true"},
      {{{"path", p}, {"max_bytes", -1}}, "/plugins/0/config/max_bytes", "integer from 0"},
      {{{"path", p}, {"rotate", 1}}, "/plugins/0/config/rotate", "unknown key"},
      {{{"path", dir.path.string()}}, "/plugins/0/config/path", "cannot open the audit log"},
      {{{"path", p}, {"hmac_key_file", ""}},
       "/plugins/0/config/hmac_key_file",
       "must name the file"},
      {{{"path", p}, {"hmac_key_file", 1}}, "/plugins/0/config/hmac_key_file", "must be a string"},
      {{{"path", p}, {"anchor_file", ""}}, "/plugins/0/config/anchor_file", "must name the file"},
      {{{"path", p}, {"anchor_file", dir.path.string()}},
       "/plugins/0/config/anchor_file",
       "cannot open the anchor file"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("audit", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}

// ---- issue 13: symbolic links, non-regular files, a line cap ----------------------------

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(AuditPlugin, ASymlinkAtTheLogPathIsRefusedAndNothingIsWrittenThroughIt) {
  TempDir dir;
  const fs::path victim = dir.path / "victim";
  write_lines(victim, {"precious"});
  const fs::path log = dir.path / "audit.jsonl";
  fs::create_symlink(victim, log);
  {
    LibraryFixture f;
    std::string e = f.config_error("audit", {{"path", log.string()}});
    EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/path") << e;
    EXPECT_TRUE(has(e, log.string() + " is a symbolic link")) << e;
    EXPECT_TRUE(has(e, "remove the link")) << e;
  }
  EXPECT_EQ(slurp(victim), "precious\n");
  // A dangling link: following it would create its target.
  const fs::path target = dir.path / "created-by-root";
  const fs::path dangling = dir.path / "dangling.jsonl";
  fs::create_symlink(target, dangling);
  LibraryFixture f;
  std::string e = f.config_error("audit", {{"path", dangling.string()}});
  EXPECT_TRUE(has(e, "is a symbolic link")) << e;
  EXPECT_FALSE(fs::exists(target));
}

TEST(AuditPlugin, ASymlinkPlantedAsTheNewestRotatedFileIsNotFollowed) {
  TempDir dir;
  const fs::path elsewhere = dir.path / "other" / "audit.jsonl";
  {
    AuditFixture f(elsewhere);
    f.call("echo");
  }
  // No active file; the newest "rotated file" is a link to another chain.
  const fs::path log = dir.path / "audit.jsonl";
  fs::create_symlink(elsewhere, audit::rotated_name(log, 1));
  LibraryFixture f;
  std::string e = f.config_error("audit", {{"path", log.string()}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/path") << e;
  EXPECT_TRUE(has(e, audit::rotated_name(log, 1).string() + " is a symbolic link")) << e;
}

TEST(AuditPlugin, AFifoAtTheLogPathIsRefusedWithoutHanging) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  ASSERT_EQ(::mkfifo(log.c_str(), 0600), 0);
  LibraryFixture f;
  std::string e = f.config_error("audit", {{"path", log.string()}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/path") << e;
  EXPECT_TRUE(has(e, "not a regular file")) << e;
}

TEST(AuditChain, VerifyRefusesDevicesFifosAndFoldersAndCapsTheLineLength) {
  TempDir dir;
  audit::Verifier zero;
  EXPECT_FALSE(zero.feed_file("/dev/zero"));
  EXPECT_TRUE(has(zero.problem()->what, "is a character device, not a regular file"))
      << zero.problem()->what;
  const fs::path fifo = dir.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  audit::Verifier f;
  EXPECT_FALSE(f.feed_file(fifo.string()));  // returns: opening does not wait for a writer
  EXPECT_TRUE(has(f.problem()->what, "is a FIFO")) << f.problem()->what;
  audit::Verifier d;
  EXPECT_FALSE(d.feed_file(dir.path.string()));
  EXPECT_TRUE(has(d.problem()->what, "is a folder")) << d.problem()->what;

  // A line over the cap is a problem at its line, read no further.
  const fs::path log = dir.path / "audit.jsonl";
  {
    AuditFixture a(log);
    a.call("echo");
  }
  auto lines = lines_of(log);
  const fs::path big = dir.path / "big.jsonl";
  write_lines(big, {lines[0], std::string(5000, 'x'), "never read"});
  audit::VerifyOptions o;
  o.max_line_bytes = 4096;
  audit::Verifier v(o);
  EXPECT_FALSE(v.feed_file(big.string()));
  EXPECT_EQ(v.problem()->line, 2u);
  EXPECT_TRUE(has(v.problem()->what, "longer than the 4096-byte limit")) << v.problem()->what;
  EXPECT_EQ(v.records(), 1u);
  // The same without a newline anywhere (a file of zeros).
  const fs::path zeros = dir.path / "zeros";
  std::ofstream(zeros) << std::string(10000, '\0');
  audit::Verifier z(o);
  EXPECT_FALSE(z.feed_file(zeros.string()));
  EXPECT_EQ(z.problem()->line, 1u);
  EXPECT_TRUE(has(z.problem()->what, "longer than the 4096-byte limit")) << z.problem()->what;
}

// ---- issue 14: keyed chains and anchors ---------------------------------------------------

namespace {

// A key file with `n` random-looking bytes and mode `mode`.
fs::path key_file(const fs::path& dir, const std::string& name, std::size_t n = 32,
                  mode_t mode = 0600) {
  const fs::path p = dir / name;
  std::string bytes;
  for (std::size_t i = 0; i < n; ++i) bytes += static_cast<char>((i * 131 + name.size()) % 251);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  fs::permissions(p, static_cast<fs::perms>(mode), fs::perm_options::replace);
  return p;
}

// The verdict of `toolgate audit verify` on one log: "ok", "UNVERIFIED" (a
// keyed chain without its key) or "FAIL FILE:LINE: what".
std::string verdict(const fs::path& log, const audit::Key* key = nullptr,
                    const fs::path& anchor = {}) {
  audit::VerifyOptions o;
  o.key = key;
  audit::Verifier v(o);
  bool ok = anchor.empty() || v.use_anchor_file(anchor.string());
  ok = ok && v.feed_file(log.string());
  if (ok) v.finish();
  if (const auto& p = v.problem())
    return "FAIL " + fs::path(p->file).filename().string() + ":" + std::to_string(p->line) + ": " +
           p->what;
  return v.unauthenticated() ? "UNVERIFIED" : "ok";
}

std::string unsealed_of(const std::string& line) {
  return line.substr(0, line.size() - audit::kSealSize);
}
std::string hash_of(const std::string& line) { return line.substr(line.size() - 66, 64); }

// The attacker does not have the key: a keyed record is sealed with a key
// of the attacker's own, an unkeyed one with SHA-256 (which anyone can).
std::string attacker_seal(const std::string& unsealed) {
  static const audit::Key guess(std::string(32, 'A'));
  return has(unsealed, "\"chain\":\"hmac-sha256\"") ? audit::seal(unsealed, nullptr, &guess)
                                                    : audit::seal(unsealed);
}
std::string with_prev(std::string unsealed, const std::string& prev) {
  unsealed.replace(unsealed.find("\"prev\":\"") + 8, 64, prev);
  return unsealed;
}
std::string with_seq(std::string unsealed, std::uint64_t seq) {
  const auto at = unsealed.find("\"seq\":") + 6;
  unsealed.replace(at, unsealed.find(',', at) - at, std::to_string(seq));
  return unsealed;
}
// Re-seals lines[from..] so that each links to the one before it.
void rechain(std::vector<std::string>& lines, std::size_t from) {
  for (std::size_t i = from; i < lines.size(); ++i)
    lines[i] = attacker_seal(
        with_prev(unsealed_of(lines[i]), i ? hash_of(lines[i - 1]) : std::string(audit::kGenesis)));
}

// Two logs of five calls written by the plugin, each with an anchor file:
// one unkeyed, one keyed.  Attacks are applied to copies (t.jsonl) and
// verified in every mode.
struct Logs {
  TempDir dir;
  fs::path plain, plain_anchor, keyed, keyed_anchor, t;
  std::unique_ptr<audit::Key> key;
  Logs() {
    plain = dir.path / "plain.jsonl";
    plain_anchor = dir.path / "anchors" / "plain.anchor";
    keyed = dir.path / "keyed.jsonl";
    keyed_anchor = dir.path / "anchors" / "keyed.anchor";
    t = dir.path / "t.jsonl";
    const fs::path k = key_file(dir.path, "audit.key");
    key = audit::read_key_file(k);
    {
      AuditFixture p(plain, {{"anchor_file", plain_anchor.string()}});
      AuditFixture q(keyed,
                     {{"anchor_file", keyed_anchor.string()}, {"hmac_key_file", k.string()}});
      for (int i = 0; i < 5; ++i) {
        p.call("echo", {{"i", i}});
        q.call("echo", {{"i", i}});
      }
    }
  }
  // Verdicts on t.jsonl, attacked from `plain` or `keyed`.
  std::string unkeyed() { return verdict(t); }
  std::string unkeyed_anchor() { return verdict(t, nullptr, plain_anchor); }
  std::string keyed_with_key() { return verdict(t, key.get()); }
  std::string keyed_anchor_with_key() { return verdict(t, key.get(), keyed_anchor); }
  std::string keyed_without_key() { return verdict(t); }
};

#define EXPECT_VERDICT(got, want) \
  EXPECT_EQ((got).substr(0, std::string(want).size()), want) << (got)

}  // namespace

TEST(AuditKeyed, RecordsSayTheyAreKeyedAndVerifyOnlyWithTheKey) {
  Logs l;
  auto lines = lines_of(l.keyed);
  ASSERT_EQ(lines.size(), 5u);
  for (const auto& line : lines) {
    EXPECT_EQ(line.substr(0, 35), "{\"v\":1,\"chain\":\"hmac-sha256\",\"seq\":") << line;
    // The hash is an HMAC, not the plain SHA-256 of the record.
    EXPECT_NE(hash_of(line), audit::sha256_hex(unsealed_of(line)));
    EXPECT_EQ(hash_of(line), audit::hmac_sha256_hex(*l.key, unsealed_of(line)));
  }
  EXPECT_EQ(verdict(l.keyed, l.key.get()), "ok");
  EXPECT_EQ(verdict(l.keyed, l.key.get(), l.keyed_anchor), "ok");
  // Without the key: never "ok".
  EXPECT_EQ(verdict(l.keyed), "UNVERIFIED");
  // The wrong key: the first record is reported.
  const audit::Key wrong(std::string(32, 'w'));
  EXPECT_VERDICT(verdict(l.keyed, &wrong), "FAIL keyed.jsonl:1: altered or forged");
  // An unkeyed chain checked with a key is refused (fail closed).
  EXPECT_VERDICT(verdict(l.plain, l.key.get()), "FAIL plain.jsonl:1: not keyed");
  // The unkeyed format is unchanged and still verifies.
  EXPECT_EQ(lines_of(l.plain)[0].substr(0, 13), "{\"v\":1,\"seq\":");
  EXPECT_EQ(verdict(l.plain), "ok");
  EXPECT_EQ(verdict(l.plain, nullptr, l.plain_anchor), "ok");
}

TEST(AuditAttack, BitFlip) {
  Logs l;
  for (bool keyed : {false, true}) {
    auto lines = lines_of(keyed ? l.keyed : l.plain);
    lines[2].replace(lines[2].find("\"echo\""), 6, "\"ecxo\"");
    write_lines(l.t, lines);
    if (!keyed) {
      EXPECT_VERDICT(l.unkeyed(), "FAIL t.jsonl:3: altered: its content does not match");
      EXPECT_VERDICT(l.unkeyed_anchor(), "FAIL t.jsonl:3: altered");
    } else {
      EXPECT_VERDICT(l.keyed_with_key(), "FAIL t.jsonl:3: altered or forged");
      EXPECT_VERDICT(l.keyed_anchor_with_key(), "FAIL t.jsonl:3: altered or forged");
      EXPECT_EQ(l.keyed_without_key(), "UNVERIFIED");  // the HMAC cannot be checked
    }
  }
}

TEST(AuditAttack, TruncationAtARecordBoundary) {
  Logs l;
  for (bool keyed : {false, true}) {
    auto lines = lines_of(keyed ? l.keyed : l.plain);
    lines.resize(3);  // records 4 and 5 cut off
    write_lines(l.t, lines);
    if (!keyed) {
      EXPECT_EQ(l.unkeyed(), "ok");  // no chain can see it
      EXPECT_VERDICT(l.unkeyed_anchor(), "FAIL t.jsonl:0: truncated: " + l.plain_anchor.string() +
                                             " line 4 anchors seq 4, but the log ends at seq 3");
    } else {
      EXPECT_EQ(l.keyed_with_key(), "ok");  // a key does not help either
      EXPECT_VERDICT(l.keyed_anchor_with_key(), "FAIL t.jsonl:0: truncated");
      EXPECT_EQ(l.keyed_without_key(), "UNVERIFIED");
    }
  }
}

TEST(AuditAttack, ReHashOfTheLastRecord) {
  Logs l;
  for (bool keyed : {false, true}) {
    auto lines = lines_of(keyed ? l.keyed : l.plain);
    std::string body = unsealed_of(lines[4]);
    body.replace(body.find("\"echo\""), 6, "\"ecxo\"");
    lines[4] = attacker_seal(body);
    write_lines(l.t, lines);
    if (!keyed) {
      EXPECT_EQ(l.unkeyed(), "ok");
      EXPECT_VERDICT(l.unkeyed_anchor(), "FAIL t.jsonl:5: does not match its anchor");
    } else {
      EXPECT_VERDICT(l.keyed_with_key(), "FAIL t.jsonl:5: altered or forged");
      EXPECT_VERDICT(l.keyed_anchor_with_key(), "FAIL t.jsonl:5: altered or forged");
      EXPECT_EQ(l.keyed_without_key(), "UNVERIFIED");
    }
  }
}

TEST(AuditAttack, FullRewrite) {
  Logs l;
  for (bool keyed : {false, true}) {
    auto lines = lines_of(keyed ? l.keyed : l.plain);
    lines[1].replace(lines[1].find("\"echo\""), 6, "\"ecxo\"");
    rechain(lines, 1);
    write_lines(l.t, lines);
    if (!keyed) {
      EXPECT_EQ(l.unkeyed(), "ok");
      EXPECT_VERDICT(l.unkeyed_anchor(), "FAIL t.jsonl:2: does not match its anchor");
    } else {
      EXPECT_VERDICT(l.keyed_with_key(), "FAIL t.jsonl:2: altered or forged");
      EXPECT_VERDICT(l.keyed_anchor_with_key(), "FAIL t.jsonl:2: altered or forged");
      EXPECT_EQ(l.keyed_without_key(), "UNVERIFIED");
    }
  }
}

TEST(AuditAttack, FullRewriteOfAKeyedChainAsAnUnkeyedOne) {
  Logs l;
  auto lines = lines_of(l.keyed);
  for (auto& line : lines) {
    const std::string tag = "\"chain\":\"hmac-sha256\",";
    line.erase(line.find(tag), tag.size());
  }
  rechain(lines, 0);
  write_lines(l.t, lines);
  EXPECT_VERDICT(l.keyed_with_key(), "FAIL t.jsonl:1: not keyed");
  EXPECT_VERDICT(l.keyed_anchor_with_key(), "FAIL t.jsonl:1: not keyed");
  // Without the key it is indistinguishable from an unkeyed chain, unless
  // anchored.
  EXPECT_EQ(l.keyed_without_key(), "ok");
  EXPECT_VERDICT(verdict(l.t, nullptr, l.keyed_anchor),
                 "FAIL t.jsonl:1: does not match its anchor");
  // One downgraded record appended to a keyed chain: a mixed chain.
  auto mixed = lines_of(l.keyed);
  mixed.push_back(audit::seal(with_prev(with_seq(unsealed_of(lines[4]), 6), hash_of(mixed[4]))));
  write_lines(l.t, mixed);
  EXPECT_VERDICT(l.keyed_without_key(), "FAIL t.jsonl:6: mixed chain");
}

TEST(AuditAttack, ForgedAppend) {
  Logs l;
  for (bool keyed : {false, true}) {
    auto lines = lines_of(keyed ? l.keyed : l.plain);
    std::string body = with_prev(with_seq(unsealed_of(lines[4]), 6), hash_of(lines[4]));
    body.replace(body.find("\"call_id\":\"") + 11, 1, "X");
    lines.push_back(attacker_seal(body));
    write_lines(l.t, lines);
    if (!keyed) {
      EXPECT_EQ(l.unkeyed(), "ok");
      // Not detected with an anchor either: a log may run ahead of its
      // anchor (a stop between a record and its anchor).
      EXPECT_EQ(l.unkeyed_anchor(), "ok");
    } else {
      EXPECT_VERDICT(l.keyed_with_key(), "FAIL t.jsonl:6: altered or forged");
      EXPECT_VERDICT(l.keyed_anchor_with_key(), "FAIL t.jsonl:6: altered or forged");
      EXPECT_EQ(l.keyed_without_key(), "UNVERIFIED");
    }
  }
}

TEST(AuditAttack, DeletingOrEmptyingTheAnchor) {
  Logs l;
  for (bool keyed : {false, true}) {
    const fs::path log = keyed ? l.keyed : l.plain;
    const fs::path anchor = keyed ? l.keyed_anchor : l.plain_anchor;
    const audit::Key* key = keyed ? l.key.get() : nullptr;
    fs::copy_file(anchor, l.dir.path / "saved", fs::copy_options::overwrite_existing);
    fs::remove(anchor);
    EXPECT_VERDICT(verdict(log, key, anchor),
                   "FAIL " + anchor.filename().string() +
                       ":0: (the anchor file) cannot be read: No such file or directory");
    std::ofstream(anchor, std::ios::trunc).flush();
    EXPECT_VERDICT(verdict(log, key, anchor),
                   "FAIL " + anchor.filename().string() + ":0: the anchor file holds no anchors");
    // Cutting the log and its anchor at the same record is not detected:
    // that is what keeping the anchor elsewhere, append-only, is for.
    auto anchors = lines_of(l.dir.path / "saved");
    anchors.resize(3);
    write_lines(anchor, anchors);
    auto lines = lines_of(log);
    lines.resize(3);
    write_lines(l.t, lines);
    EXPECT_EQ(verdict(l.t, key, anchor), "ok");
    // An altered anchor line, and anchors out of order, are reported.
    anchors = lines_of(l.dir.path / "saved");
    anchors[1] = "{\"seq\":2}";
    write_lines(anchor, anchors);
    EXPECT_VERDICT(verdict(log, key, anchor),
                   "FAIL " + anchor.filename().string() + ":2: not an anchor line");
    anchors = lines_of(l.dir.path / "saved");
    std::swap(anchors[1], anchors[2]);
    write_lines(anchor, anchors);
    EXPECT_VERDICT(verdict(log, key, anchor),
                   "FAIL " + anchor.filename().string() + ":3: anchors out of order");
  }
}

TEST(AuditAnchor, AnchorsFollowTheFsyncPolicyAndAnOlderLogIsAnchoredAtLoad) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  const fs::path anchor = dir.path / "audit.anchor";
  {
    AuditFixture f(log);  // no anchor yet
    for (int i = 0; i < 2; ++i) f.call("echo");
  }
  {
    // Enabling the anchor anchors the head at load; then every 3 records
    // (fsync 3) and at shutdown.
    AuditFixture f(log, {{"anchor_file", anchor.string()}, {"fsync", 3}});
    EXPECT_EQ(lines_of(anchor).size(), 1u);
    for (int i = 0; i < 7; ++i) f.call("echo");
  }
  auto anchors = lines_of(anchor);
  std::vector<std::uint64_t> seqs;
  for (const auto& a : anchors) {
    std::string why;
    auto parsed = audit::parse_anchor(a, &why);
    ASSERT_TRUE(parsed) << why;
    seqs.push_back(parsed->seq);
  }
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{2, 5, 8, 9}));
  EXPECT_EQ(verdict(log, nullptr, anchor), "ok");
  {
    AuditFixture f(log, {{"anchor_file", anchor.string()}});  // fsync always: every record
    f.call("echo");
  }
  EXPECT_EQ(lines_of(anchor).size(), 5u);
  EXPECT_EQ(verdict(log, nullptr, anchor), "ok");
}

TEST(AuditAnchor, ALogCutShortOrRewrittenBehindItsAnchorIsRefusedAtLoad) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  const fs::path anchor = dir.path / "audit.anchor";
  {
    AuditFixture f(log, {{"anchor_file", anchor.string()}});
    for (int i = 0; i < 4; ++i) f.call("echo", {{"i", i}});
  }
  const auto good = lines_of(log);
  auto cut = good;
  cut.resize(2);
  write_lines(log, cut);
  {
    LibraryFixture f;
    std::string e =
        f.config_error("audit", {{"path", log.string()}, {"anchor_file", anchor.string()}});
    EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/path") << e;
    EXPECT_TRUE(has(e, "ends at seq 2, but its anchor file " + anchor.string() + " anchors seq 4"))
        << e;
    EXPECT_TRUE(has(e, "toolgate audit verify --anchor")) << e;
  }
  auto rehashed = good;
  std::string body = unsealed_of(rehashed[3]);
  body.replace(body.find("\"echo\""), 6, "\"ecxo\"");
  rehashed[3] = audit::seal(body);
  write_lines(log, rehashed);
  {
    LibraryFixture f;
    std::string e =
        f.config_error("audit", {{"path", log.string()}, {"anchor_file", anchor.string()}});
    EXPECT_TRUE(has(e, "does not match its anchor")) << e;
  }
  // Nothing was appended to the log or the anchor by the refused loads.
  EXPECT_EQ(lines_of(log), rehashed);
  EXPECT_EQ(lines_of(anchor).size(), 4u);
}

TEST(AuditKeyed, AKeyedChainIsNeverMixedWithAnUnkeyedOne) {
  TempDir dir;
  const fs::path key = key_file(dir.path, "k");
  const fs::path other = key_file(dir.path, "other-key");
  const fs::path plain = dir.path / "plain.jsonl";
  const fs::path keyed = dir.path / "keyed.jsonl";
  {
    AuditFixture a(plain);
    AuditFixture b(keyed, {{"hmac_key_file", key.string()}});
    a.call("echo");
    b.call("echo");
  }
  auto error = [](json::object config) {
    LibraryFixture f;
    return f.config_error("audit", config);
  };
  std::string e = error({{"path", plain.string()}, {"hmac_key_file", key.string()}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/path") << e;
  EXPECT_TRUE(has(e, "is unkeyed (plain SHA-256) and a keyed chain cannot continue it")) << e;
  e = error({{"path", keyed.string()}});
  EXPECT_TRUE(has(e, "is keyed (\"chain\":\"hmac-sha256\") but no key is configured")) << e;
  e = error({{"path", keyed.string()}, {"hmac_key_file", other.string()}});
  EXPECT_TRUE(has(e, "altered or forged")) << e;
  // The right key continues the chain.
  {
    AuditFixture b(keyed, {{"hmac_key_file", key.string()}});
    b.call("echo");
  }
  EXPECT_EQ(verdict(keyed, audit::read_key_file(key).get()), "ok");
}

TEST(AuditKeyed, TheKeyFileMustBeAPrivateRegularFileOfAtLeast32Bytes) {
  TempDir dir;
  const std::string log = (dir.path / "a.jsonl").string();
  struct C {
    fs::path key;
    const char* text;
  };
  const fs::path fifo = dir.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path link = dir.path / "link";
  fs::create_symlink(key_file(dir.path, "target"), link);
  std::vector<C> cases = {
      {key_file(dir.path, "open", 32, 0644), "has mode 0644"},
      {key_file(dir.path, "group", 32, 0640), "fix: chmod 600 "},
      {key_file(dir.path, "exec", 32, 0700), "0600 or stricter"},
      {key_file(dir.path, "short", 31), "holds 31 bytes; a key must have 32 to 4096 bytes"},
      {dir.path / "missing", "cannot open the key file"},
      {fifo, "is a FIFO, not a regular file"},
      {link, "is a symbolic link"},
      {dir.path, "is a folder"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("audit", {{"path", log}, {"hmac_key_file", c.key.string()}});
    EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/hmac_key_file") << e;
    EXPECT_TRUE(has(e, c.key.string())) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
  if (::geteuid() == 0) {
    // Owned by someone else (only root can give a file away).
    const fs::path theirs = key_file(dir.path, "theirs");
    ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
    LibraryFixture f;
    std::string e = f.config_error("audit", {{"path", log}, {"hmac_key_file", theirs.string()}});
    EXPECT_TRUE(has(e, "is owned by uid 65534")) << e;
    EXPECT_TRUE(has(e, "fix: chown 0 " + theirs.string())) << e;
  }
  EXPECT_FALSE(fs::exists(log)) << "nothing is written when the key is refused";
}

TEST(AuditAnchor, TheAnchorFileIsNeverASymlinkNorTheLogItself) {
  TempDir dir;
  const fs::path log = dir.path / "audit.jsonl";
  const fs::path victim = dir.path / "victim";
  write_lines(victim, {"precious"});
  const fs::path link = dir.path / "anchor";
  fs::create_symlink(victim, link);
  LibraryFixture f;
  std::string e = f.config_error("audit", {{"path", log.string()}, {"anchor_file", link.string()}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/anchor_file") << e;
  EXPECT_TRUE(has(e, link.string() + " is a symbolic link")) << e;
  EXPECT_EQ(slurp(victim), "precious\n");
  LibraryFixture g;
  e = g.config_error("audit", {{"path", log.string()}, {"anchor_file", log.string()}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/anchor_file") << e;
  EXPECT_TRUE(has(e, "the audit log itself")) << e;
}
