// @NAME@.cpp -- an execute wrapper: runs the rest of the chain with a
// deadline (config "timeout_ms", default 5000).  A wrapper returns one of
// the results next gave it, or fails; it cannot fabricate one.
#include <toolgate/plugin.hpp>

#include <chrono>

namespace sdk = toolgate::sdk;

class @CLASS@ {
 public:
  explicit @CLASS@(sdk::Init& init) {
    std::int64_t ms = 5000;
    if (const auto* v = init.config().if_contains("timeout_ms")) {
      if (!v->is_int64() || v->as_int64() <= 0)
        throw sdk::ConfigError("/timeout_ms", "must be a positive number of milliseconds");
      ms = v->as_int64();
    }
    init.execute_wrapper("deadline",
                         [ms](const sdk::Call&, const sdk::Signal& s, const sdk::Next& next) {
                           return next(s.child(std::chrono::milliseconds(ms)));
                         });
  }
};

TOOLGATE_PLUGIN(@CLASS@, "@ID@", "0.1.0", TG_CAP_EXECUTE_WRAPPER, 0)
