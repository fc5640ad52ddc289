#include "secrets.hpp"

#include "re2_pin.hpp"

#include <re2/set.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace tgp {

struct SecretScanner::Pattern {
  std::string name;
  RE2 re;
  Pattern(std::string n, const char* pattern, const RE2::Options& o)
      : name(std::move(n)), re(pattern, o) {}
};

struct SecretScanner::Prefilter {
  RE2::Set set;
  explicit Prefilter(const RE2::Options& o) : set(o, RE2::UNANCHORED) {}
};

namespace {

struct Builtin {
  const char* name;
  const char* pattern;
};

// Patterns are RE2 (linear time whatever the input).  Word boundaries keep
// them from firing inside longer identifiers.
const Builtin kBuiltins[] = {
    {"private_key",
     "-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[ A-Z0-9]*PRIVATE KEY(?: "
     "BLOCK)?-----|\\z)"},
    {"aws_access_key", "\\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\\b"},
    {"aws_secret_key",
     "(?i:aws_?secret_?(?:access_?)?key)[\"']?\\s*[:=]\\s*[\"']?[A-Za-z0-9/+=]{40}"},
    {"github_token", "\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\\b"},
    {"gitlab_token", "\\bglpat-[A-Za-z0-9_-]{20,}"},
    {"slack_token", "\\bxox[abposr]-[A-Za-z0-9-]{10,}"},
    {"slack_webhook",
     "https://hooks\\.slack\\.com/services/[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+"},
    {"google_api_key", "\\bAIza[0-9A-Za-z_-]{35}"},
    {"stripe_key", "\\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"},
    {"sk_api_key", "\\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{20,}"},
    {"jwt", "\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"},
    {"url_credentials", "\\b[A-Za-z][A-Za-z0-9+.-]*://[^/\\s:@]+:[^/\\s:@]+@"},
};

bool token_char(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/' || c == '=' || c == '_' || c == '-';
}

int b64_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Decodes standard or URL-safe base64, padding optional.  Returns false for
// anything that is not mostly printable text after decoding.
bool decode_base64_text(std::string_view in, std::string& out) {
  out.clear();
  unsigned buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    if (c == '=') break;
    int v = b64_value(c);
    if (v < 0) return false;
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buf >> bits) & 0xFF);
    }
  }
  if (out.size() < 8) return false;
  std::size_t printable = 0;
  for (unsigned char c : out)
    printable += (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t';
  return printable * 10 >= out.size() * 9;
}

int hexv(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  bool any = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() && hexv(in[i + 1]) >= 0 && hexv(in[i + 2]) >= 0) {
      out += static_cast<char>(hexv(in[i + 1]) * 16 + hexv(in[i + 2]));
      i += 2;
      any = true;
    } else if (in[i] == '+') {
      out += ' ';
    } else {
      out += in[i];
    }
  }
  return any;
}

// Zero-width characters (U+200B..U+200D, U+2060, U+FEFF) split a secret for a
// regex but not for whoever reads it.  Returns the text without them and, for
// each byte of the result, its offset in the input.
bool strip_invisible(std::string_view in, std::string& out, std::vector<std::size_t>& map) {
  auto invisible = [&](std::size_t i) -> std::size_t {
    auto u = [&](std::size_t k) { return static_cast<unsigned char>(in[k]); };
    if (i + 2 < in.size() && u(i) == 0xE2 && u(i + 1) == 0x80 && u(i + 2) >= 0x8B &&
        u(i + 2) <= 0x8D)
      return 3;
    if (i + 2 < in.size() && u(i) == 0xE2 && u(i + 1) == 0x81 && u(i + 2) == 0xA0) return 3;
    if (i + 2 < in.size() && u(i) == 0xEF && u(i + 1) == 0xBB && u(i + 2) == 0xBF) return 3;
    return 0;
  };
  bool found = false;
  for (std::size_t i = 0; i + 2 < in.size(); ++i)
    if (invisible(i)) {
      found = true;
      break;
    }
  if (!found) return false;
  out.clear();
  map.clear();
  for (std::size_t i = 0; i < in.size();) {
    if (std::size_t n = invisible(i)) {
      i += n;
      continue;
    }
    out += in[i];
    map.push_back(i);
    ++i;
  }
  map.push_back(in.size());
  return true;
}

}  // namespace

