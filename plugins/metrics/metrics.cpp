// metrics.cpp -- an execute wrapper and a result observer that keep call
// counts, latency histograms and guard denials, and write them periodically
// and atomically (temp file + rename) as a Prometheus text-format file for
// node-exporter's textfile collector; once more at shutdown.
//
//   wrapper  "timer":  time spent in the rest of the execute chain, by tool;
//                      calls in flight.
//   observer "count":  calls by tool and outcome ("ok" or the error code);
//                      one latency observation per trail entry, by stage;
//                      guard denials (and shadow-mode would-denies) by guard.
//
// Hot path: atomics and shared-lock lookups (registry.hpp); the outcome
// record is parsed into a stack buffer (a monotonic resource), so a call
// with a small outcome allocates nothing once its series exist.
#include "registry.hpp"

#include "../common/config.hpp"

#include <toolgate/plugin.hpp>

#include <boost/json/monotonic_resource.hpp>

#include <any>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

namespace sdk = toolgate::sdk;
namespace fs = std::filesystem;

namespace tgp::metrics {
namespace {

const std::vector<double> kDefaultBuckets = {
    0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60};

struct ToolSeries {
  ToolSeries(const Buckets& b) : outcomes(64), duration(b) {}
  Family<Counter> outcomes;  // "ok" or the error code
  Histogram duration;        // wrapper-measured
  Counter executed;          // wrapper invocations
};

std::uint64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since)
          .count());
}

