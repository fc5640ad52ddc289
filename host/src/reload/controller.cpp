#include "controller.hpp"

#include "../loading/manifest.hpp"
#include "../loading/plugin_loader.hpp"
#include "../loading/stack_loader.hpp"
#include "probe.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <map>
#include <thread>

namespace toolgate {

namespace fs = std::filesystem;
using detail::LoadedPlugin;

namespace {

// Every hook a locked layer registered must survive a reload unchanged:
// same stage, still locked, same tool filter, same order settings, same
// mode.  (Its plugin's config is checked as the stack is loaded.)
template <class Hooks>
void check_locked_table(const Hooks& before, const Hooks& after, std::string_view stage) {
  for (const auto& h : before) {
    if (!h.locked) continue;
    const auto* match = [&]() -> const typename Hooks::value_type* {
      for (const auto& n : after)
        if (n.id == h.id) return &n;
      return nullptr;
    }();
    std::string why;
    if (!match)
      why = "would drop it";
    else if (!match->locked)
      why = "would unlock it";
    else if (match->filter.patterns() != h.filter.patterns())
      why = "would change its tool filter";
    else if (match->priority != h.priority || match->before != h.before || match->after != h.after)
      why = "would reorder it";
    else if (match->shadow != h.shadow)
      why = "would put it in shadow mode";
    if (!why.empty())
      throw LoadError("(reload)", "",
                      "the reload " + why + ": " + std::string(stage) + " hook " + h.id +
                          " is locked by layer \"" + h.layer + "\"",
                      "restore the hook; a locked layer changes only with a restart of the host");
  }
}

void check_locked(const detail::Generation& before, const detail::Generation& after) {
  detail::for_each_kind([&](auto k) {
    check_locked_table(before.hooks<k.value>(), after.hooks<k.value>(),
                       detail::info(k.value).stage);
  });
}

// Hands the old instance's state to the new one; a failed import rejects.
void hand_off(const LoadedPlugin& old, const LoadedPlugin& fresh, const fs::path& manifest,
              const std::string& json_path) {
  if (!old.export_state || !fresh.import_state) return;
  tg_str out{nullptr, 0};
  // The old instance may be serving calls right now: a serialized plugin
  // gets its lock held, as for any other callback.
  if (old.instance->invoke([&] { return old.export_state(old.instance->state, &out); }) != TG_OK)
    throw LoadError(manifest.string(), json_path,
                    "plugin \"" + old.id + "\": the old version failed to export its state",
                    "fix export_state, or reload without state (restart)");
  std::string copy(out.data ? out.data : "", out.size);
  if (fresh.import_state(fresh.instance->state, tg_str{copy.data(), copy.size()}) != TG_OK)
    throw LoadError(manifest.string(), json_path,
                    "plugin \"" + old.id + "\": the new version refused the old version's state",
                    "make import_state accept the previous state format");
}

}  // namespace

ReloadController::ReloadController(Host::Impl& impl, ReloadOptions options)
    : impl_(impl), options_(std::move(options)), shadow_(options_.shadow_parent) {
  impl_.retired.set_reporter([this](const std::string& type, json::object data) {
    // Logged before the data moves into the event (it used to be logged
    // after, as "plugin/pinned: {}").
    if (type == "plugin/pinned")
      spdlog::warn("{}", std::string(data.at("message").as_string()));
    else if (type == "plugin/drain-timeout")
      spdlog::warn(
          "generation {} still has {} call(s) in flight after {} ms; its plugins are "
          "unloaded when they end ({})",
          to_json_text(data.at("generation")), to_json_text(data.at("in_flight")),
          to_json_text(data.at("waited_ms")), type);
    impl_.emit_host_event(type, std::move(data), impl_.active.load()->number);
  });
  // Created before any thread can look at it, and kept until its thread has
  // ended: the watcher thread itself calls reload(), which uses watcher_.
  if (options_.watch)
    watcher_ = std::make_unique<detail::Watcher>(options_.debounce, [this] { reload(false); });
  reaper_ = std::thread([this] { reap_loop(); });
}

ReloadController::~ReloadController() {
  closing_ = true;
  if (watcher_) watcher_->stop();
  watcher_.reset();
  {
    std::lock_guard lock(reap_mutex_);
    stopping_ = true;
  }
  reap_cv_.notify_all();
  reaper_.join();
  impl_.retired.set_reporter(nullptr);
}

void ReloadController::reap_loop() {
  std::unique_lock lock(reap_mutex_);
  while (!stopping_) {
    reap_cv_.wait_for(lock, std::chrono::milliseconds(10));
    lock.unlock();
    impl_.retired.reap(options_.drain_deadline);
    lock.lock();
  }
}

std::vector<fs::path> ReloadController::watched_files() const {
  std::vector<fs::path> files;
  try {
    files = detail::expand_manifest_paths(options_.manifests);
  } catch (...) {
    files.assign(options_.manifests.begin(), options_.manifests.end());
  }
  // Folders given as manifests: watch the folder itself for new files too.
  for (const auto& m : options_.manifests)
    if (fs::is_directory(m)) files.push_back(m / ".");
  for (const auto& layer : impl_.layers)
    for (const auto& p : layer.manifest.plugins) files.push_back(p.path);
  return files;
}

ReloadReport ReloadController::reload(bool force) {
  // A rebuild seen mid-write (a linker truncates, computes, then writes)
  // is waited for, quietly, within the bound; a shutdown cuts the wait.
  const bool initial = first_load_pending_.exchange(false);
  const auto settle_until = std::chrono::steady_clock::now() + options_.settle_timeout;
  ReloadReport r;
  for (;;) {
    bool not_ready = false;
    r = attempt(force, settle_until, &not_ready);
    if (!not_ready) break;
    for (int i = 0; i < 5 && !closing_; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (closing_) {
      r = attempt(force, {}, nullptr);  // shutting down: report what is there now
      break;
    }
  }
  r.initial = initial;
  if (watcher_) {
    std::lock_guard lock(impl_.control);
    watcher_->watch(watched_files());
  }
  if (options_.on_reload) options_.on_reload(r);
  return r;
}

// One attempt, as named steps: load the candidate stack off to the side,
// decide whether anything changed, build and check the candidate
// generation, publish it.  Any failure leaves the serving generation (or,
// before any stack loaded, denies every call).
ReloadReport ReloadController::attempt(bool force,
                                       std::chrono::steady_clock::time_point settle_until,
                                       bool* not_ready) {
  auto t0 = std::chrono::steady_clock::now();
  ReloadReport report;
  std::lock_guard lock(impl_.control);
  try {
    auto candidate = load_candidate(force);
    report.changed = !candidate.fresh.empty() || differs_from_serving(candidate.layers) ||
                     !impl_.stack_valid || force;
    if (report.changed)
      publish(std::move(candidate), report);
    else
      report.ok = true;
    report.generation = impl_.active.load()->number;
  } catch (const detail::PluginNotReady& e) {
    // Nothing was published: the candidate is dropped with its copies.
    if (not_ready && std::chrono::steady_clock::now() < settle_until) {
      *not_ready = true;
      return report;
    }
    fail(e.what(), report);
  } catch (const std::exception& e) {
    fail(e.what(), report);
  }
  first_attempt_ = false;
  report.took =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  announce(report);
  return report;
}

detail::LoadedStack ReloadController::load_candidate(bool force) {
  detail::StackLoadOptions lo;
  lo.loader.allow_insecure_permissions = options_.load.allow_insecure_plugin_permissions;
  lo.loader.strict_builds = options_.load.strict_plugin_builds;
  lo.variables = &options_.load.variables;
  std::map<std::string, std::shared_ptr<const LoadedPlugin>> serving;
  for (const auto& layer : impl_.layers)
    for (const auto& [i, p] : layer.plugins) {
      serving[p->id] = p;
      if (impl_.stack_valid && layer.manifest.locked)
        lo.locked_config[p->id] = {layer.manifest.layer, &p->config};
    }
  lo.serving = &serving;
  lo.force = force;
  lo.shadow = &shadow_;
  if (!options_.probe_command.empty())
    lo.probe = [this](const fs::path& copy, const detail::ManifestPlugin& p) {
      return detail::run_probe(options_.probe_command, copy, p.id, p.config,
                               options_.probe_timeout);
    };
  lo.hand_off = hand_off;
  return detail::load_stack(detail::expand_manifest_paths(options_.manifests), lo);
}

// Any edit of a manifest (a hook's mode, filter, order, an override, a pin)
// is a change, even when every plugin is kept: compare the text as read.
bool ReloadController::differs_from_serving(const std::vector<detail::StackLayer>& layers) const {
  if (layers.size() != impl_.layers.size()) return true;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& a = layers[i].manifest;
    const auto& b = impl_.layers[i].manifest;
    if (a.file != b.file || a.text != b.text) return true;
  }
  return false;
}

void ReloadController::publish(detail::LoadedStack candidate, ReloadReport& report) {
  auto disabled = impl_.disable;
  disabled.insert(disabled.end(), options_.load.disable.begin(), options_.load.disable.end());
  std::vector<std::string> kept;
  auto gen = impl_.build(candidate.layers, disabled, &kept);
  if (impl_.stack_valid) check_locked(*impl_.active.load(), *gen);
  // Everything checked: swap.
  impl_.layers = std::move(candidate.layers);
  impl_.stack_valid = true;
  gen->invalid_reason.clear();
  impl_.publish(gen);
  for (auto& [p, copy] : candidate.fresh) {
    impl_.retired.track(p, copy.string());
    report.reloaded.push_back(p->id);
  }
  report.build_warnings = impl_.announce_build_warnings(candidate, gen->number);
  report.ok = true;
}

void ReloadController::fail(std::string error, ReloadReport& report) {
  report.ok = false;
  report.error = std::move(error);
  // Fail closed (docs/design.md §9): the first attempt failed and no
  // manifest stack was ever loaded, so there are no guards to keep serving
  // with -- deny every call until a reload succeeds, with or without
  // deny_until_loaded.  A stack loaded before (load_manifests) keeps
  // serving, as after any failed reload, and stays the reference for the
  // locked-layer checks.
  if (first_attempt_ && impl_.layers.empty()) {
    impl_.stack_valid = false;
    auto gen = impl_.build(impl_.layers, impl_.disable, nullptr);
    gen->invalid_reason = "the manifest stack failed to load: " + report.error;
    impl_.publish(gen);
  }
  report.generation = impl_.active.load()->number;
  report.calls_denied = !impl_.stack_valid;
}

void ReloadController::announce(const ReloadReport& report) {
  json::array ids;
  for (const auto& id : report.reloaded) ids.push_back(json::string(id));
  if (report.ok)
    impl_.emit_host_event("plugin/reloaded", {{"plugins", ids}, {"us", report.took.count()}},
                          report.generation);
  else
    impl_.emit_host_event("plugin/reload-failed", {{"error", report.error}}, report.generation);
  if (options_.on_reload) return;  // the callback reports the outcome: once
  if (!report.ok && report.calls_denied)
    spdlog::error("load failed, no manifest stack has loaded yet, so every call is denied: {}",
                  report.error);
  else if (!report.ok)
    spdlog::error("reload failed, generation {} keeps serving: {}", report.generation,
                  report.error);
}

}  // namespace toolgate
