/* @NAME@.c -- a pre-execute hook: asks before greeting "root".
 * Pre-execute hooks run in order and answer keep, allow, ask or deny; they
 * may also replace the arguments (host->set_arguments).  An ask goes to the
 * approver (toolgate call --approve, or the MCP client). */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static tg_status ask_root(void *user_data, tg_call *call, int32_t *verdict) {
  static const char reason[] = "greeting root needs approval";
  tg_str name;
  (void)user_data;
  *verdict = TG_PRE_KEEP;
  if (host->arg_string(call, "/name", &name) == TG_OK && name.size == 4 &&
      memcmp(name.data, "root", 4) == 0) {
    host->set_reason(call, (tg_str){reason, sizeof reason - 1});
    *verdict = TG_PRE_ASK;
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
  o.name = "ask-root";
  return api->register_pre_execute(ctx, &o, ask_root);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "@ID@",
    .version = "0.1.0",
    .capabilities = TG_CAP_PRE_EXECUTE,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
