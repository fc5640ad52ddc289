// host.cpp -- the embedding API: registration publishes generations; calls
// run on a snapshot of the active one.
#include <toolgate/host.hpp>

#include "host_impl.hpp"
#include "json_util.hpp"
#include "loading/manifest.hpp"
#include "loading/stack.hpp"
#include "loading/stack_loader.hpp"
#include "pipeline/stages.hpp"
#include "reload/controller.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

namespace toolgate {

namespace json = boost::json;
using detail::Generation;

LoadError::LoadError(std::string file, std::string json_path, std::string what, std::string fix)
    : std::runtime_error(file + (json_path.empty() ? "" : " at " + json_path) + ": " + what +
                         "\n  fix: " + fix),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      problem_(std::move(what)),
      fix_(std::move(fix)) {}

// What a HookHandle holds (weakly).  `host` is cleared under `mutex` when
// the host goes, so a remove() racing ~Host either finishes first (the
// destructor waits for it) or finds nothing.
struct HookHandle::Target {
  std::mutex mutex;
  Host* host;
};

Host::Host(HostOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  impl_->handle_target = std::make_shared<HookHandle::Target>();
  impl_->handle_target->host = this;
  if (options.deny_until_loaded) {
    impl_->stack_valid = false;
    auto g = std::make_shared<Generation>();
    g->invalid_reason = "no manifest stack has loaded successfully yet";
    impl_->active.store(std::move(g));
  }
}

Host::~Host() {
  {
    std::lock_guard lock(impl_->handle_target->mutex);
    impl_->handle_target->host = nullptr;  // handles now find nothing
  }
  impl_->handle_target.reset();
  impl_->reloader.reset();  // stop watching before anything else goes
}

bool HookHandle::remove() {
  auto target = target_.lock();
  if (!target || serial_ == 0) return false;
  std::lock_guard lock(target->mutex);
  return target->host && target->host->remove_embedder_hook(serial_);
}

namespace {
void check_tool_definition(const ToolDefinition& t) {
  if (t.name.empty() || (!t.execute && !t.execute_async))
    throw std::invalid_argument("a tool needs a name and an execute (or execute_async) function");
  if (t.execute && t.execute_async)
    throw std::invalid_argument("tool \"" + t.name +
                                "\" has both execute and execute_async; give it one body");
  if (t.name == code_mode_tool)
    throw std::invalid_argument("\"" + t.name +
                                "\" is reserved for Code Mode (enable_code_mode); name the tool "
                                "something else");
}
}  // namespace

void Host::register_tool(ToolDefinition tool) {
  check_tool_definition(tool);
  impl_->reconfigure([&] {
    if (impl_->embedder_tools.count(tool.name))
      throw std::invalid_argument("tool \"" + tool.name + "\" is already registered");
    auto name = tool.name;
    impl_->embedder_tools.emplace(std::move(name), std::move(tool));
  });
}

void Host::set_tools(std::vector<ToolDefinition> tools, bool remove_others) {
  std::map<std::string, ToolDefinition, std::less<>> incoming;
  for (auto& t : tools) {
    check_tool_definition(t);
    if (incoming.count(t.name))
      throw std::invalid_argument("tool \"" + t.name + "\" appears twice");
    auto name = t.name;
    incoming.emplace(std::move(name), std::move(t));
  }
  impl_->reconfigure([&] {
    if (remove_others) impl_->embedder_tools.clear();
    for (auto& [name, def] : incoming) impl_->embedder_tools.insert_or_assign(name, std::move(def));
  });
}

void Host::enable_code_mode(CodeModeOptions options) {
  if (options.max_sub_calls == 0 || options.default_timeout.count() <= 0 ||
      options.max_timeout < options.default_timeout ||
      options.max_timeout > std::chrono::hours(24) || options.max_message_bytes < 1024 ||
      options.memory_bytes < (256ull << 20))
    throw std::invalid_argument(
        "Code Mode options: max_sub_calls must be at least 1, default_timeout positive and no "
        "more than max_timeout (at most 24 hours), max_message_bytes at least 1024, memory_bytes "
        "at "
        "least 256 MiB");
  auto mode = std::make_shared<detail::CodeMode>(std::move(options));
  impl_->reconfigure([&] { impl_->code_mode = mode; });
}

std::string Host::typescript_declarations() const {
  return detail::code_mode_declarations(impl_->active.load()->tools);
}

namespace {
// The embedder's hooks of every kind take this one path; `fn` goes into
// its kind's alternative.
template <detail::HookKind K, class Fn>
std::pair<std::uint64_t, std::string> add_hook(Host::Impl& impl, std::string owner,
                                               const HookOptions& o, Fn fn) {
  if (owner.empty() || o.name.empty())
    throw std::invalid_argument("a hook needs an owner and a name");
  if (!fn) throw std::invalid_argument("hook " + o.name + " has no callback");
  detail::EmbedderHook h;
  h.owner = std::move(owner);
  h.reg = {o.name, o.tools, o.priority,
           detail::HookFn(std::in_place_index<static_cast<std::size_t>(K)>, std::move(fn)),
           o.denies_always};
  if (o.denies_always && K != detail::HookKind::pre_execute && K != detail::HookKind::guard)
    throw std::invalid_argument("hook " + o.name +
                                ": only pre-execute hooks and guards have a static verdict "
                                "(denies_always)");
  h.shadow = o.shadow;
  std::uint64_t serial = 0;
  std::string id = h.owner + "/" + o.name;
  impl.reconfigure([&] {
    h.serial = serial = ++impl.hook_serial;
    impl.embedder_hooks.push_back(std::move(h));
  });
  return {serial, std::move(id)};
}
}  // namespace

HookHandle Host::add_pre_execute(std::string owner, HookOptions o, PreExecuteFn fn) {
  auto [serial, id] =
      add_hook<detail::HookKind::pre_execute>(*impl_, std::move(owner), o, std::move(fn));
  return HookHandle(impl_->handle_target, serial, std::move(id));
}
HookHandle Host::add_guard(std::string owner, HookOptions o, GuardFn fn) {
  auto [serial, id] = add_hook<detail::HookKind::guard>(*impl_, std::move(owner), o, std::move(fn));
  return HookHandle(impl_->handle_target, serial, std::move(id));
}
HookHandle Host::add_fs_guard(std::string owner, HookOptions o, FsGuardFn fn) {
  auto [serial, id] =
      add_hook<detail::HookKind::fs_guard>(*impl_, std::move(owner), o, std::move(fn));
  return HookHandle(impl_->handle_target, serial, std::move(id));
}
HookHandle Host::add_execute_wrapper(std::string owner, HookOptions o, ExecuteWrapperFn fn) {
  auto [serial, id] = add_hook<detail::HookKind::execute_wrapper>(
      *impl_, std::move(owner), o, detail::WrapperFns(std::move(fn)));
  return HookHandle(impl_->handle_target, serial, std::move(id));
}
HookHandle Host::add_execute_wrapper(std::string owner, HookOptions o, WrapperHalves halves) {
  auto [serial, id] = add_hook<detail::HookKind::execute_wrapper>(
      *impl_, std::move(owner), o, detail::WrapperFns(std::move(halves)));
  return HookHandle(impl_->handle_target, serial, std::move(id));
}
HookHandle Host::add_post_execute(std::string owner, HookOptions o, PostExecuteFn fn) {
  auto [serial, id] =
      add_hook<detail::HookKind::post_execute>(*impl_, std::move(owner), o, std::move(fn));
  return HookHandle(impl_->handle_target, serial, std::move(id));
}
HookHandle Host::add_result_observer(std::string owner, HookOptions o, ResultObserverFn fn) {
  auto [serial, id] =
      add_hook<detail::HookKind::result_observer>(*impl_, std::move(owner), o, std::move(fn));
  return HookHandle(impl_->handle_target, serial, std::move(id));
}

bool Host::remove_embedder_hook(std::uint64_t serial) {
  bool found = false;
  impl_->reconfigure([&] {
    found = std::erase_if(impl_->embedder_hooks,
                          [&](const detail::EmbedderHook& h) { return h.serial == serial; }) > 0;
  });
  return found;
}

bool Host::remove_hook(std::string_view id) {
  std::uint64_t serial = 0;
  {
    std::lock_guard lock(impl_->control);
    for (const auto& h : impl_->embedder_hooks)
      if (h.owner + "/" + h.reg.name == id) serial = h.serial;
  }
  if (serial) return remove_embedder_hook(serial);
  // Not the embedder's: a manifest's hook, named with its layer.
  const auto p = plan();
  for (const auto& [stage, hooks] : p) {
    if (!hooks.is_array()) continue;
    for (const auto& h : hooks.get_array()) {
      const auto& o = h.get_object();
      if (o.at("id").get_string() != id) continue;
      const std::string layer(o.at("layer").get_string());
      if (o.at("locked").get_bool())
        throw std::invalid_argument(
            "hook " + std::string(id) + " comes from locked layer \"" + layer +
            "\": nothing removes it while the host runs (a locked layer changes only with a "
            "restart); change that layer's manifest and restart");
      throw std::invalid_argument("hook " + std::string(id) + " comes from layer \"" + layer +
                                  "\", not from this API: edit its manifest and reload, or "
                                  "disable it (--disable " +
                                  std::string(id) + ")");
    }
  }
  return false;
}
void Host::set_approver(Approver approver) {
  impl_->reconfigure([&] { impl_->approver = std::move(approver); });
}
void Host::set_card_sink(CardSink sink) {
  impl_->reconfigure([&] { impl_->card_sink = std::move(sink); });
}

LoadReport Host::load_manifests(const std::vector<std::filesystem::path>& paths,
                                const LoadOptions& options) {
  auto files = detail::expand_manifest_paths(paths);
  std::lock_guard lock(impl_->control);
  // New layers go on top of the stack; plugin ids are unique across it.
  // Loaded off to the side: nothing is published until the whole stack
  // resolves, and on error the new instances are destroyed (their shutdown
  // runs) while the active generation stays as it was.
  detail::StackLoadOptions lo;
  lo.loader.allow_insecure_permissions = options.allow_insecure_plugin_permissions;
  lo.loader.strict_builds = options.strict_plugin_builds;
  lo.variables = &options.variables;
  for (const auto& layer : impl_->layers)
    for (const auto& [index, plugin] : layer.plugins)
      lo.already_loaded[plugin->id] = layer.manifest.file.string();
  lo.already_loaded_fix = "load each plugin once; change it from a later layer with \"overrides\"";
  auto loaded = detail::load_stack(files, lo);

  // Without reuse, every plugin of the new layers was loaded afresh.
  std::vector<std::pair<std::string, std::string>> fresh;  // plugin id, manifest
  for (const auto& layer : loaded.layers)
    for (const auto& [index, plugin] : layer.plugins)
      fresh.emplace_back(plugin->id, layer.manifest.file.string());
  auto stack = impl_->layers;
  for (auto& layer : loaded.layers) stack.push_back(std::move(layer));
  auto disabled = impl_->disable;
  disabled.insert(disabled.end(), options.disable.begin(), options.disable.end());
  LoadReport report;
  auto gen = impl_->build(stack, disabled, &report.kept_locked);
  impl_->layers = std::move(stack);
  impl_->disable = std::move(disabled);
  impl_->stack_valid = true;
  gen->invalid_reason.clear();
  impl_->publish(gen);
  for (const auto& layer : impl_->layers) report.layers.push_back(layer.manifest.layer);
  report.plugins = gen->plugin_ids;
  for (const auto& [id, file] : fresh)
    impl_->emit_host_event("plugin/loaded", {{"plugin", id}, {"manifest", file}}, gen->number);
  report.build_warnings = impl_->announce_build_warnings(loaded, gen->number);
  return report;
}

std::vector<std::string> Host::Impl::announce_build_warnings(const detail::LoadedStack& loaded,
                                                             std::uint64_t gen) {
  std::vector<std::string> lines;
  for (const auto& [plugin, copy] : loaded.fresh)
    for (const auto& p : plugin->build_problems) {
      lines.push_back(detail::build_warning(*plugin, p));
      // The log every host has (the CLI's is stderr), and the event log.
      spdlog::warn("{}", lines.back());
      emit_host_event("plugin/build-warning",
                      {{"plugin", plugin->id},
                       {"path", plugin->path.string()},
                       {"code", p.code},
                       {"message", p.message},
                       {"fix", p.fix}},
                      gen);
    }
  return lines;
}

// Hot reload (reload/controller.hpp does the work).
ReloadReport Host::enable_reload(ReloadOptions options) {
  impl_->reloader.reset();
  impl_->reloader = std::make_unique<ReloadController>(*impl_, std::move(options));
  return impl_->reloader->reload(true);
}

ReloadReport Host::reload() {
  if (!impl_->reloader) throw std::logic_error("reload() needs enable_reload() first");
  return impl_->reloader->reload(false);
}

void Host::disable_reload() { impl_->reloader.reset(); }

void Host::subscribe(EventSink sink) { impl_->bus.subscribe(std::move(sink)); }

std::optional<std::string> context_message(const std::vector<std::string>& contexts) {
  if (contexts.empty()) return std::nullopt;
  std::string out;
  for (const auto& c : contexts) {
    if (!out.empty()) out += "\n\n";
    out += c;
  }
  return out;
}

// A single call's contexts: in the batch/settled event, and the caller's.
static std::vector<std::string> settle_single(Host::Impl& impl, std::uint64_t generation,
                                              std::vector<detail::QueuedContext> contexts) {
  std::vector<std::string> out;
  if (contexts.empty()) return out;
  json::array texts;
  for (auto& q : contexts) texts.push_back(json::string(q.text));
  for (auto& q : contexts) out.push_back(std::move(q.text));
  impl.emit_host_event("batch/settled", {{"additional_contexts", std::move(texts)}}, generation);
  return out;
}

// Host::call and call_json: `c` is taken.  (call_json's ToolCall comes
// here by reference: each hop by value moved eight strings.)
static ToolResult call_taking(Host::Impl& impl, ToolCall& c,
                              std::vector<std::string>* additional_contexts) {
  auto gen = impl.active.load();
  detail::BatchContext batch;
  std::vector<detail::QueuedContext> contexts;
  ToolResult r = detail::run_call(*gen, impl.options, impl.bus, batch, std::move(c), &contexts);
  auto texts = settle_single(impl, gen->number, std::move(contexts));
  if (additional_contexts)
    for (auto& t : texts) additional_contexts->push_back(std::move(t));
  return r;
}

ToolResult Host::call(ToolCall c, std::vector<std::string>* additional_contexts) {
  return call_taking(*impl_, c, additional_contexts);
}

void Host::call_async(ToolCall c, CallDone done) {
  if (!done) throw std::invalid_argument("Host::call_async needs a done callback");
  auto gen = impl_->active.load();
  const auto number = gen->number;
  // The host outlives its calls (the embedder's promise, as for call()).
  detail::run_call_async(
      std::move(gen), impl_->options, impl_->bus, std::move(c),
      [impl = impl_.get(), number, done = std::move(done)](
          ToolResult r, std::vector<detail::QueuedContext> contexts) {
        auto texts = settle_single(*impl, number, std::move(contexts));
        try {
          done(std::move(r), std::move(texts));
        } catch (const std::exception& e) {
          spdlog::error("a call_async done callback threw ({}); its result is lost", e.what());
        } catch (...) {
          spdlog::error("a call_async done callback threw; its result is lost");
        }
      });
}

ToolResult Host::call_json(std::string_view text, std::vector<std::string>* additional_contexts) {
  auto bad = [&](std::string why) {
    return ToolResult::failure(error_code::invalid_arguments, std::move(why), stage::call, "host");
  };
  if (text.size() > impl_->options.max_argument_bytes)
    return bad("the call is " + std::to_string(text.size()) + " bytes, over the " +
               std::to_string(impl_->options.max_argument_bytes) + "-byte limit");
  std::string why;
  auto v = detail::parse_untrusted(text, impl_->options.max_json_depth, &why);
  if (!v) return bad("the call is not valid: " + why);
  if (!v->is_object()) return bad("the call must be a JSON object");
  // One pass over the members: each is checked and taken where it stands.
  ToolCall c;
  for (auto& kv : v->get_object()) {
    std::string_view key = kv.key();
    std::string* field = key == "tool"         ? &c.identity.tool
                         : key == "call_id"    ? &c.identity.call_id
                         : key == "session_id" ? &c.identity.session_id
                                               : nullptr;
    if (field) {
      if (!kv.value().is_string())
        return bad(key == "tool" ? "the call needs a string \"tool\""
                                 : "\"call_id\" and \"session_id\" must be strings");
      *field = kv.value().get_string();
    } else if (key == "arguments") {
      c.arguments = std::move(kv.value());
    } else {
      return bad("unknown key \"" + std::string(key) +
                 "\" in the call (allowed: tool, arguments, call_id, session_id)");
    }
  }
  if (c.identity.tool.empty()) return bad("the call needs a string \"tool\"");
  return call_taking(*impl_, c, additional_contexts);
}

SplitBegin Host::begin_call(ToolCall c, SplitBeginOptions options) {
  auto call = std::make_unique<detail::SplitCall>(impl_->active.load(), impl_->options, impl_->bus);
  SplitBegin out = detail::begin_split(*call, std::move(c), options);
  if (out.verdict == SplitBegin::Verdict::deny) return out;
  std::string why;
  if (impl_->split_calls().add(call, &why)) return out;
  // Not kept (a duplicate id, a full table): the call ends now, refused,
  // with its one tool/result -- the hooks' allow does not reach the caller.
  return detail::refuse_split(*call, std::move(why));
}

SplitOutcome Host::complete_call(std::string_view call_id, ToolResult reported) {
  auto call = impl_->split_calls().take(call_id);
  if (!call)
    throw std::out_of_range("no begun call has the id \"" + std::string(call_id) +
                            "\" (never begun, denied when begun, already completed, or expired)");
  return detail::complete_split(*call, std::move(reported));
}

std::size_t Host::pending_split_calls() const { return impl_->split_calls().size(); }

BatchResult Host::call_batch(std::vector<ToolCall> calls) {
  auto gen = impl_->active.load();
  detail::BatchContext batch;
  BatchResult out;
  out.results.resize(calls.size());
  std::vector<std::vector<detail::QueuedContext>> contexts(calls.size());
  // hardware_concurrency() reads /sys on every call: asked only when there
  // is more than one call to spread (the MCP gateway sends batches of one).
  unsigned workers = 1;
  if (calls.size() > 1) {
    workers = impl_->options.batch_parallelism ? impl_->options.batch_parallelism
                                               : std::max(1u, std::thread::hardware_concurrency());
    workers = static_cast<unsigned>(std::min<std::size_t>(workers, calls.size()));
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < calls.size();)
      out.results[i] = detail::run_call(*gen, impl_->options, impl_->bus, batch,
                                        std::move(calls[i]), &contexts[i]);
  };
  {
    std::vector<std::jthread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
  }  // every call has its tool/result here
  // Release the queued contexts first-in first-out, after all results.
  std::vector<detail::QueuedContext> all;
  for (auto& v : contexts)
    for (auto& q : v) all.push_back(std::move(q));
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.ticket < b.ticket; });
  json::array texts;
  for (auto& q : all) {
    texts.push_back(json::string(q.text));
    out.additional_contexts.push_back(std::move(q.text));
  }
  impl_->emit_host_event("batch/settled",
                         {{"calls", calls.size()}, {"additional_contexts", std::move(texts)}},
                         gen->number);
  return out;
}

