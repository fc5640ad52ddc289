// The config schema validator (host/src/loading/config_schema.cpp): every
// keyword of the subset both ways, the messages, the refusal of anything
// outside the subset, and the depth bound.
#include "loading/config_schema.hpp"

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <string>

namespace json = boost::json;
using toolgate::detail::ConfigSchema;
using toolgate::detail::ConfigViolation;
using toolgate::detail::SchemaError;

namespace {

std::unique_ptr<ConfigSchema> compile(const std::string& text) {
  SchemaError e;
  auto s = ConfigSchema::compile(text, e);
  EXPECT_TRUE(s) << text << ": " << e.schema_pointer << " " << e.keyword << ": " << e.message;
  return s;
}

SchemaError compile_error(const std::string& text) {
  SchemaError e;
  auto s = ConfigSchema::compile(text, e);
  EXPECT_FALSE(s) << "compiled: " << text;
  return e;
}

// "" when `instance` matches, else "POINTER: MESSAGE".
std::string check(const std::string& schema, const std::string& instance) {
  auto s = compile(schema);
  if (!s) return "(schema did not compile)";
  auto v = s->validate(json::parse(instance));
  return v ? v->pointer + ": " + v->message : "";
}

#define EXPECT_OK(schema, instance) EXPECT_EQ(check(schema, instance), "") << instance
#define EXPECT_BAD(schema, instance, expected) \
  EXPECT_EQ(check(schema, instance), expected) << instance

}  // namespace

TEST(ConfigSchema, Type) {
  EXPECT_OK(R"({"type": "string"})", R"("x")");
  EXPECT_BAD(R"({"type": "string"})", "3", ": must be a string, got 3");
  EXPECT_BAD(R"({"type": "object"})", "[1]", ": must be an object, got an array");
  EXPECT_OK(R"({"type": ["string", "array"]})", "[]");
  EXPECT_BAD(R"({"type": ["string", "array"]})", "true",
             ": must be a string or an array, got true");
  EXPECT_OK(R"({"type": "null"})", "null");
  EXPECT_BAD(R"({"type": "boolean"})", "null", ": must be true or false, got null");
  // "integer" is any integral number, 1.0 included; "number" takes both.
  EXPECT_OK(R"({"type": "integer"})", "3");
  EXPECT_OK(R"({"type": "integer"})", "3.0");
  EXPECT_OK(R"({"type": "integer"})", "18446744073709551615");
  EXPECT_BAD(R"({"type": "integer"})", "2.5", ": must be an integer, got 2.5");
  EXPECT_OK(R"({"type": "number"})", "2.5");
  EXPECT_OK(R"({"type": "number"})", "-7");
  EXPECT_BAD(R"({"type": "number"})", R"("7")", R"(: must be a number, got "7")");
}

TEST(ConfigSchema, PropertiesRequiredAndAdditionalProperties) {
  const std::string s = R"({"type": "object", "required": ["a"], "additionalProperties": false,
    "properties": {"a": {"type": "string"}, "b~/c": {"type": "integer"}}})";
  EXPECT_OK(s, R"({"a": "x"})");
  EXPECT_OK(s, R"({"a": "x", "b~/c": 1})");
  EXPECT_BAD(s, R"({})", R"(/a: missing required key "a")");
  EXPECT_BAD(s, R"({"a": 1})", "/a: must be a string, got 1");
  // Keys are escaped in pointers (RFC 6901).
  EXPECT_BAD(s, R"({"a": "x", "b~/c": "y"})", R"(/b~0~1c: must be an integer, got "y")");
  EXPECT_BAD(s, R"({"a": "x", "c": 1})",
             R"(/c: unknown key "c"; remove it or use one of: a, b~/c)");
  EXPECT_BAD(R"({"additionalProperties": false})", R"({"z": 1})",
             R"(/z: unknown key "z"; this object takes no keys)");
  // Without additionalProperties, other keys are allowed; as a schema it
  // checks them.
  EXPECT_OK(R"({"properties": {"a": {"type": "string"}}})", R"({"z": 1})");
  EXPECT_OK(R"({"additionalProperties": {"type": "integer"}})", R"({"z": 1})");
  EXPECT_BAD(R"({"additionalProperties": {"type": "integer"}})", R"({"z": "1"})",
             R"(/z: must be an integer, got "1")");
  // properties only apply to objects.
  EXPECT_OK(R"({"properties": {"a": {"type": "string"}}, "required": ["a"]})", "3");
}

