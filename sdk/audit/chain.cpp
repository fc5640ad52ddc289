#include "chain.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tgp::audit {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string to_hex(const unsigned char* md, unsigned len) {
  static const char* hex = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (unsigned i = 0; i < len; ++i) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  return out;
}

std::string errno_text(int err) { return std::strerror(err); }

// What a non-regular file is, for messages.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::string octal_mode(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0%03o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Closes a descriptor on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  return to_hex(md, len);
}

Key::~Key() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }

std::string hmac_sha256_hex(const Key& key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.bytes().data(), static_cast<int>(key.bytes().size()),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len) ||
      len != 32)
    throw std::runtime_error("HMAC-SHA256 failed (OpenSSL HMAC)");
  return to_hex(md, len);
}

std::unique_ptr<Key> read_key_file(const fs::path& path) {
  const std::string p = path.string();
  const std::string make = "create one with `(umask 077; openssl rand 32 > " + p + ")`";
  Fd f;
  f.fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f.fd < 0) {
    const int err = errno;
    if (err == ELOOP)
      throw std::runtime_error("the key file " + p +
                               " is a symbolic link; refusing to follow it (it could be "
                               "re-pointed at another file): name the key file itself");
    throw std::runtime_error("cannot open the key file " + p + ": " + errno_text(err) +
                             (err == ENOENT ? "; " + make : std::string()));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw std::runtime_error("cannot stat the key file " + p + ": " + errno_text(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("the key file " + p + " is " + file_kind(st.st_mode) +
                             ", not a regular file; " + make);
  const uid_t me = ::geteuid();
  if (st.st_uid != me && st.st_uid != 0)
    throw std::runtime_error("the key file " + p + " is owned by uid " + std::to_string(st.st_uid) +
                             ", neither this user (uid " + std::to_string(me) +
                             ") nor root, so someone else can replace the key; fix: chown " +
                             std::to_string(me) + " " + p);
  if (st.st_mode & 07177)
    throw std::runtime_error("the key file " + p + " has mode " + octal_mode(st.st_mode) +
                             "; a key must be readable and writable by its owner only (0600 or "
                             "stricter); fix: chmod 600 " +
                             p);
  if (st.st_size < static_cast<off_t>(kMinKeyBytes) ||
      st.st_size > static_cast<off_t>(kMaxKeyBytes))
    throw std::runtime_error("the key file " + p + " holds " + std::to_string(st.st_size) +
                             " bytes; a key must have " + std::to_string(kMinKeyBytes) + " to " +
                             std::to_string(kMaxKeyBytes) + " bytes (its bytes are the key, as " +
                             "stored); " + make);
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(f.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      OPENSSL_cleanse(bytes.data(), bytes.size());
      throw std::runtime_error("cannot read the key file " + p + ": " +
                               (n < 0 ? errno_text(errno) : std::string("it shrank while read")));
    }
    done += static_cast<std::size_t>(n);
  }
  auto key = std::make_unique<Key>(bytes);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return key;
}

namespace {

void canonical(const json::value& v, std::string& out) {
  switch (v.kind()) {
    case json::kind::object: {
      const auto& o = v.get_object();
      std::vector<const json::key_value_pair*> members;
      members.reserve(o.size());
      for (const auto& kv : o) members.push_back(&kv);
      std::sort(members.begin(), members.end(),
                [](auto* a, auto* b) { return a->key() < b->key(); });
      out += '{';
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i) out += ',';
        out += json::serialize(json::string_view(members[i]->key()));
        out += ':';
        canonical(members[i]->value(), out);
      }
      out += '}';
      break;
    }
    case json::kind::array: {
      const auto& a = v.get_array();
      out += '[';
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (i) out += ',';
        canonical(a[i], out);
      }
      out += ']';
      break;
    }
    default:
      out += json::serialize(v);
  }
}

bool is_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A positive integer member.
std::optional<std::uint64_t> positive(const json::value* v) {
  if (!v) return std::nullopt;
  if (v->is_uint64() && v->get_uint64() > 0) return v->get_uint64();
  if (v->is_int64() && v->get_int64() > 0) return static_cast<std::uint64_t>(v->get_int64());
  return std::nullopt;
}

}  // namespace