class Metrics {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "required": ["path"],
        "properties": {
          "path": {"type": "string"},
          "interval_ms": {"type": "integer", "minimum": 100, "maximum": 86400000},
          "buckets": {"type": "array", "minItems": 1, "maxItems": 64,
                      "items": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000000}},
          "max_tools": {"type": "integer", "minimum": 1, "maximum": 100000}}})json";

  explicit Metrics(sdk::Init& init)
      : api_(init.api()),
        buckets_(read_buckets(init.config())),
        tools_(read_max_tools(init.config())),
        stages_(64),
        denials_(1024),
        shadow_denials_(1024) {
    ConfigObject c(init.config(), "");
    c.only({"path", "interval_ms", "buckets", "max_tools"});
    path_ = c.string("path");
    if (path_.empty() || path_.filename().empty())
      throw ConfigError(
          "/path",
          "must name the output file, e.g. \"/var/lib/node_exporter/textfile/toolgate.prom\"");
    interval_ = std::chrono::milliseconds(c.integer("interval_ms", 15000, 100, 24LL * 3600 * 1000));
    {
      std::error_code ec;
      if (path_.has_parent_path() && !fs::is_directory(path_.parent_path(), ec))
        throw ConfigError("/path", "the folder " + path_.parent_path().string() +
                                       " does not exist; create it or choose another path");
    }
    path_ = fs::absolute(path_);  // fixed at load, whatever the cwd later
    try {
      write_file();  // fails here (a config error) rather than silently later
    } catch (const std::exception& e) {
      throw ConfigError("/path", std::string(e.what()) + "; choose a path this process can write");
    }
    // In two halves: a call that waits for an MCP server holds no thread
    // for this measurement.  The host calls after whenever before returned.
    struct Started {
      ToolSeries* series;
      std::chrono::steady_clock::time_point at;
    };
    init.execute_wrapper_halves(
        "timer",
        [this](const sdk::Call& call, const sdk::Signal& signal, std::any& state) {
          state = Started{&tools_.get(call.tool(), buckets_), std::chrono::steady_clock::now()};
          in_flight_.fetch_add(1, std::memory_order_relaxed);
          return signal;
        },
        [this](const sdk::Call&, const sdk::Result&, std::any& state) {
          const auto& started = std::any_cast<const Started&>(state);
          started.series->duration.observe(elapsed_ns(started.at));
          started.series->executed.add();
          in_flight_.fetch_sub(1, std::memory_order_relaxed);
        });
    init.result_observer("count", [this](const sdk::Call& call) { observe(call); });
    writer_ = std::thread([this] { loop(); });
  }

  ~Metrics() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (writer_.joinable()) writer_.join();
    try {
      write_file();
    } catch (const std::exception& e) {
      log(TG_LOG_ERROR, e.what());
    }
  }

 private:
  static Buckets read_buckets(const json::object& config) {
    ConfigObject c(config, "");
    if (!c.has("buckets")) return Buckets(kDefaultBuckets);
    const auto& a = c.array("buckets");
    if (a.empty() || a.size() > 64)
      throw ConfigError("/buckets", "list 1 to 64 upper bounds in seconds, smallest first");
    std::vector<double> s;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string where = "/buckets/" + std::to_string(i);
      if (!a[i].is_number()) throw ConfigError(where, "must be a number of seconds");
      const double d = a[i].to_number<double>();
      if (!(d > 0) || d > 1e6)
        throw ConfigError(where, "must be a number of seconds above 0 and at most 1000000");
      if (!s.empty() && d <= s.back())
        throw ConfigError(where,
                          "must be larger than the bound before it (list them smallest first)");
      s.push_back(d);
    }
    return Buckets(std::move(s));
  }
  static std::size_t read_max_tools(const json::object& config) {
    return static_cast<std::size_t>(ConfigObject(config, "").integer("max_tools", 1000, 1, 100000));
  }

  void observe(const sdk::Call& call) {
    tg_str text{};
    if (api_->result_json(call.handle(), &text) != TG_OK)
      throw std::runtime_error("no outcome record");
    unsigned char buffer[16384];
    boost::json::monotonic_resource mr(buffer, sizeof buffer);
    const json::value outcome = json::parse(sdk::from_tg(text), &mr);
    const json::object& o = outcome.as_object();

    std::string_view code = "ok";
    if (const auto* r = o.if_contains("result"); r && r->is_object()) {
      const auto& ro = r->get_object();
      const auto* e = ro.if_contains("isError");
      if (e && e->is_bool() && e->get_bool()) {
        code = "error";
        if (const auto* err = ro.if_contains("error"); err && err->is_object())
          if (const auto* c = err->get_object().if_contains("code"); c && c->is_string())
            code = c->get_string();
      }
    }
    tools_.get(call.tool(), buckets_).outcomes.get(code).add();

    if (const auto* trail = o.if_contains("trail"); trail && trail->is_array()) {
      for (const auto& v : trail->get_array()) {
        const auto* e = v.if_object();
        if (!e) continue;
        const auto* stage = e->if_contains("stage");
        const auto* ns = e->if_contains("ns");
        if (!stage || !stage->is_string()) continue;
        if (ns && ns->is_int64() && ns->get_int64() >= 0)
          stages_.get(stage->get_string(), buckets_)
              .observe(static_cast<std::uint64_t>(ns->get_int64()));
        if (stage->get_string() != "guard") continue;
        const auto* verdict = e->if_contains("verdict");
        const auto* source = e->if_contains("source");
        if (!verdict || !verdict->is_string() || !source || !source->is_string()) continue;
        if (verdict->get_string() == "deny")
          denials_.get(source->get_string()).add();
        else if (verdict->get_string() == "would-deny")
          shadow_denials_.get(source->get_string()).add();
      }
    }
  }

  std::string render() const {
    std::string out;
    out.reserve(4096);
    header(out, "toolgate_calls_total", "counter",
           "Tool calls by tool and outcome (\"ok\" or the error code), counted when the call's "
           "outcome is final.");
    tools_.each([&](const std::string& tool, const ToolSeries& t) {
      const std::string tl = "tool=\"" + escape_label(tool) + "\",";
      t.outcomes.each([&](const std::string& outcome, const Counter& c) {
        sample(out, "toolgate_calls_total", tl + "outcome=\"" + escape_label(outcome) + "\"",
               std::to_string(c.get()));
      });
    });
    header(out, "toolgate_tool_duration_seconds", "histogram",
           "Time in the execute stage inside the metrics wrapper (inner wrappers, retries, the "
           "tool body), by tool.");
    tools_.each([&](const std::string& tool, const ToolSeries& t) {
      if (t.executed.get() == 0) return;  // never reached the wrapper (denied)
      t.duration.render(out, "toolgate_tool_duration_seconds",
                        "tool=\"" + escape_label(tool) + "\",");
    });
    header(out, "toolgate_stage_duration_seconds", "histogram",
           "Latency of each pipeline step (one observation per trail entry: a hook, the tool body, "
           "normalization...), by stage.");
    stages_.each([&](const std::string& stage, const Histogram& h) {
      h.render(out, "toolgate_stage_duration_seconds", "stage=\"" + escape_label(stage) + "\",");
    });
    header(out, "toolgate_guard_denials_total", "counter",
           "Calls denied, by guard (every denying guard counts).");
    denials_.each([&](const std::string& guard, const Counter& c) {
      sample(out, "toolgate_guard_denials_total", "guard=\"" + escape_label(guard) + "\"",
             std::to_string(c.get()));
    });
    header(out, "toolgate_guard_shadow_denials_total", "counter",
           "Calls a guard in shadow mode would have denied, by guard.");
    shadow_denials_.each([&](const std::string& guard, const Counter& c) {
      sample(out, "toolgate_guard_shadow_denials_total", "guard=\"" + escape_label(guard) + "\"",
             std::to_string(c.get()));
    });
    header(out, "toolgate_calls_in_flight", "gauge", "Calls inside the metrics wrapper right now.");
    sample(out, "toolgate_calls_in_flight", "",
           std::to_string(in_flight_.load(std::memory_order_relaxed)));
    return out;
  }

  // Temp file in the same folder, then rename: readers see the old file or
  // the new one, never a partial one.  The temp name does not end in .prom,
  // so the textfile collector ignores it.
  void write_file() const {
    std::lock_guard lock(write_mutex_);
    const std::string text = render();
    const fs::path tmp = path_.string() + ".tmp." + std::to_string(::getpid());
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f << text;
      f.flush();
      if (!f) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot write " + tmp.string());
      }
    }
    std::error_code ec;
    fs::rename(tmp, path_, ec);
    if (ec) {
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot replace " + path_.string() + ": " + ec.message());
    }
  }

  void loop() {
    std::unique_lock lock(mutex_);
    while (!cv_.wait_for(lock, interval_, [this] { return stopping_; })) {
      lock.unlock();
      try {
        write_file();
      } catch (const std::exception& e) {
        log(TG_LOG_WARN, e.what());
      }
      lock.lock();
    }
  }

  void log(int32_t level, std::string_view message) const {
    api_->log(nullptr, level, sdk::to_tg(message));
  }

  const tg_host_api* api_;
  Buckets buckets_;
  Family<ToolSeries> tools_;
  Family<Histogram> stages_;
  Family<Counter> denials_, shadow_denials_;
  std::atomic<std::int64_t> in_flight_{0};

  fs::path path_;
  std::chrono::milliseconds interval_{15000};
  mutable std::mutex write_mutex_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread writer_;
};

}  // namespace
}  // namespace tgp::metrics

TOOLGATE_PLUGIN(tgp::metrics::Metrics, "toolgate.metrics", "1.0.0",
                TG_CAP_EXECUTE_WRAPPER | TG_CAP_RESULT_OBSERVER, 0)
