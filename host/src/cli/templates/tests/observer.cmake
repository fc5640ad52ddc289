# The observer sees every outcome and reports it as an event in the session log.
add_test(NAME @NAME@.observes
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"World\"}" --events /dev/stdout)
set_tests_properties(@NAME@.observes PROPERTIES
  PASS_REGULAR_EXPRESSION "\"type\":\"@NAME@/observed\".*Hello, World!")
