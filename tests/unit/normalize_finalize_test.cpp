// Normalization (§2.8), finalizeContent (§2.9), observers, and exactly one
// tool/result per call.
#include "test_support.hpp"

using namespace tgtest;

namespace {
ToolDefinition tool_returning(json::value v, std::string name = "t") {
  ToolDefinition t;
  t.name = std::move(name);
  t.execute = [v](const ToolContext&) { return ToolOutput::success(v); };
  return t;
}
ToolResult run(Host& host, std::string tool = "t") {
  ToolCall c;
  c.identity.tool = std::move(tool);
  return host.call(std::move(c));
}
}  // namespace

TEST(Normalize, InvalidUtf8FromAToolBecomesSnapshotFailed) {
  Host host;
  host.register_tool(tool_returning(json::string("bad \xC3\x28 bytes")));
  auto r = run(host);
  EXPECT_EQ(code_of(r), "snapshot_failed");
  EXPECT_EQ(r.error->stage, "normalize");
  EXPECT_EQ(r.error->source, "t");
}

TEST(Normalize, AResultOverTheSizeLimitBecomesSnapshotFailed) {
  HostOptions o;
  o.max_result_bytes = 1000;
  Host host(o);
  host.register_tool(tool_returning(json::string(std::string(5000, 'x'))));
  auto r = run(host);
  EXPECT_EQ(code_of(r), "snapshot_failed");
  EXPECT_NE(r.error->message.find("limit"), std::string::npos);
}

TEST(Normalize, UnknownContentBlockTypesAreRejected) {
  Host host;
  ToolDefinition t = tool_returning(1);
  t.render = [](const json::value&) { return json::array{json::object{{"type", "hologram"}}}; };
  host.register_tool(t);
  EXPECT_EQ(code_of(run(host)), "snapshot_failed");
}

TEST(Finalize, MayChangeContent) {
  Host host;
  ToolDefinition t = tool_returning(json::string("a very long text"));
  t.finalize_content = [](ToolResult& r) { r.content = json::array{text_block("capped")}; };
  host.register_tool(t);
  auto r = run(host);
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(r.content.at(0).at("text"), "capped");
  EXPECT_EQ(*r.value, "a very long text");
}

TEST(Finalize, ChangingIsErrorValueOrErrorFailsClosed) {
  const std::vector<std::function<void(ToolResult&)>> tamper = {
      [](ToolResult& r) { r.is_error = true; },
      [](ToolResult& r) { r.value = json::string("other"); },
      [](ToolResult& r) {
        r.error = ErrorInfo{"x", "y", "z", "w", {}};
      }};
  for (const auto& t : tamper) {
    Host host;
    ToolDefinition d = tool_returning(json::string("secret content"));
    d.finalize_content = t;
    host.register_tool(d);
    auto r = run(host);
    EXPECT_TRUE(r.is_error);
    EXPECT_EQ(r.error->stage, "finalizeContent");
    auto text = json::serialize(r.content);
    EXPECT_EQ(text.find("secret content"), std::string::npos) << text;
    EXPECT_NE(text.find("may change content only"), std::string::npos) << text;
  }
}

TEST(Finalize, AThrowingFinalizeFailsClosedWithTheFailureAsContent) {
  Host host;
  ToolDefinition d = tool_returning(json::string("unredacted"));
  d.finalize_content = [](ToolResult&) { throw std::runtime_error("redactor down"); };
  host.register_tool(d);
  auto r = run(host);
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.error->stage, "finalizeContent");
  EXPECT_EQ(r.content.size(), 1u);
  EXPECT_NE(json::serialize(r.content).find("redactor down"), std::string::npos);
  EXPECT_EQ(json::serialize(r.content).find("unredacted"), std::string::npos);
}

TEST(Finalize, RunsForDeniedCallsToo) {
  Host host;
  int finalized = 0;
  ToolDefinition d = tool_returning(1);
  d.finalize_content = [&](ToolResult&) { ++finalized; };
  host.register_tool(d);
  host.add_guard("g", {"no"}, [](const HookCall&) -> std::optional<std::string> { return "no"; });
  EXPECT_TRUE(run(host).is_error);
  EXPECT_EQ(finalized, 1);
}

TEST(Observers, SeeTheFrozenOutcomeAndTheirFailuresChangeNothing) {
  Fixture f;
  json::object seen;
  f.host.add_result_observer(
      "o", {"throws"}, [](const Outcome&) { throw std::runtime_error("metrics backend down"); });
  f.host.add_result_observer("o", {"reads"}, [&](const Outcome& o) { seen = o.to_json(); });
  auto r = f.call("echo", {{"k", 1}});
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(seen.at("result").at("isError"), false);
  EXPECT_EQ(seen.at("final_arguments"), (json::object{{"k", 1}}));
  EXPECT_FALSE(seen.at("trail").as_array().empty());
  auto failed = f.recorder->of_type("observer/failed");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].data.at("source"), "o/throws");
}

