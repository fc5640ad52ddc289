// rate_limit.cpp -- a guard that denies calls over a rate: token buckets per
// tool glob, global or per session.  Every limit whose glob matches the tool
// takes a token; if any has none, the call is denied with the time until the
// next token, and the tokens the other limits took are given back (a denied
// call does not count).  One mutex per limit, held for a few arithmetic
// operations: no global lock, no allocation once a session's bucket exists.
//
// Counters live in memory.  A hot reload of this plugin hands them to the new
// instance (export_state / import_state, ABI 1.1): limits are matched by
// name and `per`; a host restart starts with full buckets.
//
// With "store": {"redis": "HOST:PORT", ...} the buckets live in Redis
// instead (redis_buckets.hpp), shared by every instance configured with the
// same store and prefix -- replicas of a gateway then share each limit
// rather than each allowing the whole rate.  When the store cannot answer,
// the call is denied, saying why, unless "on_error" is "allow".
#include "redis_buckets.hpp"
#include "token_bucket.hpp"

#include "../common/config.hpp"

#include <toolgate/plugin.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

namespace sdk = toolgate::sdk;

namespace tgp::ratelimit {
namespace {

class RateLimit {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "required": ["limits"],
        "properties": {
          "limits": {"type": "array", "items": {
            "type": "object", "additionalProperties": false, "required": ["count", "seconds"],
            "properties": {
              "name": {"type": "string"},
              "tools": )json" TGP_SCHEMA_TOOLS R"json(,
              "per": {"enum": ["session", "global"]},
              "count": {"type": "number", "minimum": 1e-9, "maximum": 1e9},
              "seconds": {"type": "number", "minimum": 1e-6, "maximum": 1e9},
              "burst": {"type": "number", "minimum": 1, "maximum": 1e9}}}},
          "max_sessions": {"type": "integer", "minimum": 1, "maximum": 10000000},
          "store": {"type": "object", "additionalProperties": false, "required": ["redis"],
            "properties": {
              "redis": {"type": "string"},
              "password_file": {"type": "string"},
              "prefix": {"type": "string"},
              "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 60000},
              "on_error": {"enum": ["deny", "allow"]}}}}})json";

