# Greeting root asks first: with nobody to ask the call is denied, with an
# approval it runs.
add_test(NAME @NAME@.asks_for_root
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"root\"}")
set_tests_properties(@NAME@.asks_for_root PROPERTIES PASS_REGULAR_EXPRESSION "\"code\":\"approval_unavailable\"")
add_test(NAME @NAME@.approved
  COMMAND toolgate::toolgate call ${MANIFEST} --tool greet --args "{\"name\":\"root\"}" --approve yes)
set_tests_properties(@NAME@.approved PROPERTIES PASS_REGULAR_EXPRESSION "Hello, root!")
