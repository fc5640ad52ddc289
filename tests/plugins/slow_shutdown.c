/* slow_shutdown.c -- a guard that denies every call and whose shutdown
 * takes a minute: what a plugin that hangs while unloading looks like to
 * a short-lived process (the agent hook with --no-daemon must answer and
 * end without waiting for it; tests/agent_hooks/serve_hooks_test.py). */
#define _POSIX_C_SOURCE 199309L
#include <toolgate/toolgate.h>

#include <time.h>

static const tg_host_api *host;

static tg_status deny_all(void *ud, const tg_call *call, int32_t *verdict) {
  static const char reason[] = "denied by the slow-shutdown test plugin";
  (void)ud;
  host->set_reason(call, (tg_str){reason, sizeof reason - 1});
  *verdict = TG_GUARD_DENY;
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o = {sizeof o, "deny-all", NULL, 0, NULL};
  (void)config;
  (void)state;
  host = api;
  return api->register_guard(ctx, &o, deny_all);
}

static void shutdown(void *state) {
  struct timespec minute = {60, 0};
  (void)state;
  nanosleep(&minute, NULL);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof descriptor,
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "test.slow-shutdown",
    .version = "1.0.0",
    .capabilities = TG_CAP_GUARD,
    .init = init,
    .shutdown = shutdown,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
