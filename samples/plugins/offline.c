/* offline.c -- pre-execute: deny every call; the tool is offline. */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static tg_status deny(void *user_data, tg_call *call, int32_t *verdict) {
  static const char reason[] = "this tool is offline for the current session";
  (void)user_data;
  host->set_reason(call, (tg_str){reason, sizeof reason - 1});
  *verdict = TG_PRE_DENY;
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  (void)config;
  (void)state;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "offline";
  return api->register_pre_execute(ctx, &o, deny);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "sample.offline",
    .version = "1.0.0",
    .capabilities = TG_CAP_PRE_EXECUTE,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
