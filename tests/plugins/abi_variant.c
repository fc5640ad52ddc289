/* abi_variant.c -- one source, several broken builds, one per load error
 * the host must report clearly (see tests/CMakeLists.txt):
 *   VARIANT_MAJOR / VARIANT_MINOR   the ABI version the descriptor claims
 *   VARIANT_NO_ENTRY                export no entry symbol at all
 *   VARIANT_INIT_FAILS              init fails with a message
 *   VARIANT_UNREGISTERED_CAP        declare a guard, register nothing
 *   VARIANT_UNREGISTERED_CAPS       declare a guard, a wrapper, a post-execute
 *                                   hook and tools; register the guard only
 *   VARIANT_UNDECLARED_CAP          register a guard without declaring it
 *   VARIANT_ABI_1_0                 a plugin built against ABI 1.0 (smaller
 *                                   descriptor): must still load
 *   VARIANT_ABI_1_1                 built against ABI 1.1: the descriptor
 *                                   ends before config_schema; must load
 *                                   (with no schema) and see the 1.2 host
 *   VARIANT_ABI_1_2                 built against ABI 1.2: its tg_call_info
 *                                   ends at `attempt`.  The host must not
 *                                   write past it; the guard denies naming
 *                                   the tool and whether the bytes after
 *                                   its struct came back untouched
 *   VARIANT_BIG_DESCRIPTOR          a descriptor larger than this host knows
 *                                   (built against a newer SDK): loads
 *   VARIANT_FUTURE                  built against a future SDK whose host
 *                                   API has one more member, needing only
 *                                   this host's minor: loads, and its
 *                                   guard denies naming what it found
 *                                   (TOOLGATE_HOST_HAS is false here)
 *   VARIANT_UNKNOWN_CAP             a capability bit this host does not know
 *   VARIANT_UNKNOWN_FLAG            a flag bit this host does not know */
#include <toolgate/toolgate.h>

#include <string.h>

#ifndef VARIANT_MAJOR
#define VARIANT_MAJOR TOOLGATE_ABI_MAJOR
#endif
#ifndef VARIANT_MINOR
#ifdef VARIANT_ABI_1_0
#define VARIANT_MINOR 0
#elif defined(VARIANT_ABI_1_1)
#define VARIANT_MINOR 1
#elif defined(VARIANT_ABI_1_2)
#define VARIANT_MINOR 2
#else
#define VARIANT_MINOR TOOLGATE_ABI_MINOR
#endif
#endif

#ifdef VARIANT_FUTURE
/* The host API table as a future SDK declares it: one member appended. */
typedef struct future_host_api {
  tg_host_api known;
  tg_status (*future_member)(tg_init_ctx *ctx);
} future_host_api;
static int host_has_future_member;
#endif

#ifdef VARIANT_ABI_1_2
/* tg_call_info as the 1.2 header declared it: no client, no agent_id. */
typedef struct call_info_1_2 {
  uint32_t struct_size;
  tg_str tool_name, call_id, session_id, parent_token, stage;
  uint32_t annotations;
  uint32_t attempt;
} call_info_1_2;
typedef char call_info_1_2_is_the_old_prefix[sizeof(call_info_1_2) == offsetof(tg_call_info, client)
                                                 ? 1
                                                 : -1];
static const tg_host_api *variant_host;
#endif

