/* counter.c -- a result observer that counts calls and reports the count
 * as a plugin-owned session event ("sample/counted").  Observers see the
 * frozen outcome and cannot change anything. */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct counter_state {
  unsigned long calls; /* guarded by TG_PLUGIN_SERIALIZED */
} counter_state;

static const tg_host_api *host;

static tg_status count(void *user_data, const tg_call *call) {
  counter_state *s = (counter_state *)user_data;
  char data[64];
  int n;
  s->calls++;
  n = snprintf(data, sizeof data, "{\"count\":%lu}", s->calls);
  return host->emit_event(call, "sample/counted", (tg_str){data, (size_t)n});
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  counter_state *s = (counter_state *)calloc(1, sizeof *s);
  (void)config;
  if (!s) return TG_ERROR;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "count";
  o.user_data = s;
  if (api->register_result_observer(ctx, &o, count) != TG_OK) {
    free(s); /* init failed: the host will not call shutdown */
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
    .id = "sample.counter",
    .version = "1.0.0",
    .capabilities = TG_CAP_RESULT_OBSERVER,
    .flags = TG_PLUGIN_SERIALIZED,
    .init = init,
    .shutdown = shutdown,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
