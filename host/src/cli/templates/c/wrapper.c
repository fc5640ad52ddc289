/* @NAME@.c -- an execute wrapper: runs the rest of the chain with a 5 s
 * deadline.  A wrapper may call next zero or more times (retry) and must
 * return one of the results next gave it, or fail; it cannot fabricate a
 * result or change the arguments.  Tools see the deadline on the signal. */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static tg_status deadline(void *user_data, const tg_call *call, const tg_signal *signal,
                          const tg_next *next, const tg_result **out) {
  const uint64_t five_seconds_ns = 5000000000u;
  (void)user_data;
  (void)call;
  /* The child signal is host-owned and lives until this callback returns. */
  return host->call_next(next, host->signal_child(signal, five_seconds_ns), out);
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  (void)config;
  (void)state;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "deadline";
  return api->register_execute_wrapper(ctx, &o, deadline);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "@ID@",
    .version = "0.1.0",
    .capabilities = TG_CAP_EXECUTE_WRAPPER,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
