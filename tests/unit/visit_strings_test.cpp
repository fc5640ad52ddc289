// host->visit_strings (ABI 1.8, toolgate.h) through the C++ SDK's
// Call::for_each_string: which strings, in what order, early stop, the
// stages where there is no result, and the SDK's fallback on an older host
// giving the very same list from the JSON text.
#include "test_support.hpp"

#include <toolgate/json.hpp>

#include <toolgate/toolgate.h>

using namespace tgtest;

namespace {

struct ProbeFixture : Fixture {
  TempDir dir;
  explicit ProbeFixture(const json::object& config) {
    ToolDefinition t;
    t.name = "probe";
    t.execute = [](const ToolContext&) {
      return ToolOutput::success(
          json::object{{"s", "in the value"}, {"n", json::array{true, "y", 3}}},
          json::array{json::object{{"type", "text"}, {"text", "hello"}}});
    };
    host.register_tool(t);
    host.load_manifest(dir.write(
        "probe.json", manifest_for("test.strings-probe", test_plugin("strings_probe"), config)));
  }
  json::array list(std::string_view type) {
    auto events = recorder->of_type(type);
    EXPECT_EQ(events.size(), 1u) << type;
    return events.empty() ? json::array() : events[0].data.at("list").as_array();
  }
};

const json::object arguments{{"b", json::object{{"k", "v"}}}, {"a", json::array{1, "x"}}};

}  // namespace

TEST(VisitStrings, ArgumentsAndResultInDocumentOrderOnThisHostAndFromTheJsonOnAnOlderOne) {
  for (const bool old_host : {false, true}) {
    SCOPED_TRACE(old_host ? "SDK fallback (host 1.7)" : "visit_strings");
    ProbeFixture f({{"old_host", old_host}});
    const auto r = f.call("probe", arguments);
    ASSERT_FALSE(r.is_error);
    // Every string value and object key, each key right before its value.
    EXPECT_EQ(f.list("strings/args"), (json::array{"b", "k", "v", "a", "x"}));
    // The content blocks, then the value; not the result shape's own names.
    const json::array result{"type", "text", "text", "hello", "s", "in the value", "n", "y"};
    EXPECT_EQ(f.list("strings/result"), result);
    EXPECT_EQ(f.list("strings/observed"), result);  // the final result
    const auto args = f.recorder->of_type("strings/args");
    ASSERT_EQ(args.size(), 1u);
    EXPECT_EQ(args[0].data.at("complete"), true);
  }
}

TEST(VisitStrings, AnErrorsStringsButNotItsKeys) {
  for (const bool old_host : {false, true}) {
    SCOPED_TRACE(old_host ? "SDK fallback (host 1.7)" : "visit_strings");
    ProbeFixture f({{"old_host", old_host}});
    f.host.add_guard("embedder", "no",
                     [](const HookCall&) -> std::optional<std::string> { return "not this one"; });
    const auto r = f.call("probe", arguments);
    ASSERT_EQ(code_of(r), "denied");
    EXPECT_EQ(*f.body_runs, 0);
    // Its content block (the denial as text), then its error's strings.
    EXPECT_EQ(f.list("strings/result"),
              (json::array{"type", "text", "text", "not this one", "denied", "not this one",
                           "guard", "embedder/no", "embedder/no", "not this one"}));
  }
}

TEST(VisitStrings, TheCallbackStopsTheWalk) {
  for (const bool old_host : {false, true}) {
    SCOPED_TRACE(old_host ? "SDK fallback (host 1.7)" : "visit_strings");
    ProbeFixture f({{"old_host", old_host}, {"stop_after", 3}});
    ASSERT_FALSE(f.call("probe", arguments).is_error);
    EXPECT_EQ(f.list("strings/args"), (json::array{"b", "k", "v"}));
    EXPECT_EQ(f.list("strings/result"), (json::array{"type", "text", "text"}));
    const auto result = f.recorder->of_type("strings/result");
    ASSERT_EQ(result.size(), 1u);
    EXPECT_EQ(result[0].data.at("complete"), false);
  }
}

TEST(VisitStrings, WhereThereIsNoResultTheSdkThrowsRatherThanListNothing) {
  // A scanner must not take "the host could not walk it" for "no secret".
  for (const bool old_host : {false, true}) {
    SCOPED_TRACE(old_host ? "SDK fallback (host 1.7)" : "visit_strings");
    ProbeFixture f({{"old_host", old_host}});
    ASSERT_FALSE(f.call("probe", arguments).is_error);
    const auto g = f.recorder->of_type("strings/guard");
    ASSERT_EQ(g.size(), 1u);
    EXPECT_NE(g[0].data.at("error"), "") << "a guard walked a result that does not exist yet";
    // And what a visitor throws comes out of for_each_string.
    const auto t = f.recorder->of_type("strings/throws");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].data.at("what"), "thrown by the visitor");
  }
}

TEST(HostApi, OneCallbacksThreadsAnswerAndReadAtOnce) {
  // toolgate.h: every host function is thread-safe.  Four threads of one
  // post-execute callback add 500 contexts each while reading the result
  // and the arguments: none is lost, every read sees the same text.
  ProbeFixture f({{"threads", true}});
  std::vector<ToolCall> calls;
  ToolCall c;
  c.identity.tool = "probe";
  c.arguments = arguments;
  calls.push_back(std::move(c));
  auto batch = f.host.call_batch(std::move(calls));
  ASSERT_FALSE(batch.results.at(0).is_error) << batch.results.at(0).error->message;
  EXPECT_EQ(batch.additional_contexts.size(), 2000u);
  const auto t = f.recorder->of_type("strings/threads");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].data.at("same"), true);
}
