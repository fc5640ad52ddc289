// TypeScript declarations from JSON Schemas (host/src/code_mode/typescript.*):
// the exact text a Code Mode script is told about each tool, that whatever a
// schema says beyond what is understood becomes `unknown`, and that a
// hostile schema (deep, huge, or with "*/" in a description) cannot blow up
// run_code's description or break out of a comment.
#include "code_mode/typescript.hpp"

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <string>
#include <vector>

namespace json = boost::json;
using toolgate::detail::typescript_declarations;
using toolgate::detail::typescript_type;
using toolgate::detail::TypeScriptTool;

namespace {

std::string ts(std::string_view schema) { return typescript_type(json::parse(schema)); }

}  // namespace

TEST(CodeModeTypeScript, Primitives) {
  EXPECT_EQ(ts(R"({"type":"string"})"), "string");
  EXPECT_EQ(ts(R"({"type":"number"})"), "number");
  EXPECT_EQ(ts(R"({"type":"integer"})"), "number");
  EXPECT_EQ(ts(R"({"type":"boolean"})"), "boolean");
  EXPECT_EQ(ts(R"({"type":"null"})"), "null");
  EXPECT_EQ(ts(R"({"type":"array"})"), "unknown[]");
  EXPECT_EQ(ts(R"({"type":"object"})"), "Record<string, unknown>");
  EXPECT_EQ(ts(R"({"type":"object","additionalProperties":{"type":"integer"}})"),
            "Record<string, number>");
  EXPECT_EQ(ts(R"({"type":"object","additionalProperties":false})"), "Record<string, unknown>");
  // Two names for one TypeScript type are written once.
  EXPECT_EQ(ts(R"({"type":["string","integer","number","null"]})"), "string | number | null");
  EXPECT_EQ(ts(R"({"type":"date"})"), "unknown");
}

TEST(CodeModeTypeScript, EnumAndConst) {
  EXPECT_EQ(ts(R"({"enum":["a","say \"hi\"",1,-2,2.5,true,false,null]})"),
            R"("a" | "say \"hi\"" | 1 | -2 | 2.5 | true | false | null)");
  // enum and const are narrower than the type beside them.
  EXPECT_EQ(ts(R"({"type":"string","enum":["c","f"]})"), R"("c" | "f")");
  EXPECT_EQ(ts(R"({"const":"fixed"})"), R"("fixed")");
  EXPECT_EQ(ts(R"({"const":42})"), "42");
  EXPECT_EQ(ts(R"({"const":null})"), "null");
  // A literal TypeScript cannot spell simply says nothing usable.
  EXPECT_EQ(ts(R"({"enum":["a",{"b":1}]})"), "unknown");
  EXPECT_EQ(ts(R"({"const":[1,2]})"), "unknown");
}

TEST(CodeModeTypeScript, NestedObject) {
  EXPECT_EQ(ts(R"({
    "type": "object",
    "properties": {
      "path": {"type": "string", "description": "Relative to the workspace."},
      "content-type": {"type": "string"},
      "options": {
        "type": "object",
        "properties": {
          "recursive": {"type": "boolean"},
          "depth": {"type": "integer"}
        },
        "required": ["depth"]
      },
      "$meta": {}
    },
    "required": ["path", "options", "absent"]
  })"),
            "{\n"
            "  /** Relative to the workspace. */\n"
            "  path: string;\n"
            "  \"content-type\"?: string;\n"
            "  options: {\n"
            "    recursive?: boolean;\n"
            "    depth: number;\n"
            "  };\n"
            "  $meta?: unknown;\n"
            "}");
  // Schemas often leave `type` out; properties or items say what it is.
  EXPECT_EQ(ts(R"({"properties":{"a":{"type":"string"}}})"), "{\n  a?: string;\n}");
  EXPECT_EQ(ts(R"({"items":{"type":"string"}})"), "string[]");
}

TEST(CodeModeTypeScript, ArraysOfUnions) {
  EXPECT_EQ(ts(R"({"type":"array","items":{"type":"string"}})"), "string[]");
  EXPECT_EQ(ts(R"({"type":"array","items":{"type":["string","number"]}})"), "(string | number)[]");
  EXPECT_EQ(ts(R"({"type":"array","items":{"enum":["x","y"]}})"), R"(("x" | "y")[])");
  EXPECT_EQ(ts(R"({"type":"array","items":{"type":"array","items":{"type":"boolean"}}})"),
            "boolean[][]");
  EXPECT_EQ(ts(R"({"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},
                   "required":["k"]}})"),
            "{\n  k: string;\n}[]");
  // Tuple `items` is not understood.
  EXPECT_EQ(ts(R"({"type":"array","items":[{"type":"string"}]})"), "unknown[]");
}

