#include "condition.hpp"

#include "../common/glob.hpp"
#include "../common/re2_pin.hpp"

#include <toolgate/toolgate.h>

namespace tgp::policy {

namespace {
std::string_view view(tg_str s) {
  return s.data ? std::string_view(s.data, s.size) : std::string_view();
}
}  // namespace

Condition::Condition(const json::value& config, const std::string& path) {
  ConfigObject c = ConfigObject::of(config, path);
  c.only({"pointer", "equals", "one_of", "glob", "regex", "prefix", "exists", "not"});
  pointer_ = c.string("pointer");
  check_pointer_syntax(pointer_, c.path("pointer"));
  negate_ = c.boolean("not", false);

  int ops = 0;
  for (auto k : {"equals", "one_of", "glob", "regex", "prefix", "exists"}) ops += c.has(k) ? 1 : 0;
  if (ops != 1)
    throw ConfigError(path,
                      "a condition needs exactly one of \"equals\", \"one_of\", \"glob\", "
                      "\"regex\", \"prefix\", \"exists\" (it has " +
                          std::to_string(ops) + ")");
  if (const auto* v = c.get("equals")) {
    op_ = Op::equals;
    values_.push_back(*v);
  } else if (c.has("one_of")) {
    op_ = Op::one_of;
    const auto& a = c.array("one_of");
    if (a.empty()) throw ConfigError(c.path("one_of"), "must list at least one value");
    values_.assign(a.begin(), a.end());
  } else if (c.has("glob")) {
    op_ = Op::glob;
    text_ = c.string("glob");
  } else if (c.has("prefix")) {
    op_ = Op::prefix;
    text_ = c.string("prefix");
  } else if (c.has("regex")) {
    op_ = Op::regex;
    std::string pattern = c.string("regex");
    pin_re2();
    RE2::Options o;
    o.set_log_errors(false);
    auto re = std::make_shared<const RE2>(pattern, o);
    if (!re->ok())
      throw ConfigError(c.path("regex"),
                        "is not a valid RE2 regular expression (" + re->error() + ")");
    regex_ = std::move(re);
  } else {
    op_ = Op::exists;
    exists_ = c.boolean("exists");
  }
}

bool Condition::equal_to(LazyArgs& args, const tg_json_value& a, const json::value& e) const {
  switch (a.type) {
    case TG_JSON_NULL:
      return e.is_null();
    case TG_JSON_BOOL:
      return e.is_bool() && e.get_bool() == (a.boolean != 0);
    case TG_JSON_INT:
    case TG_JSON_DOUBLE:
      // 1 and 1.0 are the same number to a policy author.
      return e.is_number() && e.to_number<double>() == a.number;
    case TG_JSON_STRING:
      return e.is_string() && e.get_string() == view(a.string);
    default: {
      // Arrays and objects: compare the parsed subtree.
      if (!(e.is_array() || e.is_object())) return false;
      const json::value* v = args.find(pointer_);
      return v && *v == e;
    }
  }
}

bool Condition::holds(LazyArgs& args) const {
  tg_json_value v{};
  v.struct_size = sizeof v;
  const bool found =
      args.call().api()->arg_get(args.call().handle(), pointer_.c_str(), &v) == TG_OK;
  bool result = false;
  if (op_ == Op::exists) {
    result = found == exists_;
  } else if (found) {
    switch (op_) {
      case Op::equals:
      case Op::one_of:
        for (const auto& e : values_)
          if (equal_to(args, v, e)) {
            result = true;
            break;
          }
        break;
      case Op::glob:
        result = v.type == TG_JSON_STRING && glob_match(text_, view(v.string));
        break;
      case Op::prefix:
        result = v.type == TG_JSON_STRING && view(v.string).substr(0, text_.size()) == text_;
        break;
      case Op::regex:
        if (v.type == TG_JSON_STRING) {
          std::string_view s = view(v.string);
          result = RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *regex_);
        }
        break;
      case Op::exists:
        break;
    }
  }
  return negate_ ? !result : result;
}

}  // namespace tgp::policy
