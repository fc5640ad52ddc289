// typescript.cpp -- TypeScript types from JSON Schemas, for Code Mode.
//
// The types are documentation for a model writing a script, not a checker:
// a schema is read, never trusted, and whatever is not understood becomes
// `unknown`, which never tells the model something false.
//
// Mapping:
//   type "string"            -> string
//   type "number"/"integer"  -> number
//   type "boolean" / "null"  -> boolean / null
//   type "array"             -> T[] from `items` (unknown[] without a single
//                               `items` schema); a union or intersection T is
//                               parenthesised: (A | B)[]
//   type "object"            -> { key: T; opt?: T; } from `properties` and
//                               `required`, one property a line; without
//                               properties Record<string, T> when
//                               `additionalProperties` is a schema object,
//                               else Record<string, unknown>
//   no `type`                -> an object when `properties` is there, an
//                               array when `items` is (schemas often leave
//                               `type` out)
//   type [A, B]              -> A | B
//   enum [a, b] / const a    -> a | b / a, as JSON literals (strings quoted);
//                               they win over `type`, being narrower
//   anyOf / oneOf            -> union of the members
//   allOf                    -> intersection A & B
//   A schema with several of these parts (say `type` and `anyOf`) is their
//   intersection, `unknown` parts left out; a union with an `unknown`
//   member is `unknown`.
//   true, false, {}, a non-object, $ref (not followed), an object or array
//   literal, an unknown type name -> unknown.
// Property names that are JavaScript identifiers are written bare, others
// JSON-quoted.  A property's `description` becomes a /** */ comment above
// it (cut at 300 bytes, a tool's at 600), with "*/" written "*\/" so that no
// description can end the comment and inject declarations.
//
// Bounds: a schema comes from a tool, perhaps a hostile one, and its type
// goes into every request the model gets.  A schema nested deeper than 8
// levels is `unknown`, and any type over 4000 bytes is redone without
// property comments, then is `unknown`; a walk stops as soon as its text is
// over, so the work stays proportional to what is written.
#include "typescript.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <utility>

namespace toolgate::detail {

namespace json = boost::json;

namespace {

constexpr int max_depth = 8;
constexpr std::size_t max_type_bytes = 4000;
constexpr std::size_t max_property_comment_bytes = 300;
constexpr std::size_t max_tool_comment_bytes = 600;
constexpr std::string_view unknown = "unknown";

// How a type's text binds, for where parentheses are needed.
enum class Form { atom, union_of, intersection };

struct Type {
  std::string text;
  Form form = Form::atom;
  // The text went over max_type_bytes and was cut short: not to be written.
  bool overflow = false;
};

Type unknown_type() { return Type{std::string(unknown)}; }
bool is_unknown(const Type& t) { return !t.overflow && t.text == unknown; }

bool is_identifier(std::string_view s) {
  auto start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
  };
  auto rest = [&](char c) { return start(c) || (c >= '0' && c <= '9'); };
  return !s.empty() && start(s.front()) && std::all_of(s.begin() + 1, s.end(), rest);
}

std::string quoted(std::string_view s) { return json::serialize(json::string_view(s)); }

std::string property_name(std::string_view s) {
  return is_identifier(s) ? std::string(s) : quoted(s);
}

// The longest prefix of `s` of at most `max` bytes that does not end inside
// a UTF-8 character, with "..." when cut.
std::string shortened(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t n = max - 3;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "...";
}

// `text` as a /** */ comment at `indent` spaces: one line when it is one,
// else a block with " * " before each line.
void append_comment(std::string& out, std::string_view text, int indent) {
  std::string clean;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;
      c = '\n';
    }
    if (c == '/' && !clean.empty() && clean.back() == '*') clean += '\\';
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7F) c = ' ';
    clean += c;
  }
  std::vector<std::string_view> lines;
  std::string_view rest = clean;
  while (true) {
    auto nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  while (!lines.empty() && lines.front().empty()) lines.erase(lines.begin());
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) return;
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (lines.size() == 1) {
    auto line = lines.front();
    line.remove_prefix(line.find_first_not_of(' '));
    out += pad + "/** " + std::string(line) + " */\n";
    return;
  }
  out += pad + "/**\n";
  for (auto line : lines) out += pad + (line.empty() ? " *" : " * " + std::string(line)) + "\n";
  out += pad + " */\n";
}

// A JSON value as a TypeScript literal type.
Type literal(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string:
      return Type{quoted(v.get_string())};
    case json::kind::int64:
      return Type{std::to_string(v.get_int64())};
    case json::kind::uint64:
      return Type{std::to_string(v.get_uint64())};
    case json::kind::double_: {
      const double d = v.get_double();
      if (!std::isfinite(d)) return unknown_type();
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, d);
      return Type{std::string(buf, r.ptr)};
    }
    case json::kind::bool_:
      return Type{v.get_bool() ? "true" : "false"};
    case json::kind::null:
      return Type{"null"};
    default:
      return unknown_type();
  }
}

