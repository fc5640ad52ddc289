// bad_build.cpp -- a plugin built the wrong way on purpose, for `toolgate
// inspect` to catch (tests/CMakeLists.txt builds it as a plain MODULE:
// default visibility, no version script, no -fno-gnu-unique, no -z defs).
// It loads and registers a guard; what is wrong is how it was linked:
//   - bad_build_extra_export (and twelve C++ functions) are exported
//     besides the entry;
//   - the static local of an inline function is STB_GNU_UNIQUE;
//   - with BAD_UNDEFINED, it references a symbol nothing defines.
// Its id is "test.bad-build", or BAD_ID (reload_guard_bad_build: a build
// of "reload.guard" that a reload cannot unload).
#include <toolgate/toolgate.h>

#ifndef BAD_ID
#define BAD_ID "test.bad-build"
#endif

// A unique symbol has one definition per process: each build names its
// own, so a build loaded after another one still pins its own image.
#ifndef BAD_NS
#define BAD_NS bad_build
#endif
namespace BAD_NS {
inline int& shared_counter() {
  static int counter = 0;
  return counter;
}
}  // namespace BAD_NS
using BAD_NS::shared_counter;

extern "C" int bad_build_extra_export() { return ++shared_counter(); }

// Twelve more exports, C++-mangled: inspect and the loaders' warning show
// the first few, demangled ("int bad_build_many<0>()"), and a count.
template <int N>
int bad_build_many() {
  return N;
}
template int bad_build_many<0>();
template int bad_build_many<1>();
template int bad_build_many<2>();
template int bad_build_many<3>();
template int bad_build_many<4>();
template int bad_build_many<5>();
template int bad_build_many<6>();
template int bad_build_many<7>();
template int bad_build_many<8>();
template int bad_build_many<9>();
template int bad_build_many<10>();
template int bad_build_many<11>();

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
  d.id = BAD_ID;
  d.version = "0.0.1";
  d.capabilities = TG_CAP_GUARD;
  d.init = init;
  return d;
}

const tg_plugin_descriptor descriptor = make_descriptor();

}  // namespace

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
