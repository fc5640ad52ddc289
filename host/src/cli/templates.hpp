// templates.hpp -- the files `toolgate new-plugin` generates from, embedded
// at build time from src/cli/templates/ (see host/CMakeLists.txt).
#pragma once

#include <string_view>
#include <vector>

namespace toolgate::cli {

struct TemplateFile {
  std::string_view path;  // relative to src/cli/templates/, e.g. "c/guard.c"
  std::string_view text;
};

const std::vector<TemplateFile>& template_files();

}  // namespace toolgate::cli
