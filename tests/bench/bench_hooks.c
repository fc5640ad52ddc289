/* bench_hooks.c -- a plugin with N cheap hooks of each kind, for the
 * benchmarks.  Config: {"pre":3,"guards":5,"wrappers":2,"post":2,"observers":1}.
 * Each hook does what a real cheap hook does: read its hot metadata and one
 * argument (by JSON Pointer), then answer keep / abstain / next / accept. */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <string.h>

static const tg_host_api *host;
#define MAX_PER_KIND 64 /* the slope benchmarks go to 50 */
static char names[5][MAX_PER_KIND][16];

static int count(tg_str config, const char *key) {
  char pattern[32];
  const char *p;
  int n = 0;
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  p = config.data ? strstr(config.data, pattern) : NULL;
  if (p && sscanf(p + strlen(pattern), "%d", &n) == 1 && n >= 0 && n <= MAX_PER_KIND) return n;
  return 0;
}

static int touches(const tg_call *call) {
  tg_call_info info;
  tg_str name;
  info.struct_size = sizeof info;
  host->call_info(call, &info);
  return host->arg_string(call, "/name", &name) == TG_OK && name.size > 0 &&
         info.tool_name.size > 0;
}

static tg_status pre(void *ud, tg_call *call, int32_t *v) {
  (void)ud;
  (void)touches(call);
  *v = TG_PRE_KEEP;
  return TG_OK;
}
static tg_status guard(void *ud, const tg_call *call, int32_t *v) {
  (void)ud;
  *v = touches(call) ? TG_GUARD_ABSTAIN : TG_GUARD_ABSTAIN;
  return TG_OK;
}
static tg_status wrapper(void *ud, const tg_call *call, const tg_signal *s, const tg_next *next,
                         const tg_result **out) {
  (void)ud;
  (void)call;
  return host->call_next(next, s, out);
}
static tg_status post(void *ud, tg_call *call, int32_t *v) {
  (void)ud;
  (void)call;
  *v = TG_POST_ACCEPT;
  return TG_OK;
}
static tg_status observer(void *ud, const tg_call *call) {
  (void)ud;
  (void)call;
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  static const char *kinds[5] = {"pre", "guards", "wrappers", "post", "observers"};
  int k, i;
  (void)state;
  host = api;
  for (k = 0; k < 5; ++k) {
    int n = count(config, kinds[k]);
    for (i = 0; i < n; ++i) {
      tg_hook_options o;
      tg_status st = TG_ERROR;
      memset(&o, 0, sizeof o);
      o.struct_size = sizeof o;
      snprintf(names[k][i], sizeof names[k][i], "%s-%d", kinds[k], i);
      o.name = names[k][i];
      switch (k) {
        case 0:
          st = api->register_pre_execute(ctx, &o, pre);
          break;
        case 1:
          st = api->register_guard(ctx, &o, guard);
          break;
        case 2:
          st = api->register_execute_wrapper(ctx, &o, wrapper);
          break;
        case 3:
          st = api->register_post_execute(ctx, &o, post);
          break;
        case 4:
          st = api->register_result_observer(ctx, &o, observer);
          break;
      }
      if (st != TG_OK) return st;
    }
  }
  return TG_OK;
}

/* Capabilities are static and every declared kind must be registered, so
 * this source is built once per kind (BENCH_ID, BENCH_CAPS), plus once with
 * every kind for the typical stack. */
static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = BENCH_ID,
#ifdef BENCH_ALT
    .version = "1.0.1", /* different bytes: a "rebuild" for the reload benchmark */
#else
    .version = "1.0.0",
#endif
    .capabilities = BENCH_CAPS,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
