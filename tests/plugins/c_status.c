/* c_status.c -- a plain C plugin for the tests: hooks that return error
 * statuses, and a tool ("c_tool") with render and finalize_content.
 * The config is matched as text (the host hands it over serialized without
 * spaces):
 *   {"fail":"pre"|"guard"|"wrapper"|"post"}  that hook returns TG_ERROR
 *   {"fail":"mutate"}  the guard and the wrapper (read-only views) try
 *                      every mutating host function; any that is not
 *                      refused with TG_WRONG_STAGE makes the guard deny
 *                      ("mutation allowed: ...") or the wrapper fail
 *   {"tool":"bad-json"|"no-value"|"error"|"timeout"}
 *   {"tool":"write"}   c_tool declares a write of the "/path" argument
 *                      (and of "/path2" before writing either, when given)
 *                      (fs_intent, ABI 1.5) and, when allowed, writes
 *                      "from C" to the resolved path; when denied it fails
 *                      with the host's reason
 *   {"finalize":"change-error"|"fail"}
 *   {"guard":"who"}    the guard reads call_info (ABI 1.3) and denies with
 *                      "client=<client> agent=<agent_id>"
 *   {"card":"ok"|"fail"}  c_tool has UI cards (ABI 1.4): the pending card
 *                      quotes arguments_json, the completed one result_json;
 *                      "fail" makes present_call return TG_ERROR
 *   {"verdict":...}    a static verdict (ABI 1.6) through set_tool_verdict:
 *                      "guard" attaches one to the guard, denying c_tool to
 *                      the client "mcp" always; "fail" / "bad" attach one
 *                      that returns TG_ERROR / an unknown verdict;
 *                      "wrapper", "unknown" (no such hook) and "twice"
 *                      misuse set_tool_verdict, which must refuse (init
 *                      then fails with the host's explanation)
 */
#include <toolgate/toolgate.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct state {
  char fail[16];
  char tool[16];
  char finalize[16];
  char guard[16];
  char card[16];
  char verdict[16];
} state;

static const tg_host_api *host;

static tg_str str(const char *s) {
  tg_str t;
  t.data = s;
  t.size = strlen(s);
  return t;
}

/* Copies the string value of "key" from flat JSON text into out. */
static void config_value(tg_str config, const char *key, char *out, size_t cap) {
  char pattern[40];
  const char *p;
  size_t n = 0;
  out[0] = 0;
  if (strlen(key) + 5 > sizeof pattern) return;
  strcpy(pattern, "\"");
  strcat(pattern, key);
  strcat(pattern, "\":\"");
  p = config.data ? strstr(config.data, pattern) : NULL;
  if (!p) return;
  p += strlen(pattern);
  while (p[n] && p[n] != '"' && n + 1 < cap) {
    out[n] = p[n];
    n++;
  }
  out[n] = 0;
}

static tg_status fail_if(const state *s, const tg_call *call, const char *stage) {
  if (strcmp(s->fail, stage) != 0) return TG_OK;
  host->set_error(call, "c_status was told to fail here");
  return TG_ERROR;
}

/* Casting the const away is exactly what a careless or hostile plugin
 * would do; the host must refuse by stage, not rely on the type. */
static const char *first_allowed_mutation(const tg_call *ccall) {
  tg_call *call = (tg_call *)ccall;
  if (host->set_arguments(call, str("{\"who\":\"mallory\"}")) != TG_WRONG_STAGE)
    return "set_arguments";
  if (host->set_result(call, str("{\"isError\":false,\"content\":[]}")) != TG_WRONG_STAGE)
    return "set_result";
  if (host->set_value(call, str("\"forged\"")) != TG_WRONG_STAGE) return "set_value";
  if (host->set_content(call, str("[]")) != TG_WRONG_STAGE) return "set_content";
  if (host->add_context(call, str("forged context")) != TG_WRONG_STAGE) return "add_context";
  return NULL;
}

static tg_status pre(void *ud, tg_call *call, int32_t *verdict) {
  *verdict = TG_PRE_KEEP;
  return fail_if((const state *)ud, call, "pre");
}

/* "client=<client> agent=<agent_id>" from call_info: who asks. */
static tg_status deny_naming_who_asks(const tg_call *call, int32_t *verdict) {
  tg_call_info info;
  char reason[160];
  size_t n = 0;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (host->call_info(call, &info) != TG_OK) {
    host->set_error(call, "call_info failed");
    return TG_ERROR;
  }
  if (info.client.size > 60 || info.agent_id.size > 60) {
    host->set_error(call, "client or agent_id too long for this test");
    return TG_ERROR;
  }
  memcpy(reason + n, "client=", 7);
  n += 7;
  if (info.client.size) memcpy(reason + n, info.client.data, info.client.size);
  n += info.client.size;
  memcpy(reason + n, " agent=", 7);
  n += 7;
  if (info.agent_id.size) memcpy(reason + n, info.agent_id.data, info.agent_id.size);
  n += info.agent_id.size;
  host->set_reason(call, (tg_str){reason, n});
  *verdict = TG_GUARD_DENY;
  return TG_OK;
}

