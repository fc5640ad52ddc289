/* @NAME@.c -- an execute wrapper in two halves (ABI 1.7): gives the rest of
 * the chain a 5 s deadline.  A wrapper that only acts on the way in and out
 * is best written this way: around a tool that answers later (an MCP
 * server's, behind `toolgate mcp`) it holds no thread while the tool works.
 * A wrapper that must run the chain again after seeing a result (a retry)
 * needs the one-callback form, register_execute_wrapper (toolgate.h 5.3).
 * Tools see the deadline on the signal. */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static tg_status deadline(void *user_data, const tg_call *call, const tg_signal *signal,
                          const tg_signal **out_signal, void **out_state) {
  const uint64_t five_seconds_ns = 5000000000u;
  (void)user_data;
  (void)call;
  (void)out_state; /* nothing for an after: there is none */
  /* A child of the signal; host-owned.  NULL (it could not be made) fails
   * the call rather than run it without the deadline. */
  *out_signal = host->signal_child(signal, five_seconds_ns);
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  (void)config;
  (void)state;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "deadline";
  /* before only; an after (called with the result) would be the 4th argument. */
  return api->register_execute_wrapper_halves(ctx, &o, deadline, NULL);
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
