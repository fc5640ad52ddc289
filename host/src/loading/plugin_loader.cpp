#include "plugin_loader.hpp"

#include "../abi/adapters.hpp"
#include "../abi/host_api.hpp"

#include <toolgate/host.hpp>

#include <boost/dll/shared_library.hpp>
#include <boost/json/serialize.hpp>

#include <dlfcn.h>

namespace toolgate::detail {

namespace {

std::string version_str(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

struct Fail {
  const std::filesystem::path& manifest;
  const ManifestPlugin& plugin;
  [[noreturn]] void operator()(std::string what, std::string fix,
                               std::string sub_path = "") const {
    throw LoadError(manifest.string(), plugin.json_path + sub_path,
                    "plugin \"" + plugin.id + "\" (" + plugin.path.string() + "): " + what,
                    std::move(fix));
  }
};

constexpr std::uint32_t known_caps = TG_CAP_PRE_EXECUTE | TG_CAP_GUARD |
                                     TG_CAP_EXECUTE_WRAPPER | TG_CAP_POST_EXECUTE |
                                     TG_CAP_RESULT_OBSERVER | TG_CAP_TOOLS;
constexpr std::uint32_t known_flags = TG_PLUGIN_SERIALIZED | TG_PLUGIN_NEVER_UNLOAD;

}  // namespace

void load_plugin_into(Generation& gen, const ManifestPlugin& mp,
                      const std::filesystem::path& manifest_file) {
  Fail fail{manifest_file, mp};
  std::error_code fec;
  if (!std::filesystem::is_regular_file(mp.path, fec))
    fail("the plugin file does not exist",
         "build the plugin, or fix \"path\" (it is relative to the manifest)", "/path");

  auto inst = std::make_shared<PluginInstance>();
  inst->path = mp.path.string();
  boost::dll::fs::error_code ec;
  // rtld_now: unresolved symbols fail here, not in the middle of a call.
  // rtld_local: a plugin's symbols never satisfy another plugin's.
  inst->library.load(mp.path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
                     ec);
  if (ec) {
    const char* dl = dlerror();
    fail("cannot be loaded: " + (dl ? std::string(dl) : ec.message()),
         "check that it is a shared library for this platform and that its "
         "dependencies are installed",
         "/path");
  }
  if (!inst->library.has(TOOLGATE_ENTRY_SYMBOL))
    fail("does not export the entry symbol " TOOLGATE_ENTRY_SYMBOL,
         "define it with TOOLGATE_PLUGIN_ENTRY (C) or TOOLGATE_PLUGIN (C++) and "
         "build with toolgate_add_plugin");
  auto entry = inst->library.get<const tg_plugin_descriptor*()>(TOOLGATE_ENTRY_SYMBOL);
  const tg_plugin_descriptor* d = entry();
  if (!d) fail("its entry returned no descriptor", "return a pointer to a static descriptor");
  constexpr std::size_t min_size = offsetof(tg_plugin_descriptor, shutdown) + sizeof(tg_shutdown_fn);
  if (d->struct_size < min_size || d->struct_size > sizeof(tg_plugin_descriptor))
    fail("its descriptor has struct_size " + std::to_string(d->struct_size) +
             ", this host reads " + std::to_string(min_size) + " to " +
             std::to_string(sizeof(tg_plugin_descriptor)) + " bytes",
         "set struct_size = sizeof(tg_plugin_descriptor) and rebuild against this SDK");
  const std::string host_v = version_str(TOOLGATE_ABI_MAJOR, TOOLGATE_ABI_MINOR);
  const std::string plugin_v = version_str(d->abi_major, d->abi_minor);
  if (d->abi_major != TOOLGATE_ABI_MAJOR)
    fail("was built for ABI " + plugin_v + " but this host speaks ABI " + host_v +
             " (majors must match)",
         "rebuild the plugin against the toolgate SDK " + host_v);
  if (d->abi_minor > TOOLGATE_ABI_MINOR)
    fail("was built for ABI " + plugin_v + ", newer than this host's ABI " + host_v,
         "upgrade toolgate, or rebuild the plugin against the SDK " + host_v);
  std::string declared_id = d->id ? d->id : "";
  if (declared_id != mp.id)
    fail("declares id \"" + declared_id + "\" but the manifest says \"" + mp.id + "\"",
         "set \"id\": \"" + declared_id + "\" if this is the plugin you meant", "/id");
  if (!d->init) fail("its descriptor has no init function", "set .init in the descriptor");
  if (d->capabilities & ~known_caps)
    fail("declares capabilities this host does not know", "rebuild against this SDK");
  if (d->flags & ~known_flags)
    fail("declares flags this host does not know", "rebuild against this SDK");
  inst->id = declared_id;
  inst->version = d->version ? d->version : "";
  inst->capabilities = d->capabilities;
  inst->flags = d->flags;

  tg_init_ctx ctx;
  ctx.plugin = inst.get();
  const std::string config = boost::json::serialize(mp.config);
  void* state = nullptr;
  tg_status st = d->init(host_api(), &ctx, tg_str{config.data(), config.size()}, &state);
  if (st == TG_OK) {
    inst->state = state;
    inst->initialized = true;
    inst->shutdown = d->shutdown;
  }
  if (ctx.config_rejection)
    fail("rejected its config at " + (ctx.config_rejection->first.empty() ? "/" : ctx.config_rejection->first) +
             ": " + ctx.config_rejection->second,
         "fix the config value the plugin names (see its documentation)",
         "/config" + ctx.config_rejection->first);
  if (st != TG_OK || !ctx.errors.empty()) {
    std::string why;
    for (const auto& e : ctx.errors) why += (why.empty() ? "" : "; ") + e;
    if (why.empty()) why = "init returned status " + std::to_string(st);
    fail("failed to initialise: " + why, "fix the plugin or its config");
  }
  std::uint32_t registered = 0;
  for (const auto& h : ctx.hooks) registered |= h.kind;
  if (!ctx.tools.empty()) registered |= TG_CAP_TOOLS;
  if (std::uint32_t missing = d->capabilities & ~registered)
    fail("declared capabilities it did not register (mask 0x" +
             [&] { char b[16]; std::snprintf(b, sizeof b, "%x", missing); return std::string(b); }() +
             ")",
         "register a callback of each declared kind in init, or drop the capability");

  // Everything checked: add the hooks and tools to the generation.
  std::shared_ptr<const void> keep = inst;
  for (auto& h : ctx.hooks) {
    HookInfo info{mp.id + "/" + h.name, ToolFilter(h.tools), h.priority, gen.next_order++, keep};
    switch (h.kind) {
      case TG_CAP_PRE_EXECUTE:
        gen.pre_execute.push_back({info, adapt_pre_execute(inst, reinterpret_cast<tg_pre_execute_fn>(h.fn), h.user_data)});
        break;
      case TG_CAP_GUARD:
        gen.guards.push_back({info, adapt_guard(inst, reinterpret_cast<tg_guard_fn>(h.fn), h.user_data), false});
        break;
      case TG_CAP_EXECUTE_WRAPPER:
        gen.wrappers.push_back({info, adapt_execute_wrapper(inst, reinterpret_cast<tg_execute_wrapper_fn>(h.fn), h.user_data)});
        break;
      case TG_CAP_POST_EXECUTE:
        gen.post_execute.push_back({info, adapt_post_execute(inst, reinterpret_cast<tg_post_execute_fn>(h.fn), h.user_data)});
        break;
      case TG_CAP_RESULT_OBSERVER:
        gen.observers.push_back({info, adapt_result_observer(inst, reinterpret_cast<tg_result_observer_fn>(h.fn), h.user_data)});
        break;
    }
  }
  for (auto& t : ctx.tools) {
    if (gen.tools.count(t.name))
      fail("registers tool \"" + t.name + "\", which already exists",
           "rename the tool or disable the other plugin");
    gen.tools.emplace(t.name, std::make_shared<ToolEntry>(
                                  ToolEntry{adapt_tool(inst, t), mp.id, keep}));
  }
  gen.plugins.push_back(keep);
  gen.plugin_ids.push_back(mp.id);
}

}  // namespace toolgate::detail
