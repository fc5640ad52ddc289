// @NAME@.cpp -- a result observer: counts outcomes and reports each one as
// a plugin-owned event ("@NAME@/observed").  Observers cannot change
// anything.  The counter is state: TG_PLUGIN_SERIALIZED has the host run
// one callback at a time.
#include <toolgate/plugin.hpp>

#include <cstdint>

namespace sdk = toolgate::sdk;

class @CLASS@ {
 public:
  explicit @CLASS@(sdk::Init& init) {
    init.result_observer("observe", [this](const sdk::Call& call) {
      call.emit("@NAME@/observed", {{"outcomes", ++outcomes_}, {"denied", call.denied()}});
    });
  }

 private:
  std::uint64_t outcomes_ = 0;  // guarded by TG_PLUGIN_SERIALIZED
};

TOOLGATE_PLUGIN(@CLASS@, "@ID@", "0.1.0", TG_CAP_RESULT_OBSERVER, TG_PLUGIN_SERIALIZED)
