// tool_filter.hpp -- which tools a hook applies to: a glob list with "!"
// excludes, from the manifest's "tools".  Applied before a hook is invoked:
// a hook whose filter does not match a tool is never called for it.
//
// The matching itself is the SDK's <toolgate/glob.hpp>, so plugins that take
// tool lists in their config match them exactly as the host does.
#pragma once

#include <toolgate/glob.hpp>

namespace toolgate::detail {

using sdk::glob_match;
using ToolFilter = sdk::GlobList;

}  // namespace toolgate::detail
