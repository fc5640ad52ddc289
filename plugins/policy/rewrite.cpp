#include "rewrite.hpp"

#include "../common/args.hpp"

#include <stdexcept>

namespace tgp::policy {

namespace {

bool array_index(const std::string& t, std::size_t size, std::size_t* out) {
  if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos ||
      (t.size() > 1 && t[0] == '0'))
    return false;
  *out = std::stoul(t);
  return *out <= size;
}

void set_at(json::object& root, const std::string& pointer, const json::value& value) {
  auto tokens = pointer_tokens(pointer);
  json::value* parent = nullptr;  // nullptr: the root object
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    json::value* next = nullptr;
    if (!parent) {
      next = &root[t];  // creates null when missing
    } else if (parent->is_object()) {
      next = &parent->get_object()[t];
    } else if (parent->is_array()) {
      std::size_t idx;
      auto& a = parent->get_array();
      if (!array_index(t, a.size(), &idx) || idx == a.size())
        throw std::runtime_error("cannot set " + pointer + ": no array element \"" + t + "\"");
      next = &a[idx];
    } else {
      throw std::runtime_error("cannot set " + pointer + ": a parent is not an object");
    }
    if (next->is_null()) *next = json::object();
    parent = next;
  }
  const std::string& last = tokens.back();
  if (!parent) {
    root[last] = value;
  } else if (parent->is_object()) {
    parent->get_object()[last] = value;
  } else if (parent->is_array()) {
    auto& a = parent->get_array();
    std::size_t idx;
    if (last == "-")
      a.push_back(value);
    else if (array_index(last, a.size(), &idx))
      idx == a.size() ? a.push_back(value) : void(a[idx] = value);
    else
      throw std::runtime_error("cannot set " + pointer + ": \"" + last + "\" is not an index");
  } else {
    throw std::runtime_error("cannot set " + pointer + ": the parent is not an object or array");
  }
}

void remove_at(json::object& root, const std::string& pointer) {
  auto tokens = pointer_tokens(pointer);
  json::value* parent = nullptr;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    json::value* next = nullptr;
    if (!parent) {
      next = root.if_contains(tokens[i]);
    } else if (parent->is_object()) {
      next = parent->get_object().if_contains(tokens[i]);
    } else if (parent->is_array()) {
      std::size_t idx;
      auto& a = parent->get_array();
      if (array_index(tokens[i], a.size(), &idx) && idx < a.size()) next = &a[idx];
    }
    if (!next) return;  // nothing there: removing it is already done
    parent = next;
  }
  const std::string& last = tokens.back();
  if (!parent) {
    root.erase(last);
  } else if (parent->is_object()) {
    parent->get_object().erase(last);
  } else if (parent->is_array()) {
    std::size_t idx;
    auto& a = parent->get_array();
    if (array_index(last, a.size(), &idx) && idx < a.size()) a.erase(a.begin() + idx);
  }
}

}  // namespace

void Rewrite::apply(json::object& args) const {
  for (const auto& [pointer, value] : set) set_at(args, pointer, value);
  for (const auto& pointer : remove) remove_at(args, pointer);
}

}  // namespace tgp::policy