static tg_status guard(void *ud, const tg_call *call, int32_t *verdict) {
  *verdict = TG_GUARD_ABSTAIN; /* the status must win over this */
  if (strcmp(((const state *)ud)->guard, "who") == 0) return deny_naming_who_asks(call, verdict);
  if (strcmp(((const state *)ud)->fail, "mutate") == 0) {
    const char *allowed = first_allowed_mutation(call);
    if (allowed) {
      char reason[64] = "mutation allowed: ";
      strcat(reason, allowed);
      host->set_reason(call, str(reason));
      *verdict = TG_GUARD_DENY;
    }
    return TG_OK;
  }
  return fail_if((const state *)ud, call, "guard");
}

static tg_status wrapper(void *ud, const tg_call *call, const tg_signal *signal,
                         const tg_next *next, const tg_result **out) {
  tg_status st = fail_if((const state *)ud, call, "wrapper");
  if (st != TG_OK) return st;
  if (strcmp(((const state *)ud)->fail, "mutate") == 0 && first_allowed_mutation(call)) {
    host->set_error(call, "a wrapper could mutate the call");
    return TG_ERROR;
  }
  return host->call_next(next, signal, out);
}

static tg_status post(void *ud, tg_call *call, int32_t *verdict) {
  *verdict = TG_POST_ACCEPT;
  return fail_if((const state *)ud, call, "post");
}

/* {"tool":"write"}: a C tool body passing the fs gate before it writes.
 * With a "path2" argument too, both writes are declared before either is
 * made: the first resolved path is borrowed until the callback returns,
 * so the second fs_intent must leave it intact. */
static tg_status declare(tg_call *call, const char *pointer, tg_str *resolved) {
  tg_str path, reason = {0};
  if (host->arg_string(call, pointer, &path) != TG_OK || path.size >= 512) {
    host->set_error(call, "c_tool needs a short \"path\"");
    return TG_ERROR;
  }
  if (host->fs_intent(call, TG_FS_WRITE, path, resolved, &reason) != TG_OK) {
    char msg[600];
    int n = snprintf(msg, sizeof msg, "refused: %.*s", (int)reason.size, reason.data);
    (void)n;
    host->set_error(call, msg);
    return TG_ERROR;
  }
  return TG_OK;
}

static tg_status write_to(tg_call *call, tg_str resolved) {
  char name[512];
  FILE *f;
  if (resolved.size >= sizeof name) {
    host->set_error(call, "resolved path too long for this test");
    return TG_ERROR;
  }
  memcpy(name, resolved.data, resolved.size);
  name[resolved.size] = '\0';
  f = fopen(name, "w");
  if (!f) {
    host->set_error(call, "cannot open the file");
    return TG_ERROR;
  }
  fputs("from C", f);
  fclose(f);
  host->fs_observed(call, resolved, (tg_str){0, 0});
  return TG_OK;
}

static tg_status write_file(tg_call *call) {
  tg_str first = {0}, second = {0}, path2;
  const int two = host->arg_string(call, "/path2", &path2) == TG_OK;
  if (declare(call, "/path", &first) != TG_OK) return TG_ERROR;
  if (two && declare(call, "/path2", &second) != TG_OK) return TG_ERROR;
  if (write_to(call, first) != TG_OK) return TG_ERROR;
  if (two && write_to(call, second) != TG_OK) return TG_ERROR;
  return host->set_value(call, str("\"written\""));
}

static tg_status tool_execute(void *ud, tg_call *call, const tg_signal *signal) {
  const state *s = (const state *)ud;
  tg_str who;
  (void)signal;
  if (strcmp(s->tool, "bad-json") == 0) {
    host->set_value(call, str("{\"unterminated"));
    return TG_OK;
  }
  if (strcmp(s->tool, "no-value") == 0) return TG_OK;
  if (strcmp(s->tool, "error") == 0) {
    host->set_error(call, "c_tool failed on purpose");
    return TG_ERROR;
  }
  if (strcmp(s->tool, "timeout") == 0) {
    host->set_error(call, "c_tool gave up");
    return TG_TIMEOUT;
  }
  if (strcmp(s->tool, "write") == 0) return write_file(call);
  if (host->arg_string(call, "/who", &who) != TG_OK) who = str("nobody");
  {
    char buf[128];
    size_t n = who.size < 100 ? who.size : 100;
    memcpy(buf, "\"c_tool saw ", 12);
    memcpy(buf + 12, who.data, n);
    buf[12 + n] = '"';
    return host->set_value(call, (tg_str){buf, 13 + n});
  }
}

static tg_status tool_render(void *ud, tg_call *call) {
  (void)ud;
  return host->set_content(call, str("[{\"type\":\"text\",\"text\":\"rendered by c_tool\"}]"));
}

