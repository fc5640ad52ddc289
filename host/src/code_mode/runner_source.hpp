// runner_source.hpp -- the text of runner.mjs, compiled into the library
// (runner_source.cpp is generated from it by CMake).  The runner ships
// inside toolgate: there is no installed file another user could swap.
#pragma once

#include <string_view>

namespace toolgate::detail {
std::string_view runner_source();
}
