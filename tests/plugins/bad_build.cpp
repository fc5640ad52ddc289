// bad_build.cpp -- a plugin built the wrong way on purpose, for `toolgate
// inspect` to catch (tests/CMakeLists.txt builds it as a plain MODULE:
// default visibility, no version script, no -fno-gnu-unique, no -z defs).
// It loads and registers a guard; what is wrong is how it was linked:
//   - bad_build_extra_export is exported besides the entry;
//   - the static local of an inline function is STB_GNU_UNIQUE;
//   - with BAD_UNDEFINED, it references a symbol nothing defines.
#include <toolgate/toolgate.h>

inline int& shared_counter() {
  static int counter = 0;
  return counter;
}

extern "C" int bad_build_extra_export() { return ++shared_counter(); }

#ifdef BAD_UNDEFINED
extern "C" int toolgate_test_symbol_nobody_defines(void);
#endif

namespace {

tg_status abstain(void*, const tg_call*, int32_t* verdict) {
  *verdict = TG_GUARD_ABSTAIN;
#ifdef BAD_UNDEFINED
  // Never true; the reference is what matters (resolved lazily).
  if (shared_counter() == -1) *verdict = toolgate_test_symbol_nobody_defines();
#endif
  return TG_OK;
}

tg_status init(const tg_host_api* api, tg_init_ctx* ctx, tg_str, void**) {
  tg_hook_options o{};
  o.struct_size = sizeof o;
  o.name = "abstain";
  bad_build_extra_export();
  return api->register_guard(ctx, &o, abstain);
}

tg_plugin_descriptor make_descriptor() {
  tg_plugin_descriptor d{};
  d.struct_size = sizeof d;
  d.abi_major = TOOLGATE_ABI_MAJOR;
  d.abi_minor = TOOLGATE_ABI_MINOR;
  d.id = "test.bad-build";
  d.version = "0.0.1";
  d.capabilities = TG_CAP_GUARD;
  d.init = init;
  return d;
}

const tg_plugin_descriptor descriptor = make_descriptor();

}  // namespace

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
