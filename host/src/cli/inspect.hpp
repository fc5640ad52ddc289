// inspect.hpp -- `toolgate inspect`: what a plugin is, without a call.
//
// The parent reads the ELF image (exports, STB_GNU_UNIQUE symbols, needed
// libraries) without running any of the plugin's code.  Everything that
// runs plugin code -- the entry, init with a config, the registrations,
// resolving undefined symbols against the plugin's own libraries -- runs
// in a child process (`toolgate __inspect --report REPORT PLUGIN -`, the config on
// stdin), so a plugin that crashes or hangs cannot take inspect down.
#pragma once

#include "commands.hpp"

namespace toolgate::cli {

// The child side: writes a JSON report to REPORT; exit 0 when the report
// was written (whatever it says).
int inspect_child_main(const Args& args);

}  // namespace toolgate::cli
