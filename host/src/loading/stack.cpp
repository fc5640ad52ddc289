#include "stack.hpp"

#include <toolgate/host.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace toolgate::detail {

namespace {

// One hook on its way into the generation.
struct Candidate {
  const HookRegistration* reg;
  std::string id, plugin, layer, file;
  std::size_t layer_index = 0, plugin_index = 0, reg_index = 0;
  bool locked = false;
  int priority = 0;
  std::vector<std::string> tools, before, after;
  bool shadow = false;
  bool enabled = true;
  std::shared_ptr<const void> keep;
};

[[noreturn]] void fail(const std::string& file, const std::string& at, std::string what,
                       std::string fix) {
  throw LoadError(file, at, std::move(what), std::move(fix));
}

// Applies manifest settings to a hook, checking they make sense for its kind.
void apply(Candidate& c, const HookSettings& s, const std::string& file) {
  const HookKindInfo& kind = info(c.reg->kind());
  bool orders = s.priority || s.before || s.after;
  if (!kind.ordered && orders)
    fail(file, s.json_path,
         kind.kind == HookKind::result_observer
             ? "observer " + c.id + " cannot be ordered: observers run in registration order"
             : std::string(kind.noun) + " " + c.id + " cannot be ordered: " +
                   std::string(kind.noun) + "s all run and any deny denies",
         "remove priority/before/after for this " + std::string(kind.noun));
  if (s.mode && !kind.shadowable)
    fail(file, s.json_path + "/mode",
         "\"mode\" applies to guards only, and " + c.id + " is a " + std::string(kind.stage) +
             " hook",
         "remove \"mode\"");
  if (s.priority) c.priority = *s.priority;
  if (s.before) c.before = *s.before;
  if (s.after) c.after = *s.after;
  if (s.tools) c.tools = *s.tools;
  if (s.mode) c.shadow = *s.mode == "shadow";
  if (s.enabled) c.enabled = *s.enabled;
}

class Resolver {
 public:
  Resolver(const StackInput& in, std::vector<std::string>* kept) : in_(in), kept_(kept) {}

  void run(Generation& gen) {
    collect();
    check_unique();
    apply_overrides();
    apply_disables();
    check_constraints();
    emit_all(gen, std::make_index_sequence<kHookKindCount>{});
  }

 private:
  void collect() {
    std::size_t i = 0;
    for (const auto& e : *in_.embedder_hooks) {
      Candidate c = base(e.reg, e.owner, "host", "(embedder)", 0, 0, i++, false, nullptr);
      c.shadow = e.shadow;
      cands_.push_back(std::move(c));
    }
    for (std::size_t li = 0; li < in_.layers->size(); ++li) {
      const auto& layer = (*in_.layers)[li];
      const auto& m = layer.manifest;
      for (const auto& [pi, plugin] : layer.plugins) {
        const auto& mp = m.plugins[pi];
        for (std::size_t ri = 0; ri < plugin->hooks.size(); ++ri)
          cands_.push_back(base(plugin->hooks[ri], plugin->id, m.layer, m.file.string(), li + 1, pi,
                                ri, m.locked, plugin->instance));
        for (const auto& [name, settings] : mp.hooks) {
          Candidate* c = find(plugin->id + "/" + name);
          if (!c) {
            std::string names;
            for (const auto& h : plugin->hooks) names += (names.empty() ? "" : ", ") + h.name;
            fail(m.file.string(), settings.json_path,
                 "plugin \"" + plugin->id + "\" registers no hook named \"" + name + "\"",
                 "use one of its hooks: " + (names.empty() ? std::string("(none)") : names));
          }
          apply(*c, settings, m.file.string());
        }
      }
    }
  }

  static Candidate base(const HookRegistration& r, const std::string& plugin,
                        const std::string& layer, const std::string& file, std::size_t li,
                        std::size_t pi, std::size_t ri, bool locked,
                        std::shared_ptr<const void> keep) {
    Candidate c;
    c.reg = &r;
    c.id = plugin + "/" + r.name;
    c.plugin = plugin;
    c.layer = layer;
    c.file = file;
    c.layer_index = li;
    c.plugin_index = pi;
    c.reg_index = ri;
    c.locked = locked;
    c.priority = r.priority;
    c.tools = r.tools;
    c.keep = std::move(keep);
    return c;
  }

  Candidate* find(const std::string& id) {
    for (auto& c : cands_)
      if (c.id == id) return &c;
    return nullptr;
  }

