// canonical_json.hpp -- the SHA-256 of a value's one spelling
// (toolgate::canonical_json_text): what tool pins and sealed request states
// (sealed_state.hpp) are computed over.
#pragma once

#include <toolgate/json.hpp>

#include <string>
#include <string_view>

namespace toolgate::mcp {

// The lowercase hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);

}  // namespace toolgate::mcp
