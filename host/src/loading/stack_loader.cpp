#include "stack_loader.hpp"

#include "variables.hpp"

#include <toolgate/host.hpp>

#include <utility>

namespace toolgate::detail {

namespace fs = std::filesystem;

namespace {

// A copy made for a load, removed unless the load keeps it.
class CopyGuard {
 public:
  explicit CopyGuard(fs::path p) : path_(std::move(p)) {}
  ~CopyGuard() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }
  CopyGuard(const CopyGuard&) = delete;
  CopyGuard& operator=(const CopyGuard&) = delete;
  const fs::path& path() const { return path_; }
  fs::path keep() { return std::exchange(path_, {}); }

 private:
  fs::path path_;
};

class StackLoader {
 public:
  explicit StackLoader(const StackLoadOptions& o) : o_(o), seen_(o.already_loaded) {}

  LoadedStack run(const std::vector<fs::path>& files) {
    try {
      for (const auto& f : files) {
        StackLayer layer;
        layer.manifest = read_manifest(f, o_.loader.allow_insecure_permissions);
        static const Variables none;
        for (auto& p : layer.manifest.plugins) {
          boost::json::value config(std::move(p.config));
          expand_variables(config, o_.variables ? *o_.variables : none, f.string(),
                           p.json_path + "/config");
          p.config = std::move(config.as_object());
        }
        const auto& m = layer.manifest;
        for (std::size_t i = 0; i < m.plugins.size(); ++i)
          if (auto p = load_entry(m, m.plugins[i])) layer.plugins.emplace_back(i, std::move(p));
        out_.layers.push_back(std::move(layer));
      }
    } catch (...) {
      // Nothing of a failed load stays behind: the new instances are
      // destroyed with out_, their copies removed here.
      for (const auto& [plugin, copy] : out_.fresh) CopyGuard remove(copy);
      throw;
    }
    return std::move(out_);
  }

 private:
  // One plugin entry: nullptr when it is disabled.
  std::shared_ptr<const LoadedPlugin> load_entry(const Manifest& m, const ManifestPlugin& p) {
    const std::string file = m.file.string();
    if (auto it = seen_.find(p.id); it != seen_.end())
      throw LoadError(file, p.json_path + "/id",
                      "plugin \"" + p.id + "\" is already loaded (by " + it->second + ")",
                      o_.already_loaded_fix);
    seen_[p.id] = file;
    if (!p.enabled) return nullptr;
    check_locked_config(file, p);
    if (!o_.shadow) {
      auto loaded = load_plugin(p, m.file, o_.loader);
      out_.fresh.emplace_back(loaded, fs::path());
      return loaded;
    }
    // Copy first, then check, hash and load the copy: what is checked is
    // what runs.  Permissions, pin and completeness hold for a plugin kept
    // as it is too (a pin just added must match the build that goes on
    // serving), and come before any of a new build's code runs, the probe
    // child's included.
    std::error_code ec;
    if (!fs::is_regular_file(p.path, ec))
      throw LoadError(
          file, p.json_path + "/path",
          "plugin \"" + p.id + "\" (" + p.path.string() + "): the plugin file does not exist",
          "build the plugin, or fix \"path\"");
    CopyGuard copy(o_.shadow->copy(p.path, p.id));
    const std::string digest = check_plugin_file(p, m.file, o_.loader, copy.path());
    const LoadedPlugin* prev = serving(p.id);
    if (!o_.force && prev && prev->sha256 == digest && prev->config == p.config)
      return o_.serving->at(p.id);  // unchanged: keep the loaded one
    if (o_.probe)
      if (auto why = o_.probe(copy.path(), p); !why.empty())
        throw LoadError(
            file, p.json_path,
            "plugin \"" + p.id + "\" (" + p.path.string() + "): rejected by the probe: " + why,
            "fix the plugin; this build does not run until the probe passes");
    auto loaded = load_plugin(p, m.file, o_.loader, copy.path());
    if (prev && o_.hand_off) o_.hand_off(*prev, *loaded, m.file, p.json_path);
    out_.fresh.emplace_back(loaded, copy.keep());
    return loaded;
  }

  // A locked layer's configuration is part of its guards: a reload may
  // swap a locked plugin's build, never its config.
  void check_locked_config(const std::string& file, const ManifestPlugin& p) const {
    auto lk = o_.locked_config.find(p.id);
    if (lk == o_.locked_config.end() || *lk->second.second == p.config) return;
    throw LoadError(file, p.json_path + "/config",
                    "the reload would change the config of plugin \"" + p.id +
                        "\", which layer \"" + lk->second.first + "\" locks",
                    "restore its config; a locked layer changes only with a restart of the host");
  }

  const LoadedPlugin* serving(const std::string& id) const {
    if (!o_.serving) return nullptr;
    auto it = o_.serving->find(id);
    return it == o_.serving->end() ? nullptr : it->second.get();
  }

  const StackLoadOptions& o_;
  std::map<std::string, std::string> seen_;
  LoadedStack out_;
};

}  // namespace

LoadedStack load_stack(const std::vector<fs::path>& files, const StackLoadOptions& options) {
  return StackLoader(options).run(files);
}

}  // namespace toolgate::detail