  static std::string locked_message(const Candidate& c) {
    return "hook " + c.id + " is locked by layer \"" + c.layer + "\" (" + c.file + ")";
  }

  void check_unique() {
    std::map<std::string, const Candidate*> seen;
    for (const auto& c : cands_) {
      auto [it, fresh] = seen.emplace(c.id, &c);
      if (!fresh)
        fail(c.file, "",
             "hook id " + c.id + " is registered twice (also by " + it->second->file + ")",
             "give one of the hooks or owners another name");
    }
  }

  void apply_overrides() {
    for (std::size_t li = 0; li < in_.layers->size(); ++li) {
      const auto& m = (*in_.layers)[li].manifest;
      const std::string file = m.file.string();
      for (const auto& [target, s] : m.overrides) {
        std::vector<Candidate*> hit;
        for (auto& c : cands_)
          if (c.id == target || c.plugin == target) hit.push_back(&c);
        if (hit.empty())
          fail(file, s.json_path, "\"" + target + "\" names no loaded plugin or hook",
               "use an id that `toolgate plan` lists (plugin-id or plugin-id/hook-name)");
        bool whole_plugin = target.find('/') == std::string::npos;
        if (whole_plugin && (s.priority || s.before || s.after || s.tools || s.mode))
          fail(file, s.json_path, "a whole plugin can only be enabled or disabled",
               "override its hooks one by one (\"" + target + "/hook-name\")");
        for (Candidate* c : hit) {
          if (c->layer_index >= li + 1)
            fail(file, s.json_path, "\"" + target + "\" is not from an earlier layer",
                 "set a plugin's own hooks in its \"hooks\" map; overrides are for earlier layers");
          if (c->locked)
            fail(file, s.json_path,
                 locked_message(*c) +
                     "; a later layer cannot remove, disable, shadow, re-filter or "
                     "reorder it",
                 "remove this override (ask the owner of layer \"" + c->layer + "\" to change it)");
          apply(*c, s, file);
        }
      }
    }
  }

  void apply_disables() {
    for (const auto& glob : in_.disable) {
      std::string g = glob == "all" ? "*" : glob;
      bool matched = false;
      for (auto& c : cands_) {
        if (!glob_match(g, c.id) && !glob_match(g, c.plugin)) continue;
        matched = true;
        if (c.locked) {
          if (kept_) kept_->push_back(locked_message(c) + ": kept despite --disable " + glob);
          continue;
        }
        c.enabled = false;
      }
      if (!matched)
        fail("(command line)", "", "--disable " + glob + " matches no plugin or hook",
             "check the ids with `toolgate plan`");
    }
  }

  // Every before/after names something real other than the hook itself,
  // and no unlocked hook orders itself against a locked one.
  void check_constraints() {
    for (const auto& c : cands_) {
      for (const auto* list : {&c.before, &c.after})
        for (const auto& ref : *list) {
          if (ref == c.id || ref == c.plugin)
            fail(c.file, "",
                 "hook " + c.id + " is ordered against \"" + ref +
                     "\", which is itself (or its own plugin)",
                 "remove \"" + ref + "\" from its before/after");
          bool found = false;
          for (const auto& o : cands_) {
            if (o.id != ref && o.plugin != ref) continue;
            found = true;
            if (o.locked && !c.locked)
              fail(c.file, "",
                   "hook " + c.id + " cannot be ordered against " + o.id +
                       ", which is locked by layer \"" + o.layer + "\" (" + o.file + ")",
                   "remove \"" + ref + "\" from before/after: locked layers have the final word");
          }
          if (!found)
            fail(c.file, "",
                 "hook " + c.id + " is ordered against \"" + ref + "\", which is not loaded",
                 "use an id that `toolgate plan` lists");
        }
    }
  }