static tg_status tool_finalize(void *ud, tg_call *call) {
  const state *s = (const state *)ud;
  if (strcmp(s->finalize, "fail") == 0) {
    host->set_error(call, "finalize refuses");
    return TG_ERROR;
  }
  return host->set_content(call, str("[{\"type\":\"text\",\"text\":\"finalized\"}]"));
}

/* A card of one text block: PREFIX followed by `json` as a JSON string. */
static tg_status card_of(tg_call *call, const char *prefix, tg_str json) {
  char buf[1024];
  size_t n = 0, i;
  n += (size_t)snprintf(buf, sizeof buf, "[{\"type\":\"text\",\"text\":\"%s", prefix);
  for (i = 0; i < json.size && n + 8 < sizeof buf; ++i) {
    if (json.data[i] == '"' || json.data[i] == '\\') buf[n++] = '\\';
    buf[n++] = json.data[i];
  }
  n += (size_t)snprintf(buf + n, sizeof buf - n, "\"}]");
  return host->set_content(call, (tg_str){buf, n});
}

static tg_status present_call(void *ud, tg_call *call) {
  const state *s = (const state *)ud;
  tg_str args;
  if (strcmp(s->card, "fail") == 0) {
    host->set_error(call, "the pending card fails on purpose");
    return TG_ERROR;
  }
  if (host->arguments_json(call, &args) != TG_OK) return TG_ERROR;
  return card_of(call, "pending c_tool ", args);
}

static tg_status present_result(void *ud, tg_call *call) {
  tg_str result;
  (void)ud;
  if (host->result_json(call, &result) != TG_OK) return TG_ERROR;
  return card_of(call, "done ", result);
}

static int str_is(tg_str s, const char *text) {
  return s.size == strlen(text) && memcmp(s.data, text, s.size) == 0;
}

static tg_status tool_verdict(void *ud, const tg_call_info *who, int32_t *out) {
  const state *s = (const state *)ud;
  if (strcmp(s->verdict, "fail") == 0) return TG_ERROR;
  if (strcmp(s->verdict, "bad") == 0) {
    *out = 7;
    return TG_OK;
  }
  *out = str_is(who->tool_name, "c_tool") && str_is(who->client, "mcp") ? TG_TOOL_DENIED_ALWAYS
                                                                        : TG_TOOL_MAY_PASS;
  return TG_OK;
}

static tg_status attach_verdict(const tg_host_api *api, tg_init_ctx *ctx, const state *s) {
  if (!s->verdict[0]) return TG_OK;
  if (strcmp(s->verdict, "wrapper") == 0)
    return api->set_tool_verdict(ctx, "wrapper", tool_verdict);
  if (strcmp(s->verdict, "unknown") == 0) return api->set_tool_verdict(ctx, "nope", tool_verdict);
  if (strcmp(s->verdict, "twice") == 0 &&
      api->set_tool_verdict(ctx, "guard", tool_verdict) != TG_OK)
    return TG_ERROR;
  return api->set_tool_verdict(ctx, "guard", tool_verdict);
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **out) {
  tg_hook_options o;
  tg_tool_definition t;
  state *s = (state *)calloc(1, sizeof *s);
  tg_status st = TG_OK;
  if (!s) return TG_ERROR;
  host = api;
  config_value(config, "fail", s->fail, sizeof s->fail);
  config_value(config, "tool", s->tool, sizeof s->tool);
  config_value(config, "finalize", s->finalize, sizeof s->finalize);
  config_value(config, "guard", s->guard, sizeof s->guard);
  config_value(config, "card", s->card, sizeof s->card);
  config_value(config, "verdict", s->verdict, sizeof s->verdict);
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.user_data = s;
  o.name = "pre";
  if (st == TG_OK) st = api->register_pre_execute(ctx, &o, pre);
  o.name = "guard";
  if (st == TG_OK) st = api->register_guard(ctx, &o, guard);
  o.name = "wrapper";
  if (st == TG_OK) st = api->register_execute_wrapper(ctx, &o, wrapper);
  o.name = "post";
  if (st == TG_OK) st = api->register_post_execute(ctx, &o, post);
  if (st == TG_OK) st = attach_verdict(api, ctx, s);
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "c_tool";
  t.description = "a tool defined by a C plugin";
  t.input_schema_json = str("{\"type\":\"object\"}");
  t.execute = tool_execute;
  t.render = tool_render;
  if (s->finalize[0]) t.finalize_content = tool_finalize;
  if (s->card[0]) {
    t.present_call = present_call;
    t.present_result = present_result;
  }
  t.user_data = s;
  if (st == TG_OK) st = api->register_tool(ctx, &t);
  if (st != TG_OK) {
    free(s);
    return st;
  }
  *out = s;
  return TG_OK;
}

static void shutdown(void *s) { free(s); }

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof(tg_plugin_descriptor),
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = "test.c-status",
    .version = "1.0.0",
    .capabilities = TG_CAP_PRE_EXECUTE | TG_CAP_GUARD | TG_CAP_EXECUTE_WRAPPER |
                    TG_CAP_POST_EXECUTE | TG_CAP_TOOLS,
    .init = init,
    .shutdown = shutdown,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