TEST(ConfigSchema, Items) {
  const std::string s = R"({"type": "array", "items": {"type": "string"}})";
  EXPECT_OK(s, R"(["a", "b"])");
  EXPECT_BAD(s, R"(["a", 3])", "/1: must be a string, got 3");
  EXPECT_BAD(R"({"properties": {"paths": {"items": {"type": "string"}}}})",
             R"({"paths": ["a", 3]})", "/paths/1: must be a string, got 3");
  // items only applies to arrays.
  EXPECT_OK(R"({"type": ["string", "array"], "items": {"type": "string"}})", R"("a")");
}

TEST(ConfigSchema, EnumAndConst) {
  EXPECT_OK(R"({"enum": ["keep", "deny", 1]})", R"("deny")");
  EXPECT_OK(R"({"enum": ["keep", "deny", 1]})", "1.0");  // numbers by value
  EXPECT_BAD(R"({"enum": ["keep", "deny"]})", R"("block")",
             R"(: "block" is not one of "keep", "deny")");
  EXPECT_OK(R"({"const": {"a": [1, 2]}})", R"({"a": [1, 2.0]})");
  EXPECT_BAD(R"({"const": {"a": [1, 2]}})", R"({"a": [2, 1]})",
             R"(: must be {"a":[1,2]}, got an object)");
  EXPECT_BAD(R"({"const": 3})", "4", ": must be 3, got 4");
}

TEST(ConfigSchema, NumericBounds) {
  EXPECT_OK(R"({"minimum": 1})", "1");
  EXPECT_BAD(R"({"minimum": 1})", "0", ": must be at least 1, got 0");
  EXPECT_OK(R"({"maximum": 1.5})", "1.5");
  EXPECT_BAD(R"({"maximum": 1.5})", "2", ": must be at most 1.5, got 2");
  EXPECT_BAD(R"({"type": "integer", "minimum": 1, "maximum": 100})", "101",
             ": must be an integer from 1 to 100, got 101");
  EXPECT_BAD(R"({"type": "number", "minimum": 0, "maximum": 1})", "-0.5",
             ": must be a number from 0 to 1, got -0.5");
  EXPECT_OK(R"({"exclusiveMinimum": 0})", "1e-9");
  EXPECT_BAD(R"({"exclusiveMinimum": 0})", "0", ": must be more than 0, got 0");
  EXPECT_OK(R"({"exclusiveMaximum": 10})", "9.99");
  EXPECT_BAD(R"({"exclusiveMaximum": 10})", "10", ": must be less than 10, got 10");
  // Integers compare exactly, beyond what a double holds.
  EXPECT_BAD(R"({"maximum": 9007199254740992})", "9007199254740993",
             ": must be at most 9007199254740992, got 9007199254740993");
  EXPECT_BAD(R"({"minimum": -1})", "-2", ": must be at least -1, got -2");
  EXPECT_OK(R"({"minimum": -1})", "18446744073709551615");
  // Bounds only apply to numbers.
  EXPECT_OK(R"({"minimum": 1})", R"("0")");
}

TEST(ConfigSchema, StringLengthCountsCodePoints) {
  EXPECT_OK(R"({"maxLength": 2})", R"("\u00e9\u00e9")");  // 4 bytes, 2 code points
  EXPECT_BAD(R"({"maxLength": 2})", R"("abc")", ": must be at most 2 characters long, got 3");
  EXPECT_OK(R"({"minLength": 2})", R"("\u00e9\u00e9")");
  EXPECT_BAD(R"({"minLength": 3})", R"("\u00e9\u00e9")",
             ": must be at least 3 characters long, got 2");
  EXPECT_BAD(R"({"minLength": 1})", R"("")", ": must not be empty");
}

TEST(ConfigSchema, ArraySizeAndUniqueness) {
  EXPECT_OK(R"({"minItems": 1, "maxItems": 2})", "[1]");
  EXPECT_BAD(R"({"minItems": 1})", "[]", ": must not be empty; list at least one element");
  EXPECT_BAD(R"({"minItems": 2})", "[1]", ": must list at least 2 elements, got 1");
  EXPECT_BAD(R"({"maxItems": 2})", "[1, 2, 3]", ": must list at most 2 elements, got 3");
  EXPECT_OK(R"({"uniqueItems": true})", R"([1, "1", [1], {"a": 1}])");
  EXPECT_BAD(R"({"uniqueItems": true})", R"(["a", "b", "a"])",
             R"(/2: repeats element 0 ("a"); list each value once)");
  EXPECT_BAD(R"({"uniqueItems": true})", "[1, 1.0]",
             "/1: repeats element 0 (1); list each value once");
  EXPECT_OK(R"({"uniqueItems": false})", "[1, 1]");
}

