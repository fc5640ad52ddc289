#include "args.hpp"

namespace tgp {

std::vector<std::string> pointer_tokens(std::string_view pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  std::size_t i = 1;  // skip the leading '/'
  std::string cur;
  for (; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    char c = pointer[i];
    if (c == '~' && i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
      cur += pointer[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      cur += c;
    }
  }
  return out;
}

const json::object& LazyArgs::object() {
  if (!parsed_) parsed_ = call_.arguments();
  return *parsed_;
}

const json::value* LazyArgs::find(const std::string& pointer) {
  const json::object& o = object();
  if (pointer.empty()) return nullptr;
  auto tokens = pointer_tokens(pointer);
  const json::value* v = o.if_contains(tokens[0]);
  for (std::size_t i = 1; v && i < tokens.size(); ++i) {
    if (v->is_object()) {
      v = v->get_object().if_contains(tokens[i]);
    } else if (v->is_array()) {
      const auto& a = v->get_array();
      const std::string& t = tokens[i];
      if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos ||
          (t.size() > 1 && t[0] == '0'))
        return nullptr;
      std::size_t idx = std::stoul(t);
      v = idx < a.size() ? &a[idx] : nullptr;
    } else {
      return nullptr;
    }
  }
  return v;
}

namespace {

// One concrete pointer: looked up through the host, visited if present.
void visit_at(LazyArgs& args, const std::string& pointer, const PointerVisitor& visit) {
  if (pointer.empty()) return;
  tg_json_value v{};
  v.struct_size = sizeof v;
  if (args.call().api()->arg_get(args.call().handle(), pointer.c_str(), &v) == TG_OK)
    visit(pointer, v);
}

void walk(LazyArgs& args, const std::vector<std::string>& raw, std::size_t i,
          const std::string& current, const PointerVisitor& visit) {
  if (i == raw.size()) return visit_at(args, current, visit);
  if (raw[i] != "*") {
    walk(args, raw, i + 1, current + "/" + raw[i], visit);
    return;
  }
  // A wildcard: arrays are enumerated through the host without parsing;
  // objects need their keys, so the arguments are parsed (once).
  tg_json_value v{};
  v.struct_size = sizeof v;
  int32_t type = TG_JSON_OBJECT;
  std::size_t size = 0;
  if (!current.empty()) {
    if (args.call().api()->arg_get(args.call().handle(), current.c_str(), &v) != TG_OK) return;
    type = v.type;
    size = v.size;
  }
  if (type == TG_JSON_ARRAY) {
    for (std::size_t k = 0; k < size; ++k)
      walk(args, raw, i + 1, current + "/" + std::to_string(k), visit);
  } else if (type == TG_JSON_OBJECT) {
    const json::object* o = nullptr;
    if (current.empty()) {
      o = &args.object();
    } else {
      const json::value* found = args.find(current);
      if (found && found->is_object()) o = &found->get_object();
    }
    if (!o) return;
    for (const auto& kv : *o) {
      std::string key;
      for (char c : kv.key()) key += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
      walk(args, raw, i + 1, current + "/" + key, visit);
    }
  }
}

}  // namespace

void expand_pointer(LazyArgs& args, const std::string& pattern, const PointerVisitor& visit) {
  // Most patterns have no wildcard: one lookup through the host, no
  // splitting and no string building (a guard checks a dozen such pointers
  // on every call).
  if (pattern.find('*') == std::string::npos) return visit_at(args, pattern, visit);
  // Split on '/', keeping tokens escaped so they can be joined back.
  std::vector<std::string> raw;
  std::size_t i = 1;
  while (i <= pattern.size() && !pattern.empty()) {
    std::size_t j = pattern.find('/', i);
    if (j == std::string::npos) j = pattern.size();
    raw.push_back(pattern.substr(i, j - i));
    i = j + 1;
  }
  walk(args, raw, 0, "", visit);
}

}  // namespace tgp
