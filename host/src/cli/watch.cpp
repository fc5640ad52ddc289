// watch.cpp -- `toolgate watch M... [--call TOOL --args JSON --every MS]
//                [--no-probe]`
// The plugin developer's loop: load the manifests, reload whenever they or
// their plugins change (or on SIGHUP), print one line per reload or
// failure.  With --call, make that call every MS milliseconds and print its
// outcome, so a rebuilt guard is seen working at once.  Ends on SIGINT/SIGTERM.
#include "options.hpp"

#include <boost/json/serialize.hpp>

#include <pthread.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <thread>

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <mutex>

namespace toolgate::cli {

namespace json = boost::json;

namespace {

void print_report(const ReloadReport& r) {
  if (!r.ok && r.calls_denied) {
    std::printf("load failed, no manifest stack has loaded yet, so every call is denied: %s\n",
                r.error.c_str());
  } else if (!r.ok) {
    std::printf("reload failed, generation %llu keeps serving: %s\n",
                static_cast<unsigned long long>(r.generation), r.error.c_str());
  } else if (r.changed) {
    std::string ids;
    for (const auto& id : r.reloaded) ids += (ids.empty() ? "" : ", ") + id;
    std::printf("reloaded %s in %lld ms, generation %llu\n",
                ids.empty() ? "manifests" : ids.c_str(),
                static_cast<long long>(r.took.count() / 1000),
                static_cast<unsigned long long>(r.generation));
  }
  std::fflush(stdout);
}

}  // namespace

int run_watch(const Args& args) {
  CommonOptions o;
  auto rest = parse_common(args, o, {"--call", "--args", "--every"}, {"--no-probe"});
  // Options are checked before any plugin's init runs.
  const int every = static_cast<int>(
      number_option("--every", flag_value(rest, "--every").value_or("1000"), 1, 3600000, "ms"));
  std::optional<std::string> call_text;
  if (auto tool = flag_value(rest, "--call")) {
    std::string why;
    call_text = call_document(*tool, flag_value(rest, "--args").value_or("{}"), &why);
    if (!call_text) throw UsageError("--args: " + why);
  }
  use_default_manifests_if_none(o);
  // Signals are taken by sigwait on one thread, started before any plugin
  // loads: a plugin whose init never returns must not make SIGTERM useless.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  HostOptions ho;
  ho.deny_until_loaded = true;  // never serve a call without the stack's guards
  auto host = std::make_unique<Host>(ho);
  for (auto def : sample_tools()) host->register_tool(std::move(def));

  std::mutex mutex;
  std::condition_variable cv;
  int stop_signal = 0;    // guarded by mutex
  bool finished = false;  // guarded by mutex: the host is gone
  std::atomic<bool> loaded{false};
  std::thread signals([&] {
    for (;;) {
      int sig = 0;
      sigwait(&set, &sig);
      if (sig == SIGHUP) {
        if (loaded) host->reload();  // prints through on_reload
        continue;
      }
      std::unique_lock lock(mutex);
      stop_signal = sig;
      cv.notify_all();
      // A clean stop takes milliseconds; an init or shutdown that never
      // returns would take forever, and cannot be interrupted in process.
      if (!cv.wait_for(lock, std::chrono::seconds(5), [&] { return finished; })) {
        std::fprintf(stderr,
                     "toolgate watch: stopping on %s, but a plugin's init or shutdown has not "
                     "returned in 5 s; exiting without it\n",
                     sig == SIGINT ? "SIGINT" : "SIGTERM");
        std::fflush(stdout);
        std::_Exit(128 + sig);
      }
      return;
    }
  });

  ReloadOptions ro;
  ro.manifests.assign(o.manifests.begin(), o.manifests.end());
  ro.load = o.load;
  if (!has_flag(rest, "--no-probe")) ro.probe_command = {self_exe(), "__probe"};
  ro.on_reload = print_report;
  auto first = host->enable_reload(ro);
  loaded = true;
  if (!first.ok) std::printf("watching; calls are denied until the manifests load\n");
  std::fflush(stdout);

  std::atomic<bool> stop{false};
  std::thread caller;
  if (auto tool = flag_value(rest, "--call")) {
    std::string call = *call_text;
    caller = std::thread([&, call, name = *tool] {
      while (!stop) {
        ToolResult r = host->call_json(call);
        std::printf("call %s -> %s\n", name.c_str(), json::serialize(r.to_json()).c_str());
        std::fflush(stdout);
        for (int waited = 0; waited < every && !stop; waited += 10)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return stop_signal != 0; });
  }
  stop = true;
  if (caller.joinable()) caller.join();
  host.reset();
  {
    std::lock_guard lock(mutex);
    finished = true;
  }
  cv.notify_all();
  signals.join();
  return 0;
}

}  // namespace toolgate::cli
