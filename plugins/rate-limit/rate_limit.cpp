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
#include "token_bucket.hpp"

#include "../common/config.hpp"

#include <toolgate/plugin.hpp>

#include <cstdio>
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
              "tools": )json" TGP_SCHEMA_STRINGS R"json(,
              "per": {"enum": ["session", "global"]},
              "count": {"type": "number", "minimum": 1e-9, "maximum": 1e9},
              "seconds": {"type": "number", "minimum": 1e-6, "maximum": 1e9},
              "burst": {"type": "number", "minimum": 1, "maximum": 1e9}}}},
          "max_sessions": {"type": "integer", "minimum": 1, "maximum": 10000000}}})json";

  explicit RateLimit(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"limits", "max_sessions"});
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
  sdk::GuardVerdict check(const sdk::Call& call) const {
    const auto now = Clock::now();
    const std::string_view tool = call.tool(), session = call.session_id();
    for (std::size_t i = 0; i < limits_.size(); ++i) {
      Limit& l = *limits_[i];
      if (!l.applies(tool)) continue;
      const double wait = l.take(session, now);
      if (wait <= 0) continue;
      for (std::size_t k = 0; k < i; ++k)
        if (limits_[k]->applies(tool)) limits_[k]->refund(session);
      char when[32];
      std::snprintf(when, sizeof when, "%.2f", wait);
      return sdk::GuardVerdict::deny("rate limit \"" + l.name() + "\" (" + l.describe() +
                                     ") exceeded by " + std::string(tool) +
                                     "; the next call is allowed in " + when + " s");
    }
    return sdk::GuardVerdict::abstain();
  }

  std::vector<std::unique_ptr<Limit>> limits_;
};

}  // namespace
}  // namespace tgp::ratelimit

TOOLGATE_PLUGIN(tgp::ratelimit::RateLimit, "toolgate.rate-limit", "1.0.0", TG_CAP_GUARD, 0)
