/* c_halves.c -- an execute wrapper in two halves (ABI 1.7, toolgate.h
 * 5.3b) through the plain C ABI, for the tests.  Config, matched as text:
 *   {"mode":"deadline"}   before hands the rest of the chain a child signal
 *                         with a 30 ms deadline and a state (a counter,
 *                         malloc'd); after checks and frees the state and
 *                         emits "halves/after" with {"error":bool,
 *                         "code":...,"state":N}
 *   {"mode":"before-only"} no after; before passes the signal on
 *   {"mode":"before-fails"} before returns TG_ERROR after set_error
 *   {"mode":"after-fails"}  after returns TG_ERROR after set_error
 *   {"mode":"bad-signal"}   before answers a signal it did not get
 *   {"mode":"bad-signal-after"} the same with a state and an after: the
 *                         host still calls after (which emits and frees)
 *   {"mode":"null-signal"}  before stores NULL, as a failed signal_child
 *   {"mode":"state-no-after"} before sets a (static) state, with no after
 */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tg_host_api *host;
static char mode[32];

static tg_status before(void *ud, const tg_call *call, const tg_signal *signal,
                        const tg_signal **out_signal, void **out_state) {
  (void)ud;
  if (strcmp(mode, "before-fails") == 0) {
    host->set_error(call, "c_halves before refuses");
    return TG_ERROR;
  }
  if (strcmp(mode, "bad-signal") == 0) {
    static int fake;
    *out_signal = (const tg_signal *)&fake;
    return TG_OK;
  }
  if (strcmp(mode, "deadline") == 0) {
    *out_signal = host->signal_child(signal, 30u * 1000u * 1000u);
    if (!*out_signal) return TG_ERROR;
  }
  if (strcmp(mode, "null-signal") == 0) {
    *out_signal = NULL; /* as a failed signal_child would leave it */
    return TG_OK;
  }
  if (strcmp(mode, "state-no-after") == 0) {
    static int nobody_frees_this;
    *out_state = &nobody_frees_this;
    return TG_OK;
  }
  if (strcmp(mode, "bad-signal-after") == 0) *out_signal = (const tg_signal *)&mode;
  if (strcmp(mode, "deadline") == 0 || strcmp(mode, "after-fails") == 0 ||
      strcmp(mode, "bad-signal-after") == 0) {
    int *counter = malloc(sizeof *counter);
    if (!counter) return TG_ERROR;
    *counter = 41;
    *out_state = counter;
  }
  return TG_OK;
}

static tg_status after(void *ud, const tg_call *call, const tg_result *result, void *state) {
  int *counter = state;
  char data[160];
  int n;
  tg_str code;
  (void)ud;
  if (!counter) {
    host->set_error(call, "c_halves after got no state");
    return TG_ERROR;
  }
  ++*counter;
  code = host->result_error_code(result);
  n = snprintf(data, sizeof data, "{\"error\":%s,\"code\":\"%.*s\",\"state\":%d}",
               host->result_is_error(result) ? "true" : "false", (int)code.size, code.data,
               *counter);
  free(counter);
  if (strcmp(mode, "after-fails") == 0) {
    host->set_error(call, "c_halves after refuses");
    return TG_ERROR;
  }
  return host->emit_event(call, "halves/after", (tg_str){data, (size_t)n});
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  const char *key = "\"mode\":\"";
  const char *p = config.data ? strstr(config.data, key) : NULL;
  size_t i = 0;
  (void)state;
  host = api;
  if (p)
    for (p += strlen(key); *p && *p != '"' && i + 1 < sizeof mode; ++p) mode[i++] = *p;
  mode[i] = '\0';
  if (!TOOLGATE_HOST_HAS(api, register_execute_wrapper_halves)) {
    api->init_error(ctx, "c_halves needs a host with ABI 1.7");
    return TG_ERROR;
  }
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "halves";
  return api->register_execute_wrapper_halves(
      ctx, &o, before,
      strcmp(mode, "before-only") == 0 || strcmp(mode, "state-no-after") == 0 ||
              strcmp(mode, "null-signal") == 0 || strcmp(mode, "bad-signal") == 0
          ? NULL
          : after);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "test.c-halves",
    .version = "1.0.0",
    .capabilities = TG_CAP_EXECUTE_WRAPPER,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
