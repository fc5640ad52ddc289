// host_api.hpp -- the table of host functions handed to plugins.
#pragma once

#include <toolgate/toolgate.h>

namespace toolgate::detail {

// One static, immutable table for every plugin (SQLite-extension style):
// plugins never link against the host.
const tg_host_api* host_api();

}  // namespace toolgate::detail