// A | B or A & B: duplicates dropped, the other form's members
// parenthesized.  An `unknown` member makes a union unknown (A | unknown is
// unknown) and is left out of an intersection (A & unknown is A).
Type combine(std::vector<Type> members, Form form) {
  const bool is_union = form == Form::union_of;
  std::vector<Type> kept;
  std::size_t bytes = 0;
  for (auto& m : members) {
    if (m.overflow) return Type{{}, Form::atom, true};
    if (is_unknown(m)) {
      if (is_union) return unknown_type();
      continue;
    }
    if (std::any_of(kept.begin(), kept.end(), [&](const Type& k) { return k.text == m.text; }))
      continue;
    bytes += m.text.size() + 5;
    if (bytes > max_type_bytes) return Type{{}, Form::atom, true};
    kept.push_back(std::move(m));
  }
  if (kept.empty()) return unknown_type();
  if (kept.size() == 1) return std::move(kept.front());
  const Form other = is_union ? Form::intersection : Form::union_of;
  Type t{{}, form};
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) t.text += is_union ? " | " : " & ";
    t.text += kept[i].form == other ? "(" + kept[i].text + ")" : kept[i].text;
  }
  return t;
}
Type union_of(std::vector<Type> members) { return combine(std::move(members), Form::union_of); }
Type intersection_of(std::vector<Type> members) {
  return combine(std::move(members), Form::intersection);
}

class Renderer {
 public:
  explicit Renderer(bool comments) : comments_(comments) {}

  // The type of schema `v`, `depth` schemas below the top, its text starting
  // on a line indented `indent` spaces.  Never overflows: a type over the
  // limit is redone without comments, then is `unknown`.
  Type render(const json::value& v, int depth, int indent) const {
    if (depth > max_depth || !v.is_object()) return unknown_type();
    const json::object& s = v.get_object();
    if (s.contains("$ref")) return unknown_type();
    std::vector<Type> parts;
    parts.push_back(base(s, depth, indent));
    for (std::string_view key : {"anyOf", "oneOf"}) {
      const json::value* members = s.if_contains(key);
      if (members == nullptr) continue;
      parts.push_back(members->is_array() ? union_of(each(members->get_array(), depth, indent))
                                          : unknown_type());
    }
    if (const json::value* all = s.if_contains("allOf"); all != nullptr && all->is_array())
      for (auto& m : each(all->get_array(), depth, indent)) parts.push_back(std::move(m));
    Type t = intersection_of(std::move(parts));
    if (!t.overflow && t.text.size() <= max_type_bytes) return t;
    return comments_ ? Renderer(false).render(v, depth, indent) : unknown_type();
  }

 private:
  // The schemas of `members`, one level down; stops once over the limit.
  std::vector<Type> each(const json::array& members, int depth, int indent) const {
    std::vector<Type> out;
    std::size_t bytes = 0;
    for (const auto& m : members) {
      out.push_back(render(m, depth + 1, indent));
      bytes += out.back().text.size();
      if (bytes > max_type_bytes) {
        out.back().overflow = true;
        break;
      }
    }
    return out;
  }

  // What `const`, `enum` or `type` say (or, without them, `properties` or
  // `items`).
  Type base(const json::object& s, int depth, int indent) const {
    if (const json::value* c = s.if_contains("const")) return literal(*c);
    if (const json::value* e = s.if_contains("enum")) {
      if (!e->is_array()) return unknown_type();
      std::vector<Type> members;
      for (const auto& m : e->get_array()) {
        members.push_back(literal(m));
        if (is_unknown(members.back())) return unknown_type();
      }
      return union_of(std::move(members));
    }
    if (const json::value* t = s.if_contains("type")) {
      if (t->is_string()) return typed(s, t->get_string(), depth, indent);
      if (!t->is_array()) return unknown_type();
      std::vector<Type> members;
      for (const auto& name : t->get_array()) {
        if (!name.is_string()) return unknown_type();
        members.push_back(typed(s, name.get_string(), depth, indent));
        if (members.back().overflow) break;
      }
      return union_of(std::move(members));
    }
    if (s.contains("properties")) return object(s, depth, indent);
    if (s.contains("items")) return array(s, depth, indent);
    return unknown_type();
  }

