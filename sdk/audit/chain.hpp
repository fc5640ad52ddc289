// chain.hpp -- the audit log's hash chain: hashing, sealing a record, reading
// the head of a chain, keys and anchors, and verifying a sequence of files.
//
// Shared by the audit plugin (writer) and `toolgate audit verify` (reader),
// built as a small self-contained static library (toolgate_audit_chain:
// Boost.JSON + OpenSSL libcrypto, nothing from host/ or the SDK).
//
// Record format: one JSON object per line (JSON lines), written as
//
//   {"v":1,"seq":N,"prev":"<64 hex>", ...body fields... ,"hash":"<64 hex>"}\n
//   {"v":1,"chain":"hmac-sha256","seq":N,"prev":"<64 hex>", ... ,"hash":"<64 hex>"}\n
//
//   seq    1 for the first record of a chain, then +1 per record, across
//          rotated files.
//   prev   the `hash` of the previous record; for the first record of a
//          chain the genesis value, 64 zeros (kGenesis).
//   chain  absent: `hash` is the SHA-256 (lower-case hex) of the record's own
//          bytes up to, not including, the final `,"hash":"` -- i.e. the
//          line with its last 76 bytes (`,"hash":"` + 64 hex + `"}`)
//          replaced by nothing (an "unkeyed" chain).
//          "hmac-sha256": `hash` is the HMAC-SHA256 of the same bytes under
//          a secret key (a "keyed" chain; the key file is hmac_key_file in
//          the plugin's config, --key-file for verify).  A chain is all
//          keyed or all unkeyed; the writer never mixes them.
//
// So an edited record no longer matches its own `hash` (reported at its
// line); an edited record whose `hash` was recomputed no longer matches the
// next record's `prev`; a removed record leaves a gap in `seq`; reordered
// records break `seq` order.  What an unkeyed chain cannot show: records cut
// off the end, the last record re-hashed, the whole chain rewritten, a
// record appended with a recomputed hash -- anyone who can write the file
// can compute SHA-256.  A keyed chain shows the last three to a verifier
// with the key (an attacker without the key cannot compute a record's
// hash).  Records cut off the end are shown by an ANCHOR file: lines
//
//   {"seq":N,"hash":"<64 hex>"}\n
//
// appended by the writer (O_APPEND) each time the log is made durable, kept
// where the log's writer cannot rewrite them (another volume or host, or
// `chattr +a`).  Verify checks that the log holds every anchored head at its
// seq and is not shorter than the last anchor.  plugins/README.md#audit has
// the table of what each mode detects.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tgp::audit {

// prev of the first record of a chain.
inline constexpr std::string_view kGenesis =
    "0000000000000000000000000000000000000000000000000000000000000000";
inline constexpr std::string_view kHashKey = ",\"hash\":\"";
// `,"hash":"` + 64 hex + `"}`
inline constexpr std::size_t kSealSize = 9 + 64 + 2;
// The value of "chain" in a keyed record.
inline constexpr std::string_view kKeyedChain = "hmac-sha256";
// A record line longer than this is refused by the writer and reported by
// the verifier (no allocation beyond it).
inline constexpr std::size_t kMaxRecordBytes = std::size_t{64} << 20;
// Key file size bounds.
inline constexpr std::size_t kMinKeyBytes = 32;
inline constexpr std::size_t kMaxKeyBytes = 4096;

// SHA-256 of `data`, lower-case hex (OpenSSL libcrypto).
std::string sha256_hex(std::string_view data);

