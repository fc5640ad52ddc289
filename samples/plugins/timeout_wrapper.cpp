// timeout_wrapper.cpp -- an execute wrapper that gives every call a deadline
// by handing `next` a child signal.  Config: {"timeout_ms": 100}.
#include <toolgate/plugin.hpp>

#include <chrono>

namespace sdk = toolgate::sdk;

class TimeoutWrapper {
 public:
  explicit TimeoutWrapper(sdk::Init& init) {
    std::int64_t ms = 30000;
    if (const auto* v = init.config().if_contains("timeout_ms")) {
      if (!v->is_int64() || v->get_int64() <= 0)
        throw sdk::ConfigError("/timeout_ms", "must be a positive integer (milliseconds)");
      ms = v->get_int64();
    }
    for (const auto& kv : init.config())
      if (kv.key() != "timeout_ms")
        throw sdk::ConfigError("/" + std::string(kv.key()), "unknown key (known: timeout_ms)");
    const std::chrono::milliseconds timeout(ms);
    init.execute_wrapper(
        "deadline", [timeout](const sdk::Call&, const sdk::Signal& signal, const sdk::Next& next) {
          // The tool sees a signal that fires after `timeout`; the host turns a
          // tool that stopped on it into a "timeout" result.
          return next(signal.child(timeout));
        });
  }
};

TOOLGATE_PLUGIN(TimeoutWrapper, "sample.timeout", "1.0.0", TG_CAP_EXECUTE_WRAPPER, 0)
