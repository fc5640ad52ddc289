// @NAME@.cpp -- a post-execute hook: blocks results that mention "root".
// Post-execute hooks see executed and denied calls and answer accept,
// replace or block; a denial can never become a success.
#include <toolgate/plugin.hpp>

#include <boost/json/serialize.hpp>

namespace sdk = toolgate::sdk;

class @CLASS@ {
 public:
  explicit @CLASS@(sdk::Init& init) {
    init.post_execute("withhold-root", [](const sdk::Call& call) {
      if (boost::json::serialize(call.result()).find("root") != std::string::npos)
        return sdk::PostVerdict::block("results about root are withheld");
      return sdk::PostVerdict::accept();
    });
  }
};

TOOLGATE_PLUGIN(@CLASS@, "@ID@", "0.1.0", TG_CAP_POST_EXECUTE, 0)
