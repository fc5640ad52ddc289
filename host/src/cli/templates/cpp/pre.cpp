// @NAME@.cpp -- a pre-execute hook: asks before greeting "root".
// Pre-execute hooks run in order and answer keep, allow, ask or deny (and
// may replace the arguments).  An ask goes to the approver.
#include <toolgate/plugin.hpp>

namespace sdk = toolgate::sdk;

class @CLASS@ {
 public:
  explicit @CLASS@(sdk::Init& init) {
    init.pre_execute("ask-root", [](const sdk::Call& call) {
      if (call.arg_string("/name") == "root")
        return sdk::PreVerdict::ask("greeting root needs approval");
      return sdk::PreVerdict::keep();
    });
  }
};

TOOLGATE_PLUGIN(@CLASS@, "@ID@", "0.1.0", TG_CAP_PRE_EXECUTE, 0)