  Type typed(const json::object& s, std::string_view type, int depth, int indent) const {
    if (type == "string") return Type{"string"};
    if (type == "number" || type == "integer") return Type{"number"};
    if (type == "boolean") return Type{"boolean"};
    if (type == "null") return Type{"null"};
    if (type == "array") return array(s, depth, indent);
    if (type == "object") return object(s, depth, indent);
    return unknown_type();
  }

  Type array(const json::object& s, int depth, int indent) const {
    const json::value* items = s.if_contains("items");
    Type item = items != nullptr ? render(*items, depth + 1, indent) : unknown_type();
    if (item.form != Form::atom) return Type{"(" + item.text + ")[]"};
    return Type{item.text + "[]"};
  }

  Type object(const json::object& s, int depth, int indent) const {
    const json::value* props = s.if_contains("properties");
    if (props == nullptr || !props->is_object() || props->get_object().empty()) {
      const json::value* extra = s.if_contains("additionalProperties");
      if (extra == nullptr || !extra->is_object()) return Type{"Record<string, unknown>"};
      return Type{"Record<string, " + render(*extra, depth + 1, indent).text + ">"};
    }
    std::vector<std::string_view> required;
    if (const json::value* r = s.if_contains("required"); r != nullptr && r->is_array())
      for (const auto& name : r->get_array())
        if (name.is_string()) required.push_back(name.get_string());
    const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
    Type t{"{\n"};
    for (const auto& [key, schema] : props->get_object()) {
      if (comments_ && schema.is_object())
        if (const json::value* d = schema.get_object().if_contains("description");
            d != nullptr && d->is_string())
          append_comment(t.text, shortened(d->get_string(), max_property_comment_bytes),
                         indent + 2);
      const bool needed = std::find(required.begin(), required.end(), key) != required.end();
      t.text += pad + property_name(key) + (needed ? ": " : "?: ") +
                render(schema, depth + 1, indent + 2).text + ";\n";
      if (t.text.size() > max_type_bytes) return Type{{}, Form::atom, true};
    }
    t.text += std::string(static_cast<std::size_t>(indent), ' ') + "}";
    return t;
  }

  bool comments_;
};

// Whether a call may leave out its arguments: no input schema, one that
// says nothing usable, or a plain object schema with no required property.
bool args_optional(const json::value* schema, const std::string& type) {
  if (schema == nullptr || schema->is_null() || type == unknown) return true;
  if (type.rfind("Record<", 0) == 0) return true;
  if (type.rfind("{", 0) != 0 || !schema->is_object()) return false;
  const json::object& s = schema->get_object();
  if (s.contains("anyOf") || s.contains("oneOf") || s.contains("allOf")) return false;
  const json::value* props = s.if_contains("properties");
  const json::value* required = s.if_contains("required");
  if (props == nullptr || !props->is_object() || required == nullptr || !required->is_array())
    return true;
  return std::none_of(required->get_array().begin(), required->get_array().end(),
                      [&](const json::value& n) {
                        return n.is_string() && props->get_object().contains(n.get_string());
                      });
}

constexpr std::string_view preamble =
    "// A call resolves to the tool's structured value, or to its content blocks when it has\n"
    "// none. It rejects with ToolDenied when the pipeline refused the call, and with ToolError\n"
    "// when the tool failed.\n";

constexpr std::string_view epilogue =
    "declare function callTool(name: string, args?: Record<string, unknown>): "
    "Promise<unknown>;\n"
    "declare class ToolError extends Error { code: string; stage: string; source: string; }\n"
    "declare class ToolDenied extends ToolError {}\n"
    "declare const console: { log(...values: unknown[]): void; error(...values: unknown[]): "
    "void };\n";

}  // namespace

std::string typescript_type(const json::value& schema) {
  return Renderer(true).render(schema, 0, 0).text;
}

std::string typescript_declarations(const std::vector<TypeScriptTool>& tools) {
  const Renderer renderer(true);
  std::string out(preamble);
  out += tools.empty() ? "declare const tools: {" : "declare const tools: {\n";
  for (const auto& tool : tools) {
    append_comment(out, shortened(tool.description, max_tool_comment_bytes), 2);
    const bool has_input = tool.input_schema != nullptr && !tool.input_schema->is_null();
    const std::string input = has_input ? renderer.render(*tool.input_schema, 0, 2).text
                                        : std::string("Record<string, unknown>");
    const bool has_output = tool.output_schema != nullptr && !tool.output_schema->is_null();
    const std::string output =
        has_output ? renderer.render(*tool.output_schema, 0, 2).text : std::string(unknown);
    out += "  " + property_name(tool.name) + "(args" +
           (args_optional(tool.input_schema, input) ? "?: " : ": ") + input + "): Promise<" +
           output + ">;\n";
  }
  out += "};\n";
  out += epilogue;
  return out;
}

}  // namespace toolgate::detail
