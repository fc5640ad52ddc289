/* ask_confirm.c -- pre-execute: every call needs a human's confirmation.
 * With no approver in the process, the call ends as approval_unavailable. */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static tg_status ask(void *user_data, tg_call *call, int32_t *verdict) {
  static const char reason[] = "dangerous operation, needs human confirmation";
  (void)user_data;
  host->set_reason(call, (tg_str){reason, sizeof reason - 1});
  *verdict = TG_PRE_ASK;
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  (void)config;
  (void)state;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "confirm";
  return api->register_pre_execute(ctx, &o, ask);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "sample.ask",
    .version = "1.0.0",
    .capabilities = TG_CAP_PRE_EXECUTE,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
