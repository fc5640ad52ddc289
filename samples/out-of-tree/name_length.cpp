// name_length.cpp -- acme.name-length: a guard that denies greeting names
// longer than its config's "max" (default 16).  Built out of tree against
// the installed SDK (see CMakeLists.txt).
#include <toolgate/plugin.hpp>

#include <string>

namespace sdk = toolgate::sdk;

class NameLength {
 public:
  explicit NameLength(sdk::Init& init) {
    std::int64_t max = 16;
    if (const auto* v = init.config().if_contains("max")) {
      if (!v->is_int64() || v->as_int64() < 1)
        throw sdk::ConfigError("/max", "must be a positive integer");
      max = v->as_int64();
    }
    const std::string reason =
        "names longer than " + std::to_string(max) + " characters are not greeted";
    init.guard("max",
               [max, reason](const sdk::Call& call) {
                 auto name = call.arg_string("/name");
                 if (name && static_cast<std::int64_t>(name->size()) > max)
                   return sdk::GuardVerdict::deny(reason);
                 return sdk::GuardVerdict::abstain();
               },
               {"greet", 0});
  }
};

TOOLGATE_PLUGIN(NameLength, "acme.name-length", "1.0.0", TG_CAP_GUARD, 0)
