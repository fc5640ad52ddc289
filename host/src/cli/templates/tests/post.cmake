# Results that mention root are blocked; others pass unchanged.
add_test(NAME @NAME@.blocks_root
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"root\"}")
set_tests_properties(@NAME@.blocks_root PROPERTIES
  PASS_REGULAR_EXPRESSION "\"code\":\"denied\",\"message\":\"results about root are withheld\",\"stage\":\"tools/post-execute\"")
add_test(NAME @NAME@.passes_others
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"World\"}")
set_tests_properties(@NAME@.passes_others PROPERTIES PASS_REGULAR_EXPRESSION "Hello, World!")