json::object Host::describe() const {
  auto g = impl_->active.load();
  auto ids = [](const auto& hooks) {
    json::array a;
    for (const auto& h : hooks) a.push_back(json::string(h.id));
    return a;
  };
  json::array tools, plugins;
  json::object owners;
  for (const auto& [name, t] : g->tools) {
    tools.push_back(json::string(name));
    owners[name] = t->owner;
  }
  for (const auto& id : g->plugin_ids) plugins.push_back(json::string(id));
  json::object d{{"generation", g->number},
                 {"plugins", plugins},
                 {"tools", tools},
                 {"tool_owners", std::move(owners)}};
  detail::for_each_kind([&](auto k) { d[detail::info(k.value).stage] = ids(g->hooks<k.value>()); });
  return d;
}

json::array Host::tools_json() const {
  auto g = impl_->active.load();
  json::array out;
  for (const auto& [name, t] : g->tools) {
    json::object o{{"name", name}, {"description", t->def.description}, {"owner", t->owner}};
    o["inputSchema"] = t->def.input_schema.is_null() ? json::value(json::object{{"type", "object"}})
                                                     : t->def.input_schema;
    if (!t->def.output_schema.is_null()) o["outputSchema"] = t->def.output_schema;
    out.push_back(std::move(o));
  }
  return out;
}

