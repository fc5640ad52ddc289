// host.cpp -- the embedding API: registration publishes generations; calls
// run on a snapshot of the active one.
#include <toolgate/host.hpp>

#include "event_bus.hpp"
#include "generation.hpp"
#include "json_util.hpp"
#include "loading/manifest.hpp"
#include "loading/plugin_loader.hpp"
#include "pipeline/stages.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace toolgate {

namespace json = boost::json;
using detail::Generation;

LoadError::LoadError(std::string file, std::string json_path, std::string what,
                     std::string fix)
    : std::runtime_error(file + (json_path.empty() ? "" : " at " + json_path) + ": " +
                         what + "\n  fix: " + fix),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      problem_(std::move(what)),
      fix_(std::move(fix)) {}

struct Host::Impl {
  HostOptions options;
  detail::EventBus bus;
  std::mutex control;  // serializes configuration changes
  std::atomic<std::shared_ptr<const Generation>> active{std::make_shared<const Generation>()};

  // Copy the active generation, let `edit` change the copy, publish it.
  template <class Edit>
  void publish(Edit&& edit) {
    std::lock_guard lock(control);
    auto next = std::make_shared<Generation>(*active.load());
    edit(*next);
    next->number = active.load()->number + 1;
    next->resolve_order();
    active.store(std::move(next));
  }

  void emit_host_event(std::string type, json::object data, std::uint64_t gen) {
    if (!bus.active()) return;
    Event e;
    e.type = std::move(type);
    e.generation = gen;
    e.data = std::move(data);
    bus.publish(std::move(e));
  }
};

namespace {

void check_unique(const Generation& g, const std::string& id) {
  auto clash = [&](const auto& hooks) {
    return std::any_of(hooks.begin(), hooks.end(), [&](const auto& h) { return h.id == id; });
  };
  if (clash(g.pre_execute) || clash(g.guards) || clash(g.wrappers) ||
      clash(g.post_execute) || clash(g.observers))
    throw std::invalid_argument("hook id \"" + id + "\" is already registered");
}

template <class Hook, class Fn>
Hook make_hook(Generation& g, const std::string& owner, const HookOptions& o, Fn fn) {
  if (owner.empty() || o.name.empty())
    throw std::invalid_argument("a hook needs an owner and a name");
  if (!fn) throw std::invalid_argument("hook " + owner + "/" + o.name + " has no callback");
  Hook h;
  h.id = owner + "/" + o.name;
  check_unique(g, h.id);
  h.filter = detail::ToolFilter(o.tools);
  h.priority = o.priority;
  h.order = g.next_order++;
  h.fn = std::move(fn);
  return h;
}

}  // namespace

Host::Host(HostOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
}
Host::~Host() = default;

void Host::register_tool(ToolDefinition tool) {
  if (tool.name.empty() || !tool.execute)
    throw std::invalid_argument("a tool needs a name and an execute function");
  impl_->publish([&](Generation& g) {
    if (g.tools.count(tool.name))
      throw std::invalid_argument("tool \"" + tool.name + "\" is already registered");
    auto name = tool.name;
    g.tools.emplace(name, std::make_shared<detail::ToolEntry>(
                              detail::ToolEntry{std::move(tool), "host", nullptr}));
  });
}

void Host::add_pre_execute(std::string owner, HookOptions o, PreExecuteFn fn) {
  impl_->publish([&](Generation& g) {
    g.pre_execute.push_back(make_hook<detail::PreExecuteHook>(g, owner, o, std::move(fn)));
  });
}
void Host::add_guard(std::string owner, HookOptions o, GuardFn fn) {
  impl_->publish([&](Generation& g) {
    auto h = make_hook<detail::GuardHook>(g, owner, o, std::move(fn));
    h.shadow = o.shadow;
    g.guards.push_back(std::move(h));
  });
}
void Host::add_execute_wrapper(std::string owner, HookOptions o, ExecuteWrapperFn fn) {
  impl_->publish([&](Generation& g) {
    g.wrappers.push_back(make_hook<detail::ExecuteWrapperHook>(g, owner, o, std::move(fn)));
  });
}
void Host::add_post_execute(std::string owner, HookOptions o, PostExecuteFn fn) {
  impl_->publish([&](Generation& g) {
    g.post_execute.push_back(make_hook<detail::PostExecuteHook>(g, owner, o, std::move(fn)));
  });
}
void Host::add_result_observer(std::string owner, HookOptions o, ResultObserverFn fn) {
  impl_->publish([&](Generation& g) {
    g.observers.push_back(make_hook<detail::ResultObserverHook>(g, owner, o, std::move(fn)));
  });
}
void Host::set_approver(Approver approver) {
  impl_->publish([&](Generation& g) { g.approver = std::move(approver); });
}

