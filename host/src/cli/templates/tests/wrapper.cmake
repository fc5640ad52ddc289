# The wrapper runs around the tool (the trace shows it) and passes its result on.
add_test(NAME @NAME@.wraps
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"World\"}" --trace)
set_tests_properties(@NAME@.wraps PROPERTIES
  PASS_REGULAR_EXPRESSION "tools/execute  @ID@/deadline.*Hello, World!")
