/* host_symbol.c -- a plugin built almost right on purpose: hidden
 * visibility and the version script (it exports the entry alone), but no
 * -z defs, and it references std::terminate (_ZSt9terminatev) without
 * linking libstdc++.  It loads in a C++ host only because the host happens
 * to define that symbol: the loaders must flag it (a warning, or refused
 * in strict mode).  tests/CMakeLists.txt builds it as bad_build_host_symbol
 * (id "test.host-symbol") and reload_guard_host_symbol (id "reload.guard").
 * A guard that always abstains. */
#include <toolgate/toolgate.h>

#ifndef HS_ID
#define HS_ID "test.host-symbol"
#endif

/* Never called; the data reference makes the dynamic linker bind it at
 * load time, whatever the binding mode. */
extern void _ZSt9terminatev(void);
void (*volatile host_symbol_ref)(void) = _ZSt9terminatev;

static tg_status abstain(void *user_data, const tg_call *call, int32_t *verdict) {
  (void)user_data;
  (void)call;
  *verdict = host_symbol_ref ? TG_GUARD_ABSTAIN : TG_GUARD_DENY;
  return TG_OK;
}

static tg_status init(const tg_host_api *api, tg_init_ctx *ctx, tg_str config, void **state) {
  tg_hook_options o = {sizeof o, "guard", NULL, 0, NULL};
  (void)config;
  (void)state;
  return api->register_guard(ctx, &o, abstain);
}

static const tg_plugin_descriptor descriptor = {
    .struct_size = sizeof descriptor,
    .abi_major = TOOLGATE_ABI_MAJOR,
    .abi_minor = TOOLGATE_ABI_MINOR,
    .id = HS_ID,
    .version = "0.0.1",
    .capabilities = TG_CAP_GUARD,
    .init = init,
};

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
