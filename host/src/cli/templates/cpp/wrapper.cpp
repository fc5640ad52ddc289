// @NAME@.cpp -- an execute wrapper in two halves (ABI 1.7): gives the rest
// of the chain a deadline (config "timeout_ms", default 5000).  A wrapper
// that only acts on the way in and out is best written this way: around a
// tool that answers later (an MCP server's, behind `toolgate mcp`) it holds
// no thread while the tool works.  One that must run the chain again after
// seeing a result (a retry) needs init.execute_wrapper, whose function
// calls next.
#include <toolgate/plugin.hpp>

#include <any>
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
    init.execute_wrapper_halves(
        "deadline",
        [ms](const sdk::Call&, const sdk::Signal& s, std::any&) {
          return s.child(std::chrono::milliseconds(ms));  // before: the signal for the rest
        },
        nullptr);  // after: [](const sdk::Call&, const sdk::Result&, std::any& state) { ... }
  }
};

TOOLGATE_PLUGIN(@CLASS@, "@ID@", "0.1.0", TG_CAP_EXECUTE_WRAPPER, 0)
