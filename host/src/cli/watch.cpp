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
#include <climits>

namespace toolgate::cli {

namespace json = boost::json;

namespace {

void print_report(const ReloadReport& r) {
  if (!r.ok) {
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
  // Signals are taken by sigwait on this thread only.
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
  ReloadOptions ro;
  ro.manifests.assign(o.manifests.begin(), o.manifests.end());
  ro.load = o.load;
  if (!has_flag(rest, "--no-probe")) ro.probe_command = {self_exe(), "__probe"};
  ro.on_reload = print_report;
  auto first = host->enable_reload(ro);
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
  for (;;) {
    int sig = 0;
    sigwait(&set, &sig);
    if (sig == SIGHUP) {
      host->reload();  // prints through on_reload
      continue;
    }
    break;
  }
  stop = true;
  if (caller.joinable()) caller.join();
  return 0;
}

}  // namespace toolgate::cli
