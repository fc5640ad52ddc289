/* reload_guard.c -- one source, several builds, for the hot-reload tests.
 * id "reload.guard"; a guard that denies greeting RG_DENY and counts the
 * calls it saw (handed across reloads with export/import_state).  Variants:
 *   RG_DENY="\"A\""     what the guard denies (default "A")
 *   RG_CRASH_INIT       init dereferences NULL (the probe must catch it)
 *   RG_EXIT_INIT        init calls exit(0) (the probe must catch it)
 *   RG_FAIL_INIT        init fails with a message
 *   RG_DROP_GUARD       registers a pre-execute hook instead of the guard
 *   RG_REFUSE_STATE     import_state fails */
#include <toolgate/toolgate.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RG_DENY
#define RG_DENY "A"
#endif

typedef struct rg_state {
  unsigned long seen; /* serialized plugin: no lock needed */
  char exported[64];
} rg_state;

static const tg_host_api *host;

static tg_status guard(void *ud, const tg_call *call, int32_t *verdict) {
  rg_state *s = (rg_state *)ud;
  tg_str name;
  char data[96];
  int n;
  s->seen++;
  n = snprintf(data, sizeof data, "{\"seen\":%lu,\"variant\":\"%s\"}", s->seen, RG_DENY);
  host->emit_event(call, "reload/seen", (tg_str){data, (size_t)n});
  *verdict = TG_GUARD_ABSTAIN;
  if (host->arg_string(call, "/name", &name) == TG_OK && name.size == strlen(RG_DENY) &&
      memcmp(name.data, RG_DENY, name.size) == 0) {
    static const char reason[] = "variant " RG_DENY " denies " RG_DENY;
    host->set_reason(call, (tg_str){reason, sizeof reason - 1});
    *verdict = TG_GUARD_DENY;
  }
  return TG_OK;
}

#ifdef RG_DROP_GUARD
static tg_status keep(void *ud, tg_call *call, int32_t *verdict) {
  (void)ud;
  (void)call;
  *verdict = TG_PRE_KEEP;
  return TG_OK;
}
#endif

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **out) {
  tg_hook_options o;
  rg_state *s;
  (void)config;
#ifdef RG_CRASH_INIT
  raise(SIGSEGV); /* a real crash, as a wild write would cause (without UB
                     that the sanitizers would report first) */
  abort();
#endif
#ifdef RG_EXIT_INIT
  exit(0); /* ends the process "successfully": in the host, it would end the host */
#endif
#ifdef RG_FAIL_INIT
  api->init_error(ctx, "reload_guard refuses to start");
  return TG_ERROR;
#endif
  s = (rg_state *)calloc(1, sizeof *s);
  if (!s) return TG_ERROR;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.user_data = s;
#ifdef RG_DROP_GUARD
  o.name = "keep";
  if (api->register_pre_execute(ctx, &o, keep) != TG_OK) {
#else
  o.name = "guard";
  if (api->register_guard(ctx, &o, guard) != TG_OK) {
#endif
    free(s);
    return TG_ERROR;
  }
  *out = s;
  return TG_OK;
}

static void shutdown(void *s) { free(s); }

static tg_status export_state(void *state, tg_str *out) {
  rg_state *s = (rg_state *)state;
  int n = snprintf(s->exported, sizeof s->exported, "{\"seen\":%lu}", s->seen);
  out->data = s->exported;
  out->size = (size_t)n;
  return TG_OK;
}

static tg_status import_state(void *state, tg_str json) {
  rg_state *s = (rg_state *)state;
  char buf[64];
  unsigned long seen;
#ifdef RG_REFUSE_STATE
  (void)s;
  (void)json;
  (void)buf;
  (void)seen;
  return TG_ERROR;
#else
  if (json.size >= sizeof buf) return TG_ERROR;
  memcpy(buf, json.data, json.size);
  buf[json.size] = 0;
  if (sscanf(buf, "{\"seen\":%lu}", &seen) != 1) return TG_ERROR;
  s->seen = seen;
  return TG_OK;
#endif
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "reload.guard",
    .version = RG_DENY,
#ifdef RG_DROP_GUARD
    .capabilities = TG_CAP_PRE_EXECUTE,
#else
    .capabilities = TG_CAP_GUARD,
#endif
#ifdef RG_NEVER_UNLOAD
    .flags = TG_PLUGIN_SERIALIZED | TG_PLUGIN_NEVER_UNLOAD,
#else
    .flags = TG_PLUGIN_SERIALIZED,
#endif
    .init = init,
    .shutdown = shutdown,
    .export_state = export_state,
    .import_state = import_state,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
