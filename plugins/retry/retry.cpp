// retry.cpp -- an execute wrapper that re-runs failed attempts with
// exponential backoff and jitter.
//
// Only calls that are safe to repeat are retried: tools annotated
// idempotent, or matching the configured globs -- and never a tool annotated
// destructive, whatever the config says.  Backoff sleeps on the call's signal
// (host->signal_wait), so cancelling the call or its deadline ends the wait
// at once and the last result is returned.  A wrapper cannot fabricate a
// result: what it returns is always one `next` produced.
#include "../common/config.hpp"
#include "../common/glob.hpp"

#include <toolgate/plugin.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

namespace sdk = toolgate::sdk;

namespace tgp::retry {
namespace {

class Retry {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "properties": {
        "max_attempts": {"type": "integer", "minimum": 1, "maximum": 100},
        "initial_backoff_ms": {"type": "integer", "minimum": 0, "maximum": 3600000},
        "max_backoff_ms": {"type": "integer", "minimum": 0, "maximum": 3600000},
        "multiplier": {"type": "number", "minimum": 1, "maximum": 100},
        "jitter": {"type": "number", "minimum": 0, "maximum": 1},
        "tools": )json" TGP_SCHEMA_TOOLS R"json(,
        "retry_on": )json" TGP_SCHEMA_STRINGS R"json(}})json";

  explicit Retry(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"max_attempts", "initial_backoff_ms", "max_backoff_ms", "multiplier", "jitter", "tools",
            "retry_on"});
    max_attempts_ = static_cast<int>(c.integer("max_attempts", 3, 1, 100));
    initial_ms_ = static_cast<double>(c.integer("initial_backoff_ms", 100, 0, 3600000));
    max_ms_ = static_cast<double>(c.integer("max_backoff_ms", 10000, 0, 3600000));
    if (max_ms_ < initial_ms_)
      throw ConfigError("/max_backoff_ms", "must not be smaller than initial_backoff_ms");
    multiplier_ = c.number("multiplier", 2.0, 1.0, 100.0);
    jitter_ = c.number("jitter", 0.2, 0.0, 1.0);
    tools_ = NameGlobs(c.strings("tools", std::vector<std::string>{}));
    has_tools_ = c.has("tools");
    retry_on_ = c.strings("retry_on", std::vector<std::string>{"tool_error"});
    for (std::size_t i = 0; i < retry_on_.size(); ++i)
      if (retry_on_[i] != "tool_error" && retry_on_[i] != "timeout")
        throw ConfigError(
            "/retry_on/" + std::to_string(i),
            "\"" + retry_on_[i] + "\" cannot be retried; use \"tool_error\" or \"timeout\"");
    init.execute_wrapper(
        "retry", [this](const sdk::Call& call, const sdk::Signal& signal, const sdk::Next& next) {
          return run(call, signal, next);
        });
  }

 private:
  bool eligible(const sdk::Call& call) const {
    if (call.annotations() & TG_TOOL_DESTRUCTIVE) return false;
    if (call.annotations() & TG_TOOL_IDEMPOTENT) return true;
    return has_tools_ && tools_.matches(call.tool());
  }

  bool retryable(const sdk::Result& r) const {
    if (!r.is_error()) return false;
    return std::find(retry_on_.begin(), retry_on_.end(), r.error_code()) != retry_on_.end();
  }

  // Backoff with +-jitter, drawn from a per-thread generator (no lock).
  std::chrono::nanoseconds backoff(int attempt) const {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    double ms = std::min(max_ms_, initial_ms_ * std::pow(multiplier_, attempt));
    std::uniform_real_distribution<double> d(1.0 - jitter_, 1.0 + jitter_);
    ms = std::max(0.0, ms * d(rng));
    return std::chrono::nanoseconds(static_cast<std::int64_t>(ms * 1e6));
  }

  sdk::Result run(const sdk::Call& call, const sdk::Signal& signal, const sdk::Next& next) const {
    sdk::Result r = next(signal);
    if (!eligible(call)) return r;
    for (int attempt = 1; attempt < max_attempts_ && retryable(r); ++attempt) {
      if (signal.fired() || signal.wait(backoff(attempt - 1)) != 0) break;
      r = next(signal);
    }
    return r;
  }

  int max_attempts_ = 3;
  double initial_ms_ = 100, max_ms_ = 10000, multiplier_ = 2.0, jitter_ = 0.2;
  NameGlobs tools_;
  bool has_tools_ = false;
  std::vector<std::string> retry_on_;
};

}  // namespace
}  // namespace tgp::retry

TOOLGATE_PLUGIN(tgp::retry::Retry, "toolgate.retry", "1.0.0", TG_CAP_EXECUTE_WRAPPER, 0)