TEST(ConfigSchema, PatternSearchesUnlessAnchored) {
  // JSON Schema's pattern is a search: "b" matches "abc".
  EXPECT_OK(R"({"pattern": "b"})", R"("abc")");
  EXPECT_BAD(R"({"pattern": "^b"})", R"("abc")", R"(: "abc" does not match the pattern "^b")");
  EXPECT_OK(R"({"pattern": "^/[a-z]+$"})", R"("/path")");
  EXPECT_BAD(R"({"pattern": "^/[a-z]+$"})", R"("/path/x")",
             R"(: "/path/x" does not match the pattern "^/[a-z]+$")");
  // UTF-8: "." is one code point.
  EXPECT_OK(R"({"pattern": "^.$"})", R"("\u00e9")");
  // Only strings are matched.
  EXPECT_OK(R"({"pattern": "^x$"})", "3");
}

TEST(ConfigSchema, AnyOfOneOfAllOf) {
  const std::string fsync =
      R"({"anyOf": [{"enum": ["always", "never"]}, {"type": "integer", "minimum": 1}]})";
  EXPECT_OK(fsync, R"("never")");
  EXPECT_OK(fsync, "10");
  // Only the integer form fits a number: its complaint is the one shown.
  EXPECT_BAD(fsync, "0", ": must be at least 1, got 0");
  EXPECT_BAD(fsync, R"("sometimes")",
             R"(: matches none of the allowed forms: "sometimes" is not one of "always", )"
             R"("never"; or must be an integer, got "sometimes")");
  const std::string one = R"({"oneOf": [{"type": "integer"}, {"minimum": 5}]})";
  EXPECT_OK(one, "3");
  EXPECT_OK(one, "5.5");
  EXPECT_BAD(one, "7",
             ": matches more than one of the allowed forms (1 and 2); it must match exactly one");
  // Only the second form takes any number: its complaint is the useful one.
  EXPECT_BAD(one, "2.5", ": must be at least 5, got 2.5");
  EXPECT_BAD(R"({"oneOf": [{"type": "number", "minimum": 5}, {"type": "number", "maximum": 1}]})",
             "2.5",
             ": matches none of the allowed forms: must be at least 5, got 2.5; or must be at "
             "most 1, got 2.5");
  const std::string all = R"({"allOf": [{"type": "integer"}, {"minimum": 5}]})";
  EXPECT_OK(all, "7");
  EXPECT_BAD(all, "3", ": must be at least 5, got 3");
  // Deeper failures inside an alternative say where.
  EXPECT_BAD(R"({"anyOf": [{"type": "string"}, {"type": "object", "properties": {"a":
      {"type": "string"}}}, {"type": "object", "required": ["b"]}]})",
             R"({"a": 1})",
             ": matches none of the allowed forms: must be a string, got an object; or /a must "
             "be a string, got 1; or /b missing required key \"b\"");
}

TEST(ConfigSchema, BooleanSchemasAndAnnotations) {
  EXPECT_OK("true", "3");
  EXPECT_BAD("false", "3", ": is not allowed here; remove it");
  EXPECT_BAD(R"({"properties": {"old": false}})", R"({"old": 1})",
             "/old: is not allowed here; remove it");
  EXPECT_OK(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x",
      "$comment": "c", "title": "t", "description": "d", "default": {}, "examples": [{}],
      "type": "object"})",
            "{}");
}

