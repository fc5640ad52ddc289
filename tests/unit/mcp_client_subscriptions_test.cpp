// A 2026-07-28 client's subscriptions in front of a 2025 server
// (host/mcp/src/client_subscriptions.hpp): acknowledged with what the
// server announces, delivered under their ids, bounded in number.
#include "client_subscriptions.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

using namespace toolgate::mcp;
namespace json = boost::json;

namespace {
const json::object tools_change = json::parse(R"({"tools":{"listChanged":true}})").as_object();
const json::object asks_tools =
    json::parse(R"({"notifications":{"toolsListChanged":true}})").as_object();
}  // namespace

TEST(McpClientSubscriptions, OpenedDeliveredClosedAndBounded) {
  ClientSubscriptions subs;
  int acknowledged = 0;
  auto ack = [&](json::object) { ++acknowledged; };
  for (std::size_t i = 0; i < ClientSubscriptions::max_open; ++i)
    ASSERT_EQ(subs.open(json::value(i), asks_tools, tools_change, ack),
              ClientSubscriptions::Opened::yes);
  EXPECT_EQ(subs.open(json::value(0), asks_tools, tools_change, ack),
            ClientSubscriptions::Opened::id_in_use);
  // Each is kept until cancelled: one more is refused, not kept.
  EXPECT_EQ(subs.open(json::value("one more"), asks_tools, tools_change, ack),
            ClientSubscriptions::Opened::too_many);
  EXPECT_EQ(acknowledged, int(ClientSubscriptions::max_open));
  int delivered = 0;
  subs.deliver("notifications/tools/list_changed", [&](const json::object&) { ++delivered; });
  EXPECT_EQ(delivered, int(ClientSubscriptions::max_open));
  // Cancelling one makes room.
  EXPECT_TRUE(subs.cancel(json::value(3)));
  EXPECT_EQ(subs.open(json::value("one more"), asks_tools, tools_change, ack),
            ClientSubscriptions::Opened::yes);
}
