// audit.cpp -- a result observer that appends one hash-chained JSON-lines
// record per call (chain.hpp has the format).  With "hmac_key_file" the
// chain is keyed (HMAC-SHA256); with "anchor_file" the chain head is also
// appended to a second file each time the log is made durable.
//
// Appends are serialized by an exclusive flock on the log file, not only by
// an in-process mutex: during a hot reload of this plugin the old instance
// may still be recording in-flight calls while the new one records new
// calls, and two hosts may share a log.  Under the lock the writer checks
// that its descriptor is still the active file (another writer may have
// rotated it) and whether someone else appended since its last write (then
// it re-reads the chain head from the file), so the chain never forks.
// The expensive part of a record (hashing the arguments and the result,
// serializing the trail) is done before taking any lock.
#include "chain.hpp"
#include "writer.hpp"

#include "../common/config.hpp"

#include <toolgate/plugin.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>

namespace sdk = toolgate::sdk;

namespace tgp::audit {
namespace {

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(us % 1000000));
  return buf;
}

// A trail entry as recorded: every field but argument copies, which become
// their SHA-256 (the log holds hashes of arguments, never arguments).
json::object trail_entry(const json::value& e) {
  json::object out;
  if (!e.is_object()) return out;
  for (const auto& kv : e.get_object()) {
    const std::string_view k = kv.key();
    if (k.substr(0, 10) == "arguments_")
      out[std::string(k) + "_sha256"] = json_sha256(kv.value());
    else
      out[k] = kv.value();
  }
  return out;
}

// The record body (everything after "prev"), as text starting with ','.
std::string body(const json::object& outcome) {
  static const json::value none;  // null
  auto field = [&](std::string_view k) -> const json::value& {
    const auto* v = outcome.if_contains(k);
    return v ? *v : none;
  };
  const json::value& result = field("result");
  json::object rec;
  rec["time"] = utc_now();
  rec["generation"] = field("generation");
  rec["call"] = field("call");
  const json::object* r = result.if_object();
  const json::value* err = r ? r->if_contains("error") : nullptr;
  const bool is_error =
      r && r->if_contains("isError") && r->at("isError").is_bool() && r->at("isError").get_bool();
  std::string outcome_name = "ok";
  if (is_error) {
    outcome_name = "error";
    if (err && err->is_object() && err->get_object().if_contains("code") &&
        err->get_object().at("code").is_string())
      outcome_name = std::string(err->get_object().at("code").get_string());
  }
  rec["outcome"] = outcome_name;
  if (err) rec["error"] = *err;
  const json::value& original = field("original_arguments");
  const json::value& final_args = field("final_arguments");
  rec["sha256"] = {{"original_arguments", json_sha256(original)},
                   {"final_arguments", json_sha256(final_args)},
                   {"result", json_sha256(result)}};
  rec["rewritten"] = original != final_args;
  json::array trail;
  std::int64_t total = 0;
  if (const auto* t = field("trail").if_array()) {
    trail.reserve(t->size());
    for (const auto& e : *t) {
      trail.push_back(trail_entry(e));
      if (e.is_object())
        if (const auto* ns = e.get_object().if_contains("ns"); ns && ns->is_int64())
          total += ns->get_int64();
    }
  }
  rec["trail"] = std::move(trail);
  rec["trail_ns"] = total;
  std::string text = json::serialize(rec);
  text[0] = ',';    // "{..." -> ",..."
  text.pop_back();  // drop the closing brace: seal() adds it
  return text;
}

FsyncPolicy parse_fsync(const ConfigObject& c) {
  const json::value* v = c.get("fsync");
  if (!v) return {Durability::always, 1};
  if (v->is_string()) {
    if (v->get_string() == "always") return {Durability::always, 1};
    if (v->get_string() == "never") return {Durability::never, 0};
  } else if (v->is_int64() && v->get_int64() >= 1 && v->get_int64() <= 1000000) {
    return {v->get_int64() == 1 ? Durability::always : Durability::every_n,
            static_cast<std::uint64_t>(v->get_int64())};
  }
  throw ConfigError(
      c.path("fsync"),
      "must be \"always\" (fsync after every record), \"never\", or an integer N from 1 to "
      "1000000 (fsync after every N records)");
}

class Audit {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "required": ["path"],
        "properties": {
          "path": {"type": "string"},
          "fsync": {"anyOf": [{"enum": ["always", "never"]},
                              {"type": "integer", "minimum": 1, "maximum": 1000000}]},
          "max_bytes": {"type": "integer", "minimum": 0, "maximum": 1125899906842624},
          "hmac_key_file": {"type": "string"},
          "anchor_file": {"type": "string"}}})json";

  explicit Audit(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"path", "fsync", "max_bytes", "hmac_key_file", "anchor_file"});
    WriterOptions o;
    const std::string path = c.string("path");
    if (path.empty())
      throw ConfigError("/path",
                        "must name the audit log file, e.g. \"/var/log/toolgate/audit.jsonl\"");
    o.path = std::filesystem::absolute(path);  // fixed at load, whatever the cwd later
    o.fsync = parse_fsync(c);
    o.max_bytes = static_cast<std::uint64_t>(c.integer("max_bytes", 64LL << 20, 0, 1LL << 50));
    if (c.has("hmac_key_file")) {
      const std::string key_file = c.string("hmac_key_file");
      if (key_file.empty())
        throw ConfigError("/hmac_key_file",
                          "must name the file holding the chain's key (32 or more random bytes, "
                          "mode 0600), e.g. \"/etc/toolgate/audit.key\"");
      try {
        o.key = read_key_file(std::filesystem::absolute(key_file));
      } catch (const std::exception& e) {
        throw ConfigError("/hmac_key_file", e.what());
      }
    }
    if (c.has("anchor_file")) {
      const std::string anchor = c.string("anchor_file");
      if (anchor.empty())
        throw ConfigError("/anchor_file",
                          "must name the file the chain head is appended to, best on another "
                          "volume or host, e.g. \"/var/lib/toolgate-anchor/audit.anchor\"");
      o.anchor = std::filesystem::absolute(anchor);
    }
    try {
      writer_ = std::make_unique<Writer>(std::move(o));
    } catch (const OpenError& e) {
      throw ConfigError("/" + e.key(), e.what());
    } catch (const std::exception& e) {
      throw ConfigError("/path", e.what());
    }
    init.result_observer("record", [this](const sdk::Call& call) {
      const json::value outcome = call.result();
      if (!outcome.is_object()) throw std::runtime_error("the host gave no outcome record");
      writer_->append(body(outcome.get_object()));
    });
  }

 private:
  std::unique_ptr<Writer> writer_;
};

}  // namespace
}  // namespace tgp::audit

TOOLGATE_PLUGIN(tgp::audit::Audit, "toolgate.audit", "1.0.0", TG_CAP_RESULT_OBSERVER, 0)
