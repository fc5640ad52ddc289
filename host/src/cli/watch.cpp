// watch.cpp -- `toolgate watch M... [--call TOOL --args JSON --every MS]
//                [--no-probe]`
// The plugin developer's loop: load the manifests, reload whenever they or
// their plugins change (or on SIGHUP), print one line per reload or
// failure, each with a timestamp.  A build seen mid-write is waited for (see
// ReloadOptions::settle_timeout), so a normal rebuild prints one "reloaded"
// line, never a failure.  With --call, make that call every MS milliseconds
// and print a one-line summary of its outcome whenever it changes (and
// after every reload), so a rebuilt guard is seen working at once.  Ends
// on SIGINT/SIGTERM.
#include "options.hpp"
#include "stop_signals.hpp"

#include "../json_util.hpp"

#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <pthread.h>
#include <sys/time.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <thread>

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <mutex>

namespace toolgate::cli {

namespace json = boost::json;

namespace {

// One line per event, each with the local time to the millisecond, from
// whichever thread saw the event (reloads: the watcher or signal thread;
// calls: the caller thread).
class Printer {
 public:
  void line(const std::string& text) {
    std::lock_guard lock(mutex_);
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    std::tm tm{};
    ::localtime_r(&tv.tv_sec, &tm);
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%02d:%02d:%02d.%03ld", tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long>(tv.tv_usec / 1000));
    std::printf("%s %s\n", stamp, text.c_str());
    std::fflush(stdout);
  }

  void report(const ReloadReport& r) {
    if (!r.ok) {
      std::string text =
          r.calls_denied
              ? "load failed, no manifest stack has loaded yet, so every call is denied: " + r.error
              : "reload failed, generation " + std::to_string(r.generation) +
                    " keeps serving: " + r.error;
      {
        // One build often raises several file events: the same failure
        // again, with nothing loaded in between, is not news.
        std::lock_guard lock(mutex_);
        if (text == last_failure_) return;
        last_failure_ = text;
      }
      line(text);
      return;
    }
    if (r.changed) {
      std::string ids;
      for (const auto& id : r.reloaded) ids += (ids.empty() ? "" : ", ") + id;
      // The first attempt loads; only later ones reload.
      line(std::string(r.initial ? "loaded " : "reloaded ") + (ids.empty() ? "manifests" : ids) +
           " in " + std::to_string(r.took.count() / 1000) + " ms, generation " +
           std::to_string(r.generation));
    } else {
      return;  // nothing changed (a touch, a second event of one build): quiet
    }
    std::lock_guard lock(mutex_);
    last_call_.clear();  // the next call's outcome is news, even if the same
    last_failure_.clear();
  }

  // A call's outcome, printed only when it differs from the last one
  // printed (or a reload happened since): --every 50 does not flood.
  void call(const std::string& tool, const ToolResult& r) {
    std::string text = "call " + tool + ": " + summary(r);
    {
      std::lock_guard lock(mutex_);
      if (text == last_call_) return;
      last_call_ = text;
    }
    line(text);
  }

 private:
  static std::string summary(const ToolResult& r) {
    std::string s;
    if (r.is_error && r.error) {
      s = r.error->code + " at " + r.error->stage + " (" + r.error->source +
          "): " + r.error->message;
    } else {
      s = "ok: ";
      const boost::json::string* text = nullptr;
      for (const auto& block : r.content)
        if (const auto* o = block.if_object())
          if (const auto* t = o->if_contains("text"); t && t->is_string()) {
            text = &t->get_string();
            break;
          }
      s += text ? std::string(*text) : r.value ? to_json_text(*r.value) : "(no content)";
    }
    // One line: newlines shown as \n, long outcomes cut at a character.
    std::string out;
    for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
    constexpr std::size_t max_bytes = 200;
    if (out.size() > max_bytes)
      out = std::string(detail::utf8_prefix(out, max_bytes)) + "... (" + std::to_string(s.size()) +
            " bytes)";
    return out;
  }

  std::mutex mutex_;
  std::string last_call_;     // guarded by mutex_
  std::string last_failure_;  // guarded by mutex_; cleared by a successful load
};

}  // namespace

int run_watch(const Args& args) {
  CommonOptions o;
  auto rest = parse_common(args, o, {"--call", "--args", "--every", "--stub"}, {"--no-probe"});
  auto stubs = stub_tools(rest);
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
  Printer printer;  // outlives the host: its reload callback prints
  HostOptions ho;
  ho.deny_until_loaded = true;  // never serve a call without the stack's guards
  std::unique_ptr<Host> host;
  std::atomic<bool> loaded{false};
  // Started before any plugin loads: a plugin whose init never returns
  // must not make SIGTERM useless.  SIGHUP reloads once the first load is
  // done; a stop that takes over 5 s (an init or shutdown that never
  // returns cannot be interrupted in process) ends the process.
  StopSignals signals("watch", std::chrono::seconds(5),
                      {[&] {
                         if (loaded) host->reload();  // prints through on_reload
                       },
                       nullptr, nullptr});
  host = std::make_unique<Host>(ho);
  register_cli_tools(*host, std::move(stubs));

  ReloadOptions ro;
  ro.manifests.assign(o.manifests.begin(), o.manifests.end());
  ro.load = o.load;
  if (!has_flag(rest, "--no-probe")) ro.probe_command = {self_exe(), "__probe"};
  ro.on_reload = [&printer](const ReloadReport& r) { printer.report(r); };
  auto first = host->enable_reload(ro);
  loaded = true;
  if (!first.ok) printer.line("watching; calls are denied until the manifests load");

  std::atomic<bool> stop{false};
  std::thread caller;
  if (auto tool = flag_value(rest, "--call")) {
    std::string call = *call_text;
    caller = std::thread([&, call, name = *tool] {
      while (!stop) {
        printer.call(name, host->call_json(call));
        for (int waited = 0; waited < every && !stop; waited += 10)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  signals.wait();
  stop = true;
  if (caller.joinable()) caller.join();
  host.reset();
  signals.finish();
  return 0;
}

}  // namespace toolgate::cli
