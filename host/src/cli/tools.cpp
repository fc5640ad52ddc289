// tools.cpp -- `toolgate tools M... [--typescript] [--json] [--code-mode]`
// The tools a call through these manifests can reach: one line each, as
// JSON, or as the TypeScript declarations a Code Mode script sees.
#include "options.hpp"

#include <toolgate/json.hpp>

#include <cstdio>

namespace toolgate::cli {

namespace json = boost::json;

int run_tools(const Args& args) {
  CommonOptions o;
  auto rest = parse_common(args, o, {"--stub", "--code-sandbox", "--tools", "--workspace"},
                           {"--typescript", "--json", "--code-mode"});
  auto stubs = stub_tools(rest);
  for (auto& t : tool_set_flags(rest)) stubs.push_back(std::move(t));
  auto code_mode = code_mode_flags(rest);
  use_default_manifests_if_none(o);
  auto host = make_host(o, nullptr, std::move(stubs));
  if (code_mode) host->enable_code_mode(*code_mode);
  if (has_flag(rest, "--typescript")) {
    std::printf("%s", host->typescript_declarations().c_str());
    return 0;
  }
  const auto tools = host->tools_json();
  if (has_flag(rest, "--json")) {
    std::printf("%s\n", to_json_text(tools).c_str());
    return 0;
  }
  for (const auto& t : tools) {
    const auto& o2 = t.as_object();
    std::string desc(o2.at("description").as_string());
    if (auto nl = desc.find('\n'); nl != std::string::npos) desc = desc.substr(0, nl);
    std::printf("%-24s %s\n", std::string(o2.at("name").as_string()).c_str(), desc.c_str());
  }
  return 0;
}

}  // namespace toolgate::cli
