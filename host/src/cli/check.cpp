// check.cpp -- `toolgate check M...`: load the stack without running a call.
// Every manifest is parsed on its own first, so syntax and format errors in
// several files are all reported; then the stack is loaded as a whole.
#include "options.hpp"

#include "../loading/manifest.hpp"

#include <cstdio>

namespace toolgate::cli {

int run_check(const Args& args) {
  CommonOptions o;
  auto rest = parse_common(args, o);
  use_default_manifests_if_none(o);
  int errors = 0;
  std::vector<std::filesystem::path> files;
  try {
    files = detail::expand_manifest_paths({o.manifests.begin(), o.manifests.end()});
  } catch (const LoadError& e) {
    std::fprintf(stderr, "toolgate check: error: %s\n", e.what());
    return 1;
  }
  for (const auto& f : files) {
    try {
      detail::read_manifest(f, o.load.allow_insecure_plugin_permissions);
    } catch (const LoadError& e) {
      std::fprintf(stderr, "toolgate check: error: %s\n", e.what());
      ++errors;
    }
  }
  if (errors) return 1;
  LoadReport report;
  std::unique_ptr<Host> host;
  try {
    host = make_host(o, &report);
  } catch (const LoadError& e) {
    std::fprintf(stderr, "toolgate check: error: %s\n", e.what());
    return 1;
  }
  auto plan = host->plan();
  std::size_t hooks = 0, locked = 0;
  for (const auto& kv : plan)
    if (kv.value().is_array())
      for (const auto& h : kv.value().get_array()) {
        ++hooks;
        locked += h.at("locked").as_bool();
      }
  std::printf("ok: %zu layer%s, %zu plugin%s, %zu hook%s (%zu locked)", report.layers.size(),
              report.layers.size() == 1 ? "" : "s", report.plugins.size(),
              report.plugins.size() == 1 ? "" : "s", hooks, hooks == 1 ? "" : "s", locked);
  // The warnings themselves went to stderr as the plugins loaded; "ok"
  // alone would hide them.
  if (const auto n = report.build_warnings.size())
    std::printf(", with %zu build warning%s (on stderr; --strict refuses such plugins)", n,
                n == 1 ? "" : "s");
  std::printf("\n");
  return 0;
}

}  // namespace toolgate::cli