TEST(CodeModeTypeScript, Combinators) {
  EXPECT_EQ(ts(R"({"anyOf":[{"type":"string"},{"type":"null"}]})"), "string | null");
  EXPECT_EQ(ts(R"({"oneOf":[{"type":"integer"},{"const":"auto"}]})"), R"(number | "auto")");
  EXPECT_EQ(ts(R"({"allOf":[
    {"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
    {"type":"object","properties":{"b":{"type":"number"}}}
  ]})"),
            "{\n  a: string;\n} & {\n  b?: number;\n}");
  // Unions inside an intersection, and intersections inside a union, are
  // parenthesised.
  EXPECT_EQ(ts(R"({"allOf":[{"type":["string","null"]},{"enum":["a",null]}]})"),
            R"((string | null) & ("a" | null))");
  EXPECT_EQ(ts(R"({"type":"array","items":{"allOf":[{"type":"string"},{"const":"x"}]}})"),
            R"((string & "x")[])");
  // A union with a member that says nothing is unknown; an intersection
  // just leaves such a member out.
  EXPECT_EQ(ts(R"({"anyOf":[{"type":"string"},{}]})"), "unknown");
  EXPECT_EQ(ts(R"({"allOf":[{"$ref":"#/defs/x"},{"type":"string"}]})"), "string");
  // A schema's own type and its anyOf hold together.
  EXPECT_EQ(ts(R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},
                   "anyOf":[{"required":["a"]},{"required":["b"]}]})"),
            "{\n  a?: string;\n  b?: string;\n}");
}

TEST(CodeModeTypeScript, WhatSaysNothingIsUnknown) {
  EXPECT_EQ(ts("true"), "unknown");
  EXPECT_EQ(ts("false"), "unknown");
  EXPECT_EQ(ts("{}"), "unknown");
  EXPECT_EQ(ts("null"), "unknown");
  EXPECT_EQ(ts("[1,2]"), "unknown");
  EXPECT_EQ(ts(R"("string")"), "unknown");
  EXPECT_EQ(ts(R"({"$ref":"#/$defs/thing","type":"string"})"), "unknown");
  EXPECT_EQ(ts(R"({"description":"anything"})"), "unknown");
  EXPECT_EQ(ts(R"({"type":7})"), "unknown");
  EXPECT_EQ(ts(R"({"anyOf":[]})"), "unknown");
  EXPECT_EQ(ts(R"({"type":"object","properties":{"a":true}})"), "{\n  a?: unknown;\n}");
}

TEST(CodeModeTypeScript, DepthLimit) {
  // Eight schemas below the top are written; the ninth is unknown.
  auto nest = [](int levels) {
    std::string s = R"({"type":"string"})";
    for (int i = 0; i < levels; ++i) s = R"({"type":"array","items":)" + s + "}";
    return s;
  };
  EXPECT_EQ(ts(nest(8)), "string[][][][][][][][]");
  EXPECT_EQ(ts(nest(9)), "unknown[][][][][][][][][]");

  // Built as a value: 50 levels is past the parser's own nesting limit.
  json::value bomb = {{"type", "string"}};
  for (int i = 0; i < 50; ++i)
    bomb = {{"type", "object"}, {"properties", {{"x", bomb}}}, {"required", json::array{"x"}}};
  const std::string t = typescript_type(bomb);
  EXPECT_NE(t.find("x: unknown;"), std::string::npos) << t;
  EXPECT_LT(t.size(), 400u) << t;
}

TEST(CodeModeTypeScript, SizeLimit) {
  // An enum of thousands of values is more than a description can carry.
  json::array values;
  for (int i = 0; i < 5000; ++i) values.push_back(json::value("value-" + std::to_string(i)));
  EXPECT_EQ(typescript_type(json::object{{"enum", values}}), "unknown");

  // Long property descriptions are dropped before the types are.
  json::object props;
  for (int i = 0; i < 30; ++i)
    props["p" + std::to_string(i)] = {{"type", "string"}, {"description", std::string(200, 'd')}};
  const std::string t = typescript_type(json::object{{"type", "object"}, {"properties", props}});
  EXPECT_EQ(t.find("/**"), std::string::npos);
  EXPECT_NE(t.find("  p29?: string;\n"), std::string::npos) << t;

  // A huge property type becomes unknown; its siblings stay.
  json::object wide{{"type", "object"}, {"properties", props}};
  for (int i = 30; i < 400; ++i)
    wide["properties"].as_object()["p" + std::to_string(i)] = {{"type", "string"}};
  const std::string u = typescript_type(json::object{
      {"type", "object"},
      {"properties", {{"big", wide}, {"small", {{"type", "boolean"}}}}},
  });
  EXPECT_EQ(u, "{\n  big?: unknown;\n  small?: boolean;\n}");
}

TEST(CodeModeTypeScript, CommentCannotBeClosedByADescription) {
  EXPECT_EQ(ts(R"({"type":"object","properties":{
    "a":{"type":"string","description":"ends */ declare const evil: 1; /*"}
  }})"),
            "{\n"
            "  /** ends *\\/ declare const evil: 1; /* */\n"
            "  a?: string;\n"
            "}");
  // Lines are kept, each in the comment; control characters are not.
  EXPECT_EQ(ts(R"({"type":"object","properties":{
    "a":{"type":"string","description":"first\r\nsecond\t*/\n\n"}
  }})"),
            "{\n"
            "  /**\n"
            "   * first\n"
            "   * second *\\/\n"
            "   */\n"
            "  a?: string;\n"
            "}");
  const json::value in = json::parse(R"({"type":"object"})");
  const std::string d =
      typescript_declarations({TypeScriptTool{"t", "*/ declare const x: 1;", &in, nullptr}});
  EXPECT_NE(d.find("  /** *\\/ declare const x: 1; */\n"), std::string::npos) << d;
}

