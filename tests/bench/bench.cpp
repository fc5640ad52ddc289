// bench.cpp -- what the pipeline costs (issue 7, docs/design.md §11).  Every
// comparison is measured side by side in the same run; report.py turns the
// JSON into the README's table of medians and ratios.
//
//   BM_DirectToolBody       parse the call + run the tool body: the floor
//   BM_PipelineEmpty        the same call through an empty pipeline
//   BM_TypicalStack/<args>  3 pre, 5 guards, 2 wrappers, 2 post, 1 observer,
//                           all .so plugins; ~200 B and ~64 KiB arguments;
//                           1 and 2 threads
//   BM_HookSlope/<kind>/<n> 0, 1, 5, 20 and 50 plugin hooks of one kind: the
//                           cost of one more hook is the fitted line's slope
//   BM_Guard/<plugin>       each production guard on realistic arguments
//   BM_SpawnHookProcess     the same decision made by spawning a process
//   BM_McpToolsCall         one MCP tools/call, directly vs through `toolgate mcp`
//   BM_ReloadLatency        rebuilt file complete -> new generation serving
//   BM_ReloadExplicit       the same swap on Host::reload(): load + publish alone
//
// Allocations per call are counted by replacing operator new in this binary
// ("allocs" counter).
#include "../support/redis_server.hpp"

#include <toolgate/host.hpp>

#include <benchmark/benchmark.h>
#include <boost/json.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <thread>

extern char** environ;

// ---- counting allocator ------------------------------------------------------
// GCC sees the inlined malloc in operator new and the free in operator delete
// and warns about a mismatch that is not one: both are replaced together.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
static std::atomic<std::uint64_t> g_allocs{0};
void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace toolgate;

// ---- fixtures ---------------------------------------------------------------------

std::string small_call() {
  // ~200 bytes, the size of a typical tool call.
  return R"({"tool":"greet","call_id":"c-1","session_id":"s-1","arguments":{"name":"World",)"
         R"("path":"/workspace/src/main.cpp","command":"ls -la /workspace","mode":"read",)"
         R"("options":{"recursive":false,"limit":100}}})";
}

std::string large_call() {
  std::string blob(64 * 1024, 'x');
  for (std::size_t i = 0; i < blob.size(); i += 97) blob[i] = ' ';
  return R"({"tool":"greet","call_id":"c-1","session_id":"s-1","arguments":{"name":"World","content":")" +
         blob + "\"}}";
}

ToolDefinition greet_tool() {
  ToolDefinition t;
  t.name = "greet";
  t.execute = [](const ToolContext& c) {
    const auto* n = c.call.arguments.if_contains("name");
    return ToolOutput::success(
        json::string("Hello, " + std::string(n ? n->as_string() : "") + "!"));
  };
  return t;
}

