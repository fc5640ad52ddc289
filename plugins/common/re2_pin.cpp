#include "re2_pin.hpp"

#include <re2/re2.h>

#include <dlfcn.h>

#include <mutex>

namespace tgp {

void pin_re2() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Find the file libre2 was loaded from by one of its functions, then
    // take a non-deleting reference to the already-loaded object.
    Dl_info info{};
    auto fn = &RE2::FullMatchN;
    if (dladdr(reinterpret_cast<void*>(fn), &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  });
}

}  // namespace tgp
