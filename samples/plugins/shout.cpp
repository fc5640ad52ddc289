// shout.cpp -- post-execute: replace a successful text result with its
// upper-case version.  Denials are left alone.
#include <toolgate/plugin.hpp>

#include <cctype>

namespace sdk = toolgate::sdk;
namespace json = boost::json;

class Shout {
 public:
  explicit Shout(sdk::Init& init) {
    init.post_execute("shout", [](const sdk::Call& call) {
      if (call.denied()) return sdk::PostVerdict::accept();
      json::value result = call.result();
      auto& r = result.as_object();
      if (r["isError"].as_bool()) return sdk::PostVerdict::accept();
      for (auto& block : r["content"].as_array()) {
        auto& b = block.as_object();
        if (b["type"] != "text") continue;
        std::string text(b["text"].as_string());
        for (auto& ch : text) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        b["text"] = text;
      }
      return sdk::PostVerdict::replace(std::move(result));
    });
  }
};

TOOLGATE_PLUGIN(Shout, "sample.shout", "1.0.0", TG_CAP_POST_EXECUTE, 0)
