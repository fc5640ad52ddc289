// json_same.hpp -- two JSON values are the same, structure and keys in
// order, with each harness saying how exactly doubles must agree (a parser
// checked bit for bit, or one known not to be correctly rounded).
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>

template <class DoublesAgree>
bool json_same(const boost::json::value& a, const boost::json::value& b,
               DoublesAgree doubles_agree) {
  if (a.is_double() && b.is_double()) return doubles_agree(a.get_double(), b.get_double());
  if (a.kind() != b.kind()) return false;
  if (const auto* x = a.if_array()) {
    const auto& y = b.get_array();
    if (x->size() != y.size()) return false;
    for (std::size_t i = 0; i < x->size(); ++i)
      if (!json_same((*x)[i], y[i], doubles_agree)) return false;
    return true;
  }
  if (const auto* x = a.if_object()) {
    const auto& y = b.get_object();
    if (x->size() != y.size()) return false;
    auto j = y.begin();
    for (auto i = x->begin(); i != x->end(); ++i, ++j)
      if (i->key() != j->key() || !json_same(i->value(), j->value(), doubles_agree)) return false;
    return true;
  }
  return a == b;
}