static tg_status guard(void *ud, const tg_call *call, int32_t *verdict) {
  (void)ud;
#ifdef VARIANT_ABI_1_2
  {
    /* The plugin's own bytes right after its struct: a canary. */
    struct {
      call_info_1_2 info;
      unsigned char after[2 * sizeof(tg_str)];
    } buf;
    char reason[128] = "call_info 1.2: ";
    size_t i, n = strlen(reason);
    int untouched = 1;
    memset(&buf, 0x5a, sizeof buf);
    buf.info.struct_size = sizeof buf.info;
    if (variant_host->call_info(call, (tg_call_info *)(void *)&buf.info) != TG_OK) {
      variant_host->set_error(call, "call_info refused the 1.2 struct");
      return TG_ERROR;
    }
    for (i = 0; i < sizeof buf.after; i++)
      if (buf.after[i] != 0x5a) untouched = 0;
    if (buf.info.tool_name.size < 40) {
      memcpy(reason + n, buf.info.tool_name.data, buf.info.tool_name.size);
      n += buf.info.tool_name.size;
    }
    strcpy(reason + n, untouched ? ", tail untouched" : ", tail overwritten");
    variant_host->set_reason(call, (tg_str){reason, strlen(reason)});
    *verdict = TG_GUARD_DENY;
    return TG_OK;
  }
#endif
#ifdef VARIANT_FUTURE
  {
    const tg_host_api *api = (const tg_host_api *)ud;
    const char *why = host_has_future_member ? "future_member: present" : "future_member: absent";
    api->set_reason(call, (tg_str){why, strlen(why)});
    *verdict = TG_GUARD_DENY;
    return TG_OK;
  }
#else
  (void)call;
  *verdict = TG_GUARD_ABSTAIN;
  return TG_OK;
#endif
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **out) {
  tg_hook_options o;
  (void)config;
  (void)out;
#ifdef VARIANT_INIT_FAILS
  api->init_error(ctx, "the variant's database is unreachable");
  return TG_ERROR;
#endif
#ifdef VARIANT_UNREGISTERED_CAP
  (void)api;
  (void)ctx;
  (void)o;
  (void)guard;
  return TG_OK;
#else
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.name = "variant";
#ifdef VARIANT_ABI_1_2
  variant_host = api;
#endif
#ifdef VARIANT_FUTURE
  /* What TOOLGATE_HOST_HAS expands to, for the future table's member. */
  host_has_future_member = api->struct_size >= offsetof(future_host_api, future_member) +
                                                   sizeof(((future_host_api *)0)->future_member);
  o.user_data = (void *)api;
#endif
  return api->register_guard(ctx, &o, guard);
#endif
}

#ifdef VARIANT_UNDECLARED_CAP
#define VARIANT_CAPS TG_CAP_PRE_EXECUTE
#elif defined(VARIANT_UNREGISTERED_CAPS)
#define VARIANT_CAPS (TG_CAP_GUARD | TG_CAP_EXECUTE_WRAPPER | TG_CAP_POST_EXECUTE | TG_CAP_TOOLS)
#elif defined(VARIANT_UNKNOWN_CAP)
#define VARIANT_CAPS (TG_CAP_GUARD | (1u << 30))
#else
#define VARIANT_CAPS TG_CAP_GUARD
#endif
#ifdef VARIANT_UNKNOWN_FLAG
#define VARIANT_FLAGS (1u << 30)
#else
#define VARIANT_FLAGS 0
#endif

/* A descriptor from a future SDK: more fields after the ones this host
 * knows (the padding stands for them). */
static const struct {
  tg_plugin_descriptor known;
  char future_fields[32];
} descriptor_storage = {
    .known =
        {
#ifdef VARIANT_ABI_1_0
            /* Built against ABI 1.0: the descriptor ends before export_state. */
            .struct_size = offsetof(tg_plugin_descriptor, export_state),
#elif defined(VARIANT_ABI_1_1)
            /* Built against ABI 1.1: the descriptor ends before config_schema.
             * What lies after struct_size must never be read: a schema that
             * is not JSON sits there, and would fail the load if it were. */
            .struct_size = offsetof(tg_plugin_descriptor, config_schema),
            .config_schema = "not JSON: never read",
#elif defined(VARIANT_BIG_DESCRIPTOR) || defined(VARIANT_FUTURE)
            .struct_size = sizeof(tg_plugin_descriptor) + 32,
#else
            .struct_size = sizeof(tg_plugin_descriptor),
#endif
            .abi_major = VARIANT_MAJOR,
            .abi_minor = VARIANT_MINOR,
            .id = "test.variant",
            .version = "1.0.0",
            .capabilities = VARIANT_CAPS,
            .flags = VARIANT_FLAGS,
            .init = init,
        },
    .future_fields = {0},
};
#define descriptor (descriptor_storage.known)

#ifdef VARIANT_NO_ENTRY
/* Exported under a wrong name: the host must say the entry is missing. */
TOOLGATE_EXPORT const tg_plugin_descriptor *toolgate_plugin_entry_typo(void) { return &descriptor; }
#else
TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
#endif
