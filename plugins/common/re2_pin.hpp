// re2_pin.hpp -- keep libre2 mapped for the life of the process.
//
// RE2 allocates a little process-global state (an empty string and two empty
// group maps, 128 bytes) the first time it is used after libre2 is loaded,
// and never frees it.  libre2 is a dependency of the plugins that use it, so
// when the last of them is unloaded (hot reload, shutdown) libre2 goes too
// and that state is lost -- once per reload, and LeakSanitizer rightly
// reports it.  Pinning the system library (RTLD_NODELETE) stops that; the
// plugin's own image still unloads, which is what reload needs.
#pragma once

namespace tgp {

// Idempotent and thread-safe; call before creating RE2 objects.
void pin_re2();

}  // namespace tgp
