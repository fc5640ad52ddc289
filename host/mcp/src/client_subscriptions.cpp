#include "client_subscriptions.hpp"

#include "jsonrpc.hpp"

#include <toolgate/json.hpp>

#include <algorithm>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {
constexpr std::string_view subscription_key = "io.modelcontextprotocol/subscriptionId";

// The filter's list-change fields: the capability whose listChanged says
// the server announces them, and the notification they stand for.
struct ListChange {
  std::string_view field, capability, method;
};
constexpr ListChange list_changes[] = {
    {"toolsListChanged", "tools", "notifications/tools/list_changed"},
    {"promptsListChanged", "prompts", "notifications/prompts/list_changed"},
    {"resourcesListChanged", "resources", "notifications/resources/list_changed"},
};

bool announces(const json::object& capabilities, std::string_view capability) {
  const auto* c = capabilities.if_contains(capability);
  const auto* changed = c && c->is_object() ? c->get_object().if_contains("listChanged") : nullptr;
  return changed && changed->is_bool() && changed->get_bool();
}
}  // namespace

ClientSubscriptions::Opened ClientSubscriptions::open(
    const json::value& id, const json::object& params, const json::object& capabilities,
    const std::function<void(json::object)>& acknowledge) {
  const auto* asked = params.if_contains("notifications");
  Subscription s{heap_copy(id), {}};  // kept for as long as it is open
  json::object honoured;
  if (asked && asked->is_object())
    for (const auto& change : list_changes) {
      const auto* wanted = asked->get_object().if_contains(change.field);
      if (!wanted || !wanted->is_bool() || !wanted->get_bool()) continue;
      if (!announces(capabilities, change.capability)) continue;
      honoured[change.field] = true;
      s.methods.emplace_back(change.method);
    }
  std::lock_guard lock(mutex_);
  const auto key = id_key(id);
  if (std::any_of(open_.begin(), open_.end(),
                  [&](const Subscription& o) { return id_key(o.id) == key; }))
    return Opened::id_in_use;
  if (open_.size() >= max_open) return Opened::too_many;
  open_.push_back(std::move(s));
  acknowledge(json::object{{"_meta", json::object{{subscription_key, id}}},
                           {"notifications", std::move(honoured)}});
  return Opened::yes;
}

bool ClientSubscriptions::cancel(const json::value& id) {
  std::lock_guard lock(mutex_);
  const auto key = id_key(id);
  auto it = std::find_if(open_.begin(), open_.end(),
                         [&](const Subscription& o) { return id_key(o.id) == key; });
  if (it == open_.end()) return false;
  open_.erase(it);
  return true;
}

void ClientSubscriptions::deliver(std::string_view method,
                                  const std::function<void(const json::object&)>& send) const {
  std::lock_guard lock(mutex_);
  for (const auto& s : open_)
    if (std::find(s.methods.begin(), s.methods.end(), method) != s.methods.end())
      send(make_notification(std::string(method),
                             json::object{{"_meta", json::object{{subscription_key, s.id}}}}));
}

}  // namespace toolgate::mcp
