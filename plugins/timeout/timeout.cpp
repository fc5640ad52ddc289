// timeout.cpp -- an execute wrapper that gives calls a deadline by handing
// the rest of the chain a child signal.  The host cannot kill a tool: tools stop by
// watching their signal, and one that stops on it ends as "timeout".
// A tool that ignores its signal runs to the end -- the deadline is a
// cooperative contract, which the README says plainly.
#include "../common/config.hpp"
#include "../common/glob.hpp"

#include <toolgate/plugin.hpp>

#include <any>
#include <chrono>

namespace sdk = toolgate::sdk;

namespace tgp::timeout {
namespace {

struct Rule {
  NameGlobs tools;
  std::int64_t ms;
};

class Timeout {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "properties": {
        "default_ms": {"type": "integer", "minimum": 0, "maximum": 604800000},
        "tools": {"type": "array", "items": {
          "type": "object", "additionalProperties": false, "required": ["tools", "ms"],
          "properties": {
            "tools": )json" TGP_SCHEMA_TOOLS R"json(,
            "ms": {"type": "integer", "minimum": 0, "maximum": 604800000}}}}}})json";

  explicit Timeout(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"default_ms", "tools"});
    default_ms_ = c.integer("default_ms", 30000, 0, 7 * 24 * 3600 * 1000LL);
    if (c.has("tools")) {
      const auto& a = c.array("tools");
      for (std::size_t i = 0; i < a.size(); ++i) {
        ConfigObject r = ConfigObject::of(a[i], "/tools/" + std::to_string(i));
        r.only({"tools", "ms"});
        rules_.push_back({NameGlobs(r.strings("tools")),
                          r.integer("ms", std::nullopt, 0, 7 * 24 * 3600 * 1000LL)});
      }
    }
    // Only the way in matters (a child signal for the rest of the chain),
    // so the wrapper is one half: a call that waits for an MCP server
    // holds no thread for its deadline.
    init.execute_wrapper_halves(
        "deadline",
        [this](const sdk::Call& call, const sdk::Signal& signal, std::any&) {
          const std::int64_t ms = deadline_for(call.tool());
          if (ms == 0) return signal;  // 0: no deadline from this plugin
          return signal.child(std::chrono::milliseconds(ms));
        },
        nullptr);
  }

 private:
  // The first matching rule wins; otherwise the default.
  std::int64_t deadline_for(std::string_view tool) const {
    for (const auto& r : rules_)
      if (r.tools.matches(tool)) return r.ms;
    return default_ms_;
  }

  std::int64_t default_ms_ = 30000;
  std::vector<Rule> rules_;
};

}  // namespace
}  // namespace tgp::timeout

TOOLGATE_PLUGIN(tgp::timeout::Timeout, "toolgate.timeout", "1.0.0", TG_CAP_EXECUTE_WRAPPER, 0)
