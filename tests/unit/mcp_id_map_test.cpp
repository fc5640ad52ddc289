// Request ids between the gateway and a peer: fresh, matched back, never
// confused between peers' ids.
#include "test_support.hpp"

#include "id_map.hpp"

#include <set>
#include <thread>

using namespace tgtest;
using namespace toolgate::mcp;

TEST(McpIdMap, ForwardedRequestsGetFreshIdsAndMapBack) {
  IdMap m;
  // Both peers use id 1: they must still get different ids from us.
  auto a = m.add_forwarded(json::value(1), "tools/list");
  auto b = m.add_forwarded(json::value("1"), "ping");
  auto own = m.add_own("elicitation/create", std::make_shared<ResponseSlot>());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(std::set<std::int64_t>({*a, *b, own}).size(), 3u);
  auto pa = m.take(json::value(*a));
  ASSERT_TRUE(pa);
  EXPECT_EQ(pa->peer_id, json::value(1));
  EXPECT_EQ(pa->method, "tools/list");
  auto pb = m.take(json::value(*b));
  ASSERT_TRUE(pb);
  EXPECT_EQ(pb->peer_id, json::value("1"));
  auto po = m.take(json::value(own));
  ASSERT_TRUE(po);
  EXPECT_EQ(po->kind, PendingRequest::Kind::own);
  EXPECT_TRUE(po->slot);
  EXPECT_EQ(m.size(), 0u);
}

TEST(McpIdMap, AResponseMatchesOnceAndUnknownIdsMatchNothing) {
  IdMap m;
  auto a = m.add_forwarded(json::value(5), "x");
  ASSERT_TRUE(a);
  EXPECT_TRUE(m.take(json::value(*a)));
  EXPECT_FALSE(m.take(json::value(*a)));                  // a second response is dropped
  EXPECT_FALSE(m.take(json::value(std::to_string(*a))));  // we only issue integers
  EXPECT_FALSE(m.take(json::value(-1)));
  EXPECT_FALSE(m.take(json::value(nullptr)));
  EXPECT_FALSE(m.take(json::value(1.0)));
  EXPECT_FALSE(m.take(json::value(std::uint64_t(1) << 63)));
}

TEST(McpIdMap, APeerIdStillPendingCannotBeReused) {
  IdMap m;
  auto a = m.add_forwarded(json::value("req"), "x");
  ASSERT_TRUE(a);
  EXPECT_FALSE(m.add_forwarded(json::value("req"), "y"));
  EXPECT_EQ(m.find_forwarded(json::value("req")), a);
  EXPECT_FALSE(m.find_forwarded(json::value("other")));
  m.take(json::value(*a));
  EXPECT_FALSE(m.find_forwarded(json::value("req")));
  EXPECT_TRUE(m.add_forwarded(json::value("req"), "z"));  // answered: free again
}

TEST(McpIdMap, EraseAndTakeAllEmptyTheMap) {
  IdMap m;
  auto a = m.add_forwarded(json::value(1), "x");
  auto slot = std::make_shared<ResponseSlot>();
  m.add_own("tools/call", slot);
  EXPECT_TRUE(m.erase(*a));
  EXPECT_FALSE(m.erase(*a));
  EXPECT_FALSE(m.find_forwarded(json::value(1)));
  auto all = m.take_all();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].slot, slot);
  EXPECT_EQ(m.size(), 0u);
}

TEST(McpIdMap, ConcurrentRequestsGetUniqueIds) {
  IdMap m;
  std::vector<std::vector<std::int64_t>> ids(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) ids[t].push_back(m.add_own("x", nullptr));
    });
  for (auto& t : threads) t.join();
  std::set<std::int64_t> all;
  for (auto& v : ids) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 2000u);
}

TEST(McpResponseSlot, DeliversOnceAndWakesTheWaiter) {
  auto slot = std::make_shared<ResponseSlot>();
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    slot->deliver(json::object{{"id", 1}, {"result", json::object{}}});
    slot->fail("too late");  // ignored: already done
  });
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!slot->wait_until(until)) {
  }
  t.join();
  ASSERT_TRUE(slot->response());
  EXPECT_TRUE(slot->failure().empty());
}

TEST(McpResponseSlot, FailureAndPoke) {
  ResponseSlot slot;
  slot.poke();
  EXPECT_FALSE(slot.wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
  slot.fail("the MCP server exited with status 1");
  EXPECT_TRUE(slot.done());
  EXPECT_FALSE(slot.response());
  EXPECT_EQ(slot.failure(), "the MCP server exited with status 1");
}
