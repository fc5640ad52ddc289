// Approval (docs/design.md §2.3): one-shot, sees the final arguments, only
// allowed-once lets the call on.
#include "test_support.hpp"

using namespace tgtest;

namespace {

struct AskFixture : Fixture {
  int asked = 0;
  json::object shown;
  AskFixture() {
    host.add_pre_execute("p", {"ask"}, [](const HookCall& c) {
      auto a = c.arguments;
      a["rewritten"] = true;
      return PreVerdict::ask("please confirm").with_arguments(a);
    });
  }
  void answer(ApprovalAnswer a) {
    host.set_approver([this, a](const ApprovalRequest& r) {
      ++asked;
      shown = r.arguments;
      EXPECT_EQ(r.reason, "please confirm");
      EXPECT_EQ(r.source, "p/ask");
      return a;
    });
  }
};

}  // namespace

TEST(Approval, AllowedOnceRunsTheToolWithTheArgumentsShown) {
  AskFixture f;
  json::object ran;
  f.host.add_guard("g", {"see"}, [&](const HookCall& c) -> std::optional<std::string> {
    ran = c.arguments;
    return std::nullopt;
  });
  f.answer(ApprovalAnswer::allowed_once);
  auto r = f.call("echo", {{"x", 1}});
  ASSERT_FALSE(r.is_error);
  EXPECT_EQ(f.asked, 1);
  EXPECT_EQ(f.shown, (json::object{{"x", 1}, {"rewritten", true}}));
  EXPECT_EQ(ran, f.shown);       // guards saw exactly what was approved
  EXPECT_EQ(*r.value, f.shown);  // and that is what ran
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(Approval, RejectedCancelledUnavailableDenyWithTheirOwnCodes) {
  const std::pair<ApprovalAnswer, std::string> cases[] = {
      {ApprovalAnswer::rejected, "approval_rejected"},
      {ApprovalAnswer::cancelled, "approval_cancelled"},
      {ApprovalAnswer::unavailable, "approval_unavailable"}};
  for (const auto& [answer, code] : cases) {
    AskFixture f;
    f.answer(answer);
    auto r = f.call("echo");
    EXPECT_TRUE(r.is_error);
    EXPECT_EQ(code_of(r), code);
    EXPECT_EQ(r.error->stage, "approval");
    EXPECT_EQ(f.asked, 1);
    EXPECT_EQ(*f.body_runs, 0);
  }
}

TEST(Approval, ADenialAfterApprovalStillRunsPostExecute) {
  AskFixture f;
  f.answer(ApprovalAnswer::rejected);
  bool saw_denied = false;
  f.host.add_post_execute("p", {"post"}, [&](const HookCall& c) {
    saw_denied = c.denied;
    return PostVerdict::accept();
  });
  f.call("echo");
  EXPECT_TRUE(saw_denied);
}

TEST(Approval, AThrowingApproverIsAPluginErrorAndTheBodyDoesNotRun) {
  AskFixture f;
  f.host.set_approver(
      [](const ApprovalRequest&) -> ApprovalAnswer { throw std::runtime_error("tty vanished"); });
  auto r = f.call("echo");
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->stage, "approval");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(Approval, AnUnknownAnswerDenies) {
  AskFixture f;
  f.host.set_approver([](const ApprovalRequest&) { return static_cast<ApprovalAnswer>(99); });
  auto r = f.call("echo");
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(*f.body_runs, 0);
  EXPECT_EQ(r.error->message,
            "the approver gave an unknown answer 99 (it answers allowed_once, rejected, cancelled "
            "or unavailable)");
}

TEST(Approval, TheApproverIsNotAskedWhenNothingAsks) {
  Fixture f;
  int asked = 0;
  f.host.set_approver([&](const ApprovalRequest&) {
    ++asked;
    return ApprovalAnswer::allowed_once;
  });
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(asked, 0);
}

TEST(Approval, EventsRecordTheRequestAndTheAnswer) {
  AskFixture f;
  f.answer(ApprovalAnswer::cancelled);
  f.call("echo");
  ASSERT_EQ(f.recorder->of_type("approval/requested").size(), 1u);
  auto resolved = f.recorder->of_type("approval/resolved");
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].data.at("answer"), "cancelled");
}
