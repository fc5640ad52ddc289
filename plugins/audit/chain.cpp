#include "chain.hpp"

#include <openssl/evp.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace tgp::audit {

namespace json = boost::json;
namespace fs = std::filesystem;

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  static const char* hex = "0123456789abcdef";
  std::string out(64, '0');
  for (unsigned i = 0; i < 32; ++i) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  return out;
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

}  // namespace

std::string canonical_json(const json::value& v) {
  std::string out;
  canonical(v, out);
  return out;
}

std::string json_sha256(const json::value& v) { return sha256_hex(canonical_json(v)); }

std::string seal(std::string unsealed, std::string* hash_out) {
  std::string h = sha256_hex(unsealed);
  unsealed.reserve(unsealed.size() + kSealSize);
  unsealed += kHashKey;
  unsealed += h;
  unsealed += "\"}";
  if (hash_out) *hash_out = std::move(h);
  return unsealed;
}

std::optional<Record> check_record(std::string_view line, std::string* why) {
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
  if (sha256_hex(line.substr(0, line.size() - kSealSize)) != r.hash)
    return bad("altered: its content does not match its own hash");
  const auto* seq = o.if_contains("seq");
  const auto* prev = o.if_contains("prev");
  if (!seq || !(seq->is_uint64() || (seq->is_int64() && seq->get_int64() > 0)))
    return bad("no valid \"seq\" (a positive integer)");
  r.seq = seq->is_uint64() ? seq->get_uint64() : static_cast<std::uint64_t>(seq->get_int64());
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

std::optional<Head> read_last_record(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::nullopt;
    throw std::runtime_error("cannot read " + file.string());
  }
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return std::nullopt;
  // Read backwards in growing chunks until the start of the last line.
  std::string tail;
  std::streamoff chunk = 4096;
  for (;;) {
    const std::streamoff from = std::max<std::streamoff>(0, size - chunk);
    tail.assign(static_cast<std::size_t>(size - from), '\0');
    in.seekg(from);
    in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
    if (!in) throw std::runtime_error("cannot read " + file.string());
    if (tail.back() != '\n')
      throw std::runtime_error("the last record of " + file.string() +
                               " is incomplete (no newline at the end: a write was cut short)");
    if (tail.size() < 2)
      throw std::runtime_error("the last line of " + file.string() + " is empty");
    const auto nl = tail.find_last_of('\n', tail.size() - 2);
    if (nl != std::string::npos || from == 0) {
      const std::size_t start = nl == std::string::npos ? 0 : nl + 1;
      std::string_view line(tail.data() + start, tail.size() - 1 - start);
      std::string why;
      auto r = check_record(line, &why);
      if (!r)
        throw std::runtime_error("the last record of " + file.string() + " does not check: " + why);
      return Head{r->seq, r->hash};
    }
    chunk *= 4;
  }
}

Head read_chain_head(const fs::path& active) {
  if (auto h = read_last_record(active)) return *h;
  auto rotated = rotated_files(active);
  for (auto it = rotated.rbegin(); it != rotated.rend(); ++it)
    if (auto h = read_last_record(it->second)) return *h;
  return Head{};
}

bool Verifier::fail(const std::string& file, std::size_t line, std::string what) {
  problem_ = Problem{file, line, std::move(what)};
  return false;
}

bool Verifier::feed_line(const std::string& file, std::size_t line_no, std::string_view line,
                         bool complete) {
  if (problem_) return false;
  if (!complete)
    return fail(file, line_no,
                "incomplete record: no newline at the end (a write was cut short or the file was "
                "truncated)");
  std::string why;
  auto r = check_record(line, &why);
  if (!r) return fail(file, line_no, why);
  const std::string where_prev =
      head_line_ ? " (" + head_file_ + " line " + std::to_string(head_line_) + ")" : "";
  if (!started_ && !require_genesis_) {
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
  ++records_;
  head_ = Head{r->seq, r->hash};
  head_file_ = file;
  head_line_ = line_no;
  return true;
}

bool Verifier::feed_file(const std::string& path) {
  if (problem_) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, 0, "cannot be read");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const auto nl = text.find('\n', pos);
    if (nl == std::string::npos)
      return feed_line(path, line_no, std::string_view(text).substr(pos), false);
    if (!feed_line(path, line_no, std::string_view(text).substr(pos, nl - pos))) return false;
    pos = nl + 1;
  }
  return true;
}

}  // namespace tgp::audit