// A secret key for a keyed chain: the bytes of a key file, exactly as
// stored.  Wiped from memory on destruction.
class Key {
 public:
  explicit Key(std::string bytes) : bytes_(std::move(bytes)) {}
  ~Key();
  Key(const Key&) = delete;
  Key& operator=(const Key&) = delete;
  std::string_view bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// HMAC-SHA256 of `data` under `key`, lower-case hex.
std::string hmac_sha256_hex(const Key& key, std::string_view data);

// Reads a key file.  It must be a regular file (not a symbolic link, FIFO or
// device), owned by the effective user or root, with no permission bits
// beyond 0600, holding kMinKeyBytes..kMaxKeyBytes bytes.  Throws
// std::runtime_error naming the path, what is wrong and the fix.
std::unique_ptr<Key> read_key_file(const std::filesystem::path& path);

// Canonical JSON text: object members sorted by key (byte-wise), no
// whitespace, Boost.JSON's number and string formatting.  Two values that
// are equal as JSON documents have the same canonical text.
std::string canonical_json(const boost::json::value& v);
// sha256_hex(canonical_json(v))
std::string json_sha256(const boost::json::value& v);

// Completes a record: `unsealed` is the record text without its closing
// brace (`{"v":1,...,"last":x`); returns it with `,"hash":"H"}` appended,
// H the SHA-256 of `unsealed`, or its HMAC-SHA256 under `key` when given
// (the record must then carry "chain":"hmac-sha256").
std::string seal(std::string unsealed, std::string* hash_out = nullptr, const Key* key = nullptr);

// The chain position after a record (or the genesis before any).
struct Head {
  std::uint64_t seq = 0;
  std::string hash{kGenesis};
};

// One line checked on its own: its seal, and that seq / prev are present.
struct Record {
  std::uint64_t seq = 0;
  std::string prev;
  std::string hash;
  bool keyed = false;          // "chain":"hmac-sha256"
  bool authenticated = false;  // keyed and its HMAC checked with a key
};
// On failure returns nullopt and sets *why.  An unkeyed record's SHA-256 is
// always checked; a keyed record's HMAC only when `key` is given (else the
// record is returned with authenticated = false).
std::optional<Record> check_record(std::string_view line, std::string* why,
                                   const Key* key = nullptr);

// Rotated files of `active` ("audit.jsonl") are "audit.jsonl.000001",
// "audit.jsonl.000002", ... in rotation order; the active file is last.
std::filesystem::path rotated_name(const std::filesystem::path& active, std::uint64_t index);
// The rotated files that exist, by index.
std::vector<std::pair<std::uint64_t, std::filesystem::path>> rotated_files(
    const std::filesystem::path& active);

// The last line of a file (without its '\n'); nullopt when the file does
// not exist or is empty.  Never follows a symbolic link.  Throws
// std::runtime_error when it is not a regular file, cannot be read, does
// not end in a newline, or its last line is empty or longer than
// kMaxRecordBytes.
std::optional<std::string> read_last_line(const std::filesystem::path& file);

// The head of the chain that `active` continues: its last record, or if it
// is missing or empty the last record of the newest rotated file, or the
// genesis.  Throws std::runtime_error if that last record is incomplete or
// does not check (the chain cannot be continued safely), or if it is keyed
// and `key` is null, or unkeyed and `key` is given (a chain is never mixed).
Head read_chain_head(const std::filesystem::path& active, const Key* key = nullptr);
// The last record of one file (nullopt when it has none); throws as above.
std::optional<Head> read_last_record(const std::filesystem::path& file, const Key* key = nullptr);

// One line of an anchor file.
struct Anchor {
  std::uint64_t seq = 0;
  std::string hash;
};
// The anchor line for a head, with its '\n'.
std::string anchor_line(const Head& h);
// Parses one anchor line (without '\n'); nullopt and *why on failure.
std::optional<Anchor> parse_anchor(std::string_view line, std::string* why);

// Reads a file line by line with a cap on the length of a line.  Refuses
// anything but a regular file (a FIFO, a device such as /dev/zero, a
// folder) at open.
class LineReader {
 public:
  LineReader() = default;
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // False with *why when the file cannot be opened or is not a regular file.
  bool open(const std::string& path, std::string* why);
  enum class Status { line, end, too_long, error };
  // The next line into *line (without '\n'); *complete false for a last
  // line with no newline.  too_long: the line exceeds `max_bytes` (nothing
  // more is read); error: a read error, *why says which.
  Status next(std::string* line, bool* complete, std::size_t max_bytes, std::string* why);
  std::size_t line_no() const { return line_no_; }

 private:
  int fd_ = -1;
  std::string buf_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  std::size_t line_no_ = 0;
};

// Verifies records in order, across files.
struct Problem {
  std::string file;
  std::size_t line = 0;  // 1-based; 0 when the file itself is the problem
  std::string what;
};

struct VerifyOptions {
  // The first record must have seq 1 and prev = genesis.  Without it the
  // first record is taken as given (a suffix of a chain whose older files
  // were archived).
  bool require_genesis = true;
  // Verify a keyed chain with this key: every record must be keyed and its
  // HMAC must check.  Without a key, keyed records are checked for their
  // seq and prev links only (authenticity unknown: see unauthenticated()).
  const Key* key = nullptr;
  // A record line longer than this is a problem at its line.
  std::size_t max_line_bytes = kMaxRecordBytes;
};

class Verifier {
 public:
  explicit Verifier(bool require_genesis = true) { o_.require_genesis = require_genesis; }
  explicit Verifier(VerifyOptions o) : o_(o) {}

  // Also check the records against the anchor file at `path` (call before
  // feeding records; finish() after the last).  False if it cannot be read.
  bool use_anchor_file(const std::string& path);

  // Checks every line of `path`; false at the first problem.
  bool feed_file(const std::string& path);
  // One line (without its '\n'); `complete` false for a last line with no
  // newline.  False at the first problem.
  bool feed_line(const std::string& file, std::size_t line_no, std::string_view line,
                 bool complete = true);
  // After the last file: the anchors not yet matched must not lie beyond
  // the head (the log was not cut short).  False at a problem.
  bool finish();

  const std::optional<Problem>& problem() const { return problem_; }
  std::uint64_t records() const { return records_; }
  const Head& head() const { return head_; }
  // Keyed records seen; with a key every record, all authenticated.
  std::uint64_t keyed_records() const { return keyed_records_; }
  // Keyed records were accepted without a key: their links hold, but
  // whether they are authentic cannot be told.
  bool unauthenticated() const { return keyed_records_ > 0 && !o_.key; }

  struct AnchorStats {
    std::uint64_t matched = 0;  // anchors compared with their record
    std::uint64_t before = 0;   // anchors before the first record (--no-genesis)
    std::uint64_t last_seq = 0;
  };
  const AnchorStats& anchors() const { return anchor_stats_; }
  bool anchored() const { return anchor_ != nullptr; }

 private:
  bool fail(const std::string& file, std::size_t line, std::string what);
  // Reads the next anchor line into pending_anchor_ (or none at the end).
  bool next_anchor();
  bool check_anchors(const std::string& file, std::size_t line_no);

  VerifyOptions o_;
  bool started_ = false;
  std::optional<bool> chain_keyed_;
  std::uint64_t records_ = 0;
  std::uint64_t keyed_records_ = 0;
  Head head_;
  std::string head_file_;
  std::size_t head_line_ = 0;
  std::optional<Problem> problem_;

  std::unique_ptr<LineReader> anchor_;
  std::string anchor_path_;
  std::optional<Anchor> pending_anchor_;
  std::size_t pending_anchor_line_ = 0;
  std::uint64_t anchors_read_ = 0;
  AnchorStats anchor_stats_;
};

}  // namespace tgp::audit
