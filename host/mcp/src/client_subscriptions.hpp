// client_subscriptions.hpp -- a 2026-07-28 client's subscriptions/listen,
// served by the gateway in front of a 2025 server.
//
// Under 2026-07-28 a client hears of list changes only on a subscription
// it opened (subscriptions/listen), and a server must not send it
// notification types it did not ask for.  A 2025 server knows nothing of
// subscriptions: it sends notifications/*/list_changed to whoever is
// connected.  So the gateway holds the client's subscriptions itself:
// acknowledges each with the part it can honour (the list changes the
// server's capabilities say it announces), and hands each list_changed to
// the subscriptions that asked for it, under their ids.  Resource updates
// (resourceSubscriptions) would need the server's resources/subscribe per
// URI; they are not offered (the acknowledgement leaves them out, as the
// spec allows for what a server does not support).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::mcp {

class ClientSubscriptions {
 public:
  // A subscriptions/listen with id `id` and `params`, where the server's
  // initialize result declared `capabilities`: `acknowledge` gets the
  // params of its notifications/subscriptions/acknowledged (the
  // subscription id in _meta, and the notifications it will get), called
  // before deliver() can hand the subscription anything.  Refused (and
  // nothing acknowledged) when a subscription with that id is open already,
  // or when max_open are: each is kept until the client cancels it.
  enum class Opened { yes, id_in_use, too_many };
  static constexpr std::size_t max_open = 64;
  Opened open(const boost::json::value& id, const boost::json::object& params,
              const boost::json::object& capabilities,
              const std::function<void(boost::json::object)>& acknowledge);
  // The client cancelled the request `id`: true when it was a subscription
  // (now closed).
  bool cancel(const boost::json::value& id);
  // The notifications the client should get for a server's `method`
  // (notifications/tools/list_changed, ...), handed to `send`: one per
  // subscription that asked for it, each carrying its id.
  void deliver(std::string_view method,
               const std::function<void(const boost::json::object&)>& send) const;

 private:
  struct Subscription {
    boost::json::value id;
    std::vector<std::string> methods;  // the notification methods it gets
  };
  mutable std::mutex mutex_;
  std::vector<Subscription> open_;
};

}  // namespace toolgate::mcp
