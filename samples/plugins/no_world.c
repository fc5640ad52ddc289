/* no_world.c -- a guard that denies greeting "World" (or the name its
 * config gives).  It reads one argument by JSON Pointer and its config
 * through the host (ABI 1.2): no JSON is parsed in the plugin.
 *
 *   "config": { "name": "Bob" }      deny greeting Bob instead
 *
 * The descriptor's config_schema says what the config may hold; the host
 * checks it before init, so init only reads. */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <string.h>

static const tg_host_api *host;
/* Set once in init, read-only afterwards: safe for concurrent guards. */
static char denied_name[512] = "World"; /* 100 code points fit */
static char reason[600] = "greeting the whole World is not allowed";

static tg_status no_world(void *user_data, const tg_call *call, int32_t *verdict) {
  tg_str name;
  (void)user_data;
  *verdict = TG_GUARD_ABSTAIN;
  if (host->arg_string(call, "/name", &name) == TG_OK && name.size == strlen(denied_name) &&
      memcmp(name.data, denied_name, name.size) == 0) {
    host->set_reason(call, (tg_str){reason, strlen(reason)});
    *verdict = TG_GUARD_DENY;
  }
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  tg_str name;
  (void)config; /* read through config_string instead of parsing it */
  (void)state;
  host = api;
  /* The schema makes "name" an optional string of 1 to 100 characters:
   * TG_NOT_FOUND (absent) is the only other answer. */
  if (api->config_string(ctx, "/name", &name) == TG_OK) {
    snprintf(denied_name, sizeof denied_name, "%.*s", (int)name.size, name.data);
    snprintf(reason, sizeof reason, "greeting %s is not allowed", denied_name);
  }
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "no-world";
  o.tool_filter = "greet";
  return api->register_guard(ctx, &o, no_world);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR, /* 1.2: config_string and config_schema */
    .id = "sample.no-world",
    .version = "1.1.0",
    .capabilities = TG_CAP_GUARD,
    .init = init,
    .config_schema =
        "{\"type\": \"object\", \"additionalProperties\": false,"
        " \"properties\": {\"name\": {\"type\": \"string\","
        " \"minLength\": 1, \"maxLength\": 100}}}",
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
