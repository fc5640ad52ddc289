// typescript.hpp -- TypeScript declarations of tools, from their JSON
// Schemas: what a Code Mode script is told about each tool's arguments and
// result (run_code's description).
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace toolgate::detail {

// One tool as a script sees it.  The pointers are borrowed for the call.
struct TypeScriptTool {
  std::string_view name;
  std::string_view description;
  // JSON Schemas, each null or nullptr when the tool has none; without an
  // output schema a call's result is `unknown`.
  const boost::json::value* input_schema = nullptr;
  const boost::json::value* output_schema = nullptr;
};

// The TypeScript type a JSON Schema describes ("unknown" when it says nothing
// usable).  Bounded: a deep or huge schema yields `unknown`, never a huge
// text.
std::string typescript_type(const boost::json::value& schema);

// The whole declaration text a script sees, tools in the order given: the
// `tools` object, callTool, ToolError, ToolDenied and console.  The same
// input always gives the same text.
std::string typescript_declarations(const std::vector<TypeScriptTool>& tools);

}  // namespace toolgate::detail