TEST(ConfigSchema, UnsupportedKeywordsFailNamingTheKeyword) {
  for (const char* kw : {"format", "$ref", "$defs", "prefixItems", "not", "if", "dependentRequired",
                         "patternProperties", "minProperties", "contains", "unevaluatedProperties",
                         "propertyNames", "multipleOf"}) {
    auto e = compile_error(std::string(R"({"properties": {"a": {")") + kw + R"(": {}}}})");
    EXPECT_EQ(e.keyword, kw);
    EXPECT_EQ(e.schema_pointer, std::string("/properties/a/") + kw);
    EXPECT_NE(e.message.find("not in the JSON Schema subset"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("supported: type, properties"), std::string::npos) << e.message;
  }
}

TEST(ConfigSchema, MalformedSchemasFail) {
  struct Case {
    const char* schema;
    const char* keyword;
    const char* text;
  };
  const Case cases[] = {
      {R"({"type": "text"})", "type", "type must be a type name"},
      {R"({"type": ["string", "string"]})", "type", "twice"},
      {R"({"type": []})", "type", "non-empty array"},
      {R"({"properties": []})", "properties", "must be an object"},
      {R"({"properties": {"a": 3}})", "", "a schema must be an object or true or false, not 3"},
      {R"({"required": "a"})", "required", "array of key names"},
      {R"({"required": [1]})", "required", "not 1"},
      {R"({"items": [{}]})", "items", "prefixItems"},
      {R"({"enum": []})", "enum", "non-empty array"},
      {R"({"minimum": "1"})", "minimum", "must be a number"},
      {R"({"exclusiveMinimum": true})", "exclusiveMinimum", "draft 4"},
      {R"({"minLength": -1})", "minLength", "non-negative integer"},
      {R"({"maxItems": 1.5})", "maxItems", "non-negative integer"},
      {R"({"uniqueItems": 1})", "uniqueItems", "true or false"},
      {R"({"pattern": "(unclosed"})", "pattern", "not a valid RE2 expression"},
      {R"({"pattern": 3})", "pattern", "must be a string"},
      {R"({"anyOf": []})", "anyOf", "non-empty array of schemas"},
      {R"({"oneOf": {}})", "oneOf", "non-empty array of schemas"},
      {R"({"allOf": [3]})", "", "not 3"},
  };
  for (const auto& c : cases) {
    auto e = compile_error(c.schema);
    EXPECT_EQ(e.keyword, c.keyword) << c.schema;
    EXPECT_NE(e.message.find(c.text), std::string::npos) << c.schema << ": " << e.message;
  }
  auto e = compile_error(R"({"type": "object",)");
  EXPECT_NE(e.message.find("not valid JSON"), std::string::npos) << e.message;
  e = compile_error(R"("object")");
  EXPECT_NE(e.message.find("must be a JSON object"), std::string::npos) << e.message;
  e = compile_error(R"({"type": "object", "type": "string"})");
  EXPECT_NE(e.message.find("duplicate key"), std::string::npos) << e.message;
}

TEST(ConfigSchema, NestingIsBounded) {
  auto nested = [](int levels) {
    std::string s;
    for (int i = 0; i < levels; ++i) s += R"({"items": )";
    s += "true";
    for (int i = 0; i < levels; ++i) s += "}";
    return s;
  };
  EXPECT_TRUE(compile(nested(toolgate::detail::kMaxSchemaDepth)));
  auto e = compile_error(nested(toolgate::detail::kMaxSchemaDepth + 1));
  EXPECT_NE(e.message.find("deeper than 32"), std::string::npos) << e.message;
  // Far deeper text is refused by the parser's own bound, not the stack.
  e = compile_error(nested(100000));
  EXPECT_NE(e.message.find("not valid JSON"), std::string::npos) << e.message;
}

TEST(ConfigSchema, NeverCrashesOnOddInput) {
  // Schemas and instances of every kind against each other: whatever the
  // answer, nothing throws or crashes.
  const char* schemas[] = {"true",
                           "false",
                           "{}",
                           R"({"type": "integer", "minimum": 1e308})",
                           R"({"maximum": -1e308, "exclusiveMaximum": 1e-308})",
                           R"({"maxLength": 0})",
                           R"({"pattern": "\\p{Greek}+"})",
                           R"({"enum": [null, [], {}], "uniqueItems": true})",
                           R"({"oneOf": [true, true]})",
                           R"({"anyOf": [false]})",
                           R"({"items": {"items": {"items": {"type": "array"}}}})",
                           R"({"additionalProperties": {"additionalProperties": false}})"};
  const char* instances[] = {"null",
                             "0",
                             "-9223372036854775808",
                             "18446744073709551615",
                             "1e308",
                             "-0.0",
                             R"("")",
                             R"("\u0000\uffff")",
                             "[]",
                             "{}",
                             R"([[[[[]]]]])",
                             R"({"a": {"b": {"c": 1}}})",
                             R"([1, 1, 1.0, "1", null, null])"};
  for (const char* s : schemas) {
    auto schema = compile(s);
    ASSERT_TRUE(schema) << s;
    for (const char* i : instances)
      EXPECT_NO_THROW(schema->validate(json::parse(i))) << s << " " << i;
  }
}
