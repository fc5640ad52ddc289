// The texts that translate a 2025-era HTTP session to and from the
// 2026-07-28 gateway (host/mcp/src/legacy_http.hpp).
#include "input_requests.hpp"
#include "legacy_http.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <stdexcept>

using namespace toolgate::mcp;
namespace json = boost::json;

TEST(McpLegacyHttp, TheVersionIsTheOneAskedWhenTheListenerSpeaksIt) {
  EXPECT_EQ(legacy_version_for(json::parse(R"({"protocolVersion":"2025-06-18"})").as_object()),
            "2025-06-18");
  EXPECT_EQ(legacy_version_for(json::parse(R"({"protocolVersion":"2025-11-25"})").as_object()),
            "2025-11-25");
  EXPECT_EQ(legacy_version_for(json::parse(R"({"protocolVersion":"2024-11-05"})").as_object()),
            "2025-11-25");
  EXPECT_EQ(legacy_version_for(json::parse(R"({"protocolVersion":7})").as_object()), "2025-11-25");
  EXPECT_EQ(legacy_version_for({}), "2025-11-25");
}

TEST(McpLegacyHttp, EachRequestCarriesTheSessionsDeclarationsWhateverItsOwnMetaSays) {
  const auto init =
      json::parse(R"({"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},)"
                  R"("clientInfo":{"name":"c","version":"1"}})")
          .as_object();
  const auto envelope = legacy_envelope(init);
  const std::string request =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"n":1.10},)"
      R"("_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"k":2}}})";
  const auto out = json::parse(with_envelope(request, envelope)).as_object();
  const auto& meta = out.at("params").at("_meta").as_object();
  EXPECT_EQ(meta.at("io.modelcontextprotocol/protocolVersion"), "2026-07-28");
  EXPECT_EQ(json::serialize(meta.at("io.modelcontextprotocol/clientCapabilities")),
            R"({"elicitation":{}})");
  EXPECT_EQ(meta.at("io.modelcontextprotocol/clientInfo").at("name"), "c");
  EXPECT_EQ(meta.at("k"), 2);
  // The arguments keep their bytes.
  EXPECT_NE(with_envelope(request, envelope).find(R"("n":1.10)"), std::string::npos);
  // No capabilities declared: none vouched for.
  const auto bare = legacy_envelope(json::parse(R"({"protocolVersion":"2025-11-25"})").as_object());
  EXPECT_EQ(json::serialize(bare.set.at("io.modelcontextprotocol/clientCapabilities")), "{}");
  EXPECT_TRUE(bare.defaults.empty());
}

TEST(McpLegacyHttp, InitializeResultLeavesOutWhatTheListenerCannotCarry) {
  const auto discover =
      json::parse(
          R"({"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{)"
          R"("tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},)"
          R"("logging":{},"tasks":{"list":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}},)"
          R"("ttlMs":0,"cacheScope":"private","instructions":"be kind",)"
          R"("_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"2"}}})")
          .as_object();
  const auto r = legacy_initialize_result(discover, "2025-06-18");
  EXPECT_EQ(json::serialize(r),
            R"({"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},)"
            R"("resources":{"listChanged":true}},"serverInfo":{"name":"s","version":"2"},)"
            R"("instructions":"be kind"})");
  const auto bare = legacy_initialize_result({}, "2025-11-25");
  EXPECT_EQ(bare.at("serverInfo").at("name"), "toolgate");
}

TEST(McpLegacyHttp, ResultsLoseOnlyTheModernMembers) {
  EXPECT_EQ(without_modern_result_members(
                R"({"jsonrpc":"2.0","id":"a","result":{"resultType":"complete","tools":[],)"
                R"("ttlMs":0,"cacheScope":"private","n":1.50}})"),
            R"({"jsonrpc":"2.0","id":"a","result":{"tools":[],"n":1.50}})");
  const std::string error = R"({"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}})";
  EXPECT_EQ(without_modern_result_members(error), error);
  // Members of that name deeper in the result are the server's.
  const std::string deep = R"({"jsonrpc":"2.0","id":1,"result":{"x":{"resultType":"mine"}}})";
  EXPECT_EQ(without_modern_result_members(deep), deep);
}

TEST(McpLegacyHttp, NotificationsOfTheStreamLoseTheSubscriptionId) {
  EXPECT_EQ(legacy_notification(
                R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{)"
                R"("_meta":{"io.modelcontextprotocol/subscriptionId":7}}})"),
            R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}})");
  EXPECT_EQ(legacy_notification(
                R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{)"
                R"("_meta":{"io.modelcontextprotocol/subscriptionId":7,"k":1}}})"),
            R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{)"
            R"("_meta":{"k":1}}})");
  EXPECT_EQ(legacy_notification(R"({"jsonrpc":"2.0","method":"notifications/subscriptions/)"
                                R"(acknowledged","params":{}})"),
            std::nullopt);
  // The listen params ask for every list change.
  const auto listen = json::parse(legacy_listen_params()).as_object();
  EXPECT_EQ(listen.at("notifications").as_object().size(), 3u);
}

TEST(McpLegacyHttp, TheGatewaysOwnQuestionsAreReadForTheClientAServersAreNot) {
  const std::string text =
      R"({"resultType":"input_required","requestState":"sealed","inputRequests":{)"
      R"("toolgate/approval":{"method":"elicitation/create","params":{"message":"ok?"}}}})";
  const auto result = json::parse(text).as_object();
  const json::object answerable{{"elicitation", json::object{}}};
  EXPECT_THROW(read_input_required(result, text, answerable), std::invalid_argument);
  const auto q = read_input_required(result, text, answerable, QuestionsOf::gateway);
  ASSERT_EQ(q.requests.size(), 1u);
  EXPECT_EQ(question_text(R"("toolgate-1")", q.requests[0].method, q.requests[0].params_text),
            R"({"jsonrpc":"2.0","id":"toolgate-1","method":"elicitation/create",)"
            R"("params":{"message":"ok?"}})");
  // The retry carries the answer and the sealed state first.
  EXPECT_EQ(
      with_input_responses(R"({"name":"w"})", {{"toolgate/approval", R"({"action":"accept"})"}},
                           q.request_state),
      R"({"inputResponses":{"toolgate/approval":{"action":"accept"}},)"
      R"("requestState":"sealed","name":"w"})");
}
