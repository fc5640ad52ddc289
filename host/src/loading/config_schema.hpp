// config_schema.hpp -- the JSON Schema a plugin declares for its config
// (tg_plugin_descriptor.config_schema, ABI 1.2), checked before init.
//
// One responsibility: compile a schema written in the subset toolgate
// understands, and validate a config object against it.  The subset is
// JSON Schema 2020-12's type, properties, required, additionalProperties,
// items, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// minLength, maxLength, minItems, maxItems, uniqueItems, pattern (RE2),
// anyOf, oneOf, allOf and the boolean schemas, plus the annotations title,
// description, default, examples, $schema, $id and $comment (ignored).
// Anything else fails compilation naming the keyword: a keyword skipped in
// silence would let a config through that the plugin's author believed was
// refused (fail closed).
//
// Neither step can crash on any input: compilation bounds the nesting
// depth (kMaxSchemaDepth), validation recurses only along the compiled
// schema, and every regex is RE2 (linear time, bounded memory).
#pragma once

#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::detail {

// How deeply schemas may nest (each subschema of properties, items,
// additionalProperties, anyOf, oneOf or allOf is one level).
inline constexpr int kMaxSchemaDepth = 32;

// A problem with the schema itself: `schema_pointer` is the JSON Pointer of
// the offending place inside the schema, `keyword` the keyword concerned
// (may be empty), `message` what is wrong.
struct SchemaError {
  std::string schema_pointer;
  std::string keyword;
  std::string message;
};

// A config that does not match: `pointer` is the JSON Pointer of the bad
// value inside the config ("" for the config object itself), `message`
// says what was expected and what was found ("must be a string, got 3").
struct ConfigViolation {
  std::string pointer;
  std::string message;
};

class ConfigSchema {
 public:
  // Parses and compiles `text`.  Returns nullptr and fills `error` when the
  // text is not JSON, not a schema, or uses a keyword outside the subset.
  static std::unique_ptr<ConfigSchema> compile(std::string_view text, SchemaError& error);

  ~ConfigSchema();
  ConfigSchema(const ConfigSchema&) = delete;
  ConfigSchema& operator=(const ConfigSchema&) = delete;

  // The first violation found (in document order), or nothing when
  // `config` matches.
  std::optional<ConfigViolation> validate(const boost::json::value& config) const;

  struct Node;

 private:
  ConfigSchema();
  std::unique_ptr<Node> root_;
};

}  // namespace toolgate::detail
