// @NAME@.cpp -- a guard: denies greeting "root", abstains otherwise.
// A guard can only deny (with a reason) or abstain.  The plugin is a class
// constructed in init and destroyed in shutdown; every callback is noexcept
// at the boundary (an exception fails the call closed).  Callbacks may run
// on many threads at once: keep them stateless, or pass
// TG_PLUGIN_SERIALIZED as the last argument of TOOLGATE_PLUGIN.
#include <toolgate/plugin.hpp>

namespace sdk = toolgate::sdk;

class @CLASS@ {
 public:
  explicit @CLASS@(sdk::Init& init) {
    init.guard("no-root", [](const sdk::Call& call) {
      if (call.arg_string("/name") == "root")
        return sdk::GuardVerdict::deny("greeting root is not allowed");
      return sdk::GuardVerdict::abstain();
    });
  }
};

TOOLGATE_PLUGIN(@CLASS@, "@ID@", "0.1.0", TG_CAP_GUARD, 0)
