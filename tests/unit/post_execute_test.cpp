// Stage 6, post-execute (docs/design.md §2.7): accept / replace / block /
// context; a denial stays a denial.
#include "test_support.hpp"

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
  EXPECT_EQ(code_of(f.call("echo")), "plugin_error");
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
