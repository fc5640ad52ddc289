// The secret scanner (plugins/common/secrets.cpp: guard-secrets, redact,
// audit) with its RE2 set prefilter against the same scanner running every
// detector on every text: the prefilter only skips detectors that cannot
// fire, so both must find exactly the same secrets at the same places.
//
// Input: the text to scan.
#include "common/secrets.hpp"
#include "fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

tgp::SecretScanner& scanner(bool prefilter) {
  static tgp::SecretScanner with = [] {
    tgp::SecretOptions o;
    o.detectors = tgp::SecretScanner::detector_names();
    return tgp::SecretScanner(o);
  }();
  static tgp::SecretScanner without = [] {
    tgp::SecretOptions o;
    o.detectors = tgp::SecretScanner::detector_names();
    o.prefilter = false;
    return tgp::SecretScanner(o);
  }();
  return prefilter ? with : without;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<tgp::SecretHit> a, b;
  scanner(true).scan(text, a);
  scanner(false).scan(text, b);
  FUZZ_CHECK(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    FUZZ_CHECK(a[i].detector == b[i].detector && a[i].begin == b[i].begin && a[i].end == b[i].end);
  FUZZ_CHECK(scanner(true).first(text) == scanner(false).first(text));
  return 0;
}
