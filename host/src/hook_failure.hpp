// hook_failure.hpp -- how an adapter reports a hook that failed without
// throwing itself (an error status, a malformed or unknown answer).  The
// stage catches it like any exception; its message is used as it is.
#pragma once

#include <stdexcept>

namespace toolgate::detail {

struct HookFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace toolgate::detail
