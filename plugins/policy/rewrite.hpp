// rewrite.hpp -- argument rewrites a policy rule applies: set a value at a
// JSON Pointer (creating missing parent objects) or remove one.
#pragma once

#include "../common/config.hpp"

#include <string>
#include <utility>
#include <vector>

namespace tgp::policy {

struct Rewrite {
  std::vector<std::pair<std::string, json::value>> set;  // applied first, in order
  std::vector<std::string> remove;                       // then these
  bool empty() const { return set.empty() && remove.empty(); }
  // Applies to `args`.  Throws std::runtime_error when a pointer cannot be
  // followed (a parent is a scalar): the hook then fails and the call ends as
  // an error, never runs with half-applied arguments.
  void apply(json::object& args) const;
};

}  // namespace tgp::policy
