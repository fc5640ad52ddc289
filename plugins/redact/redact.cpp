// redact.cpp -- post-execute: mask secrets in results before the model sees
// them, with the same detectors as guard-secrets (common/secrets.hpp), and
// queue a context note so the model knows something was withheld (and does
// not, say, retry to get it).
//
// What is scanned: everything in the result a client is shown as text --
// every text field of every content block ("text", an embedded resource's
// text and uri, a resource_link's uri, name and description, ...), every
// string and every object key in the structured value, and on an error its
// message and each denial's reason.  A guard that quotes the arguments (a
// path, a command) in its reason would otherwise hand a secret in them back
// to the client.  Image, audio and blob data are not text and are left alone
// -- in content blocks, in block-shaped objects of the structured value, and
// wherever the structured value repeats those exact bytes (an MCP server that
// mirrors its content into structuredContent): base64 reads as high-entropy
// text, and masking it broke the image and told the model a secret was
// withheld when none was.
//
// On a denied call the engine keeps the denial's code, stage and sources and
// takes only the wording from a replacement (docs/design.md §2.7): the
// replacement here is the same result with its strings masked, so it fits.
//
// A result with nothing to mask -- nearly all of them -- is not copied at
// all: its strings are scanned where the host keeps them (run()).
#include "../common/config.hpp"
#include "../common/glob.hpp"
#include "../common/secrets.hpp"

#include <toolgate/plugin.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace sdk = toolgate::sdk;

namespace tgp::secrets {
namespace {

class Redact {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "properties": {
        "tools": )json" TGP_SCHEMA_TOOLS R"json(,
        "mask": {"type": "string"},
        "note": {"type": "boolean"},
        )json" TGP_SCHEMA_SECRET_OPTIONS R"json(}})json";

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

  // Binary data in content blocks, at any depth: the "data" / "blob" of
  // objects shaped like binary content (binary_shaped), and nothing else --
  // a "data" member of a text block is text, and exempting its bytes
  // elsewhere would let a secret through.
  static void collect_binary(const json::value& v, std::set<std::string, std::less<>>& out) {
    if (v.is_array()) {
      for (const auto& e : v.get_array()) collect_binary(e, out);
    } else if (v.is_object()) {
      const bool shaped = binary_shaped(v.get_object());
      for (const auto& kv : v.get_object()) {
        if (shaped && (kv.key() == "data" || kv.key() == "blob") && kv.value().is_string())
          out.emplace(kv.value().get_string());
        else
          collect_binary(kv.value(), out);
      }
    }
  }

  // An object shaped like binary content: an image or audio block, or a
  // resource's contents with a blob.  Its "data" / "blob" is not text.
  static bool binary_shaped(const json::object& o) {
    const auto* type = o.if_contains("type");
    if (type && type->is_string() &&
        (type->get_string() == "image" || type->get_string() == "audio"))
      return o.contains("mimeType");
    return o.contains("blob") && o.contains("uri");
  }

  // Every string and every object key (a key can carry a secret as well as
  // a value can), but not binary data (see the top of the file).  Two keys
  // masked alike get " #2", " #3" rather than one overwriting the other.
  std::size_t redact_value(json::value& v, std::set<std::string>& detectors,
                           const std::set<std::string, std::less<>>& binary) const {
    if (v.is_string()) {
      if (binary.count(std::string_view(v.get_string().data(), v.get_string().size()))) return 0;
      return redact_string(v.get_string(), detectors);
    }
    std::size_t n = 0;
    if (v.is_array())
      for (auto& e : v.get_array()) n += redact_value(e, detectors, binary);
    if (!v.is_object()) return n;
    auto& o = v.get_object();
    const bool shaped = binary_shaped(o);
    std::vector<std::pair<std::size_t, json::string>> renamed;  // position, masked key
    std::size_t i = 0;
    for (auto& kv : o) {
      const bool data = shaped && (kv.key() == "data" || kv.key() == "blob");
      if (!data) n += redact_value(kv.value(), detectors, binary);
      json::string key(kv.key());
      if (std::size_t k = redact_string(key, detectors)) {
        n += k;
        renamed.emplace_back(i, std::move(key));
      }
      ++i;
    }
    if (renamed.empty()) return n;
    json::object out(o.storage());
    out.reserve(o.size());
    std::size_t r = 0;
    i = 0;
    for (auto& kv : o) {
      std::string key(kv.key());
      if (r < renamed.size() && renamed[r].first == i) key = std::string(renamed[r++].second);
      std::string unique = key;
      for (int c = 2; out.contains(unique); ++c) unique = key + " #" + std::to_string(c);
      out.emplace(unique, std::move(kv.value()));
      ++i;
    }
    o = std::move(out);
    return n;
  }

  // The text fields of a content block, at any depth; not its keys, its
  // "type" and "mimeType", or binary data ("data", "blob": base64 that the
  // entropy detector would flag).
  std::size_t redact_block(json::value& v, std::set<std::string>& detectors) const {
    std::size_t n = 0;
    if (v.is_string()) {
      n += redact_string(v.get_string(), detectors);
    } else if (v.is_array()) {
      for (auto& e : v.get_array()) n += redact_block(e, detectors);
    } else if (v.is_object()) {
      for (auto& kv : v.get_object()) {
        auto k = kv.key();
        if (k == "type" || k == "mimeType" || k == "data" || k == "blob") continue;
        n += redact_block(kv.value(), detectors);
      }
    }
    return n;
  }

  sdk::PostVerdict run(const sdk::Call& call) const {
    if (!tools_.matches(call.tool())) return sdk::PostVerdict::accept();
    // Almost every result holds no secret: every string of it is scanned
    // first where the host keeps it (no JSON copy for the plugin, ABI 1.8).
    // Those strings include what the walk below leaves alone (keys of
    // content blocks, "type", binary data), so a result that passes here
    // passes below too; one that does not (an image's base64 often reads
    // as high-entropy text) is read whole and redacted exactly as before.
    // A string seen before is not scanned again: a server that mirrors its
    // content into structuredContent sends each text twice.  (The views
    // stay valid for the whole walk.)
    std::unordered_set<std::string_view> scanned;
    scanned.reserve(16);
    const bool clean = call.for_each_string(sdk::Call::Strings::result, [&](std::string_view s) {
      if (!scanned.insert(s).second) return true;
      return scanner_.first(s).empty();
    });
    if (clean) return sdk::PostVerdict::accept();
    json::value result = call.result();
    if (!result.is_object()) return sdk::PostVerdict::accept();
    auto& r = result.get_object();
    std::set<std::string> detectors;
    std::set<std::string, std::less<>> binary;
    std::size_t count = 0;
    if (auto* content = r.if_contains("content"); content && content->is_array()) {
      collect_binary(*content, binary);
      for (auto& block : content->get_array()) count += redact_block(block, detectors);
    }
    if (auto* value = r.if_contains("value")) count += redact_value(*value, detectors, binary);
    // An error's wording: the message and each denial's reason.  Its code,
    // stage and sources are names the engine chose, never secrets.
    if (auto* error = r.if_contains("error"); error && error->is_object()) {
      auto& e = error->get_object();
      if (auto* m = e.if_contains("message"); m && m->is_string())
        count += redact_string(m->get_string(), detectors);
      if (auto* denials = e.if_contains("denials"); denials && denials->is_array())
        for (auto& d : denials->get_array())
          if (auto* reason = d.is_object() ? d.get_object().if_contains("reason") : nullptr;
              reason && reason->is_string())
            count += redact_string(reason->get_string(), detectors);
    }
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
