// The signal (cancel + deadline, children) and tool-name globs.
#include "test_support.hpp"

#include "tool_filter.hpp"

using namespace tgtest;
using toolgate::detail::glob_match;
using toolgate::detail::ToolFilter;

TEST(Signal, CancelReachesChildrenButNotParents) {
  auto root = Signal::make();
  auto child = root->child(std::chrono::hours(1));
  auto grandchild = child->child(std::chrono::hours(1));
  EXPECT_FALSE(grandchild->fired());
  child->cancel();
  EXPECT_EQ(grandchild->state(), SignalState::cancelled);
  EXPECT_FALSE(root->fired());
  root->cancel();
  EXPECT_EQ(root->state(), SignalState::cancelled);
}

TEST(Signal, AChildOfACancelledSignalIsBornCancelled) {
  auto root = Signal::make();
  root->cancel();
  EXPECT_EQ(root->child(std::chrono::hours(1))->state(), SignalState::cancelled);
}

TEST(Signal, DeadlinesFireAndChildrenInheritTheEarlierOne) {
  auto root = Signal::make();
  auto short_child = root->child(std::chrono::milliseconds(10));
  auto longer = short_child->child(std::chrono::hours(1));
  EXPECT_EQ(longer->wait_for(std::chrono::seconds(5)), SignalState::timed_out);
  EXPECT_EQ(short_child->state(), SignalState::timed_out);
  EXPECT_FALSE(root->fired());
}

TEST(Signal, WaitReturnsPendingWhenNothingFires) {
  auto root = Signal::make();
  EXPECT_EQ(root->wait_for(std::chrono::milliseconds(1)), SignalState::pending);
}

TEST(Signal, CancelWakesAWaiter) {
  auto root = Signal::make();
  std::thread t([root] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    root->cancel();
  });
  EXPECT_EQ(root->wait_for(std::chrono::seconds(30)), SignalState::cancelled);
  t.join();
}

TEST(Glob, MatchesStarsAndQuestionMarks) {
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("fs.*", "fs.read"));
  EXPECT_FALSE(glob_match("fs.*", "shell.run"));
  EXPECT_TRUE(glob_match("fs.?ead", "fs.read"));
  EXPECT_TRUE(glob_match("*.write*", "fs.write_file"));
  EXPECT_FALSE(glob_match("greet", "greeting"));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match(std::string(50, '*') + "x", std::string(10000, 'a')));
}

TEST(ToolFilterTest, IncludesAndExcludes) {
  ToolFilter all;
  EXPECT_TRUE(all.matches("x"));
  ToolFilter f({"fs.*", "!fs.stat"});
  EXPECT_TRUE(f.matches("fs.read"));
  EXPECT_FALSE(f.matches("fs.stat"));
  EXPECT_FALSE(f.matches("shell"));
  ToolFilter only_excludes({"!shell.*"});
  EXPECT_TRUE(only_excludes.matches("fs.read"));
  EXPECT_FALSE(only_excludes.matches("shell.run"));
}
