/* no_root.c -- the smallest useful plugin: a guard that denies greeting root. */
#include <toolgate/toolgate.h>
#include <string.h>

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
    sizeof descriptor, TOOLGATE_ABI_MAJOR, TOOLGATE_ABI_MINOR, "example.no-root", "1.0.0",
    TG_CAP_GUARD, 0, init, NULL};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
