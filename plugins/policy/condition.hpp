// condition.hpp -- one argument condition of a policy rule.
//
//   {"pointer": "/mode", "equals": "force"}        exact JSON equality
//   {"pointer": "/branch", "one_of": ["main", "release"]}
//   {"pointer": "/path", "glob": "*.lock"}          name glob over a string
//   {"pointer": "/command", "regex": "git push.*--force"}   RE2, unanchored
//   {"pointer": "/url", "prefix": "https://internal."}
//   {"pointer": "/dry_run", "exists": false}
// plus "not": true to negate.  Scalars are compared through the host's
// pointer lookup without parsing the arguments.
#pragma once

#include "../common/args.hpp"
#include "../common/config.hpp"

#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

namespace tgp::policy {

class Condition {
 public:
  // Parses and validates one condition; throws ConfigError naming `path`.
  Condition(const json::value& config, const std::string& path);
  bool holds(LazyArgs& args) const;

 private:
  enum class Op { equals, one_of, glob, regex, prefix, exists };
  bool equal_to(LazyArgs& args, const tg_json_value& actual, const json::value& expected) const;

  std::string pointer_;
  Op op_ = Op::exists;
  bool negate_ = false;
  bool exists_ = true;
  std::vector<json::value> values_;  // equals (one) / one_of (many)
  std::string text_;                 // glob / prefix
  std::shared_ptr<const RE2> regex_;
};

}  // namespace tgp::policy
