// call.cpp -- `toolgate call [--manifest M]... TOOL [JSON]`: one call of a
// sample tool through the plugins of the given manifests.
#include "commands.hpp"

#include <toolgate/host.hpp>

#include "sample_tools.hpp"

#include <boost/json/serialize.hpp>

#include <cstdio>
#include <stdexcept>

namespace toolgate::cli {

int run_call(const Args& args) {
  std::vector<std::string> manifests, rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--manifest") {
      if (i + 1 == args.size()) throw std::invalid_argument("--manifest needs a file");
      manifests.push_back(args[++i]);
    } else {
      rest.push_back(args[i]);
    }
  }
  if (rest.empty() || rest.size() > 2)
    throw std::invalid_argument("usage: toolgate call [--manifest M]... TOOL [ARGUMENTS-JSON]");
  Host host;
  host.register_tool(samples::greeting_tool());
  host.register_tool(samples::slow_tool());
  for (const auto& m : manifests) host.load_manifest(m);
  std::string call = "{\"tool\":" + boost::json::serialize(boost::json::string(rest[0])) +
                     ",\"arguments\":" + (rest.size() == 2 ? rest[1] : "{}") + "}";
  ToolResult r = host.call_json(call);
  std::printf("%s\n", boost::json::serialize(r.to_json()).c_str());
  return r.is_error ? 1 : 0;
}

}  // namespace toolgate::cli
