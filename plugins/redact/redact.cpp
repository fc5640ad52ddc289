// redact.cpp -- post-execute: mask secrets in results before the model sees
// them, with the same detectors as guard-secrets (common/secrets.hpp), and
// queue a context note so the model knows something was withheld (and does
// not, say, retry to get it).
//
// What is scanned: the text of "text" content blocks, the text of embedded
// "resource" blocks, and every string in the structured value.  Image and
// audio data are not text and are left alone.
#include "../common/config.hpp"
#include "../common/glob.hpp"
#include "../common/secrets.hpp"

#include <toolgate/plugin.hpp>

#include <algorithm>
#include <set>

namespace sdk = toolgate::sdk;

namespace tgp::secrets {
namespace {

class Redact {
 public:
  explicit Redact(sdk::Init& init) : scanner_(options(init)) {
    ConfigObject c(init.config(), "");
    tools_ = NameGlobs(c.strings("tools", std::vector<std::string>{}));
    mask_ = c.string("mask", "[REDACTED:{detector}]");
    note_ = c.boolean("note", true);
    init.post_execute("redact", [this](const sdk::Call& call) { return run(call); });
  }

 private:
  static SecretOptions options(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"tools", "detectors", "entropy", "decode", "mask", "note"});
    return SecretScanner::options_from(c);
  }

  std::string mask_for(const std::string& detector) const {
    std::string out = mask_;
    const std::string key = "{detector}";
    for (auto p = out.find(key); p != std::string::npos; p = out.find(key, p + detector.size()))
      out.replace(p, key.size(), detector);
    return out;
  }

  // Rewrites `s` in place; returns the number of secrets masked.
  std::size_t redact_string(json::string& s, std::set<std::string>& detectors) const {
    std::vector<SecretHit> hits;
    scanner_.scan(std::string_view(s.data(), s.size()), hits);
    if (hits.empty()) return 0;
    std::sort(hits.begin(), hits.end(),
              [](const SecretHit& a, const SecretHit& b) { return a.begin < b.begin; });
    std::string out;
    std::size_t pos = 0, count = 0;
    for (std::size_t i = 0; i < hits.size();) {
      // Merge overlapping spans; the first detector names the merged span.
      std::size_t b = hits[i].begin, e = hits[i].end;
      const std::string& name = hits[i].detector;
      std::size_t k = i + 1;
      while (k < hits.size() && hits[k].begin < e) e = std::max(e, hits[k++].end);
      if (b < pos) b = pos;
      out.append(s.data() + pos, b - pos);
      out += mask_for(name);
      detectors.insert(name);
      pos = e;
      ++count;
      i = k;
    }
    out.append(s.data() + pos, s.size() - pos);
    s = out;
    return count;
  }

  std::size_t redact_value(json::value& v, std::set<std::string>& detectors) const {
    std::size_t n = 0;
    if (v.is_string())
      n += redact_string(v.get_string(), detectors);
    else if (v.is_array())
      for (auto& e : v.get_array()) n += redact_value(e, detectors);
    else if (v.is_object())
      for (auto& kv : v.get_object()) n += redact_value(kv.value(), detectors);
    return n;
  }

  sdk::PostVerdict run(const sdk::Call& call) const {
    if (!tools_.matches(call.tool())) return sdk::PostVerdict::accept();
    json::value result = call.result();
    if (!result.is_object()) return sdk::PostVerdict::accept();
    auto& r = result.get_object();
    std::set<std::string> detectors;
    std::size_t count = 0;
    if (auto* content = r.if_contains("content"); content && content->is_array()) {
      for (auto& block : content->get_array()) {
        if (!block.is_object()) continue;
        auto& b = block.get_object();
        const json::value* type = b.if_contains("type");
        if (!type || !type->is_string()) continue;
        if (type->get_string() == "text") {
          if (auto* t = b.if_contains("text"); t && t->is_string())
            count += redact_string(t->get_string(), detectors);
        } else if (type->get_string() == "resource") {
          if (auto* res = b.if_contains("resource"); res && res->is_object())
            if (auto* t = res->get_object().if_contains("text"); t && t->is_string())
              count += redact_string(t->get_string(), detectors);
        }
      }
    }
    if (auto* value = r.if_contains("value")) count += redact_value(*value, detectors);
    if (count == 0) return sdk::PostVerdict::accept();
    auto verdict = sdk::PostVerdict::replace(std::move(result));
    if (!note_) return verdict;
    std::string list;
    for (const auto& d : detectors) list += (list.empty() ? "" : ", ") + d;
    return std::move(verdict).add_context(
        "Note: " + std::to_string(count) + " secret" + (count == 1 ? "" : "s") +
        " in the result of " + std::string(call.tool()) + " " + (count == 1 ? "was" : "were") +
        " redacted before you saw it (detectors: " + list +
        "). The redacted values are not available; do not try to recover them.");
  }

  SecretScanner scanner_;
  NameGlobs tools_;
  std::string mask_;
  bool note_ = true;
};

}  // namespace
}  // namespace tgp::secrets

TOOLGATE_PLUGIN(tgp::secrets::Redact, "toolgate.redact", "1.0.0", TG_CAP_POST_EXECUTE, 0)