TEST(CodeModeTypeScript, LongToolDescriptionIsCut) {
  const std::string long_text(1000, 'w');
  const std::string d = typescript_declarations({TypeScriptTool{"t", long_text, nullptr, nullptr}});
  EXPECT_NE(d.find("  /** " + std::string(597, 'w') + "... */\n"), std::string::npos);
  EXPECT_EQ(d.find(std::string(598, 'w')), std::string::npos);
}

TEST(CodeModeTypeScript, Declarations) {
  const json::value weather_in = json::parse(R"({
    "type": "object",
    "properties": {
      "city": {"type": "string", "description": "City name."},
      "unit": {"enum": ["c", "f"]}
    },
    "required": ["city"]
  })");
  const json::value weather_out = json::parse(R"({
    "type": "object",
    "properties": {
      "temperature": {"type": "number"},
      "alerts": {"type": "array", "items": {"type": ["string", "null"]}}
    },
    "required": ["temperature"]
  })");
  const json::value read_in = json::parse(R"({
    "type": "object",
    "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}
  })");
  const json::value no_schema = nullptr;
  const std::vector<TypeScriptTool> tools = {
      {"get_weather", "Current weather for a city.", &weather_in, &weather_out},
      {"fs.read", "Reads a file.\nUTF-8 only.", &read_in, &no_schema},
  };
  const std::string expected =
      "// A call resolves to the tool's structured value, or to its content blocks when it has\n"
      "// none. It rejects with ToolDenied when the pipeline refused the call, and with ToolError\n"
      "// when the tool failed.\n"
      "declare const tools: {\n"
      "  /** Current weather for a city. */\n"
      "  get_weather(args: {\n"
      "    /** City name. */\n"
      "    city: string;\n"
      "    unit?: \"c\" | \"f\";\n"
      "  }): Promise<{\n"
      "    temperature: number;\n"
      "    alerts?: (string | null)[];\n"
      "  }>;\n"
      "  /**\n"
      "   * Reads a file.\n"
      "   * UTF-8 only.\n"
      "   */\n"
      "  \"fs.read\"(args?: {\n"
      "    path?: string;\n"
      "    limit?: number;\n"
      "  }): Promise<unknown>;\n"
      "};\n"
      "declare function callTool(name: string, args?: Record<string, unknown>): "
      "Promise<unknown>;\n"
      "declare class ToolError extends Error { code: string; stage: string; source: string; }\n"
      "declare class ToolDenied extends ToolError {}\n"
      "declare const console: { log(...values: unknown[]): void; error(...values: unknown[]): "
      "void };\n";
  EXPECT_EQ(typescript_declarations(tools), expected);
  // Deterministic: the same tools give the same text.
  EXPECT_EQ(typescript_declarations(tools), typescript_declarations(tools));
}

TEST(CodeModeTypeScript, ArgumentsWithoutSchema) {
  const json::value empty = json::parse("{}");
  const json::value required =
      json::parse(R"({"type":"object","properties":{"q":{"type":"string"}},"required":["q"]})");
  const std::string d = typescript_declarations({
      {"none", "", nullptr, nullptr},
      {"anything", "", &empty, nullptr},
      {"query", "", &required, nullptr},
  });
  EXPECT_NE(d.find("  none(args?: Record<string, unknown>): Promise<unknown>;\n"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("  anything(args?: unknown): Promise<unknown>;\n"), std::string::npos) << d;
  EXPECT_NE(d.find("  query(args: {\n    q: string;\n  }): Promise<unknown>;\n"), std::string::npos)
      << d;
  EXPECT_NE(typescript_declarations({}).find("declare const tools: {};\n"), std::string::npos);
}
