// uri_template.hpp -- whether a URI is one expansion of an RFC 6570 URI
// template: how a server group (server_group.hpp) finds the server of a
// resource URI that no server lists but one server's template describes.
#pragma once

#include <string_view>

namespace toolgate::mcp {

// Literal text must match as it is; {+x} and {#x} match any text; {?x} and
// {&x} match the rest of a query (or nothing); any other expression matches
// one segment (text without / ? #).  Bounded: a template that would take
// long to decide does not match.
bool uri_template_matches(std::string_view tmpl, std::string_view uri);

}  // namespace toolgate::mcp
