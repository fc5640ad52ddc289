// Stage 6, post-execute (docs/design.md §2.7): accept / replace / block /
// context; a denial stays a denial.
#include "test_support.hpp"

#include <functional>
#include <utility>

using namespace tgtest;

namespace {
json::object text_result(std::string text, bool is_error = false) {
  return {{"isError", is_error}, {"content", json::array{text_block(text)}}};
}
}  // namespace

TEST(PostExecute, AcceptKeepsTheResult) {
  Fixture f;
  f.host.add_post_execute("p", {"ok"}, [](const HookCall&) { return PostVerdict::accept(); });
  auto r = f.call("echo", {{"a", 1}});
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(*r.value, (json::object{{"a", 1}}));
}

TEST(PostExecute, ReplaceChangesTheResultAndLaterHooksSeeIt) {
  Fixture f;
  f.host.add_post_execute("p", {"replace"}, [](const HookCall&) {
    return PostVerdict::replace(text_result("redacted"));
  });
  f.host.add_post_execute("p", {"after"}, [](const HookCall& c) {
    EXPECT_EQ(c.candidate()->at("content").at(0).at("text"), "redacted");
    return PostVerdict::accept();
  });
  auto r = f.call("echo", {{"secret", "hunter2"}});
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(r.content.at(0).at("text"), "redacted");
  EXPECT_FALSE(r.value.has_value());
}

TEST(PostExecute, BlockTurnsASuccessIntoAnErrorCarryingTheReason) {
  Fixture f;
  f.host.add_post_execute("p", {"dlp"}, [](const HookCall&) {
    return PostVerdict::block("the result contains a secret");
  });
  auto r = f.call("echo");
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->stage, "tools/post-execute");
  EXPECT_EQ(r.error->source, "p/dlp");
  EXPECT_EQ(r.error->message, "the result contains a secret");
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(PostExecute, AfterABlockNoLaterHookCanTurnItBackIntoSuccess) {
  Fixture f;
  f.host.add_post_execute("p", {"block", {}, 10},
                          [](const HookCall&) { return PostVerdict::block("blocked"); });
  f.host.add_post_execute("p", {"revive", {}, 0}, [](const HookCall& c) {
    EXPECT_TRUE(c.denied);
    return PostVerdict::replace(text_result("all fine"));
  });
  auto r = f.call("echo");
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.content.at(0).at("text"), "all fine");  // reworded only
}

TEST(PostExecute, RunsForDeniedCallsAndCannotTurnADenialIntoSuccess) {
  Fixture f;
  f.host.add_guard("sec", {"no"},
                   [](const HookCall&) -> std::optional<std::string> { return "forbidden"; });
  bool saw_denied = false;
  f.host.add_post_execute("p", {"launder"}, [&](const HookCall& c) {
    saw_denied = c.denied;
    json::object fake = text_result("success!");
    fake["value"] = "stolen";
    return PostVerdict::replace(fake);
  });
  auto r = f.call("echo");
  EXPECT_TRUE(saw_denied);
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->source, "sec/no");
  EXPECT_FALSE(r.value.has_value());
  EXPECT_EQ(r.content.at(0).at("text"), "success!");  // the wording may change
  EXPECT_EQ(*f.body_runs, 0);
}

// A redactor must be able to mask what a denial quotes from the arguments
// wherever the client sees it (issue 20 item 7): on a denied call a
// replacement's error.message and each denial's reason are taken as well as
// its content -- and nothing else: code, stage, source, the denials' sources
// and the absence of a value stay the engine's.
TEST(PostExecute, ADeniedCallsMessageAndReasonsMayBeRewordedButNothingElse) {
  Fixture f;
  f.host.add_guard("a", {"one"},
                   [](const HookCall&) -> std::optional<std::string> { return "one saw hunter2"; });
  f.host.add_guard("b", {"two"},
                   [](const HookCall&) -> std::optional<std::string> { return "two saw hunter2"; });
  f.host.add_post_execute("p", {"mask"}, [](const HookCall& c) {
    json::object r = c.candidate()->as_object();
    auto& e = r["error"].as_object();
    EXPECT_EQ(e["message"], "one saw hunter2; two saw hunter2");
    e["message"] = "one saw ***; two saw ***";
    for (auto& d : e["denials"].as_array()) d.as_object()["reason"] = "saw ***";
    r["content"] = json::array{text_block("masked")};
    // Claims a reworded denial may not make: all ignored.
    e["code"] = "tool_error";
    e["stage"] = "tools/post-execute";
    e["source"] = "p/mask";
    r["isError"] = false;
    r["value"] = "laundered";
    return PostVerdict::replace(r).add_context("masked one");
  });
  std::vector<ToolCall> calls(1);
  calls[0].identity.tool = "echo";
  auto batch = f.host.call_batch(std::move(calls));
  const auto& r = batch.results.at(0);
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->stage, "guard");
  EXPECT_EQ(r.error->source, "a/one");
  EXPECT_FALSE(r.value.has_value());
  EXPECT_EQ(r.error->message, "one saw ***; two saw ***");
  EXPECT_EQ(r.content.at(0).at("text"), "masked");
  EXPECT_EQ(r.error->denials,
            (json::array{json::object{{"source", "a/one"}, {"reason", "saw ***"}},
                         json::object{{"source", "b/two"}, {"reason", "saw ***"}}}));
  EXPECT_EQ(batch.additional_contexts, std::vector<std::string>{"masked one"});
  EXPECT_EQ(*f.body_runs, 0);
}

