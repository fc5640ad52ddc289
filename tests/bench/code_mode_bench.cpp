// Code Mode's costs, side by side in one run (docs/design.md §17.8):
//   direct_call        one call of a tool through the pipeline (the baseline)
//   run_code/cold      run_code with one sub-call, the runner started cold
//   run_code/pooled    the same, the runner taken from a pool of started ones
//   run_code/sub_calls:N  one run making N sub-calls (pooled); the per
//                      sub-call overhead is (N calls - 1 call) / (N - 1)
//                      minus direct_call, computed by the report below.
// Wall time (UseRealTime): the work happens in the runner process.
#include <toolgate/host.hpp>

#include <benchmark/benchmark.h>
#include <boost/json.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>

namespace {

namespace json = boost::json;
using namespace toolgate;

std::unique_ptr<Host> make_host(unsigned prestarted) {
  auto host = std::make_unique<Host>();
  ToolDefinition echo;
  echo.name = "echo";
  echo.execute = [](const ToolContext& ctx) { return ToolOutput::success(ctx.call.arguments); };
  host->register_tool(std::move(echo));
  CodeModeOptions o;
  o.prestarted_runners = prestarted;
  o.max_sub_calls = 100000;
  host->enable_code_mode(o);
  return host;
}

ToolResult run(Host& host, const std::string& code) {
  ToolCall c{{"", "run_code", "bench", ""}, json::object{{"code", code}}, nullptr};
  auto r = host.call(std::move(c));
  if (r.is_error) throw std::runtime_error("run_code failed: " + r.error->message);
  return r;
}

void direct_call(benchmark::State& state) {
  auto host = make_host(0);
  for (auto _ : state) {
    ToolCall c{{"", "echo", "bench", ""}, json::object{{"n", 1}}, nullptr};
    benchmark::DoNotOptimize(host->call(std::move(c)));
  }
}
BENCHMARK(direct_call)->UseRealTime()->MinTime(0.5);

void run_code_cold(benchmark::State& state) {
  auto host = make_host(0);
  for (auto _ : state) benchmark::DoNotOptimize(run(*host, "return await tools.echo({n: 1});"));
}
BENCHMARK(run_code_cold)
    ->Name("run_code/cold")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(40);

void run_code_pooled(benchmark::State& state) {
  auto host = make_host(2);
  run(*host, "return 1;");  // the pool is full after this
  for (auto _ : state) {
    state.PauseTiming();
    // Give the pool time to start the replacement (it would on an idle
    // host between a model's turns): each run takes a ready runner.
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    state.ResumeTiming();
    benchmark::DoNotOptimize(run(*host, "return await tools.echo({n: 1});"));
  }
}
BENCHMARK(run_code_pooled)
    ->Name("run_code/pooled")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(40);

void run_code_sub_calls(benchmark::State& state) {
  auto host = make_host(2);
  const auto n = state.range(0);
  const std::string code = "let s = 0; for (let i = 0; i < " + std::to_string(n) +
                           "; i++) s += (await tools.echo({n: i})).n; return s;";
  run(*host, "return 1;");
  for (auto _ : state) {
    state.PauseTiming();
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    state.ResumeTiming();
    benchmark::DoNotOptimize(run(*host, code));
  }
  state.counters["sub_calls"] = static_cast<double>(n);
}
BENCHMARK(run_code_sub_calls)
    ->Name("run_code/sub_calls")
    ->Arg(1)
    ->Arg(1001)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