double shannon_entropy(std::string_view s) {
  if (s.empty()) return 0;
  std::array<unsigned, 256> counts{};
  for (unsigned char c : s) ++counts[c];
  double h = 0;
  const double n = static_cast<double>(s.size());
  for (unsigned k : counts)
    if (k) {
      double p = k / n;
      h -= p * std::log2(p);
    }
  return h;
}

const std::vector<std::string>& SecretScanner::detector_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& b : kBuiltins) v.emplace_back(b.name);
    v.emplace_back("high_entropy");
    return v;
  }();
  return names;
}

SecretOptions SecretScanner::options_from(const ConfigObject& c) {
  SecretOptions o;
  o.detectors = c.strings("detectors", detector_names());
  for (std::size_t i = 0; i < o.detectors.size(); ++i) {
    bool known = false;
    for (const auto& n : detector_names()) known = known || n == o.detectors[i];
    if (!known) {
      std::string list;
      for (const auto& n : detector_names()) list += (list.empty() ? "" : ", ") + n;
      throw ConfigError(c.path("detectors") + "/" + std::to_string(i),
                        "unknown detector \"" + o.detectors[i] + "\"; known: " + list);
    }
  }
  if (o.detectors.empty())
    throw ConfigError(c.path("detectors"), "enable at least one detector, or leave the key out");
  if (c.has("entropy")) {
    ConfigObject e = c.object("entropy");
    e.only({"min_length", "max_length", "threshold"});
    o.min_length = static_cast<std::size_t>(e.integer("min_length", 24, 8, 4096));
    o.max_length = static_cast<std::size_t>(e.integer("max_length", 512, 8, 1 << 20));
    if (o.max_length < o.min_length)
      throw ConfigError(e.path("max_length"), "must not be smaller than min_length");
    o.threshold = e.number("threshold", 4.3, 1.0, 8.0);
  }
  o.decode = c.boolean("decode", true);
  return o;
}

SecretScanner::SecretScanner(SecretOptions options) : options_(std::move(options)) {
  pin_re2();
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(8 << 20);
  for (const auto& b : kBuiltins)
    for (const auto& d : options_.detectors)
      if (d == b.name) patterns_.push_back(std::make_unique<Pattern>(b.name, b.pattern, o));
  for (const auto& d : options_.detectors) entropy_ = entropy_ || d == "high_entropy";
  if (!options_.prefilter) return;
  auto prefilter = std::make_unique<Prefilter>(o);
  bool added = true;
  for (std::size_t i = 0; i < patterns_.size() && added; ++i)
    added = prefilter->set.Add(patterns_[i]->re.pattern(), nullptr) == static_cast<int>(i);
  if (added && prefilter->set.Compile()) prefilter_ = std::move(prefilter);
}

SecretScanner::~SecretScanner() = default;

