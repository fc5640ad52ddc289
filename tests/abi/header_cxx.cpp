// Compiled with -std=c++17 -pedantic -Werror by ctest: the header must be
// clean C++ too, and the C++ layer must compile on its own.
#include <toolgate/toolgate.h>
#include <toolgate/glob.hpp>
#include <toolgate/plugin.hpp>

static_assert(sizeof(tg_str) == sizeof(const char*) + sizeof(size_t), "tg_str is two words");
static_assert(TOOLGATE_ABI_MAJOR >= 1, "ABI major");

int main() {
  if (!toolgate::sdk::GlobList({"fs.*", "!fs.stat"}).matches("fs.read")) return 1;
  return toolgate::sdk::from_tg(toolgate::sdk::to_tg("ok")).size() == 2 ? 0 : 1;
}