void Host::load_manifest(const std::filesystem::path& file) {
  detail::Manifest m = detail::read_manifest(file);
  std::vector<std::string> loaded;
  // Build the candidate off to the side; publish only if every plugin
  // loaded.  A failure leaves the active generation untouched.
  impl_->publish([&](Generation& g) {
    for (const auto& p : m.plugins) {
      if (!p.enabled) continue;
      if (std::find(g.plugin_ids.begin(), g.plugin_ids.end(), p.id) != g.plugin_ids.end())
        throw LoadError(file.string(), p.json_path + "/id",
                        "plugin \"" + p.id + "\" is already loaded",
                        "load each plugin once");
      detail::load_plugin_into(g, p, file);
      loaded.push_back(p.id);
    }
  });
  auto gen = generation();
  for (const auto& id : loaded)
    impl_->emit_host_event("plugin/loaded", {{"plugin", id}, {"manifest", file.string()}}, gen);
}

void Host::subscribe(EventSink sink) { impl_->bus.subscribe(std::move(sink)); }

ToolResult Host::call(ToolCall c) {
  auto gen = impl_->active.load();
  detail::BatchContext batch;
  std::vector<detail::QueuedContext> contexts;
  ToolResult r = detail::run_call(*gen, impl_->options, impl_->bus, batch, std::move(c), &contexts);
  if (!contexts.empty()) {
    json::array texts;
    for (auto& q : contexts) texts.push_back(json::string(q.text));
    impl_->emit_host_event("batch/settled", {{"additional_contexts", std::move(texts)}},
                           gen->number);
  }
  return r;
}

ToolResult Host::call_json(std::string_view text) {
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
  auto& o = v->get_object();
  for (const auto& kv : o)
    if (kv.key() != "tool" && kv.key() != "arguments" && kv.key() != "call_id" &&
        kv.key() != "session_id")
      return bad("unknown key \"" + std::string(kv.key()) +
                 "\" in the call (allowed: tool, arguments, call_id, session_id)");
  auto str = [&](std::string_view k, std::string& out) {
    if (auto* x = o.if_contains(k)) {
      if (!x->is_string()) return false;
      out = x->get_string();
    }
    return true;
  };
  ToolCall c;
  if (!str("tool", c.identity.tool) || c.identity.tool.empty())
    return bad("the call needs a string \"tool\"");
  if (!str("call_id", c.identity.call_id) || !str("session_id", c.identity.session_id))
    return bad("\"call_id\" and \"session_id\" must be strings");
  if (auto* a = o.if_contains("arguments")) c.arguments = std::move(*a);
  return call(std::move(c));
}

BatchResult Host::call_batch(std::vector<ToolCall> calls) {
  auto gen = impl_->active.load();
  detail::BatchContext batch;
  BatchResult out;
  out.results.resize(calls.size());
  std::vector<std::vector<detail::QueuedContext>> contexts(calls.size());
  unsigned workers = impl_->options.batch_parallelism
                         ? impl_->options.batch_parallelism
                         : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, calls.size()));
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
  for (const auto& [name, t] : g->tools) tools.push_back(json::string(name));
  for (const auto& id : g->plugin_ids) plugins.push_back(json::string(id));
  return {{"generation", g->number},      {"plugins", plugins},
          {"tools", tools},               {"tools/pre-execute", ids(g->pre_execute)},
          {"guard", ids(g->guards)},      {"tools/execute", ids(g->wrappers)},
          {"tools/post-execute", ids(g->post_execute)},
          {"tools/result", ids(g->observers)}};
}

std::uint64_t Host::generation() const { return impl_->active.load()->number; }

}  // namespace toolgate
