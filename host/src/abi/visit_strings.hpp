// visit_strings.hpp -- host->visit_strings (ABI 1.8, toolgate.h): every
// string of a call's arguments or result handed to a plugin one by one,
// with nothing written as JSON text or parsed again in the plugin.
#pragma once

#include <toolgate/toolgate.h>

namespace toolgate::detail {

tg_status visit_strings(const tg_call* call, int32_t which, tg_string_visitor_fn fn,
                        void* user_data) noexcept;

}  // namespace toolgate::detail
