// variables.hpp -- ${NAME} in a plugin's config (docs/design.md §8.1).
//
// One manifest should serve every project: a guard's allowed folder is "the
// workspace", not /home/me/project.  A string in a plugin's "config" may
// name a variable as ${NAME} (letters, digits, '_'; not starting with a
// digit); the loader replaces it with the value the embedder or the command
// line gives (LoadOptions::variables, --var NAME=VALUE) before the plugin's
// config schema is checked.  A name with no value is a load error naming
// where it is used (fail closed: a guard must never get an empty or
// guessed folder), and so is a "${" that starts no variable; "$${" is a
// literal "${".  Only string values are expanded, not keys.
#pragma once

#include <boost/json/value.hpp>

#include <map>
#include <string>

namespace toolgate::detail {

using Variables = std::map<std::string, std::string, std::less<>>;

// Expands every string in `v`; throws LoadError naming `file` and the JSON
// Pointer (`json_path` + the string's own) of a bad or undefined use.
void expand_variables(boost::json::value& v, const Variables& variables, const std::string& file,
                      const std::string& json_path);

}  // namespace toolgate::detail
