// policy.cpp -- the deployer's pre-execute workhorse: an ordered rule list.
//
// A rule matches tool-name globs, who asks (the calling program and whether a
// subagent makes the call) and argument conditions (all must hold) and
// yields a verdict (keep / allow / ask / deny) and/or argument rewrites.  The
// first matching rule wins; when none matches, the default verdict applies.
// Everything is compiled at init (globs split, regexes built); a call that
// only reads scalars never parses its arguments.
#include "condition.hpp"
#include "rewrite.hpp"

#include "../common/config.hpp"
#include "../common/glob.hpp"

#include <toolgate/plugin.hpp>

namespace sdk = toolgate::sdk;

namespace tgp::policy {
namespace {

enum class Verdict { keep, allow, ask, deny };

Verdict parse_verdict(const ConfigObject& c, const char* key, const char* def) {
  std::string v = c.choice(key, std::string(def), {"keep", "allow", "ask", "deny"});
  if (v == "allow") return Verdict::allow;
  if (v == "ask") return Verdict::ask;
  if (v == "deny") return Verdict::deny;
  return Verdict::keep;
}

sdk::PreVerdict to_sdk(Verdict v, const std::string& reason) {
  switch (v) {
    case Verdict::allow:
      return sdk::PreVerdict::allow();
    case Verdict::ask:
      return sdk::PreVerdict::ask(reason);
    case Verdict::deny:
      return sdk::PreVerdict::deny(reason);
    case Verdict::keep:
      break;
  }
  return sdk::PreVerdict::keep();
}

// Who asks (ABI 1.3's client and agent_id): the calling program's name
// against globs, and whether a subagent makes the call.  Either may be left
// out (no "callers" key at all: every caller); a caller the host cannot
// name has an empty client.
//
// And whether a Code Mode script makes the call (ABI 1.5's depth): a rule
// with "from_code": true matches only the calls a run_code script makes.
// On a host older than 1.5 the depth reads 0 (the SDK zeroes the struct),
// so such a rule matches nothing there -- a deny rule on it would not
// hold; built with this SDK the plugin asks for ABI 1.5 anyway
// (TOOLGATE_PLUGIN puts the header's minor in the descriptor).
struct Callers {
  std::optional<NameGlobs> clients;
  std::optional<bool> subagent;
  std::optional<bool> from_code;

  // `Who` is an sdk::Call or an sdk::Caller (a static verdict's question).
  template <class Who>
  bool matches(const Who& who) const {
    if (clients && !clients->matches(who.client())) return false;
    if (subagent && *subagent != who.subagent()) return false;
    if (from_code && *from_code != who.from_code()) return false;
    return true;
  }
};

Callers parse_callers(const ConfigObject& rule) {
  Callers r;
  if (!rule.has("callers")) return r;
  ConfigObject c = rule.object("callers");
  c.only({"clients", "subagent", "from_code"});
  if (!c.has("clients") && !c.has("subagent") && !c.has("from_code"))
    throw ConfigError(c.path(),
                      "\"callers\" needs \"clients\" (globs over the calling program), "
                      "\"subagent\" or \"from_code\" (true or false), or several");
  if (c.has("clients")) {
    auto globs = c.strings("clients");
    if (globs.empty()) throw ConfigError(c.path("clients"), "must list at least one glob");
    r.clients.emplace(std::move(globs));
  }
  if (c.has("subagent")) r.subagent = c.boolean("subagent");
  if (c.has("from_code")) r.from_code = c.boolean("from_code");
  return r;
}

struct Rule {
  NameGlobs tools;
  Callers callers;
  std::vector<Condition> when;
  Verdict verdict = Verdict::keep;
  std::string reason;
  Rewrite rewrite;
};

Rule parse_rule(const json::value& v, const std::string& path) {
  ConfigObject c = ConfigObject::of(v, path);
  c.only({"name", "tools", "callers", "when", "verdict", "reason", "set", "remove"});
  Rule r;
  c.string("name", "");  // a label for humans; validated, not used
  r.tools = NameGlobs(c.strings("tools", std::vector<std::string>{}));
  r.callers = parse_callers(c);
  if (c.has("when")) {
    const auto& when = c.array("when");
    for (std::size_t i = 0; i < when.size(); ++i)
      r.when.emplace_back(when[i], c.path("when") + "/" + std::to_string(i));
  }
  r.verdict = parse_verdict(c, "verdict", "keep");
  r.reason = c.string("reason", "");
  if ((r.verdict == Verdict::ask || r.verdict == Verdict::deny) && r.reason.empty())
    throw ConfigError(c.path("reason"),
                      "an \"ask\" or \"deny\" rule needs a reason the user and the model will "
                      "see; add \"reason\": \"...\"");
  if (c.has("set")) {
    ConfigObject set = c.object("set");
    for (const auto& kv : set.raw()) {
      std::string p(kv.key());
      check_pointer_syntax(p, set.path(kv.key()));
      r.rewrite.set.emplace_back(std::move(p), kv.value());
    }
  }
  auto remove = c.strings("remove", std::vector<std::string>{});
  for (std::size_t i = 0; i < remove.size(); ++i) {
    check_pointer_syntax(remove[i], c.path("remove") + "/" + std::to_string(i));
    r.rewrite.remove.push_back(remove[i]);
  }
  if (r.verdict == Verdict::keep && r.rewrite.empty() && c.has("reason"))
    throw ConfigError(c.path("reason"),
                      "a \"keep\" rule without rewrites has no use for a "
                      "reason; set \"verdict\" to \"ask\" or \"deny\"");
  return r;
}

class Policy {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "properties": {
        "rules": {"type": "array", "items": {
          "type": "object", "additionalProperties": false, "properties": {
            "name": {"type": "string"},
            "tools": )json" TGP_SCHEMA_TOOLS R"json(,
            "callers": {"type": "object", "additionalProperties": false, "properties": {
              "clients": )json" TGP_SCHEMA_STRINGS R"json(,
              "subagent": {"type": "boolean"},
              "from_code": {"type": "boolean"}}},
            "when": {"type": "array", "items": {
              "type": "object", "additionalProperties": false, "required": ["pointer"],
              "properties": {
                "pointer": {"type": "string"},
                "equals": true,
                "one_of": {"type": "array"},
                "glob": {"type": "string"},
                "regex": {"type": "string"},
                "prefix": {"type": "string"},
                "exists": {"type": "boolean"},
                "not": {"type": "boolean"}}}},
            "verdict": {"enum": ["keep", "allow", "ask", "deny"]},
            "reason": {"type": "string"},
            "set": {"type": "object"},
            "remove": )json" TGP_SCHEMA_STRINGS R"json(}}},
        "default": {"enum": ["keep", "allow", "ask", "deny"]},
        "default_reason": {"type": "string"}}})json";

