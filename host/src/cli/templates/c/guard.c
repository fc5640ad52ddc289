/* @NAME@.c -- a guard: denies greeting "root" (or the name its config
 * gives: "config": {"name": "admin"}), abstains otherwise.
 * A guard can only deny (with a reason) or abstain; it gets a read-only
 * call.  Callbacks may run on many threads at once: keep them stateless,
 * or set TG_PLUGIN_SERIALIZED in the descriptor. */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <string.h>

static const tg_host_api *host;
/* Set in init, only read by callbacks. */
static char denied[512] = "root";
static char reason[600] = "greeting root is not allowed";

static tg_status no_root(void *user_data, const tg_call *call, int32_t *verdict) {
  tg_str name; /* borrowed: valid until this callback returns */
  (void)user_data;
  *verdict = TG_GUARD_ABSTAIN;
  if (host->arg_string(call, "/name", &name) == TG_OK && name.size == strlen(denied) &&
      memcmp(name.data, denied, name.size) == 0) {
    host->set_reason(call, (tg_str){reason, strlen(reason)});
    *verdict = TG_GUARD_DENY;
  }
  return TG_OK; /* anything else fails the call closed */
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  tg_str name;
  (void)config; /* no parsing: read values with config_string / config_get */
  (void)state;
  host = api;
  /* The host checked the config against config_schema below before init:
   * "name", if present, is a string of 1 to 100 characters. */
  if (api->config_string(ctx, "/name", &name) == TG_OK) {
    snprintf(denied, sizeof denied, "%.*s", (int)name.size, name.data);
    snprintf(reason, sizeof reason, "greeting %s is not allowed", denied);
  }
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
    /* JSON Schema of the config, checked by the host before init (the
     * subset is in the SDK guide, "Reading your config"). */
    .config_schema =
        "{\"type\": \"object\", \"additionalProperties\": false,"
        " \"properties\": {\"name\": {\"type\": \"string\","
        " \"minLength\": 1, \"maxLength\": 100}}}",
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