std::string canonical_json(const json::value& v) {
  std::string out;
  canonical(v, out);
  return out;
}

std::string json_sha256(const json::value& v) { return sha256_hex(canonical_json(v)); }

std::string seal(std::string unsealed, std::string* hash_out, const Key* key) {
  std::string h = key ? hmac_sha256_hex(*key, unsealed) : sha256_hex(unsealed);
  unsealed.reserve(unsealed.size() + kSealSize);
  unsealed += kHashKey;
  unsealed += h;
  unsealed += "\"}";
  if (hash_out) *hash_out = std::move(h);
  return unsealed;
}

std::optional<Record> check_record(std::string_view line, std::string* why, const Key* key) {
  auto bad = [&](std::string w) -> std::optional<Record> {
    *why = std::move(w);
    return std::nullopt;
  };
  if (line.empty()) return bad("empty line where a record should be");
  if (line.size() < kSealSize + 2 ||
      line.substr(line.size() - kSealSize, kHashKey.size()) != kHashKey ||
      line.substr(line.size() - 2) != "\"}")
    return bad(
        "not a sealed record: it does not end with ,\"hash\":\"<sha-256>\"} (altered or "
        "truncated)");
  Record r;
  r.hash = std::string(line.substr(line.size() - 66, 64));
  if (!is_hex64(r.hash)) return bad("its hash is not 64 lower-case hex digits");
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec || !v.is_object()) return bad("not a valid JSON object (altered or truncated)");
  const auto& o = v.get_object();
  if (const auto* chain = o.if_contains("chain")) {
    if (!chain->is_string() || chain->get_string() != kKeyedChain)
      return bad("unknown \"chain\" " + json::serialize(*chain) + ": this verifier knows \"" +
                 std::string(kKeyedChain) + "\" (a keyed chain) and records without \"chain\"");
    r.keyed = true;
  }
  const std::string_view unsealed = line.substr(0, line.size() - kSealSize);
  if (!r.keyed) {
    if (sha256_hex(unsealed) != r.hash)
      return bad("altered: its content does not match its own hash");
  } else if (key) {
    const std::string mac = hmac_sha256_hex(*key, unsealed);
    if (CRYPTO_memcmp(mac.data(), r.hash.data(), mac.size()) != 0)
      return bad(
          "altered or forged: its HMAC-SHA256 does not match with this key (the record was "
          "changed or written without the key, or the chain was written with another key)");
    r.authenticated = true;
  }
  auto seq = positive(o.if_contains("seq"));
  if (!seq) return bad("no valid \"seq\" (a positive integer)");
  r.seq = *seq;
  const auto* prev = o.if_contains("prev");
  if (!prev || !prev->is_string() || !is_hex64(prev->get_string()))
    return bad("no valid \"prev\" (64 lower-case hex digits)");
  r.prev = std::string(prev->get_string());
  return r;
}

fs::path rotated_name(const fs::path& active, std::uint64_t index) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%06llu", static_cast<unsigned long long>(index));
  return fs::path(active.string() + suffix);
}

