/* Compiled with -std=c99 -pedantic -Werror by ctest: the header must be
 * clean C99.  Touches every type so a broken declaration fails. */
#include <toolgate/toolgate.h>

int main(void) {
  tg_plugin_descriptor d;
  tg_hook_options o;
  tg_tool_definition t;
  tg_call_info i;
  tg_json_value v;
  tg_host_api api;
  tg_str s = {"x", 1};
  d.struct_size = sizeof d;
  o.struct_size = sizeof o;
  t.struct_size = sizeof t;
  i.struct_size = sizeof i;
  v.struct_size = sizeof v;
  api.struct_size = sizeof api;
  return (int)(s.size + TOOLGATE_HOST_HAS(&api, log) - 2 + TOOLGATE_ABI_MAJOR - 1 +
               (d.struct_size > 0) + (o.struct_size > 0) + (t.struct_size > 0) +
               (i.struct_size > 0) + (v.struct_size > 0) - 5);
}
