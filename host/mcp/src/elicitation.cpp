#include "elicitation.hpp"

#include "jsonrpc.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <string>

namespace toolgate::mcp {

namespace json = boost::json;

// 2025-06-18 declares `elicitation: {}`; 2025-11-25 may list modes
// ({form: {}, url: {}}), and an empty object still means form.
bool client_can_elicit_forms(const json::object& init_params) {
  const auto* caps = init_params.if_contains("capabilities");
  if (!caps || !caps->is_object()) return false;
  const auto* e = caps->get_object().if_contains("elicitation");
  if (!e || !e->is_object()) return false;
  const auto& o = e->get_object();
  return o.empty() || o.contains("form") || !o.contains("url");
}

json::object elicitation_params(const ApprovalRequest& r, std::string_view protocol_version) {
  std::string message =
      "toolgate: approval needed -- " + std::string(r.reason) + "\n\nTool: " + r.identity.tool +
      "\nArguments: " + to_json_text(r.arguments) + "\nAsked by: " + std::string(r.source) +
      "\n\nAccept to run this call once; decline to refuse it.";
  json::object params{{"message", message},
                      {"requestedSchema", {{"type", "object"}, {"properties", json::object{}}}}};
  if (protocol_version >= "2025-11-25") params["mode"] = "form";
  return params;
}

ApprovalAnswer approval_from_response(const json::object& response) {
  if (const auto* e = response.if_contains("error")) {
    spdlog::warn("the client answered elicitation/create with an error: {}", text_of(*e));
    return ApprovalAnswer::unavailable;
  }
  const auto* result = response.at("result").if_object();
  const auto* action = result ? result->if_contains("action") : nullptr;
  if (action && action->is_string()) {
    auto a = action->get_string();
    if (a == "accept") return ApprovalAnswer::allowed_once;
    if (a == "decline") return ApprovalAnswer::rejected;
    if (a == "cancel") return ApprovalAnswer::cancelled;
  }
  spdlog::warn("the client answered elicitation/create without a known action: {}",
               text_of(response.at("result")));
  return ApprovalAnswer::rejected;  // never allow on an answer we do not understand
}

}  // namespace toolgate::mcp