void SecretScanner::scan_plain(std::string_view text, std::vector<SecretHit>& out, bool entropy,
                               bool stop_at_first) const {
  const re2::StringPiece input(text.data(), text.size());
  // Which detectors can fire (prefilter_); without an answer -- no set, or
  // its DFA out of memory on this text -- every one runs: a detector is
  // never skipped on a guess.
  std::vector<int> can_fire;
  bool filtered = false;
  if (prefilter_) {
    RE2::Set::ErrorInfo info{RE2::Set::kNoError};
    filtered = prefilter_->set.Match(input, &can_fire, &info) || info.kind == RE2::Set::kNoError;
  }
  for (std::size_t k = 0; k < patterns_.size(); ++k) {
    if (filtered &&
        std::find(can_fire.begin(), can_fire.end(), static_cast<int>(k)) == can_fire.end())
      continue;
    const auto& p = patterns_[k];
    std::size_t pos = 0;
    re2::StringPiece m;
    while (pos <= text.size() && p->re.Match(input, pos, text.size(), RE2::UNANCHORED, &m, 1)) {
      std::size_t b = static_cast<std::size_t>(m.data() - text.data());
      std::size_t e = b + m.size();
      out.push_back({p->name, b, e});
      if (stop_at_first) return;
      pos = e > b ? e : b + 1;
    }
  }
  if (!entropy) return;
  for (std::size_t i = 0; i < text.size();) {
    if (!token_char(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    bool upper = false, lower = false, digit = false;
    while (j < text.size() && token_char(static_cast<unsigned char>(text[j]))) {
      char c = text[j];
      upper = upper || (c >= 'A' && c <= 'Z');
      lower = lower || (c >= 'a' && c <= 'z');
      digit = digit || (c >= '0' && c <= '9');
      ++j;
    }
    const std::size_t n = j - i;
    // Words, paths and hex digests lack one of the three classes; keys and
    // tokens rarely do.
    if (n >= options_.min_length && n <= options_.max_length && upper && lower && digit &&
        shannon_entropy(text.substr(i, n)) >= options_.threshold) {
      out.push_back({"high_entropy", i, j});
      if (stop_at_first) return;
    }
    i = j;
  }
}

void SecretScanner::scan_decoded(std::string_view text, std::vector<SecretHit>& out,
                                 bool stop_at_first) const {
  std::string decoded;
  std::vector<SecretHit> inner;
  // Percent-encoding: whitespace-delimited tokens holding %XX.
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    std::string_view tok = text.substr(i, j - i);
    if (tok.find('%') != std::string_view::npos && percent_decode(tok, decoded)) {
      inner.clear();
      scan_plain(decoded, inner, false, true);
      if (!inner.empty()) {
        out.push_back({inner[0].detector + " (percent-encoded)", i, j});
        if (stop_at_first) return;
      }
    }
    i = j;
  }
  // Base64: runs of the alphabet long enough to hide a key.
  for (std::size_t i = 0; i < text.size();) {
    if (b64_value(static_cast<unsigned char>(text[i])) < 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && b64_value(static_cast<unsigned char>(text[j])) >= 0) ++j;
    for (int pad = 0; pad < 2 && j < text.size() && text[j] == '='; ++pad) ++j;
    // A run may begin with a character or three that are not part of the
    // encoded text ("x" + base64 of a key shifts every 6-bit group): each
    // of the four alignments is decoded until one shows a secret.
    for (std::size_t skip = 0; skip < 4 && j - i >= 24 + skip && j - i <= (1u << 20); ++skip) {
      if (!decode_base64_text(text.substr(i + skip, j - i - skip), decoded)) continue;
      inner.clear();
      scan_plain(decoded, inner, false, true);
      if (!inner.empty()) {
        out.push_back({inner[0].detector + " (base64)", i, j});
        if (stop_at_first) return;
        break;
      }
    }
    i = j;
  }
}

void SecretScanner::scan(std::string_view text, std::vector<SecretHit>& out) const {
  std::string visible;
  std::vector<std::size_t> map;
  if (strip_invisible(text, visible, map)) {
    std::vector<SecretHit> hits;
    scan_plain(visible, hits, entropy_, false);
    if (options_.decode) scan_decoded(visible, hits, false);
    for (auto& h : hits) out.push_back({std::move(h.detector), map[h.begin], map[h.end]});
    return;
  }
  scan_plain(text, out, entropy_, false);
  if (options_.decode) scan_decoded(text, out, false);
}

std::string SecretScanner::first(std::string_view text) const {
  std::vector<SecretHit> hits;
  std::string visible;
  std::vector<std::size_t> map;
  std::string_view t = strip_invisible(text, visible, map) ? std::string_view(visible) : text;
  scan_plain(t, hits, entropy_, true);
  if (hits.empty() && options_.decode) scan_decoded(t, hits, true);
  return hits.empty() ? std::string() : hits[0].detector;
}

}  // namespace tgp
