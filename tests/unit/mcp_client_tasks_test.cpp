// The gateway's own tasks (host/mcp/src/client_tasks.hpp): a parked
// tasks/result is answered when the call ends, cancellation answers the
// waiters and cancels the call, ttl is clamped, the table is bounded.
#include "client_tasks.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

using namespace toolgate::mcp;
namespace json = boost::json;

namespace {
json::object of(const std::string& task) { return json::object{{"taskId", task}}; }
json::object parsed(const std::string& text) { return json::parse(text).as_object(); }
}  // namespace

TEST(McpClientTasks, AParkedResultIsAnsweredWhenTheCallEnds) {
  ClientTasks t;
  auto id = t.create("call-1", std::nullopt);
  ASSERT_TRUE(id);
  auto created = t.created_result(*id);
  EXPECT_EQ(created.at("task").at("status"), "working");
  EXPECT_EQ(created.at("task").at("ttl"), 3600000);  // an hour when the client gave none
  EXPECT_FALSE(t.result(7, of(*id)));                // parked: nothing to send yet
  auto replies = t.finish(*id, false, R"({"content":[]})");
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].id, 7);
  EXPECT_EQ(replies[0].body_text, R"({"content":[]})");
  // Later asks get it at once; the status says completed.
  auto again = t.result(8, of(*id));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body_text, R"({"content":[]})");
  EXPECT_EQ(parsed(t.get(9, of(*id)).body_text).at("status"), "completed");
  // A JSON-RPC error is a failed task.
  auto other = t.create("call-2", 5000);
  t.finish(*other, true, R"({"code":-32001,"message":"no"})");
  EXPECT_EQ(parsed(t.get(10, of(*other)).body_text).at("status"), "failed");
  EXPECT_TRUE(t.result(11, of(*other))->is_error);
}

TEST(McpClientTasks, CancelAnswersTheWaitersAndCancelsTheCall) {
  ClientTasks t;
  auto id = t.create("call-1", 60000);
  EXPECT_FALSE(t.result(1, of(*id)));
  std::string cancelled;
  auto replies = t.cancel(2, of(*id), [&](const std::string& call) { cancelled = call; });
  EXPECT_EQ(cancelled, "call-1");
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].id, 2);
  EXPECT_EQ(parsed(replies[0].body_text).at("status"), "cancelled");
  EXPECT_EQ(replies[1].id, 1);
  EXPECT_TRUE(replies[1].is_error);
  // The call ending afterwards changes nothing: cancelled stays cancelled.
  EXPECT_TRUE(t.finish(*id, false, "{}").empty());
  EXPECT_TRUE(t.result(3, of(*id))->is_error);
  // A terminal task cannot be cancelled again.
  auto again = t.cancel(4, of(*id), [](const std::string&) { FAIL() << "cancelled twice"; });
  ASSERT_EQ(again.size(), 1u);
  EXPECT_TRUE(again[0].is_error);
}

TEST(McpClientTasks, UnknownIdsTtlClampsAndTheBound) {
  ClientTasks t(2);
  auto r = t.get(1, of("nope"));
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.body_text.find("no task \\\"nope\\\""), std::string::npos) << r.body_text;
  EXPECT_TRUE(t.get(2, json::object{}).is_error);  // no taskId
  auto a = t.create("a", 1);                       // clamped up to 1 s
  auto b = t.create("b", std::int64_t(1) << 50);   // clamped down to 24 h
  EXPECT_EQ(t.created_result(*a).at("task").at("ttl"), 1000);
  EXPECT_EQ(t.created_result(*b).at("task").at("ttl"), 86400000);
  EXPECT_NE(*a, *b);
  EXPECT_FALSE(t.create("c", std::nullopt));  // full: both still working
  // Listed on one page; a cursor (toolgate never gives one) is refused.
  auto list = parsed(t.list(3, json::object{}).body_text).at("tasks").as_array();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(t.list(4, json::object{{"cursor", "x"}}).is_error);
}

TEST(McpClientTasks, ParkedResultsPerTaskAreBounded) {
  // Each parked tasks/result is a request the gateway answers later: a
  // client that sends them without end must not grow the table without end.
  ClientTasks t;
  auto id = t.create("call-1", 60000);
  ASSERT_TRUE(id);
  for (int i = 0; i < int(ClientTasks::max_waiting_per_task); ++i)
    EXPECT_FALSE(t.result(i, of(*id))) << i;  // parked
  auto refused = t.result(-1, of(*id));
  ASSERT_TRUE(refused);
  EXPECT_TRUE(refused->is_error);
  EXPECT_NE(refused->body_text.find("waiting"), std::string::npos) << refused->body_text;
  // The parked ones are all answered when the call ends.
  EXPECT_EQ(t.finish(*id, false, "{}").size(), ClientTasks::max_waiting_per_task);
}