std::vector<std::pair<std::uint64_t, fs::path>> rotated_files(const fs::path& active) {
  std::vector<std::pair<std::uint64_t, fs::path>> out;
  const fs::path dir = active.has_parent_path() ? active.parent_path() : fs::path(".");
  const std::string prefix = active.filename().string() + ".";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() < 6 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    out.emplace_back(std::stoull(digits), dir / name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> read_last_line(const fs::path& file) {
  const std::string p = file.string();
  Fd f;
  f.fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f.fd < 0) {
    const int err = errno;
    if (err == ENOENT) return std::nullopt;
    if (err == ELOOP)
      throw std::runtime_error(p +
                               " is a symbolic link; refusing to follow it (a link planted "
                               "there could point the audit trail at another file): remove the "
                               "link, or name the real file");
    throw std::runtime_error("cannot read " + p + ": " + errno_text(err));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw std::runtime_error("cannot stat " + p + ": " + errno_text(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error(p + " is " + file_kind(st.st_mode) + ", not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) return std::nullopt;
  // Read backwards in growing chunks until the start of the last line.
  std::string tail;
  std::uint64_t chunk = 4096;
  for (;;) {
    const std::uint64_t from = size > chunk ? size - chunk : 0;
    tail.assign(static_cast<std::size_t>(size - from), '\0');
    std::size_t done = 0;
    while (done < tail.size()) {
      const ssize_t n =
          ::pread(f.fd, tail.data() + done, tail.size() - done, static_cast<off_t>(from + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw std::runtime_error("cannot read " + p + ": " +
                                 (n < 0 ? errno_text(errno) : std::string("it shrank")));
      done += static_cast<std::size_t>(n);
    }
    if (tail.back() != '\n')
      throw std::runtime_error("the last record of " + p +
                               " is incomplete (no newline at the end: a write was cut short)");
    if (tail.size() < 2 || tail[tail.size() - 2] == '\n')
      throw std::runtime_error("the last line of " + p + " is empty");
    const auto nl = tail.find_last_of('\n', tail.size() - 2);
    if (nl != std::string::npos || from == 0) {
      const std::size_t start = nl == std::string::npos ? 0 : nl + 1;
      return tail.substr(start, tail.size() - 1 - start);
    }
    if (tail.size() > kMaxRecordBytes)
      throw std::runtime_error("the last line of " + p + " is longer than the " +
                               std::to_string(kMaxRecordBytes) +
                               "-byte limit of a record (not an audit log, or a damaged one)");
    chunk *= 4;
  }
}

std::optional<Head> read_last_record(const fs::path& file, const Key* key) {
  auto line = read_last_line(file);
  if (!line) return std::nullopt;
  std::string why;
  auto r = check_record(*line, &why, key);
  if (!r)
    throw std::runtime_error("the last record of " + file.string() + " does not check: " + why);
  if (r->keyed && !key)
    throw std::runtime_error("the last record of " + file.string() +
                             " is keyed (\"chain\":\"hmac-sha256\") but no key is configured: "
                             "set \"hmac_key_file\" to the key this chain was written with");
  if (!r->keyed && key)
    throw std::runtime_error("the last record of " + file.string() +
                             " is unkeyed (plain SHA-256) and a keyed chain cannot continue it: "
                             "start a new log for the keyed chain (move " +
                             file.string() +
                             " and the other files of the log aside, or set "
                             "\"path\" to a new file)");
  return Head{r->seq, r->hash};
}

Head read_chain_head(const fs::path& active, const Key* key) {
  if (auto h = read_last_record(active, key)) return *h;
  auto rotated = rotated_files(active);
  for (auto it = rotated.rbegin(); it != rotated.rend(); ++it)
    if (auto h = read_last_record(it->second, key)) return *h;
  return Head{};
}

std::string anchor_line(const Head& h) {
  return "{\"seq\":" + std::to_string(h.seq) + ",\"hash\":\"" + h.hash + "\"}\n";
}

std::optional<Anchor> parse_anchor(std::string_view line, std::string* why) {
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  const json::object* o = ec ? nullptr : v.if_object();
  const json::value* hash = o ? o->if_contains("hash") : nullptr;
  auto seq = o ? positive(o->if_contains("seq")) : std::nullopt;
  if (!o || o->size() != 2 || !seq || !hash || !hash->is_string() ||
      !is_hex64(hash->get_string())) {
    *why =
        "not an anchor line: expected {\"seq\":N,\"hash\":\"<64 lower-case hex>\"} (the anchor "
        "file was altered, or is not an audit anchor)";
    return std::nullopt;
  }
  return Anchor{*seq, std::string(hash->get_string())};
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::open(const std::string& path, std::string* why) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    *why = "cannot be read: " + errno_text(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *why = "cannot be read: " + errno_text(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = "is " + file_kind(st.st_mode) +
           ", not a regular file: only files can be verified (copy the data into a file first)";
    ::close(fd);
    return false;
  }
  fd_ = fd;
  return true;
}

LineReader::Status LineReader::next(std::string* line, bool* complete, std::size_t max_bytes,
                                    std::string* why) {
  line->clear();
  for (;;) {
    const char* start = buf_.data() + pos_;
    const std::size_t avail = buf_.size() - pos_;
    if (const void* nl = avail ? std::memchr(start, '\n', avail) : nullptr) {
      const auto n = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      ++line_no_;
      if (line->size() + n > max_bytes) return Status::too_long;
      line->append(start, n);
      pos_ += n + 1;
      *complete = true;
      return Status::line;
    }
    if (line->size() + avail > max_bytes) {
      ++line_no_;
      return Status::too_long;
    }
    line->append(start, avail);
    buf_.clear();
    pos_ = 0;
    if (eof_) {
      if (line->empty()) return Status::end;
      ++line_no_;
      *complete = false;
      return Status::line;
    }
    buf_.resize(std::size_t{1} << 16);
    ssize_t n;
    do n = ::read(fd_, buf_.data(), buf_.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      *why = errno_text(errno);
      buf_.clear();
      return Status::error;
    }
    if (n == 0) eof_ = true;
    buf_.resize(static_cast<std::size_t>(n));
  }
}

bool Verifier::fail(const std::string& file, std::size_t line, std::string what) {
  problem_ = Problem{file, line, std::move(what)};
  return false;
}

bool Verifier::use_anchor_file(const std::string& path) {
  anchor_ = std::make_unique<LineReader>();
  anchor_path_ = path;
  std::string why;
  if (!anchor_->open(path, &why)) return fail(path, 0, "(the anchor file) " + why);
  return next_anchor();
}

bool Verifier::next_anchor() {
  pending_anchor_.reset();
  std::string line, why;
  bool complete = true;
  switch (anchor_->next(&line, &complete, 4096, &why)) {
    case LineReader::Status::end:
      return true;
    case LineReader::Status::error:
      return fail(anchor_path_, anchor_->line_no(), "(the anchor file) cannot be read: " + why);
    case LineReader::Status::too_long:
      return fail(anchor_path_, anchor_->line_no(),
                  "not an anchor line: longer than 4096 bytes (the anchor file was altered, or "
                  "is not an audit anchor)");
    case LineReader::Status::line:
      break;
  }
  const std::size_t n = anchor_->line_no();
  if (!complete)
    return fail(anchor_path_, n,
                "incomplete anchor line: no newline at the end (a write was cut short, or the "
                "anchor file was truncated)");
  auto a = parse_anchor(line, &why);
  if (!a) return fail(anchor_path_, n, why);
  if (a->seq < anchor_stats_.last_seq)
    return fail(anchor_path_, n,
                "anchors out of order: seq " + std::to_string(a->seq) + " after seq " +
                    std::to_string(anchor_stats_.last_seq) +
                    " (the anchor file was edited, or is shared by two logs)");
  anchor_stats_.last_seq = a->seq;
  ++anchors_read_;
  pending_anchor_ = std::move(a);
  pending_anchor_line_ = n;
  return true;
}

bool Verifier::check_anchors(const std::string& file, std::size_t line_no) {
  if (!anchor_) return true;
  while (pending_anchor_ && pending_anchor_->seq <= head_.seq) {
    if (pending_anchor_->seq < head_.seq) {
      // Records are contiguous and anchors in order, so this is only an
      // anchor before the first record verified (a chain suffix).
      ++anchor_stats_.before;
    } else if (pending_anchor_->hash != head_.hash) {
      return fail(file, line_no,
                  "does not match its anchor: " + anchor_path_ + " line " +
                      std::to_string(pending_anchor_line_) + " anchors seq " +
                      std::to_string(head_.seq) + " with hash " + pending_anchor_->hash +
                      ", this record's hash is " + head_.hash +
                      " (this record, or the chain up to it, was rewritten)");
    } else {
      ++anchor_stats_.matched;
    }
    if (!next_anchor()) return false;
  }
  return true;
}

bool Verifier::finish() {
  if (problem_) return false;
  if (!anchor_) return true;
  if (pending_anchor_) {
    const std::string ends = records_ ? "the log ends at seq " + std::to_string(head_.seq) + " (" +
                                            head_file_ + " line " + std::to_string(head_line_) + ")"
                                      : "the log has no records";
    return fail(head_file_.empty() ? anchor_path_ : head_file_, 0,
                "truncated: " + anchor_path_ + " line " + std::to_string(pending_anchor_line_) +
                    " anchors seq " + std::to_string(pending_anchor_->seq) + ", but " + ends +
                    ": records were removed from the end (or the newest file was not given)");
  }
  if (anchors_read_ == 0 && records_ > 0)
    return fail(anchor_path_, 0,
                "the anchor file holds no anchors, but the log has " + std::to_string(records_) +
                    " record(s): it was emptied or replaced, or it is not this log's anchor "
                    "file");
  return true;
}

bool Verifier::feed_line(const std::string& file, std::size_t line_no, std::string_view line,
                         bool complete) {
  if (problem_) return false;
  if (!complete)
    return fail(file, line_no,
                "incomplete record: no newline at the end (a write was cut short or the file was "
                "truncated)");
  std::string why;
  auto r = check_record(line, &why, o_.key);
  if (!r) return fail(file, line_no, why);
  if (o_.key && !r->keyed)
    return fail(file, line_no,
                "not keyed: a plain SHA-256 record, but the chain is verified with a key (written "
                "or rewritten by someone without the key, or before \"hmac_key_file\" was set)");
  if (chain_keyed_ && *chain_keyed_ != r->keyed)
    return fail(file, line_no,
                r->keyed ? "mixed chain: a keyed record after plain SHA-256 ones (the writer never "
                           "mixes them: records were replaced)"
                         : "mixed chain: a plain SHA-256 record after keyed ones (forged or "
                           "rewritten without the key)");
  const std::string where_prev =
      head_line_ ? " (" + head_file_ + " line " + std::to_string(head_line_) + ")" : "";
  if (!started_ && !o_.require_genesis) {
    // A chain suffix: take the first record's position as given.
  } else if (r->seq != head_.seq + 1) {
    if (r->seq > head_.seq + 1)
      return fail(file, line_no,
                  "missing record(s): expected seq " + std::to_string(head_.seq + 1) + ", found " +
                      std::to_string(r->seq) +
                      (started_ ? "" : " (the chain does not start here)"));
    return fail(file, line_no,
                "out of order: seq " + std::to_string(r->seq) + " after seq " +
                    std::to_string(head_.seq) + where_prev + " (records reordered or duplicated)");
  } else if (r->prev != head_.hash) {
    return fail(
        file, line_no,
        started_ ? "broken chain: \"prev\" is not the hash of the previous record" + where_prev +
                       " (that record was altered and re-hashed, or records were replaced)"
                 : "broken chain: the first record's \"prev\" is not the genesis value (64 zeros)");
  }
  started_ = true;
  chain_keyed_ = r->keyed;
  ++records_;
  if (r->keyed) ++keyed_records_;
  head_ = Head{r->seq, r->hash};
  head_file_ = file;
  head_line_ = line_no;
  return check_anchors(file, line_no);
}

bool Verifier::feed_file(const std::string& path) {
  if (problem_) return false;
  if (head_file_.empty()) head_file_ = path;  // names the log in finish() if it has no records
  LineReader in;
  std::string why;
  if (!in.open(path, &why)) return fail(path, 0, why);
  std::string line;
  bool complete = true;
  for (;;) {
    switch (in.next(&line, &complete, o_.max_line_bytes, &why)) {
      case LineReader::Status::end:
        return true;
      case LineReader::Status::error:
        return fail(path, in.line_no(), "cannot be read: " + why);
      case LineReader::Status::too_long:
        return fail(path, in.line_no(),
                    "a line longer than the " + std::to_string(o_.max_line_bytes) +
                        "-byte limit of a record (not an audit log, or a damaged one; if its "
                        "records really are that large, raise the limit with --max-line-bytes)");
      case LineReader::Status::line:
        if (!feed_line(path, in.line_no(), line, complete)) return false;
        break;
    }
  }
}

}  // namespace tgp::audit
