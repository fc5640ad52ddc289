// guard_secrets.cpp -- deny calls that would carry a secret out of the
// machine: tools annotated open-world (they reach the network or other
// people) and tools matching configured globs.  Every string in the final
// arguments -- values and object keys -- is scanned with the shared
// detectors (common/secrets.hpp).  The denial names the argument and the
// detector, never the secret: reasons end up in logs, events and the model's
// context.
#include "../common/config.hpp"
#include "../common/glob.hpp"
#include "../common/secrets.hpp"

#include <toolgate/plugin.hpp>

namespace sdk = toolgate::sdk;

namespace tgp::secrets {
namespace {

class GuardSecrets {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "properties": {
        "tools": )json" TGP_SCHEMA_TOOLS R"json(,
        "open_world": {"type": "boolean"},
        )json" TGP_SCHEMA_SECRET_OPTIONS R"json(}})json";

  explicit GuardSecrets(sdk::Init& init) : scanner_(options(init)) {
    ConfigObject c(init.config(), "");
    open_world_ = c.boolean("open_world", true);
    tools_ = NameGlobs(c.strings("tools", std::vector<std::string>{}));
    has_tools_ = c.has("tools");
    if (has_tools_ && tools_.empty())
      throw ConfigError("/tools", "list at least one tool glob, or leave the key out");
    if (!open_world_ && !has_tools_)
      throw ConfigError("/open_world",
                        "with open_world false and no \"tools\", the guard would "
                        "check nothing; add \"tools\" globs");
    init.guard("secrets", [this](const sdk::Call& call) { return check(call); });
  }

 private:
  static SecretOptions options(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"tools", "open_world", "detectors", "entropy", "decode"});
    return SecretScanner::options_from(c);
  }

  bool applies(const sdk::Call& call) const {
    if (open_world_ && (call.annotations() & TG_TOOL_OPEN_WORLD)) return true;
    return has_tools_ && tools_.matches(call.tool());
  }

  // Depth-first over the arguments; the first secret found ends the walk.
  bool find(const json::value& v, std::string& pointer, std::string& detector) const {
    switch (v.kind()) {
      case json::kind::string:
        detector = scanner_.first(v.get_string());
        return !detector.empty();
      case json::kind::array: {
        const auto& a = v.get_array();
        for (std::size_t i = 0; i < a.size(); ++i) {
          const std::size_t mark = pointer.size();
          pointer += "/" + std::to_string(i);
          if (find(a[i], pointer, detector)) return true;
          pointer.resize(mark);
        }
        return false;
      }
      case json::kind::object:
        for (const auto& kv : v.get_object()) {
          const std::size_t mark = pointer.size();
          pointer += "/" + pointer_token(kv.key());
          detector = scanner_.first(kv.key());
          if (!detector.empty()) {
            detector += ", in the key";
            return true;
          }
          if (find(kv.value(), pointer, detector)) return true;
          pointer.resize(mark);
        }
        return false;
      default:
        return false;
    }
  }

  sdk::GuardVerdict check(const sdk::Call& call) const {
    if (!applies(call)) return sdk::GuardVerdict::abstain();
    const json::value args = call.arguments();
    std::string pointer, detector;
    if (!find(args, pointer, detector)) return sdk::GuardVerdict::abstain();
    return sdk::GuardVerdict::deny(std::string(call.tool()) + ": argument " + pointer +
                                   " carries what looks like a secret (detector: " + detector +
                                   "); it was not sent");
  }

  SecretScanner scanner_;
  NameGlobs tools_;
  bool has_tools_ = false;
  bool open_world_ = true;
};

}  // namespace
}  // namespace tgp::secrets

TOOLGATE_PLUGIN(tgp::secrets::GuardSecrets, "toolgate.guard-secrets", "1.0.0", TG_CAP_GUARD, 0)
