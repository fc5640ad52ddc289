// config_schema.cpp -- compile a plugin's config schema, validate a config.
// See config_schema.hpp for the subset and why anything else is refused.
#include "config_schema.hpp"

#include "../json_util.hpp"
#include "../strict_json.hpp"

#include <re2/re2.h>
#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace toolgate::detail {

namespace json = boost::json;

namespace {

// The kinds a "type" keyword can name, as bits.  An integral number has
// both the number and the integer bit (JSON Schema: 1.0 is an integer).
enum TypeBit : unsigned {
  t_null = 1,
  t_boolean = 2,
  t_object = 4,
  t_array = 8,
  t_number = 16,
  t_string = 32,
  t_integer = 64,
};

constexpr std::pair<std::string_view, unsigned> kTypeNames[] = {
    {"null", t_null},     {"boolean", t_boolean}, {"object", t_object},   {"array", t_array},
    {"number", t_number}, {"string", t_string},   {"integer", t_integer},
};

// Every keyword toolgate checks, then the annotations it ignores; the
// error for any other keyword lists the first group.
constexpr std::string_view kKeywords[] = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "pattern",
    "anyOf",
    "oneOf",
    "allOf",
};
constexpr std::string_view kAnnotations[] = {"title",   "description", "default", "examples",
                                             "$schema", "$id",         "$comment"};

unsigned kind_bits(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return t_null;
    case json::kind::bool_:
      return t_boolean;
    case json::kind::object:
      return t_object;
    case json::kind::array:
      return t_array;
    case json::kind::string:
      return t_string;
    case json::kind::int64:
    case json::kind::uint64:
      return t_number | t_integer;
    case json::kind::double_: {
      const double d = v.get_double();
      return std::isfinite(d) && std::trunc(d) == d ? t_number | t_integer : t_number;
    }
  }
  return 0;
}

