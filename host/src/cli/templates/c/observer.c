/* @NAME@.c -- a result observer: counts outcomes and reports each one as a
 * plugin-owned event ("@NAME@/observed") in the session log.  Observers read
 * the frozen outcome and cannot change anything.  The counter is state, so
 * the descriptor asks the host to serialize the callbacks. */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct observer_state {
  unsigned long outcomes; /* guarded by TG_PLUGIN_SERIALIZED */
} observer_state;

static const tg_host_api *host;

static tg_status observe(void *user_data, const tg_call *call) {
  observer_state *s = (observer_state *)user_data;
  char data[64];
  int n = snprintf(data, sizeof data, "{\"outcomes\":%lu}", ++s->outcomes);
  return host->emit_event(call, "@NAME@/observed", (tg_str){data, (size_t)n});
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  observer_state *s = (observer_state *)calloc(1, sizeof *s);
  (void)config;
  if (!s) return TG_ERROR;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "observe";
  o.user_data = s;
  if (api->register_result_observer(ctx, &o, observe) != TG_OK) {
    free(s); /* init failed: shutdown will not run */
    return TG_ERROR;
  }
  *state = s;
  return TG_OK;
}

static void shutdown(void *state) { free(state); }

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "@ID@",
    .version = "0.1.0",
    .capabilities = TG_CAP_RESULT_OBSERVER,
    .flags = TG_PLUGIN_SERIALIZED,
    .init = init,
    .shutdown = shutdown,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
