// args.hpp -- reading call arguments by JSON Pointer, cheaply.
//
// The host keeps the arguments parsed and answers single lookups by pointer
// (host->arg_get), so a guard that needs a few fields never parses the whole
// document.  LazyArgs parses the full object only when something really needs
// it (an object wildcard, a rewrite, a non-scalar comparison), once per call.
#pragma once

#include <toolgate/plugin.hpp>

#include <boost/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tgp {

namespace json = boost::json;

// Unescaped tokens of an RFC 6901 pointer ("/a~1b/0" -> {"a/b", "0"}).
std::vector<std::string> pointer_tokens(std::string_view pointer);

class LazyArgs {
 public:
  explicit LazyArgs(const toolgate::sdk::Call& call) : call_(call) {}
  const toolgate::sdk::Call& call() const { return call_; }
  // The whole argument object, parsed on first use.
  const json::object& object();
  // The value at `pointer` in the parsed arguments, or nullptr.
  const json::value* find(const std::string& pointer);

 private:
  const toolgate::sdk::Call& call_;
  std::optional<json::object> parsed_;
};

// Visits every value matching `pattern`, a JSON Pointer in which a token "*"
// stands for every element of an array or every member of an object
// ("/paths/*", "/edits/*/file").  The callback gets the concrete pointer and
// the value as the host describes it.  Absent prefixes match nothing.
using PointerVisitor = std::function<void(const std::string& pointer, const tg_json_value& value)>;
void expand_pointer(LazyArgs& args, const std::string& pattern, const PointerVisitor& visit);

}  // namespace tgp