TEST(Events, ExactlyOneToolResultPerCallWhateverHappens) {
  Fixture f;
  f.host.add_pre_execute("p", {"mixed"}, [](const HookCall& c) -> PreVerdict {
    auto mode = c.arguments.contains("mode") ? std::string(c.arguments.at("mode").as_string()) : "";
    if (mode == "throw") throw std::runtime_error("x");
    if (mode == "deny") return PreVerdict::deny("d");
    return PreVerdict::keep();
  });
  f.host.add_guard("g", {"throw-on-guard"}, [](const HookCall& c) -> std::optional<std::string> {
    if (c.arguments.contains("guard")) throw std::runtime_error("g");
    return std::nullopt;
  });
  f.host.add_post_execute("p", {"throw-on-post"}, [](const HookCall& c) -> PostVerdict {
    if (c.arguments.contains("post")) throw std::runtime_error("p");
    return PostVerdict::accept();
  });
  std::vector<json::object> inputs = {
      {}, {{"mode", "throw"}}, {{"mode", "deny"}}, {{"guard", 1}}, {{"post", 1}}, {{"fail", 1}}};
  for (auto& in : inputs) f.call("echo", in);
  f.call("no-such-tool");
  ToolCall bad;
  bad.identity.tool = "echo";
  bad.arguments = json::array{1, 2};
  EXPECT_EQ(code_of(f.host.call(bad)), "invalid_arguments");
  EXPECT_EQ(f.recorder->of_type("tool/call").size(), inputs.size() + 2);
  EXPECT_EQ(f.recorder->of_type("tool/result").size(), inputs.size() + 2);
  // tool/call is logged before anything else about the call.
  std::map<std::string, std::string> first;
  for (const auto& e : f.recorder->events)
    if (!e.call_id.empty() && !first.count(e.call_id)) first[e.call_id] = e.type;
  for (const auto& [id, type] : first) EXPECT_EQ(type, "tool/call") << id;
}

TEST(Events, UnknownToolIsAnErrorResult) {
  Fixture f;
  auto r = f.call("nope");
  EXPECT_EQ(code_of(r), "unknown_tool");
  EXPECT_EQ(r.error->stage, "tool/call");
}

TEST(Events, JsonLinesSinkWritesOneObjectPerLine) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  {
    Fixture f;
    auto sink = std::make_shared<JsonLinesSink>(mem);
    f.host.subscribe([sink](const Event& e) { (*sink)(e); });
    f.call("echo");
  }
  std::fclose(mem);
  std::string out(buf, len);
  std::free(buf);
  std::size_t lines = 0;
  for (std::size_t pos = 0, nl; (nl = out.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    auto v = json::parse(out.substr(pos, nl - pos));
    EXPECT_TRUE(v.as_object().contains("type"));
    EXPECT_TRUE(v.as_object().contains("generation"));
    ++lines;
  }
  EXPECT_GE(lines, 3u);
}

TEST(Events, JsonLinesSinkRemembersAFailedWriteNamingTheFileAndErrno) {
  std::FILE* full = std::fopen("/dev/full", "a");
  ASSERT_NE(full, nullptr);
  auto sink = std::make_shared<JsonLinesSink>(full, true, "/dev/full");
  {
    Fixture f;
    f.host.subscribe([sink](const Event& e) { (*sink)(e); });
    f.call("echo");
  }
  EXPECT_TRUE(sink->failed());
  EXPECT_EQ(sink->error(), "cannot write the event log /dev/full: No space left on device");
  EXPECT_FALSE(sink->flush());
  std::fclose(full);
  // Buffered (no flush per event): the failure shows at the latest on flush().
  std::FILE* again = std::fopen("/dev/full", "a");
  ASSERT_NE(again, nullptr);
  JsonLinesSink buffered(again, false, "/dev/full");
  Event e;
  e.type = "test/event";
  buffered(e);
  EXPECT_FALSE(buffered.flush());
  EXPECT_TRUE(buffered.failed());
  std::fclose(again);
}

// Contexts reach an embedder that subscribes to no events, from call() and
// call_json() as from call_batch(), with the ready-made user message.
TEST(Contexts, CallHandsOutItsContextsAndTheMessageToPlaceAfterTheResults) {
  Host host;
  host.register_tool(tool_returning(json::string("ok")));
  host.add_post_execute("embedder", {"first"},
                        [](const HookCall&) { return PostVerdict::accept().add_context("one"); });
  host.add_post_execute("embedder", {"second", {}, -1},
                        [](const HookCall&) { return PostVerdict::accept().add_context("two"); });
  std::vector<std::string> contexts;
  ToolCall c;
  c.identity.tool = "t";
  auto r = host.call(std::move(c), &contexts);
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(contexts, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(context_message(contexts), "one\n\ntwo");
  std::vector<std::string> from_json;
  host.call_json(R"({"tool":"t"})", &from_json);
  EXPECT_EQ(from_json, contexts);
  std::vector<ToolCall> batch(2);
  batch[0].identity.tool = batch[1].identity.tool = "t";
  auto b = host.call_batch(std::move(batch));
  ASSERT_EQ(b.additional_contexts.size(), 4u);  // the calls may run in parallel: any FIFO order
  EXPECT_EQ(b.context_message(), context_message(b.additional_contexts));
  EXPECT_FALSE(context_message({}));
}
