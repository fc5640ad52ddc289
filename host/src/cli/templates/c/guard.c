/* @NAME@.c -- a guard: denies greeting "root", abstains otherwise.
 * A guard can only deny (with a reason) or abstain; it gets a read-only
 * call.  Callbacks may run on many threads at once: keep them stateless,
 * or set TG_PLUGIN_SERIALIZED in the descriptor. */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static tg_status no_root(void *user_data, const tg_call *call, int32_t *verdict) {
  static const char reason[] = "greeting root is not allowed";
  tg_str name; /* borrowed: valid until this callback returns */
  (void)user_data;
  *verdict = TG_GUARD_ABSTAIN;
  if (host->arg_string(call, "/name", &name) == TG_OK && name.size == 4 &&
      memcmp(name.data, "root", 4) == 0) {
    host->set_reason(call, (tg_str){reason, sizeof reason - 1});
    *verdict = TG_GUARD_DENY;
  }
  return TG_OK; /* anything else fails the call closed */
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  (void)config;
  (void)state;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "no-root"; /* the guard's id is "@ID@/no-root" */
  return api->register_guard(ctx, &o, no_root);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "@ID@",
    .version = "0.1.0",
    .capabilities = TG_CAP_GUARD,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