  explicit RateLimit(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"limits", "max_sessions", "store"});
    if (c.has("store")) read_store(c.object("store"));
    const auto max_sessions =
        static_cast<std::size_t>(c.integer("max_sessions", 10000, 1, 10000000));
    const auto& limits = c.array("limits");
    if (limits.empty()) throw ConfigError("/limits", "list at least one limit");
    for (std::size_t i = 0; i < limits.size(); ++i) {
      ConfigObject l = ConfigObject::of(limits[i], "/limits/" + std::to_string(i));
      l.only({"name", "tools", "per", "count", "seconds", "burst"});
      std::string name = l.string("name", "limit " + std::to_string(i));
      bool per_session =
          l.choice("per", std::string("session"), {"session", "global"}) == "session";
      double count = l.number("count", std::nullopt, 1e-9, 1e9);
      double seconds = l.number("seconds", std::nullopt, 1e-6, 1e9);
      double burst = l.number("burst", std::max(1.0, count), 1.0, 1e9);
      // In a store a limit's bucket is found by its name: two limits of one
      // name would share a bucket (one refilling what the other counts).
      if (store_)
        for (std::size_t k = 0; k < limits_.size(); ++k)
          if (limits_[k]->name() == name)
            throw ConfigError("/limits/" + std::to_string(i) + "/name",
                              "the limit name \"" + name + "\" is used by /limits/" +
                                  std::to_string(k) +
                                  " too; with a store each limit needs a name of its own (its "
                                  "bucket in the store is found by it)");
      limits_.push_back(std::make_unique<Limit>(
          std::move(name), NameGlobs(l.strings("tools", std::vector<std::string>{})), per_session,
          count, seconds, burst, max_sessions));
    }
    init.guard("rate", [this](const sdk::Call& call) { return check(call); });
  }

  // ---- state handoff across a hot reload ----------------------------------
  // {"format": "toolgate.rate-limit", "version": 1, "limits": [...]}.  A
  // different format or version, or a malformed document, throws: the host
  // then rejects the reload and the old generation keeps serving.  Limits
  // are matched by name (the k-th limit of a name to the k-th) and must have
  // the same `per`; limits that do not match start full, and buckets are
  // clamped to the new burst.
  static constexpr std::int64_t kStateVersion = 1;

  json::value export_state() {
    const auto now = Clock::now();
    json::array limits;
    for (auto& l : limits_) limits.push_back(l->export_state(now));
    return json::object{{"format", "toolgate.rate-limit"},
                        {"version", kStateVersion},
                        {"limits", std::move(limits)}};
  }

  void import_state(const json::value& state) {
    const auto* o = state.if_object();
    const json::value* format = o ? o->if_contains("format") : nullptr;
    const json::value* version = o ? o->if_contains("version") : nullptr;
    if (!format || !format->is_string() || format->get_string() != "toolgate.rate-limit")
      throw std::runtime_error(
          "rate-limit: the handed-over state is not a toolgate.rate-limit state");
    if (!version || !version->is_int64() || version->get_int64() != kStateVersion)
      throw std::runtime_error("rate-limit: state version " +
                               (version ? json::serialize(*version) : std::string("(none)")) +
                               " is not supported (this version reads version " +
                               std::to_string(kStateVersion) + ")");
    const auto* limits = o->if_contains("limits");
    if (!limits || !limits->is_array())
      throw std::runtime_error("rate-limit state: no \"limits\" array");
    const auto now = Clock::now();
    std::map<std::string, std::size_t> seen;  // occurrences of each name so far
    for (const auto& v : limits->get_array()) {
      const auto* lo = v.if_object();
      const json::value* name = lo ? lo->if_contains("name") : nullptr;
      const json::value* per = lo ? lo->if_contains("per") : nullptr;
      if (!name || !name->is_string() || !per || !per->is_string())
        throw std::runtime_error("rate-limit state: a limit lacks \"name\" or \"per\"");
      const std::string n(name->get_string());
      std::size_t k = seen[n]++;
      for (auto& l : limits_) {
        if (l->name() != n || k-- != 0) continue;
        if ((per->get_string() == "session") == l->per_session()) l->import_state(*lo, now);
        break;
      }
    }
  }

 private:
  // "store": {"redis": "HOST:PORT", "password_file", "prefix", "timeout_ms", "on_error"}.
  void read_store(const ConfigObject& s) {
    s.only({"redis", "password_file", "prefix", "timeout_ms", "on_error"});
    RedisBuckets::Options o;
    const std::string address = s.string("redis");
    const auto colon = address.rfind(':');
    char* end = nullptr;
    const long port =
        colon == std::string::npos ? 0 : std::strtol(address.c_str() + colon + 1, &end, 10);
    if (colon == std::string::npos || colon == 0 || !end || *end != '\0' || port < 1 ||
        port > 65535)
      throw ConfigError("/store/redis",
                        "write the store's address as HOST:PORT, e.g. "
                        "\"127.0.0.1:6379\" (got \"" +
                            address + "\")");
    o.host = address.substr(0, colon);
    o.port = static_cast<int>(port);
    o.timeout = std::chrono::milliseconds(s.integer("timeout_ms", 250, 1, 60000));
    if (s.has("password_file")) {
      const std::string file = s.string("password_file");
      std::FILE* f = std::fopen(file.c_str(), "rb");
      if (!f)
        throw ConfigError("/store/password_file",
                          "cannot read " + file + ": " + std::strerror(errno) +
                              " (a file holding the store's password, readable by this process)");
      char buf[512];
      const std::size_t n = std::fread(buf, 1, sizeof buf, f);
      std::fclose(f);
      o.password.assign(buf, n);
      while (!o.password.empty() && (o.password.back() == '\n' || o.password.back() == '\r'))
        o.password.pop_back();
    }
    prefix_ = s.string("prefix", std::string("toolgate:rate-limit:"));
    fail_open_ = s.choice("on_error", std::string("deny"), {"deny", "allow"}) == "allow";
    store_ = std::make_unique<RedisBuckets>(std::move(o));
  }

  // The store's key of a limit's bucket: the name length-prefixed, so that
  // no limit name and session id pair can spell another's key.
  std::string key_of(const Limit& l, std::string_view session) const {
    std::string key = prefix_ + std::to_string(l.name().size()) + ":" + l.name();
    if (l.per_session()) key.append(":").append(session);
    return key;
  }

  sdk::GuardVerdict check_in_store(std::string_view tool, std::string_view session) const {
    std::vector<RedisBuckets::Take> takes;
    std::vector<const Limit*> which;
    for (const auto& l : limits_)
      if (l->applies(tool)) {
        takes.push_back({key_of(*l, session), l->rate(), l->burst()});
        which.push_back(l.get());
      }
    if (takes.empty()) return sdk::GuardVerdict::abstain();
    const auto o = store_->take_all(takes);
    if (!o.ok) {
      if (fail_open_) return sdk::GuardVerdict::abstain();
      return sdk::GuardVerdict::deny("rate limit store " + store_->where() + " did not answer (" +
                                     o.error + "); " + std::string(tool) +
                                     " denied: the limit cannot be checked, and the store's "
                                     "on_error is \"deny\"");
    }
    if (o.wait <= 0) return sdk::GuardVerdict::abstain();
    return exceeded(*which.at(o.limiting), tool, o.wait);
  }

  static sdk::GuardVerdict exceeded(const Limit& l, std::string_view tool, double wait) {
    char when[32];
    std::snprintf(when, sizeof when, "%.2f", wait);
    return sdk::GuardVerdict::deny("rate limit \"" + l.name() + "\" (" + l.describe() +
                                   ") exceeded by " + std::string(tool) +
                                   "; the next call is allowed in " + when + " s");
  }

  sdk::GuardVerdict check(const sdk::Call& call) const {
    if (store_) return check_in_store(call.tool(), call.session_id());
    const auto now = Clock::now();
    const std::string_view tool = call.tool(), session = call.session_id();
    for (std::size_t i = 0; i < limits_.size(); ++i) {
      Limit& l = *limits_[i];
      if (!l.applies(tool)) continue;
      const double wait = l.take(session, now);
      if (wait <= 0) continue;
      for (std::size_t k = 0; k < i; ++k)
        if (limits_[k]->applies(tool)) limits_[k]->refund(session);
      return exceeded(l, tool, wait);
    }
    return sdk::GuardVerdict::abstain();
  }

  std::vector<std::unique_ptr<Limit>> limits_;
  std::unique_ptr<RedisBuckets> store_;  // null: the buckets are in memory
  std::string prefix_;
  bool fail_open_ = false;
};

}  // namespace
}  // namespace tgp::ratelimit

TOOLGATE_PLUGIN(tgp::ratelimit::RateLimit, "toolgate.rate-limit", "1.0.0", TG_CAP_GUARD, 0)
