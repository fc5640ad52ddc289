#include "retirement.hpp"

#include "../loading/plugin_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace toolgate::detail {

void Retirement::set_reporter(Reporter r) {
  std::lock_guard lock(mutex_);
  report_ = std::move(r);
}

void Retirement::retire(std::shared_ptr<const Generation> g) {
  if (!g) return;
  std::lock_guard lock(mutex_);
  retired_.push_back({std::move(g), Clock::now(), false});
}

void Retirement::track(const std::shared_ptr<const LoadedPlugin>& p, std::string loaded_path) {
  std::vector<std::string> codes;
  for (const auto& b : p->build_problems) codes.push_back(b.code);
  std::lock_guard lock(mutex_);
  tracked_.push_back({p, p->id, std::move(loaded_path), p->path.string(),
                      (p->instance->flags & TG_PLUGIN_NEVER_UNLOAD) != 0, std::move(codes)});
}

namespace {

// Why a released image stayed, and the fix, from what is known about it:
// its flag, then its build (checked when it loaded), else the runtime
// causes the image cannot show.
std::pair<std::string, std::string> pinned_cause(bool never_unload,
                                                 const std::vector<std::string>& problems,
                                                 const std::string& source) {
  auto has = [&](const char* code) {
    return std::find(problems.begin(), problems.end(), code) != problems.end();
  };
  if (never_unload)
    return {"the plugin declared TG_PLUGIN_NEVER_UNLOAD",
            "drop TG_PLUGIN_NEVER_UNLOAD from its descriptor's flags if it can be unloaded; if "
            "it cannot, restart toolgate from time to time while developing it"};
  if (has("gnu_unique"))
    return {
        "the image is still mapped after dlclose: it has STB_GNU_UNIQUE symbols, which "
        "glibc never unloads",
        std::string("compile C++ with -fno-gnu-unique; ") + kBuildFix + " (toolgate inspect " +
            source + " lists them)"};
  if (has("extra_exports"))
    return {
        "the image is still mapped after dlclose: it exports symbols besides the entry, "
        "and another object bound to them",
        std::string(kBuildFix) + " (toolgate inspect " + source + " lists them)"};
  return {
      "the image is still mapped after dlclose: something pins it (a thread_local with a "
      "destructor on a live thread, STB_GNU_UNIQUE symbols, or another object bound to "
      "its symbols)",
      "avoid thread_locals with destructors on the host's threads, and check the build "
      "with toolgate inspect " +
          source};
}

}  // namespace

std::size_t Retirement::reap(std::chrono::milliseconds drain_deadline) {
  std::vector<std::shared_ptr<const Generation>> drained;
  std::vector<std::pair<std::string, boost::json::object>> reports;
  std::size_t left = 0;
  {
    std::lock_guard lock(mutex_);
    auto now = Clock::now();
    for (auto it = retired_.begin(); it != retired_.end();) {
      // Only this list holds it, and it is no longer active: no call can
      // pick it up again, so it is drained.
      if (it->gen.use_count() == 1) {
        drained.push_back(std::move(it->gen));
        it = retired_.erase(it);
        continue;
      }
      if (!it->reported && now - it->since > drain_deadline) {
        it->reported = true;
        reports.emplace_back(
            "plugin/drain-timeout",
            boost::json::object{
                {"generation", it->gen->number},
                {"in_flight", it->gen.use_count() - 1},
                {"waited_ms",
                 std::chrono::duration_cast<std::chrono::milliseconds>(now - it->since).count()}});
      }
      ++it;
    }
    left = retired_.size();
  }
  drained.clear();  // shutdown and dlclose happen here, on this thread
  Reporter report;
  {
    std::lock_guard lock(mutex_);
    report = report_;
  }
  if (report)
    for (auto& [type, data] : reports) report(type, std::move(data));
  verify_unloads();
  return left;
}

void Retirement::verify_unloads() {
  std::vector<Tracked> gone;
  Reporter report;
  {
    std::lock_guard lock(mutex_);
    report = report_;
    for (auto it = tracked_.begin(); it != tracked_.end();) {
      if (it->plugin.expired()) {
        gone.push_back(std::move(*it));
        it = tracked_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& t : gone) {
    bool still = mapped_in_process(t.path);
    std::error_code ec;
    std::filesystem::remove(t.path, ec);  // the private copy is not needed any more
    if (!report) continue;
    if (!still)
      report("plugin/unloaded", {{"plugin", t.id}, {"path", t.path}});
    else {
      auto [why, fix] = pinned_cause(t.never_unload, t.build_problems, t.source);
      std::string message = "plugin \"" + t.id + "\" (" + t.source +
                            ") stays loaded after it was replaced: " + why +
                            "; the old image's code and memory stay in the process until it "
                            "exits, one more copy per reload; fix: " +
                            fix;
      report("plugin/pinned", {{"plugin", t.id},
                               {"path", t.path},
                               {"source", t.source},
                               {"why", why},
                               {"fix", fix},
                               {"message", message}});
    }
  }
}

Retirement::~Retirement() {
  std::lock_guard lock(mutex_);
  retired_.clear();
}

bool mapped_in_process(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    auto pos = line.find('/');
    if (pos != std::string::npos && line.compare(pos, std::string::npos, path) == 0) return true;
    if (pos != std::string::npos && line.compare(pos, path.size(), path) == 0 &&
        line.size() > pos + path.size() && line[pos + path.size()] == ' ')
      return true;  // "(deleted)" suffix after removal
  }
  return false;
}

}  // namespace toolgate::detail