// A number for messages: integers as written, other numbers in the
// shortest form that reads back as the same double.
std::string number_text(const json::value& v) {
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  const double d = v.get_double();
  if (std::trunc(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  char buf[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

// A value as a message shows it: scalars as JSON text, cut at 60 bytes (at
// a UTF-8 boundary); containers by kind, since a whole object helps nobody.
std::string literal(const json::value& v);
std::string shown(const json::value& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return literal(v);
}

// A value the schema names (const, enum): its JSON text, cut like shown().
std::string literal(const json::value& v) {
  if (v.is_number()) return number_text(v);
  std::string s = to_json_text(v);
  if (s.size() > 60) s = std::string(utf8_prefix(s, 57)) + "...";
  return s;
}

// "a string", "a string or an array", "an integer or null".
std::string type_words(unsigned types) {
  // The order people say it in: "a string or an array", not the spec's.
  constexpr unsigned order[] = {t_string, t_integer, t_number, t_boolean,
                                t_array,  t_object,  t_null};
  std::vector<std::string> words;
  for (unsigned bit : order) {
    if (!(types & bit)) continue;
    if (bit == t_number && (types & t_integer)) continue;  // "a number" covers it
    if (bit == t_integer && (types & t_number)) {
      words.emplace_back("a number");
      continue;
    }
    switch (bit) {
      case t_null:
        words.emplace_back("null");
        break;
      case t_boolean:
        words.emplace_back("true or false");
        break;
      case t_object:
        words.emplace_back("an object");
        break;
      case t_array:
        words.emplace_back("an array");
        break;
      case t_number:
        words.emplace_back("a number");
        break;
      case t_string:
        words.emplace_back("a string");
        break;
      case t_integer:
        words.emplace_back("an integer");
        break;
    }
  }
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

// -1, 0, 1: a < b, a == b, a > b.  Integers compare exactly; anything
// with a fraction compares as double.
int compare_numbers(const json::value& a, const json::value& b) {
  if (!a.is_double() && !b.is_double()) {
    const bool a_neg = a.is_int64() && a.get_int64() < 0;
    const bool b_neg = b.is_int64() && b.get_int64() < 0;
    if (a_neg != b_neg) return a_neg ? -1 : 1;
    if (a_neg) {
      const auto x = a.get_int64(), y = b.get_int64();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    const auto x = a.to_number<std::uint64_t>(), y = b.to_number<std::uint64_t>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const double x = a.to_number<double>(), y = b.to_number<double>();
  return x < y ? -1 : x > y ? 1 : 0;
}

// JSON Schema equality (enum, const, uniqueItems): numbers by value (1
// equals 1.0), arrays in order, objects by members in any order.  Deeper
// than the manifest parser allows is never reached; past `depth` values
// are called unequal rather than risk the stack.
bool json_equal(const json::value& a, const json::value& b, int depth = 0) {
  if (depth > 256) return false;
  if (a.is_number() && b.is_number()) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::array: {
      const auto &x = a.get_array(), &y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!json_equal(x[i], y[i], depth + 1)) return false;
      return true;
    }
    case json::kind::object: {
      const auto &x = a.get_object(), &y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& kv : x) {
        const json::value* other = y.if_contains(kv.key());
        if (!other || !json_equal(kv.value(), *other, depth + 1)) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

struct ConfigSchema::Node {
  std::optional<bool> boolean;  // the schemas `true` and `false`
  unsigned types = 0;           // 0: any type
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> properties;
  std::vector<std::string> required;
  std::unique_ptr<Node> additional;  // additionalProperties
  std::unique_ptr<Node> items;
  std::optional<json::array> enum_values;
  std::optional<json::value> const_value;
  std::optional<json::value> minimum, maximum, exclusive_minimum, exclusive_maximum;
  std::optional<std::uint64_t> min_length, max_length, min_items, max_items;
  bool unique_items = false;
  std::unique_ptr<RE2> pattern;
  std::string pattern_text;
  std::vector<std::unique_ptr<Node>> any_of, one_of, all_of;

  const Node* property(std::string_view key) const {
    for (const auto& [k, n] : properties)
      if (k == key) return n.get();
    return nullptr;
  }
};

namespace {

using Node = ConfigSchema::Node;

class Compiler {
 public:
  explicit Compiler(SchemaError& error) : error_(error) {}

  std::unique_ptr<Node> node(const json::value& s, const std::string& at, int depth) {
    if (depth > kMaxSchemaDepth)
      return fail(at, "",
                  "schemas nest deeper than " + std::to_string(kMaxSchemaDepth) + " levels");
    auto n = std::make_unique<Node>();
    if (s.is_bool()) {
      n->boolean = s.get_bool();
      return n;
    }
    if (!s.is_object())
      return fail(at, "", "a schema must be an object or true or false, not " + shown(s));
    for (const auto& kv : s.get_object())
      if (!keyword(*n, kv.key(), kv.value(), at, depth)) return nullptr;
    return n;
  }

 private:
  std::nullptr_t fail(const std::string& at, std::string_view keyword, std::string message) {
    error_ = {at.empty() ? "/" : at, std::string(keyword), std::move(message)};
    return nullptr;
  }

  // A non-negative integer keyword (minLength, minItems, ...).
  bool count(std::optional<std::uint64_t>& out, std::string_view key, const json::value& v,
             const std::string& at) {
    if (v.is_uint64() || (v.is_int64() && v.get_int64() >= 0)) {
      out = v.to_number<std::uint64_t>();
      return true;
    }
    if (v.is_double() && v.get_double() >= 0 && v.get_double() <= 9007199254740992.0 &&
        std::trunc(v.get_double()) == v.get_double()) {
      out = static_cast<std::uint64_t>(v.get_double());
      return true;
    }
    fail(at, key, std::string(key) + " must be a non-negative integer, not " + shown(v));
    return false;
  }

  bool schemas(std::vector<std::unique_ptr<Node>>& out, std::string_view key, const json::value& v,
               const std::string& at, int depth) {
    if (!v.is_array() || v.get_array().empty()) {
      fail(at, key, std::string(key) + " must be a non-empty array of schemas");
      return false;
    }
    const auto& a = v.get_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      auto sub = node(a[i], at + "/" + std::string(key) + "/" + std::to_string(i), depth + 1);
      if (!sub) return false;
      out.push_back(std::move(sub));
    }
    return true;
  }

  bool keyword(Node& n, std::string_view key, const json::value& v, const std::string& at,
               int depth) {
    const std::string here = at + "/" + pointer_token(key);
    if (key == "type") {
      auto one = [&](const json::value& t) -> unsigned {
        if (t.is_string())
          for (const auto& [name, bit] : kTypeNames)
            if (t.get_string() == name) return bit;
        return 0;
      };
      if (v.is_array() && !v.get_array().empty()) {
        for (const auto& t : v.get_array()) {
          unsigned bit = one(t);
          if (!bit || (n.types & bit)) {
            fail(here, key,
                 "type lists " + shown(t) +
                     (bit ? " twice" : ", which is not a JSON Schema type name") +
                     " (null, boolean, object, array, number, string, integer)");
            return false;
          }
          n.types |= bit;
        }
        return true;
      }
      n.types = one(v);
      if (!n.types)
        fail(here, key,
             "type must be a type name (null, boolean, object, array, number, string, integer) or "
             "a non-empty array of them, not " +
                 shown(v));
      return n.types != 0;
    }
    if (key == "properties") {
      if (!v.is_object()) {
        fail(here, key, "properties must be an object mapping keys to schemas");
        return false;
      }
      for (const auto& kv : v.get_object()) {
        auto sub = node(kv.value(), here + "/" + pointer_token(kv.key()), depth + 1);
        if (!sub) return false;
        n.properties.emplace_back(std::string(kv.key()), std::move(sub));
      }
      return true;
    }
    if (key == "required") {
      if (!v.is_array()) {
        fail(here, key, "required must be an array of key names");
        return false;
      }
      for (const auto& r : v.get_array()) {
        if (!r.is_string()) {
          fail(here, key, "required must list key names (strings), not " + shown(r));
          return false;
        }
        n.required.emplace_back(r.get_string());
      }
      return true;
    }
    if (key == "additionalProperties") {
      n.additional = node(v, here, depth + 1);
      return n.additional != nullptr;
    }
    if (key == "items") {
      if (v.is_array()) {
        fail(here, key,
             "items must be one schema for every element (JSON Schema 2020-12); a list of "
             "schemas, one per position, is prefixItems, which toolgate does not support");
        return false;
      }
      n.items = node(v, here, depth + 1);
      return n.items != nullptr;
    }
    if (key == "enum") {
      if (!v.is_array() || v.get_array().empty()) {
        fail(here, key, "enum must be a non-empty array of the allowed values");
        return false;
      }
      n.enum_values = v.get_array();
      return true;
    }
    if (key == "const") {
      n.const_value = v;
      return true;
    }
    if (key == "minimum" || key == "maximum" || key == "exclusiveMinimum" ||
        key == "exclusiveMaximum") {
      if (!v.is_number() || (v.is_double() && !std::isfinite(v.get_double()))) {
        fail(here, key,
             std::string(key) + " must be a number, not " + shown(v) +
                 (v.is_bool() ? " (the boolean form is JSON Schema draft 4; 2020-12 writes the "
                                "bound itself: \"exclusiveMinimum\": 0)"
                              : ""));
        return false;
      }
      (key == "minimum"            ? n.minimum
       : key == "maximum"          ? n.maximum
       : key == "exclusiveMinimum" ? n.exclusive_minimum
                                   : n.exclusive_maximum) = v;
      return true;
    }
    if (key == "minLength") return count(n.min_length, key, v, here);
    if (key == "maxLength") return count(n.max_length, key, v, here);
    if (key == "minItems") return count(n.min_items, key, v, here);
    if (key == "maxItems") return count(n.max_items, key, v, here);
    if (key == "uniqueItems") {
      if (!v.is_bool()) {
        fail(here, key, "uniqueItems must be true or false");
        return false;
      }
      n.unique_items = v.get_bool();
      return true;
    }
    if (key == "pattern") {
      if (!v.is_string()) {
        fail(here, key, "pattern must be a string (an RE2 regular expression)");
        return false;
      }
      RE2::Options o;
      o.set_log_errors(false);
      n.pattern_text = std::string(v.get_string());
      n.pattern = std::make_unique<RE2>(n.pattern_text, o);
      if (!n.pattern->ok()) {
        fail(here, key,
             "pattern " + shown(v) + " is not a valid RE2 expression: " + n.pattern->error());
        return false;
      }
      return true;
    }
    if (key == "anyOf") return schemas(n.any_of, key, v, at, depth);
    if (key == "oneOf") return schemas(n.one_of, key, v, at, depth);
    if (key == "allOf") return schemas(n.all_of, key, v, at, depth);
    for (auto a : kAnnotations)
      if (key == a) return true;
    std::string list;
    for (auto k : kKeywords) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(here, key,
         "the keyword \"" + std::string(key) +
             "\" is not in the JSON Schema subset toolgate checks, so the host cannot enforce "
             "it; supported: " +
             list +
             " (and the annotations title, description, default, examples, $schema, "
             "$id, $comment)");
    return false;
  }

  SchemaError& error_;
};

class Validator {
 public:
  // The first violation of `n` by `v`, whose pointer is `at`.
  std::optional<ConfigViolation> check(const Node& n, const json::value& v, std::string& at) const {
    if (n.boolean) {
      if (*n.boolean) return std::nullopt;
      return bad(at, "is not allowed here; remove it");
    }
    const unsigned kind = kind_bits(v);
    if (n.types && !(n.types & kind))
      return bad(at, "must be " + type_words(n.types) + ", got " + shown(v));
    if (n.const_value && !json_equal(*n.const_value, v))
      return bad(at, "must be " + literal(*n.const_value) + ", got " + shown(v));
    if (n.enum_values) {
      bool found = false;
      for (const auto& e : *n.enum_values) found = found || json_equal(e, v);
      if (!found) {
        std::string list;
        for (const auto& e : *n.enum_values) list += (list.empty() ? "" : ", ") + literal(e);
        return bad(at, shown(v) + " is not one of " + list);
      }
    }
    if (kind & t_number)
      if (auto r = range(n, v, at)) return r;
    if (v.is_string())
      if (auto r = text(n, v.get_string(), at)) return r;
    if (v.is_array())
      if (auto r = array(n, v.get_array(), at)) return r;
    if (v.is_object())
      if (auto r = object(n, v.get_object(), at)) return r;
    for (const auto& sub : n.all_of)
      if (auto r = check(*sub, v, at)) return r;
    if (!n.any_of.empty())
      if (auto r = alternatives(n.any_of, v, at, false)) return r;
    if (!n.one_of.empty())
      if (auto r = alternatives(n.one_of, v, at, true)) return r;
    return std::nullopt;
  }

 private:
  static std::optional<ConfigViolation> bad(const std::string& at, std::string message) {
    return ConfigViolation{at, std::move(message)};
  }

  std::optional<ConfigViolation> range(const Node& n, const json::value& v,
                                       const std::string& at) const {
    const std::string got = ", got " + number_text(v);
    const bool lo_fails = n.minimum && compare_numbers(v, *n.minimum) < 0;
    const bool hi_fails = n.maximum && compare_numbers(v, *n.maximum) > 0;
    if ((lo_fails || hi_fails) && n.minimum && n.maximum)
      return bad(at, "must be " + std::string(n.types == t_integer ? "an integer" : "a number") +
                         " from " + number_text(*n.minimum) + " to " + number_text(*n.maximum) +
                         got);
    if (lo_fails) return bad(at, "must be at least " + number_text(*n.minimum) + got);
    if (hi_fails) return bad(at, "must be at most " + number_text(*n.maximum) + got);
    if (n.exclusive_minimum && compare_numbers(v, *n.exclusive_minimum) <= 0)
      return bad(at, "must be more than " + number_text(*n.exclusive_minimum) + got);
    if (n.exclusive_maximum && compare_numbers(v, *n.exclusive_maximum) >= 0)
      return bad(at, "must be less than " + number_text(*n.exclusive_maximum) + got);
    return std::nullopt;
  }

  std::optional<ConfigViolation> text(const Node& n, json::string_view s,
                                      const std::string& at) const {
    const std::size_t len = (n.min_length || n.max_length) ? code_points(s) : 0;
    if (n.min_length && len < *n.min_length)
      return bad(at, *n.min_length == 1
                         ? std::string("must not be empty")
                         : "must be at least " + plural(*n.min_length, "character", "characters") +
                               " long, got " + std::to_string(len));
    if (n.max_length && len > *n.max_length)
      return bad(at, "must be at most " + plural(*n.max_length, "character", "characters") +
                         " long, got " + std::to_string(len));
    // JSON Schema's pattern is a search, not a whole-string match: "^" and
    // "$" in the pattern anchor it.
    if (n.pattern && !RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *n.pattern))
      return bad(at, shown(json::value(s)) + " does not match the pattern " +
                         to_json_text(json::value(n.pattern_text)));
    return std::nullopt;
  }

  std::optional<ConfigViolation> array(const Node& n, const json::array& a, std::string& at) const {
    if (n.min_items && a.size() < *n.min_items)
      return bad(at, *n.min_items == 1
                         ? std::string("must not be empty; list at least one element")
                         : "must list at least " + plural(*n.min_items, "element", "elements") +
                               ", got " + std::to_string(a.size()));
    if (n.max_items && a.size() > *n.max_items)
      return bad(at, "must list at most " + plural(*n.max_items, "element", "elements") + ", got " +
                         std::to_string(a.size()));
    const std::size_t mark = at.size();
    if (n.items)
      for (std::size_t i = 0; i < a.size(); ++i) {
        at += "/" + std::to_string(i);
        if (auto r = check(*n.items, a[i], at)) return r;
        at.resize(mark);
      }
    if (n.unique_items)
      for (std::size_t j = 1; j < a.size(); ++j)
        for (std::size_t i = 0; i < j; ++i)
          if (json_equal(a[i], a[j]))
            return bad(at + "/" + std::to_string(j), "repeats element " + std::to_string(i) + " (" +
                                                         shown(a[j]) + "); list each value once");
    return std::nullopt;
  }

  std::optional<ConfigViolation> object(const Node& n, const json::object& o,
                                        std::string& at) const {
    const std::size_t mark = at.size();
    if (n.additional)
      for (const auto& kv : o) {
        if (n.property(kv.key())) continue;
        at += "/" + pointer_token(kv.key());
        if (n.additional->boolean == false) {
          std::string list;
          for (const auto& p : n.properties) list += (list.empty() ? "" : ", ") + p.first;
          return bad(at, "unknown key \"" + std::string(kv.key()) + "\"; " +
                             (list.empty() ? "this object takes no keys"
                                           : "remove it or use one of: " + list));
        }
        if (auto r = check(*n.additional, kv.value(), at)) return r;
        at.resize(mark);
      }
    for (const auto& key : n.required)
      if (!o.contains(key))
        return bad(at + "/" + pointer_token(key), "missing required key \"" + key + "\"");
    for (const auto& kv : o) {
      const Node* p = n.property(kv.key());
      if (!p) continue;
      at += "/" + pointer_token(kv.key());
      if (auto r = check(*p, kv.value(), at)) return r;
      at.resize(mark);
    }
    return std::nullopt;
  }

  // anyOf (exactly_one false) and oneOf (true).
  std::optional<ConfigViolation> alternatives(const std::vector<std::unique_ptr<Node>>& forms,
                                              const json::value& v, std::string& at,
                                              bool exactly_one) const {
    std::vector<ConfigViolation> failures;
    std::vector<std::size_t> matched;
    for (std::size_t i = 0; i < forms.size(); ++i) {
      std::string sub = at;
      if (auto r = check(*forms[i], v, sub))
        failures.push_back(std::move(*r));
      else
        matched.push_back(i);
    }
    if (matched.size() > 1 && exactly_one)
      return bad(at, "matches more than one of the allowed forms (" +
                         std::to_string(matched[0] + 1) + " and " + std::to_string(matched[1] + 1) +
                         "); it must match exactly one");
    if (!matched.empty()) return std::nullopt;
    // When only one form is of the value's type, its complaint is the
    // useful one ("must be at least 1", not a list of every form).
    const unsigned kind = kind_bits(v);
    std::optional<std::size_t> only_fit;
    std::size_t fits = 0;
    for (std::size_t i = 0; i < forms.size(); ++i) {
      const Node& f = *forms[i];
      if (f.boolean || (f.types && !(f.types & kind))) continue;
      if (f.enum_values || f.const_value) continue;  // a fixed value is no "type fit"
      ++fits;
      only_fit = i;
    }
    if (fits == 1) return failures[*only_fit];
    std::string message = "matches none of the allowed forms: ";
    for (std::size_t i = 0; i < failures.size(); ++i) {
      const auto& f = failures[i];
      message +=
          (i == 0 ? "" : "; or ") +
          (f.pointer.size() > at.size() ? f.pointer.substr(at.size()) + " " : std::string()) +
          f.message;
    }
    return bad(at, message);
  }
};

}  // namespace

ConfigSchema::ConfigSchema() = default;
ConfigSchema::~ConfigSchema() = default;

std::unique_ptr<ConfigSchema> ConfigSchema::compile(std::string_view text, SchemaError& error) {
  std::string why;
  // Each schema level is at most two JSON levels (properties, then the
  // key), plus room for enum and const values.
  auto parsed = parse_untrusted(text, 2 * kMaxSchemaDepth + 16, &why);
  if (!parsed) {
    error = {"/", "", "it is not valid JSON (" + why + ")"};
    return nullptr;
  }
  if (!parsed->is_object() && !parsed->is_bool()) {
    error = {"/", "", "it must be a JSON object (or true or false), not " + shown(*parsed)};
    return nullptr;
  }
  Compiler compiler(error);
  auto root = compiler.node(*parsed, "", 0);
  if (!root) return nullptr;
  std::unique_ptr<ConfigSchema> schema(new ConfigSchema());
  schema->root_ = std::move(root);
  return schema;
}

std::optional<ConfigViolation> ConfigSchema::validate(const json::value& config) const {
  std::string at;
  return Validator().check(*root_, config, at);
}

}  // namespace toolgate::detail
