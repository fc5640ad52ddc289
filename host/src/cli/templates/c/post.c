/* @NAME@.c -- a post-execute hook: blocks results that mention "root".
 * Post-execute hooks run in order over the candidate result of executed and
 * denied calls, and answer accept, replace (host->set_result) or block; any
 * of them may queue a context for the model (host->add_context).  A denial
 * can never be turned back into a success. */
#include <toolgate/toolgate.h>

#include <string.h>

static const tg_host_api *host;

static int mentions(tg_str text, const char *word) {
  size_t n = strlen(word), i;
  for (i = 0; i + n <= text.size; ++i)
    if (memcmp(text.data + i, word, n) == 0) return 1;
  return 0;
}

static tg_status withhold_root(void *user_data, tg_call *call, int32_t *verdict) {
  static const char reason[] = "results about root are withheld";
  tg_str result; /* the candidate result as JSON, borrowed */
  (void)user_data;
  *verdict = TG_POST_ACCEPT;
  if (host->result_json(call, &result) != TG_OK) return TG_ERROR;
  if (mentions(result, "root")) {
    host->set_reason(call, (tg_str){reason, sizeof reason - 1});
    *verdict = TG_POST_BLOCK;
  }
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o;
  (void)config;
  (void)state;
  host = api;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "withhold-root";
  return api->register_post_execute(ctx, &o, withhold_root);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "@ID@",
    .version = "0.1.0",
    .capabilities = TG_CAP_POST_EXECUTE,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