// A rewording that does not fit the denial -- denials dropped, reordered or
// renamed, a message that is not a string -- is the hook's failure:
// plugin_error naming it, nothing of its answer kept, never a success.
TEST(PostExecute, ARewordingThatChangesTheDenialsIsAFailureOfTheHook) {
  auto run = [](std::function<void(json::object&)> change) {
    Fixture f;
    f.host.add_guard("a", {"one"},
                     [](const HookCall&) -> std::optional<std::string> { return "no"; });
    f.host.add_guard("b", {"two"},
                     [](const HookCall&) -> std::optional<std::string> { return "no"; });
    f.host.add_post_execute("p", {"sloppy"}, [change](const HookCall& c) {
      json::object r = c.candidate()->as_object();
      change(r["error"].as_object());
      return PostVerdict::replace(r).add_context("from the sloppy hook");
    });
    std::vector<ToolCall> calls(1);
    calls[0].identity.tool = "echo";
    return f.host.call_batch(std::move(calls));
  };
  const std::vector<std::pair<std::string, std::function<void(json::object&)>>> cases = {
      {"dropped", [](json::object& e) { e["denials"].as_array().pop_back(); }},
      {"reordered",
       [](json::object& e) {
         auto& d = e["denials"].as_array();
         std::swap(d[0], d[1]);
       }},
      {"renamed",
       [](json::object& e) { e["denials"].as_array()[1].as_object()["source"] = "p/x"; }},
      {"reason not a string",
       [](json::object& e) { e["denials"].as_array()[0].as_object()["reason"] = 1; }},
      {"not an array", [](json::object& e) { e["denials"] = "none"; }},
      {"message not a string", [](json::object& e) { e["message"] = json::array{}; }},
  };
  for (const auto& [name, change] : cases) {
    auto batch = run(change);
    const auto& r = batch.results.at(0);
    EXPECT_TRUE(r.is_error) << name;
    EXPECT_EQ(code_of(r), "plugin_error") << name;
    EXPECT_EQ(r.error->stage, "tools/post-execute") << name;
    EXPECT_EQ(r.error->source, "p/sloppy") << name;
    EXPECT_NE(r.error->message.find("reworded a denial"), std::string::npos) << r.error->message;
    EXPECT_TRUE(batch.additional_contexts.empty()) << name;
  }
}

TEST(PostExecute, AddContextQueuesForTheBatch) {
  Fixture f;
  f.host.add_post_execute("p", {"note"}, [](const HookCall&) {
    return PostVerdict::accept().add_context("remember this");
  });
  std::vector<ToolCall> calls(1);
  calls[0].identity.tool = "echo";
  auto out = f.host.call_batch(std::move(calls));
  EXPECT_EQ(out.additional_contexts, std::vector<std::string>{"remember this"});
}

TEST(PostExecute, AThrowingHookIsAPluginError) {
  Fixture f;
  f.host.add_post_execute("p", {"boom"}, [](const HookCall&) -> PostVerdict {
    throw std::runtime_error("formatter crashed");
  });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->stage, "tools/post-execute");
  EXPECT_EQ(r.error->source, "p/boom");
}

TEST(PostExecute, AWrongShapeReplacementFailsSnapshotNamingTheHook) {
  Fixture f;
  f.host.add_post_execute("p", {"sloppy"}, [](const HookCall&) {
    return PostVerdict::replace(json::object{{"text", "no content array"}});
  });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "snapshot_failed");
  EXPECT_EQ(r.error->stage, "normalize");
  EXPECT_EQ(r.error->source, "p/sloppy");
}

TEST(PostExecute, AnUnknownVerdictIsAPluginError) {
  Fixture f;
  f.host.add_post_execute("p", {"weird"}, [](const HookCall&) {
    PostVerdict v;
    v.kind = static_cast<PostVerdict::Kind>(9);
    return v;
  });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->message,
            "post-execute hook p/weird failed: gave an unknown verdict 9 (a post-execute hook "
            "answers accept, replace or block)");
}

// Error codes are a closed set (docs/design.md §4.2), and an error a hook
// writes is the hook's: it cannot claim a guard's or the tool's voice.
TEST(PostExecute, AReplacementErrorUsesAKnownCodeAndIsAttributedToTheHook) {
  auto error_result = [](std::string code) {
    return json::object{{"isError", true},
                        {"content", json::array{text_block("nope")}},
                        {"error",
                         {{"code", code},
                          {"message", "nope"},
                          {"stage", "guard"},
                          {"source", "security/guard"},
                          {"denials", json::array{json::object{{"source", "security/guard"},
                                                               {"reason", "forged"}}}}}}};
  };
  {
    Fixture f;
    f.host.add_post_execute("p", {"invent"}, [&](const HookCall&) {
      return PostVerdict::replace(error_result("made_up"));
    });
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "snapshot_failed");
    EXPECT_EQ(r.error->source, "p/invent");
    EXPECT_NE(r.error->message.find("\"made_up\" is not an error code"), std::string::npos)
        << r.error->message;
  }
  {
    Fixture f;
    f.host.add_post_execute("p", {"forge"}, [&](const HookCall&) {
      return PostVerdict::replace(error_result("denied"));
    });
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "denied");
    EXPECT_EQ(r.error->stage, "tools/post-execute");
    EXPECT_EQ(r.error->source, "p/forge");
    EXPECT_TRUE(r.error->denials.empty());  // no guard's name lent to it
  }
}