json::object Host::plan(std::string_view tool) const {
  auto g = impl_->active.load();
  auto entries = [&](const auto& hooks) {
    json::array a;
    for (const auto& h : hooks) {
      if (!tool.empty() && !h.filter.matches(tool)) continue;
      json::array tools, before, after;
      for (const auto& t : h.filter.patterns()) tools.push_back(json::string(t));
      for (const auto& t : h.before) before.push_back(json::string(t));
      for (const auto& t : h.after) after.push_back(json::string(t));
      json::object e{{"id", h.id},       {"plugin", h.plugin},
                     {"layer", h.layer}, {"priority", h.priority},
                     {"tools", tools},   {"locked", h.locked}};
      if (!before.empty()) e["before"] = before;
      if (!after.empty()) e["after"] = after;
      if constexpr (std::is_same_v<std::decay_t<decltype(h)>, detail::GuardHook>)
        e["mode"] = h.shadow ? "shadow" : "enforce";
      a.push_back(std::move(e));
    }
    return a;
  };
  json::object o{{"generation", g->number}};
  detail::for_each_kind(
      [&](auto k) { o[detail::info(k.value).stage] = entries(g->hooks<k.value>()); });
  if (!tool.empty()) o["tool"] = tool;
  return o;
}

std::uint64_t Host::generation() const { return impl_->active.load()->number; }

bool Host::runs_plugin_code_before_body(std::string_view tool) const {
  const auto gen = impl_->active.load();
  if (!gen->invalid_reason.empty()) return true;
  const std::string name(tool);
  auto from_plugin = [&](const auto& hooks) {
    for (const auto& h : hooks)
      if (h.layer != "host" && h.filter.matches(name)) return true;
    return false;
  };
  return from_plugin(gen->pre_execute) || from_plugin(gen->guards) || from_plugin(gen->wrappers);
}

bool Host::runs_hooks_on_result(std::string_view tool) const {
  const auto gen = impl_->active.load();
  const std::string name(tool);
  for (const auto& h : gen->post_execute)
    if (h.filter.matches(name)) return true;
  for (const auto& h : gen->observers)
    if (h.filter.matches(name)) return true;
  // A wrapper's after runs where the result arrives (one in two halves
  // around a body that answers later).
  for (const auto& h : gen->wrappers)
    if (h.fn.halves.after && h.filter.matches(name)) return true;
  return false;
}

}  // namespace toolgate
