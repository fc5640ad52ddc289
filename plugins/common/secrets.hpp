// secrets.hpp -- secret detectors shared by guard-secrets (deny calls that
// carry secrets out) and redact (mask secrets in results).
//
// Detectors (names are the config and report vocabulary):
//   private_key      -----BEGIN ... PRIVATE KEY----- blocks (RSA, EC, OpenSSH, PGP, PKCS#8)
//   aws_access_key   AKIA/ASIA/... access key ids
//   aws_secret_key   aws_secret_access_key = <40 chars>
//   github_token     ghp_/gho_/ghu_/ghs_/ghr_ tokens, github_pat_ fine-grained tokens
//   gitlab_token     glpat- tokens
//   slack_token      xoxb-/xoxp-/xoxa-/... tokens
//   slack_webhook    https://hooks.slack.com/services/...
//   google_api_key   AIza... keys
//   stripe_key       sk_live_/rk_live_/sk_test_ keys
//   sk_api_key       OpenAI / Anthropic style "sk-..." keys
//   jwt              three base64url parts starting eyJ
//   url_credentials  scheme://user:password@host
//   high_entropy     a token of 24+ [A-Za-z0-9+/=_-] chars mixing upper case,
//                    lower case and digits with Shannon entropy over a threshold
// Evasions handled: zero-width characters inside a secret are ignored, and
// (with "decode") percent-encoded and base64-encoded tokens are decoded and
// scanned again; a hit there covers the whole encoded token.
#pragma once

#include "config.hpp"

#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

// The config keys SecretScanner::options_from reads, as JSON Schema
// properties (guard-secrets and redact add their own keys around them).
// (Each raw literal stays on one line: a line splice inside one would be
// undone, ending the macro early.)
#define TGP_SCHEMA_SECRET_OPTIONS                                                             \
  R"json("detectors": )json" TGP_SCHEMA_STRINGS                                               \
  R"json(, "entropy": {"type": "object", "additionalProperties": false, "properties": {)json" \
  R"json("min_length": {"type": "integer", "minimum": 8, "maximum": 4096}, )json"             \
  R"json("max_length": {"type": "integer", "minimum": 8, "maximum": 1048576}, )json"          \
  R"json("threshold": {"type": "number", "minimum": 1, "maximum": 8}}}, )json"                \
  R"json("decode": {"type": "boolean"})json"

namespace tgp {

struct SecretHit {
  std::string detector;    // e.g. "github_token", "private_key (base64)"
  std::size_t begin, end;  // byte span in the scanned text
};

struct SecretOptions {
  std::vector<std::string> detectors;  // enabled; default all
  std::size_t min_length = 24;         // high_entropy: shortest token
  std::size_t max_length = 512;        // high_entropy: longest token (longer: data, not a key)
  double threshold = 4.3;              // high_entropy: bits per character
  bool decode = true;                  // scan percent- and base64-decoded tokens too
  // Not a config key: the RE2 set that picks the detectors to run
  // (SecretScanner::prefilter_).  Off only where a test compares the two.
  bool prefilter = true;
};

class SecretScanner {
 public:
  static const std::vector<std::string>& detector_names();
  // Reads "detectors" and "entropy" ({min_length, max_length, threshold})
  // and "decode" from `c` (the caller lists them as known keys).
  static SecretOptions options_from(const ConfigObject& c);

  explicit SecretScanner(SecretOptions options);
  ~SecretScanner();
  SecretScanner(const SecretScanner&) = delete;
  SecretScanner& operator=(const SecretScanner&) = delete;

  // Appends every detection in `text` (spans may overlap).  Thread-safe.
  void scan(std::string_view text, std::vector<SecretHit>& out) const;
  // The first detector that fires, or "" -- cheaper when any hit will do.
  std::string first(std::string_view text) const;

 private:
  struct Pattern;
  struct Prefilter;
  void scan_plain(std::string_view text, std::vector<SecretHit>& out, bool entropy,
                  bool stop_at_first) const;
  void scan_decoded(std::string_view text, std::vector<SecretHit>& out, bool stop_at_first) const;

  SecretOptions options_;
  bool entropy_ = false;
  std::vector<std::unique_ptr<Pattern>> patterns_;
  // All the patterns in one RE2::Set: one pass over a text says which
  // detectors can fire at all, and only those run (most texts hold no
  // secret; each detector run alone was a pass of its own).  Null when the
  // set could not be built: every detector runs, as without it.
  std::unique_ptr<Prefilter> prefilter_;
};

// Shannon entropy of `s` in bits per byte.
double shannon_entropy(std::string_view s);

}  // namespace tgp