  // The resolved order of one stage's enabled hooks.
  std::vector<const Candidate*> order(HookKind k) {
    std::vector<const Candidate*> v;
    for (const auto& c : cands_)
      if (c.reg->kind() == k && c.enabled) v.push_back(&c);
    if (k == HookKind::guard || k == HookKind::fs_guard) {
      std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->id < b->id; });
      return v;
    }
    auto key_less = [](const Candidate* a, const Candidate* b) {
      if (a->priority != b->priority) return a->priority > b->priority;
      return std::tie(a->layer_index, a->plugin_index, a->reg_index) <
             std::tie(b->layer_index, b->plugin_index, b->reg_index);
    };
    if (k == HookKind::result_observer) {
      std::sort(v.begin(), v.end(), [](auto* a, auto* b) {
        return std::tie(a->layer_index, a->plugin_index, a->reg_index) <
               std::tie(b->layer_index, b->plugin_index, b->reg_index);
      });
      return v;
    }
    const std::size_t n = v.size();
    std::vector<std::set<std::size_t>> out(n);
    std::vector<std::size_t> indegree(n, 0);
    auto edge = [&](std::size_t a, std::size_t b) {  // a runs before b
      if (a != b && out[a].insert(b).second) ++indegree[b];
    };
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        bool j_named = false;
        for (const auto& ref : v[i]->before) j_named |= v[j]->id == ref || v[j]->plugin == ref;
        if (j_named) edge(i, j);
        j_named = false;
        for (const auto& ref : v[i]->after) j_named |= v[j]->id == ref || v[j]->plugin == ref;
        if (j_named) edge(j, i);
        // Locked layers have the final word.
        if (!v[i]->locked && v[j]->locked) {
          if (k == HookKind::execute_wrapper)
            edge(j, i);  // locked wrappers outside
          else
            edge(i, j);  // locked waterfall hooks last
        }
      }
    }
    auto cmp = [&](std::size_t a, std::size_t b) {
      if (key_less(v[a], v[b])) return true;
      if (key_less(v[b], v[a])) return false;
      return a < b;
    };
    std::set<std::size_t, decltype(cmp)> ready(cmp);
    for (std::size_t i = 0; i < n; ++i)
      if (!indegree[i]) ready.insert(i);
    std::vector<const Candidate*> sorted;
    while (!ready.empty()) {
      std::size_t i = *ready.begin();
      ready.erase(ready.begin());
      sorted.push_back(v[i]);
      for (std::size_t j : out[i])
        if (--indegree[j] == 0) ready.insert(j);
    }
    if (sorted.size() != n) report_cycle(k, v, out, indegree);
    return sorted;
  }

  [[noreturn]] void report_cycle(HookKind k, const std::vector<const Candidate*>& v,
                                 const std::vector<std::set<std::size_t>>& out,
                                 const std::vector<std::size_t>& indegree) {
    // Walk edges among the unsorted nodes until one repeats: that is a cycle.
    std::size_t start = 0;
    while (indegree[start] == 0) ++start;
    std::vector<std::size_t> path{start};
    std::map<std::size_t, std::size_t> seen{{start, 0}};
    for (;;) {
      std::size_t cur = path.back(), next = cur;
      for (std::size_t j : out[cur])
        if (indegree[j] != 0) {
          next = j;
          break;
        }
      if (auto it = seen.find(next); it != seen.end()) {
        std::string cycle;
        for (std::size_t i = it->second; i < path.size(); ++i) cycle += v[path[i]]->id + " -> ";
        cycle += v[next]->id;
        fail(v[next]->file, "", "ordering cycle in " + std::string(info(k).stage) + ": " + cycle,
             "remove one of these before/after constraints (locked layers' hooks always run "
             "last in waterfalls and outermost among wrappers)");
      }
      seen[next] = path.size();
      path.push_back(next);
    }
  }

  static HookInfo hook_info(const Candidate& c) {
    HookInfo h;
    h.id = c.id;
    h.filter = ToolFilter(c.tools);
    h.priority = c.priority;
    h.plugin = c.plugin;
    h.layer = c.layer;
    h.locked = c.locked;
    h.shadow = c.shadow;
    h.denies_always = c.reg->denies_always;
    h.before = c.before;
    h.after = c.after;
    h.keep_alive = c.keep;
    return h;
  }

  // Each kind's resolved order into its table of the generation.
  template <std::size_t... I>
  void emit_all(Generation& gen, std::index_sequence<I...>) {
    (emit<static_cast<HookKind>(I)>(gen), ...);
  }
  template <HookKind K>
  void emit(Generation& gen) {
    for (const Candidate* c : order(K))
      gen.hooks<K>().push_back({hook_info(*c), std::get<static_cast<std::size_t>(K)>(c->reg->fn)});
  }

  const StackInput& in_;
  std::vector<std::string>* kept_;
  std::vector<Candidate> cands_;
};

}  // namespace

void resolve_stack(const StackInput& in, Generation& gen, std::vector<std::string>* kept) {
  Resolver(in, kept).run(gen);
}

}  // namespace toolgate::detail