  explicit Policy(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"rules", "default", "default_reason"});
    if (c.has("rules")) {
      const auto& rules = c.array("rules");
      for (std::size_t i = 0; i < rules.size(); ++i)
        rules_.push_back(parse_rule(rules[i], "/rules/" + std::to_string(i)));
    }
    default_ = parse_verdict(c, "default", "keep");
    default_reason_ = c.string("default_reason", "");
    if ((default_ == Verdict::ask || default_ == Verdict::deny) && default_reason_.empty())
      throw ConfigError("/default_reason",
                        "a default of \"ask\" or \"deny\" needs a reason; add "
                        "\"default_reason\": \"...\"");
    sdk::HookOptions o;
    o.denies_always = [this](const sdk::Caller& who) { return denies_always(who); };
    init.pre_execute(
        "rules", [this](const sdk::Call& call) { return decide(call); }, o);
  }

 private:
  // The static verdict (ABI 1.6): does decide() deny every call of this
  // tool by this caller, whatever its arguments?  Walk the rules as decide()
  // does.  A rule that matches without conditions decides for every call.
  // A conditional deny rule either denies or lets the walk go on, so it
  // changes nothing; any other conditional rule may stop the walk with a
  // verdict that is not deny, so the answer is no.
  bool denies_always(const sdk::Caller& who) const {
    for (const Rule& r : rules_) {
      if (!r.tools.matches(who.tool()) || !r.callers.matches(who)) continue;
      if (r.when.empty()) return r.verdict == Verdict::deny;
      if (r.verdict != Verdict::deny) return false;
    }
    return default_ == Verdict::deny;
  }

  sdk::PreVerdict decide(const sdk::Call& call) const {
    LazyArgs args(call);
    for (const Rule& r : rules_) {
      if (!r.tools.matches(call.tool()) || !r.callers.matches(call)) continue;
      bool all = true;
      for (const Condition& cond : r.when)
        if (!cond.holds(args)) {
          all = false;
          break;
        }
      if (!all) continue;
      sdk::PreVerdict v = to_sdk(r.verdict, r.reason);
      if (!r.rewrite.empty()) {
        json::object rewritten = args.object();
        r.rewrite.apply(rewritten);
        v = std::move(v).with_arguments(std::move(rewritten));
      }
      return v;
    }
    return to_sdk(default_, default_reason_);
  }

  std::vector<Rule> rules_;
  Verdict default_ = Verdict::keep;
  std::string default_reason_;
};

}  // namespace
}  // namespace tgp::policy

TOOLGATE_PLUGIN(tgp::policy::Policy, "toolgate.policy", "1.0.0", TG_CAP_PRE_EXECUTE, 0)
