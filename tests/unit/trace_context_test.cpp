// W3C trace context on a call (toolgate/trace_context.hpp): which values
// are carried, and where a carried one shows up -- the tool/call event and
// the outcome a result observer (the audit plugin) reads.
#include "test_support.hpp"

#include <toolgate/trace_context.hpp>

using namespace tgtest;

namespace {

constexpr const char* parent = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

}  // namespace

TEST(TraceContext, TraceparentAsW3CDefinesIt) {
  EXPECT_TRUE(valid_traceparent(parent));
  EXPECT_TRUE(valid_traceparent("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-00"));
  // A later version may carry more fields after a dash: hex and dashes only,
  // since the value goes on in an HTTP header (no CR LF smuggled in from a
  // body's _meta), and at most 256 characters.
  EXPECT_TRUE(valid_traceparent("01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-0a1b"));
  EXPECT_FALSE(valid_traceparent(
      "01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-\r\nX-Injected: 1"));
  EXPECT_FALSE(valid_traceparent("01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-a b"));
  EXPECT_FALSE(valid_traceparent("01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-" +
                                 std::string(300, 'a')));
  EXPECT_FALSE(valid_traceparent("01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01x"));
  EXPECT_FALSE(valid_traceparent("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-x"));
  EXPECT_FALSE(valid_traceparent("ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"));
  EXPECT_FALSE(valid_traceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01"));
  EXPECT_FALSE(valid_traceparent("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"));
  EXPECT_FALSE(valid_traceparent("00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01"));
  EXPECT_FALSE(valid_traceparent("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7"));
  EXPECT_FALSE(valid_traceparent("00_0af7651916cd43dd8448eb211c80319c_00f067aa0ba902b7_01"));
  EXPECT_FALSE(valid_traceparent(""));
}

TEST(TraceContext, TracestateIsKeptOnlyWithAValidParentAndWithinBounds) {
  auto t = trace_context_of(parent, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
  EXPECT_EQ(t.traceparent, parent);
  EXPECT_EQ(t.tracestate, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
  EXPECT_TRUE(trace_context_of("not-a-traceparent", "rojo=1").empty());
  EXPECT_TRUE(trace_context_of("not-a-traceparent", "rojo=1").tracestate.empty());
  t = trace_context_of(parent, std::string(513, 'a'));
  EXPECT_EQ(t.traceparent, parent);
  EXPECT_EQ(t.tracestate, "");
  EXPECT_EQ(trace_context_of(parent, "a=1\nb=2").tracestate, "");
}

// The outcomes a result observer (the audit plugin's place) sees, as JSON.
static void record_outcomes(Fixture& f, std::vector<json::object>& outcomes) {
  f.host.add_result_observer("audit", {"record"},
                             [&](const Outcome& o) { outcomes.push_back(o.to_json()); });
}

TEST(TraceContext, ACallCarriesItIntoItsEventAndTheObserversOutcome) {
  Fixture f;
  std::vector<json::object> outcomes;
  record_outcomes(f, outcomes);
  ToolCall c;
  c.identity.tool = "echo";
  c.identity.call_id = "traced";
  c.identity.trace = {parent, "rojo=00f067aa0ba902b7"};
  c.arguments = json::object{};
  EXPECT_FALSE(f.host.call(std::move(c)).is_error);
  auto calls = f.recorder->of_type("tool/call");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].data.at("traceparent"), parent);
  EXPECT_EQ(calls[0].data.at("tracestate"), "rojo=00f067aa0ba902b7");
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].at("call").at("traceparent"), parent);
  EXPECT_EQ(outcomes[0].at("call").at("tracestate"), "rojo=00f067aa0ba902b7");
}

TEST(TraceContext, OneThatIsNotValidIsDroppedAndACallWithoutOneSaysNothing) {
  Fixture f;
  std::vector<json::object> outcomes;
  record_outcomes(f, outcomes);
  ToolCall bad;
  bad.identity.tool = "echo";
  bad.identity.trace = {"00-xyz", "rojo=1"};
  bad.arguments = json::object{};
  EXPECT_FALSE(f.host.call(std::move(bad)).is_error);
  f.call("echo");
  auto calls = f.recorder->of_type("tool/call");
  ASSERT_EQ(calls.size(), 2u);
  for (const auto& e : calls) {
    EXPECT_FALSE(e.data.contains("traceparent"));
    EXPECT_FALSE(e.data.contains("tracestate"));
  }
  ASSERT_EQ(outcomes.size(), 2u);
  for (const auto& o : outcomes) EXPECT_FALSE(o.at("call").as_object().contains("traceparent"));
}
