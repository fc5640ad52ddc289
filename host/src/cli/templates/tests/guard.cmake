# The guard denies greeting root, and abstains otherwise.
add_test(NAME @NAME@.denies_root
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"root\"}")
set_tests_properties(@NAME@.denies_root PROPERTIES
  PASS_REGULAR_EXPRESSION "\"code\":\"denied\",\"message\":\"greeting root is not allowed\",\"stage\":\"guard\"")
add_test(NAME @NAME@.allows_others
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"World\"}")
set_tests_properties(@NAME@.allows_others PROPERTIES PASS_REGULAR_EXPRESSION "Hello, World!")
