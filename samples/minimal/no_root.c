/* no_root.c -- the smallest useful plugin: a guard that denies greeting root. */
#include <string.h>
#include <toolgate/toolgate.h>

static const tg_host_api *host;

static tg_status no_root(void *user_data, const tg_call *call, int32_t *verdict) {
  tg_str name;
  (void)user_data;
  *verdict = TG_GUARD_ABSTAIN;
  if (host->arg_string(call, "/name", &name) == TG_OK && name.size == 4 &&
      memcmp(name.data, "root", 4) == 0) {
    host->set_reason(call, (tg_str){"greeting root is not allowed", 28});
    *verdict = TG_GUARD_DENY;
  }
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o = {sizeof o, "no-root", "greet", 0, NULL};
  (void)config;
  (void)state;
  host = api;
  return api->register_guard(ctx, &o, no_root);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof descriptor,
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "example.no-root",
    .version = "1.0.0",
    .capabilities = TG_CAP_GUARD,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
