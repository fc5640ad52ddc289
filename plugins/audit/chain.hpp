// chain.hpp -- the audit log's hash chain: hashing, sealing a record, reading
// the head of a chain, and verifying a sequence of files.
//
// Shared by the audit plugin (writer) and `toolgate audit verify` (reader),
// built as a small self-contained static library (toolgate_audit_chain:
// Boost.JSON + OpenSSL libcrypto, nothing from host/ or the SDK).
//
// Record format: one JSON object per line (JSON lines), written as
//
//   {"v":1,"seq":N,"prev":"<64 hex>", ...body fields... ,"hash":"<64 hex>"}\n
//
//   seq   1 for the first record of a chain, then +1 per record, across
//         rotated files.
//   prev  the `hash` of the previous record; for the first record of a
//         chain the genesis value, 64 zeros (kGenesis).
//   hash  SHA-256 (lower-case hex) of the record's own bytes up to, not
//         including, the final `,"hash":"` -- i.e. the line with its last
//         76 bytes (`,"hash":"` + 64 hex + `"}`) replaced by nothing.
//
// So an edited record no longer matches its own `hash` (reported at its
// line); an edited record whose `hash` was recomputed no longer matches the
// next record's `prev`; a removed record leaves a gap in `seq`; reordered
// records break `seq` order.  Truncation after the last record cannot be
// seen by any chain: compare the head (last seq and hash, printed by
// verify) with a copy kept elsewhere.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
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

// SHA-256 of `data`, lower-case hex (OpenSSL libcrypto).
std::string sha256_hex(std::string_view data);

// Canonical JSON text: object members sorted by key (byte-wise), no
// whitespace, Boost.JSON's number and string formatting.  Two values that
// are equal as JSON documents have the same canonical text.
std::string canonical_json(const boost::json::value& v);
// sha256_hex(canonical_json(v))
std::string json_sha256(const boost::json::value& v);

// Completes a record: `unsealed` is the record text without its closing
// brace (`{"v":1,...,"last":x`); returns it with `,"hash":"H"}` appended.
std::string seal(std::string unsealed, std::string* hash_out = nullptr);

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
};
// On failure returns nullopt and sets *why.
std::optional<Record> check_record(std::string_view line, std::string* why);

// Rotated files of `active` ("audit.jsonl") are "audit.jsonl.000001",
// "audit.jsonl.000002", ... in rotation order; the active file is last.
std::filesystem::path rotated_name(const std::filesystem::path& active, std::uint64_t index);
// The rotated files that exist, by index.
std::vector<std::pair<std::uint64_t, std::filesystem::path>> rotated_files(
    const std::filesystem::path& active);

// The head of the chain that `active` continues: its last record, or if it
// is missing or empty the last record of the newest rotated file, or the
// genesis.  Throws std::runtime_error if that last record is incomplete or
// does not check (the chain cannot be continued safely).
Head read_chain_head(const std::filesystem::path& active);
// The last record of one file (nullopt when it has none); throws as above.
std::optional<Head> read_last_record(const std::filesystem::path& file);

// Verifies records in order, across files.
struct Problem {
  std::string file;
  std::size_t line = 0;  // 1-based; 0 when the file itself is the problem
  std::string what;
};

class Verifier {
 public:
  // require_genesis: the first record must have seq 1 and prev = genesis.
  // Without it the first record is taken as given (a suffix of a chain
  // whose older files were archived).
  explicit Verifier(bool require_genesis = true) : require_genesis_(require_genesis) {}

  // Checks every line of `path`; false at the first problem.
  bool feed_file(const std::string& path);
  // One line (without its '\n'); `complete` false for a last line with no
  // newline.  False at the first problem.
  bool feed_line(const std::string& file, std::size_t line_no, std::string_view line,
                 bool complete = true);

  const std::optional<Problem>& problem() const { return problem_; }
  std::uint64_t records() const { return records_; }
  const Head& head() const { return head_; }

 private:
  bool fail(const std::string& file, std::size_t line, std::string what);

  bool require_genesis_;
  bool started_ = false;
  std::uint64_t records_ = 0;
  Head head_;
  std::string head_file_;
  std::size_t head_line_ = 0;
  std::optional<Problem> problem_;
};

}  // namespace tgp::audit
