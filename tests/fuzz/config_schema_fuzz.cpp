// A plugin's config schema (host/src/loading/config_schema.cpp) and a config
// checked against it.  The input is SCHEMA, a NUL byte, CONFIG: both are
// text a plugin author or a deployer wrote, and neither may crash the host.
//   - compile never throws; a refusal names where in the schema;
//   - a compiled schema validates any JSON value without throwing, and a
//     violation's pointer is "" or starts with '/', with a message;
//   - validating the same value twice gives the same answer.
#include "fuzz_check.hpp"
#include "loading/config_schema.hpp"

#include <toolgate/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

using toolgate::detail::ConfigSchema;
using toolgate::detail::SchemaError;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = in.find('\0');
  const std::string_view schema_text = in.substr(0, nul);
  const std::string_view config_text =
      nul == std::string_view::npos ? std::string_view("{}") : in.substr(nul + 1);

  SchemaError error;
  auto schema = ConfigSchema::compile(schema_text, error);
  if (!schema) {
    FUZZ_CHECK(!error.schema_pointer.empty() && error.schema_pointer[0] == '/');
    FUZZ_CHECK(!error.message.empty());
    return 0;
  }
  auto config = toolgate::parse_untrusted(config_text, 64);
  if (!config) return 0;
  auto first = schema->validate(*config);
  auto again = schema->validate(*config);
  FUZZ_CHECK(first.has_value() == again.has_value());
  if (first) {
    FUZZ_CHECK(first->pointer.empty() || first->pointer[0] == '/');
    FUZZ_CHECK(!first->message.empty());
    FUZZ_CHECK(first->pointer == again->pointer && first->message == again->message);
  }
  return 0;
}