// A temporary folder with manifests pointing at the bench plugins.
struct Stack {
  fs::path dir;
  Stack() {
    dir = fs::temp_directory_path() / ("toolgate-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  ~Stack() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

std::string plugin_entry(const std::string& id, const std::string& file,
                         const json::object& config) {
  return json::serialize(json::object{{"id", id}, {"path", file}, {"config", config}});
}

std::string manifest(const std::vector<std::string>& entries) {
  std::string s = R"({"toolgate":1,"plugins":[)";
  for (std::size_t i = 0; i < entries.size(); ++i) s += (i ? "," : "") + entries[i];
  return s + "]}";
}

std::string bench_plugin(const std::string& name) {
  return std::string(TOOLGATE_BENCH_PLUGIN_DIR) + "/" + name + ".so";
}
std::string library_plugin(const std::string& name) {
  return std::string(TOOLGATE_PLUGIN_DIR) + "/toolgate_" + name + ".so";
}

std::unique_ptr<Host> host_with(const std::vector<std::string>& entries) {
  static Stack stack;
  static int n = 0;
  auto host = std::make_unique<Host>();
  host->register_tool(greet_tool());
  if (!entries.empty())
    host->load_manifest(stack.write("m" + std::to_string(n++) + ".json", manifest(entries)));
  return host;
}

void report_allocs(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs"] = benchmark::Counter(static_cast<double>(g_allocs.load() - before) /
                                                static_cast<double>(state.iterations()));
}

void run_calls(benchmark::State& state, Host& host, const std::string& call) {
  auto before = g_allocs.load();
  for (auto _ : state) {
    ToolResult r = host.call_json(call);
    if (r.is_error) {
      state.SkipWithError(("the call failed: " + json::serialize(r.to_json())).c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
  if (state.thread_index() == 0) report_allocs(state, before);
}

// ---- baseline: the tool body called directly, plus one argument parse ----------
void BM_DirectToolBody(benchmark::State& state) {
  const std::string call = small_call();
  auto tool = greet_tool();
  CallIdentity id;
  json::object empty;
  auto signal = Signal::make();
  auto before = g_allocs.load();
  for (auto _ : state) {
    json::value v = json::parse(call);
    const auto& args = v.as_object().at("arguments").as_object();
    HookCall view{id, args, args, toolgate::stage::tool_body};
    ToolOutput out = tool.execute(ToolContext{view, signal});
    benchmark::DoNotOptimize(out);
  }
  report_allocs(state, before);
}
BENCHMARK(BM_DirectToolBody);

void BM_PipelineEmpty(benchmark::State& state) {
  auto host = host_with({});
  run_calls(state, *host, small_call());
}
BENCHMARK(BM_PipelineEmpty);

// ---- the typical stack --------------------------------------------------------------
Host& typical_host() {
  static auto host = host_with(
      {plugin_entry("bench.stack", bench_plugin("bench_stack"),
                    {{"pre", 3}, {"guards", 5}, {"wrappers", 2}, {"post", 2}, {"observers", 1}})});
  return *host;
}

void BM_TypicalStack_Small(benchmark::State& state) {
  static const std::string call = small_call();
  run_calls(state, typical_host(), call);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TypicalStack_Small)->Threads(1)->Threads(2)->UseRealTime();

void BM_TypicalStack_Large(benchmark::State& state) {
  static const std::string call = large_call();
  run_calls(state, typical_host(), call);
}
BENCHMARK(BM_TypicalStack_Large);

// ---- cost per hook from the slope over 0/1/5/20/50 hooks of one kind ----------------
// (report.py fits a line over the five points: its slope is the cost of one
// more hook.  Two medians subtracted -- one hook minus none -- moved with
// the machine's speed by more than a hook costs, and came out negative.)
void BM_HookSlope(benchmark::State& state, const char* kind, const char* key) {
  const auto n = state.range(0);
  auto host =
      n == 0 ? host_with({})
             : host_with({plugin_entry(std::string("bench.") + kind,
                                       bench_plugin(std::string("bench_") + kind), {{key, n}})});
  run_calls(state, *host, small_call());
}
#define TOOLGATE_SLOPE(NAME, KIND, KEY) \
  BENCHMARK_CAPTURE(BM_HookSlope, NAME, KIND, KEY)->Arg(0)->Arg(1)->Arg(5)->Arg(20)->Arg(50)
TOOLGATE_SLOPE(pre_execute, "pre", "pre");
TOOLGATE_SLOPE(guard, "guard", "guards");
TOOLGATE_SLOPE(execute_wrapper, "wrapper", "wrappers");
TOOLGATE_SLOPE(post_execute, "post", "post");
TOOLGATE_SLOPE(result_observer, "observer", "observers");

// ---- each production guard, on arguments it must inspect --------------------------
// Each guard's call has its own arguments, so each is measured twice: with
// the guard, and through the empty pipeline ("none") -- the difference is
// the guard's cost.
void BM_Guard(benchmark::State& state, const char* plugin, const char* config, const char* call) {
  auto host = host_with({plugin_entry(std::string("toolgate.") + plugin, library_plugin(plugin),
                                      json::parse(config).as_object())});
  run_calls(state, *host, call);
}
void BM_GuardNone(benchmark::State& state, const char* call) {
  auto host = host_with({});
  run_calls(state, *host, call);
}
#define GUARD_CASE(NAME, PLUGIN, CONFIG, CALL)             \
  BENCHMARK_CAPTURE(BM_Guard, NAME, PLUGIN, CONFIG, CALL); \
  BENCHMARK_CAPTURE(BM_GuardNone, NAME, CALL)
GUARD_CASE(guard_paths, "guard-paths", R"({"read_roots":["/workspace"]})",
           R"({"tool":"greet","arguments":{"name":"x","path":"/workspace/src/../src/main.cpp"}})");
GUARD_CASE(
    guard_commands, "guard-commands", R"({"tools":["greet"],"pointers":["/command"]})",
    R"({"tool":"greet","arguments":{"name":"x","command":"git status && ls -la src | grep main"}})");
GUARD_CASE(
    guard_secrets, "guard-secrets", R"({"tools":["greet"]})",
    R"({"tool":"greet","arguments":{"name":"x","body":"please summarise the build log for the release notes of version 2.4"}})");
GUARD_CASE(rate_limit, "rate-limit",
           R"({"limits":[{"name":"all","tools":"*","count":1000000000,"seconds":1}]})",
           R"({"tool":"greet","session_id":"s","arguments":{"name":"x"}})");

// ---- rate-limit with its buckets in Redis: one round trip to the store per call ------
// A redis-server of the benchmark's own on a loopback port, started once;
// wall clock (the call waits on the store).  Compare with BM_Guard/rate_limit,
// the same limit counted in memory.

void BM_RateLimitRedis(benchmark::State& state) {
  static tgtest_redis::RedisServer redis(tgtest_redis::free_port());
  if (!redis.available()) {
    state.SkipWithError("redis-server is not installed (packaging/install-deps.sh installs it)");
    return;
  }
  auto host = host_with({plugin_entry(
      "toolgate.rate-limit", library_plugin("rate-limit"),
      json::parse(R"({"limits":[{"name":"all","tools":"*","count":1000000000,"seconds":1}],)"
                  R"("store":{"redis":"127.0.0.1:)" +
                  std::to_string(redis.port()) + R"("}})")
          .as_object())});
  run_calls(state, *host, R"({"tool":"greet","session_id":"s","arguments":{"name":"x"}})");
}
BENCHMARK(BM_RateLimitRedis)->UseRealTime();

// ---- the same decision by spawning a hook process per call ------------------------
void BM_SpawnHookProcess(benchmark::State& state) {
  const std::string call = small_call();
  std::string exe = TOOLGATE_HOOK_PROCESS;
  for (auto _ : state) {
    int in[2], out[2];
    if (::pipe(in) || ::pipe(out)) {
      state.SkipWithError("pipe");
      break;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    char* argv[] = {exe.data(), nullptr};
    pid_t pid;
    posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    (void)!::write(in[1], call.data(), call.size());
    ::close(in[1]);
    char buf[256];
    ssize_t n = ::read(out[0], buf, sizeof buf);
    benchmark::DoNotOptimize(n);
    ::close(out[0]);
    int status;
    ::waitpid(pid, &status, 0);
  }
}
BENCHMARK(BM_SpawnHookProcess)->Unit(benchmark::kMicrosecond);

// ---- the MCP gateway: one tools/call, directly and through `toolgate mcp` -----------
// The same client (this process, newline-delimited JSON-RPC over pipes) and
// the same server (tests/bench/mcp_echo_server.c); the difference of the
// medians is what the gateway adds per call: two more pipe hops, JSON-RPC
// parsing and id mapping both ways, and the pipeline (an empty stack here;
// the stack's own cost is measured above).
class StdioPeer {
 public:
  explicit StdioPeer(std::vector<std::string> args) {
    int in[2], out[2];
    if (::pipe(in) || ::pipe(out)) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start " + args[0]);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~StdioPeer() {
    ::close(to_);
    ::close(from_);
    int status;
    ::waitpid(pid_, &status, 0);
  }
  void send(const std::string& line) {
    std::string l = line + "\n";
    if (::write(to_, l.data(), l.size()) != static_cast<ssize_t>(l.size()))
      throw std::runtime_error("write");
  }
  // The next line that is a response (has an "id" and no "method").
  std::string response() {
    for (;;) {
      std::string l = line();
      if (l.find("\"method\"") == std::string::npos && l.find("\"id\"") != std::string::npos)
        return l;
    }
  }

 private:
  std::string line() {
    for (;;) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string l = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return l;
      }
      char chunk[4096];
      ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) throw std::runtime_error("the peer closed its output");
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;
};

void BM_McpToolsCall(benchmark::State& state) {
  const bool through_gateway = state.range(0) == 1;
  Stack stack;
  auto m = stack.write("empty.json", R"({"toolgate":1,"plugins":[]})");
  std::vector<std::string> args;
  if (through_gateway) args = {TOOLGATE_CLI, "mcp", m.string(), "--"};
  args.push_back(TOOLGATE_MCP_ECHO_SERVER);
  try {
    StdioPeer peer(args);
    peer.send(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
        R"("capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})");
    peer.response();
    peer.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    peer.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    if (peer.response().find("echo") == std::string::npos) {
      state.SkipWithError("tools/list did not list echo");
      return;
    }
    long id = 2;
    for (auto _ : state) {
      peer.send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id++) +
                R"(,"method":"tools/call","params":{"name":"echo","arguments":{"tag":"x"}}})");
      std::string r = peer.response();
      if (r.find("\"isError\":false") == std::string::npos) {
        state.SkipWithError(("the call failed: " + r).c_str());
        break;
      }
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}
BENCHMARK(BM_McpToolsCall)
    ->ArgName("through_gateway")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// ---- hot reload: rebuilt file complete -> new generation serving -------------------
void BM_ReloadLatency(benchmark::State& state) {
  Stack stack;
  fs::path plugin = stack.dir / "guard.so";
  fs::copy_file(bench_plugin("bench_guard"), plugin);
  auto m = stack.write("reload.json",
                       manifest({plugin_entry("bench.guard", "guard.so", {{"guards", 1}})}));
  Host host;
  host.register_tool(greet_tool());
  ReloadOptions o;
  o.manifests = {m};
  o.watch = true;
  if (auto r = host.enable_reload(o); !r.ok) {
    state.SkipWithError(("the first load failed: " + r.error).c_str());
    return;
  }
  std::string variants[2] = {bench_plugin("bench_guard"), bench_plugin("bench_guard_alt")};
  int i = 0;
  for (auto _ : state) {
    auto before = host.generation();
    fs::copy_file(variants[++i % 2], stack.dir / ".guard.tmp",
                  fs::copy_options::overwrite_existing);
    auto start = std::chrono::steady_clock::now();
    fs::rename(stack.dir / ".guard.tmp", plugin);  // the rebuilt file is complete
    auto give_up = start + std::chrono::seconds(5);
    while (host.generation() == before && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
    if (host.generation() == before) {
      state.SkipWithError("the rebuilt plugin was not picked up within 5 s");
      break;
    }
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}
BENCHMARK(BM_ReloadLatency)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);

// The same swap triggered by an explicit reload (SIGHUP, Host::reload()):
// no debounce, no stability wait -- what copying, hashing, loading, init,
// building and publishing the generation cost on their own.
void BM_ReloadExplicit(benchmark::State& state) {
  Stack stack;
  fs::path plugin = stack.dir / "guard.so";
  fs::copy_file(bench_plugin("bench_guard"), plugin);
  auto m = stack.write("reload.json",
                       manifest({plugin_entry("bench.guard", "guard.so", {{"guards", 1}})}));
  Host host;
  host.register_tool(greet_tool());
  ReloadOptions o;
  o.manifests = {m};
  o.watch = false;
  if (auto r = host.enable_reload(o); !r.ok) {
    state.SkipWithError(("the first load failed: " + r.error).c_str());
    return;
  }
  std::string variants[2] = {bench_plugin("bench_guard"), bench_plugin("bench_guard_alt")};
  int i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::copy_file(variants[++i % 2], stack.dir / ".guard.tmp",
                  fs::copy_options::overwrite_existing);
    fs::rename(stack.dir / ".guard.tmp", plugin);
    state.ResumeTiming();
    auto r = host.reload();
    if (!r.ok || r.reloaded.empty()) {
      state.SkipWithError(("the reload did not swap the plugin: " + r.error).c_str());
      break;
    }
  }
}
BENCHMARK(BM_ReloadExplicit)->Unit(benchmark::kMillisecond)->Iterations(50);

}  // namespace

BENCHMARK_MAIN();
