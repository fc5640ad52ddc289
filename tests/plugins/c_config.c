/* c_config.c -- a C plugin that reads its config through the ABI 1.2
 * accessors (config_get, config_string) and declares a config schema.
 *
 * init writes "init ran" to the file named by config "/marker" first thing,
 * so a test can prove init never ran when the schema refused the config.
 * Then it reads every kind of value -- nested arrays and objects, a missing
 * key, a type mismatch, the whole object, a pointer without a slash -- and
 * registers a guard that denies every call with what it saw as the reason:
 *   name=NAME paths=A,B max=N mode=M whole=K missing=S mismatch=S nopointer=S args=K
 * (S are the tg_status values the accessors returned; args= is the call's
 * argument count by arg_get("")).  A call with a "bad_struct" argument makes
 * the guard call arg_get with struct_size 0 and fail without a message.
 *
 * Builds (see tests/CMakeLists.txt):
 *   (none)              the schema below
 *   CFG_BAD_STRUCT      calls config_get with struct_size 0 and fails init:
 *                       the load error must say why
 *   CFG_BAD_KEYWORD     a schema using "format", which toolgate does not
 *                       check: the load must fail naming it
 *   CFG_BAD_JSON        a schema that is not JSON */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <string.h>

static const tg_host_api *host;
static char summary[1024];

static tg_status deny_all(void *ud, const tg_call *call, int32_t *verdict) {
  char reason[1100];
  tg_json_value v;
  (void)ud;
  memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  /* arg_get shares config_get's lookup: "" is the whole arguments object,
   * and a too-small struct_size is refused with a reason the host reports
   * when the callback then fails without a message of its own. */
  if (host->arg_get(call, "/bad_struct", &v) == TG_OK) {
    v.struct_size = 0;
    return host->arg_get(call, "/bad_struct", &v) == TG_OK ? TG_OK : TG_ERROR;
  }
  host->arg_get(call, "", &v);
  snprintf(reason, sizeof reason, "%s args=%zu", summary, v.size);
  host->set_reason(call, (tg_str){reason, strlen(reason)});
  *verdict = TG_GUARD_DENY;
  return TG_OK;
}

/* Appends formatted text to the summary (truncating, never overflowing). */
#define ADD(...)                                                    \
  do {                                                              \
    size_t used_ = strlen(summary);                                 \
    snprintf(summary + used_, sizeof summary - used_, __VA_ARGS__); \
  } while (0)

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_json_value v;
  tg_str s;
  tg_hook_options o;
  size_t i;
  (void)config; /* read through the accessors instead */
  (void)state;
  host = api;
  summary[0] = '\0';
  if (!TOOLGATE_HOST_HAS(api, config_string)) {
    api->init_error(ctx, "this host has no config accessors (ABI 1.2)");
    return TG_ERROR;
  }
  if (api->config_string(ctx, "/marker", &s) == TG_OK) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%.*s", (int)s.size, s.data);
    f = fopen(path, "w");
    if (f) {
      fputs("init ran\n", f);
      fclose(f);
    }
  }

  memset(&v, 0, sizeof v);
#ifdef CFG_BAD_STRUCT
  v.struct_size = 0;
  if (api->config_get(ctx, "/name", &v) != TG_OK) {
    api->init_error(ctx, "config_get failed");
    return TG_ERROR;
  }
#endif
  v.struct_size = sizeof v;

  /* The schema makes /name a required string: no other case to handle. */
  api->config_string(ctx, "/name", &s);
  ADD("name=%.*s", (int)s.size, s.data);

  /* An array: its size, then each element by index. */
  ADD(" paths=");
  if (api->config_get(ctx, "/paths", &v) == TG_OK && v.type == TG_JSON_ARRAY) {
    size_t n = v.size;
    for (i = 0; i < n; ++i) {
      char pointer[64];
      snprintf(pointer, sizeof pointer, "/paths/%zu", i);
      if (api->config_string(ctx, pointer, &s) == TG_OK)
        ADD("%s%.*s", i ? "," : "", (int)s.size, s.data);
    }
  }

  /* A nested object's member, optional. */
  if (api->config_get(ctx, "/limits/max", &v) == TG_OK && v.type == TG_JSON_INT)
    ADD(" max=%lld", (long long)v.integer);
  else
    ADD(" max=none");

  if (api->config_string(ctx, "/mode", &s) == TG_OK)
    ADD(" mode=%.*s", (int)s.size, s.data);
  else
    ADD(" mode=none");

  if (api->config_get(ctx, "", &v) == TG_OK && v.type == TG_JSON_OBJECT) ADD(" whole=%zu", v.size);
  ADD(" missing=%d", (int)api->config_get(ctx, "/paths/99", &v));
  ADD(" mismatch=%d", (int)api->config_string(ctx, "/paths", &s));
  ADD(" nopointer=%d", (int)api->config_get(ctx, "name", &v));

  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "config";
  return api->register_guard(ctx, &o, deny_all);
}

#if defined(CFG_BAD_KEYWORD)
#define CFG_SCHEMA                                                            \
  "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\", " \
  "\"format\": \"email\"}}}"
#elif defined(CFG_BAD_JSON)
#define CFG_SCHEMA "{\"type\": \"object\","
#else
#define CFG_SCHEMA                                                                           \
  "{\"type\": \"object\", \"additionalProperties\": false,"                                  \
  " \"required\": [\"name\", \"paths\"],"                                                    \
  " \"properties\": {"                                                                       \
  "   \"marker\": {\"type\": \"string\"},"                                                   \
  "   \"name\": {\"type\": \"string\", \"minLength\": 1},"                                   \
  "   \"paths\": {\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": \"string\"}}," \
  "   \"limits\": {\"type\": \"object\", \"additionalProperties\": false,"                   \
  "                \"properties\": {\"max\": {\"type\": \"integer\", \"minimum\": 1}}},"     \
  "   \"mode\": {\"enum\": [\"strict\", \"lax\"]}}}"
#endif

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "test.c-config",
    .version = "1.0.0",
    .capabilities = TG_CAP_GUARD,
    .init = init,
    .config_schema = CFG_SCHEMA,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
