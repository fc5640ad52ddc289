// canonical_json.hpp -- one spelling per JSON value, and its SHA-256: what
// tool pins and sealed request states (sealed_state.hpp) are computed over.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace toolgate::mcp {

// Keys sorted byte-wise at every level, numbers in their shortest exact
// form, no spaces: two spellings of one value give one text.
std::string canonical_json_text(const boost::json::value& v);
// The lowercase hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);

}  // namespace toolgate::mcp
