// plan.cpp -- `toolgate plan M... [--tool NAME] [--json]`: the resolved
// order of every stage, with where each hook comes from.
#include "options.hpp"

#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <cstdio>

namespace toolgate::cli {

namespace json = boost::json;

int run_plan(const Args& args) {
  CommonOptions o;
  auto rest = parse_common(args, o, {"--tool"}, {"--json"});
  std::string tool = flag_value(rest, "--tool").value_or("");
  use_default_manifests_if_none(o);
  LoadReport report;
  auto host = make_host(o, &report);
  json::object plan = host->plan(tool);
  if (has_flag(rest, "--json")) {
    std::printf("%s\n", to_json_text(plan).c_str());
    return 0;
  }
  std::printf("plan%s%s (layers:", tool.empty() ? "" : " for tool ", tool.c_str());
  for (const auto& l : report.layers) std::printf(" %s", l.c_str());
  std::printf(")\n");
  for (const char* stage :
       {"tools/pre-execute", "guard", "tools/execute", "tools/post-execute", "tools/result"}) {
    const auto& hooks = plan.at(stage).as_array();
    std::printf("\n%s%s\n", stage,
                std::string_view(stage) == "guard" ? " (all run; any deny denies)" : "");
    if (hooks.empty()) std::printf("  (none: default path)\n");
    int n = 0;
    for (const auto& hv : hooks) {
      const auto& h = hv.as_object();
      std::string tools;
      for (const auto& t : h.at("tools").as_array()) {
        if (!tools.empty()) tools += ',';
        tools.append(t.as_string().data(), t.as_string().size());
      }
      std::printf("  %d. %-36s layer=%s priority=%lld tools=%s", ++n,
                  std::string(h.at("id").as_string()).c_str(),
                  std::string(h.at("layer").as_string()).c_str(),
                  static_cast<long long>(h.at("priority").as_int64()),
                  tools.empty() ? "*" : tools.c_str());
      if (auto* m = h.if_contains("mode"))
        std::printf(" mode=%s", std::string(m->as_string()).c_str());
      if (h.at("locked").as_bool()) std::printf(" LOCKED");
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace toolgate::cli
