// A 2026-07-28 server's questions (input_required) read from its result, and
// the answers put into the retry (host/mcp/src/input_requests.hpp).
#include "input_requests.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <stdexcept>

using namespace toolgate::mcp;
namespace json = boost::json;

namespace {
const json::object everything = {
    {"elicitation", json::object{}}, {"sampling", json::object{}}, {"roots", json::object{}}};

InputRequired read(std::string_view result_text, const json::object& answerable = everything) {
  return read_input_required(json::parse(result_text).as_object(), result_text, answerable);
}

// The message of what read() throws, or "" when it does not.
std::string refusal(std::string_view result_text, const json::object& answerable = everything) {
  try {
    read(result_text, answerable);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(McpInputRequests, ReadsEachQuestionWithTheParamsAsTheServerWroteThem) {
  const std::string text =
      R"({"resultType":"input_required","requestState":"s-1","inputRequests":{)"
      R"("who":{"method":"elicitation/create","params":{"message":"name?","n":5E-1}},)"
      R"("where":{"method":"roots/list"}}})";
  EXPECT_TRUE(is_input_required(json::parse(text).as_object()));
  const auto q = read(text);
  ASSERT_EQ(q.requests.size(), 2u);
  EXPECT_EQ(q.requests[0].key, "who");
  EXPECT_EQ(q.requests[0].method, "elicitation/create");
  EXPECT_EQ(q.requests[0].params_text, R"({"message":"name?","n":5E-1})");
  EXPECT_EQ(q.requests[1].method, "roots/list");
  EXPECT_TRUE(q.requests[1].params.empty());
  EXPECT_EQ(q.request_state, "s-1");
  // A state alone is a question too: the client retries at once.
  EXPECT_TRUE(read(R"({"resultType":"input_required","requestState":"x"})").requests.empty());
}

TEST(McpInputRequests, RefusesWhatBreaksTheProtocolNamingIt) {
  EXPECT_NE(refusal(R"({"resultType":"input_required"})").find("neither inputRequests nor"),
            std::string::npos);
  EXPECT_NE(
      refusal(R"({"resultType":"input_required","inputRequests":{"a":{"method":"tools/call"}}})")
          .find("\"a\" is tools/call, which is not a question"),
      std::string::npos);
  EXPECT_NE(refusal(R"({"resultType":"input_required","inputRequests":{"a":{"params":{}}}})")
                .find("has no method"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"resultType":"input_required","requestState":7})").find("not a string"),
            std::string::npos);
  // A question named like the gateway's own approval cannot pose as it.
  EXPECT_NE(refusal(R"({"resultType":"input_required","inputRequests":{)"
                    R"("toolgate/approval":{"method":"elicitation/create","params":{}}}})")
                .find("named like one of toolgate's own questions"),
            std::string::npos);
  // Asked what the client never said it can answer: refused, not passed on.
  EXPECT_NE(refusal(R"({"resultType":"input_required","inputRequests":{)"
                    R"("m":{"method":"sampling/createMessage","params":{}}}})",
                    json::object{{"elicitation", json::object{}}})
                .find("did not declare it can answer"),
            std::string::npos);
}

TEST(McpInputRequests, DeclaresOnlyWhatAClientCanBeAsked) {
  const json::object declared = {{"elicitation", json::object{{"form", json::object{}}}},
                                 {"tasks", json::object{}},
                                 {"experimental", json::object{}},
                                 {"roots", json::object{{"listChanged", true}}}};
  EXPECT_EQ(answerable_capabilities(&declared),
            (json::object{{"elicitation", json::object{{"form", json::object{}}}},
                          {"roots", json::object{{"listChanged", true}}}}));
  EXPECT_TRUE(answerable_capabilities(nullptr).empty());
}

TEST(McpInputRequests, TheRetryCarriesTheAnswersAsGivenAndTheServersState) {
  const std::string params = R"({"name":"t","arguments":{"n":1E2}})";
  const std::string out =
      with_input_responses(params, {{"who", R"({"action":"accept","content":{"n":5E-1}})"}}, "s-1");
  EXPECT_EQ(out, R"({"inputResponses":{"who":{"action":"accept","content":{"n":5E-1}}},)"
                 R"("requestState":"s-1","name":"t","arguments":{"n":1E2}})");
  // No state: none is sent (the client MUST NOT invent one).
  EXPECT_EQ(with_input_responses(params, {}, std::nullopt),
            R"({"inputResponses":{},"name":"t","arguments":{"n":1E2}})");
}
