/* no_world.c -- a guard that denies greeting "World".  It reads one
 * argument by JSON Pointer: no JSON is parsed in the plugin. */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static tg_status no_world(void *user_data, const tg_call *call, int32_t *verdict) {
  static const char reason[] = "greeting the whole World is not allowed";
  tg_str name;
  (void)user_data;
  *verdict = TG_GUARD_ABSTAIN;
  if (host->arg_string(call, "/name", &name) == TG_OK && name.size == 5 &&
      memcmp(name.data, "World", 5) == 0) {
    host->set_reason(call, (tg_str){reason, sizeof reason - 1});
    *verdict = TG_GUARD_DENY;
  }
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  (void)config;
  (void)state;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "no-world";
  o.tool_filter = "greet";
  return api->register_guard(ctx, &o, no_world);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "sample.no-world",
    .version = "1.0.0",
    .capabilities = TG_CAP_GUARD,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
