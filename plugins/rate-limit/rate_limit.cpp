// rate_limit.cpp -- a guard that denies calls over a rate: token buckets per
// tool glob, global or per session.  Every limit whose glob matches the tool
// takes a token; if any has none, the call is denied with the time until the
// next token, and the tokens the other limits took are given back (a denied
// call does not count).  One mutex per limit, held for a few arithmetic
// operations: no global lock, no allocation once a session's bucket exists.
//
// Counters live in memory: a host restart or a reload of this plugin starts
// with full buckets (state handoff across reloads is not in the ABI yet).
#include "token_bucket.hpp"

#include "../common/config.hpp"

#include <toolgate/plugin.hpp>

#include <cstdio>
#include <memory>

namespace sdk = toolgate::sdk;

namespace tgp::ratelimit {
namespace {

class RateLimit {
 public:
  explicit RateLimit(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"limits", "max_sessions"});
    const auto max_sessions = static_cast<std::size_t>(c.integer("max_sessions", 10000, 1, 10000000));
    const auto& limits = c.array("limits");
    if (limits.empty()) throw ConfigError("/limits", "list at least one limit");
    for (std::size_t i = 0; i < limits.size(); ++i) {
      ConfigObject l = ConfigObject::of(limits[i], "/limits/" + std::to_string(i));
      l.only({"name", "tools", "per", "count", "seconds", "burst"});
      std::string name = l.string("name", "limit " + std::to_string(i));
      bool per_session = l.choice("per", std::string("session"), {"session", "global"}) == "session";
      double count = l.number("count", std::nullopt, 1e-9, 1e9);
      double seconds = l.number("seconds", std::nullopt, 1e-6, 1e9);
      double burst = l.number("burst", std::max(1.0, count), 1.0, 1e9);
      limits_.push_back(std::make_unique<Limit>(std::move(name),
                                                NameGlobs(l.strings("tools", std::vector<std::string>{})),
                                                per_session, count, seconds, burst, max_sessions));
    }
    init.guard("rate", [this](const sdk::Call& call) { return check(call); });
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
