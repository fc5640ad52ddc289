// The reload watcher (host/src/reload/watcher.*): changes are never lost
// while the watched set is being updated, and a folder watched for the first
// time is looked at once.
#include "test_support.hpp"

#include "reload/watcher.hpp"

#include <atomic>
#include <thread>

using namespace tgtest;
namespace fs = std::filesystem;

namespace {

using namespace std::chrono_literals;

struct CountingWatcher {
  std::atomic<int> changes{0};
  toolgate::detail::Watcher watcher{5ms, [this] { changes.fetch_add(1); }};

  // Waits until at least `n` changes were reported (or 10 s passed).
  bool wait_for(int n) {
    auto until = std::chrono::steady_clock::now() + 10s;
    while (changes.load() < n && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(2ms);
    return changes.load() >= n;
  }
  // Nothing more is reported within a while (debounce 5 ms + stability 5 ms).
  bool quiet_for_a_while(int n) {
    std::this_thread::sleep_for(200ms);
    return changes.load() == n;
  }
};

void write(const fs::path& p, const std::string& text) {
  auto tmp = p.parent_path() / std::string(".").append(p.filename().string()).append(".tmp");
  std::ofstream(tmp) << text;
  fs::rename(tmp, p);
}

}  // namespace

TEST(ReloadWatcher, AFolderWatchedForTheFirstTimeIsLookedAtOnce) {
  TempDir dir;
  write(dir.path / "a.json", "1");
  CountingWatcher w;
  w.watcher.watch({dir.path / "a.json"});
  // The file may have changed before the watch existed: one pass.
  ASSERT_TRUE(w.wait_for(1));
  EXPECT_TRUE(w.quiet_for_a_while(1));
}

TEST(ReloadWatcher, RewatchingTheSameFolderKeepsItsWatchAndAddsNoPass) {
  TempDir dir;
  write(dir.path / "a.json", "1");
  CountingWatcher w;
  w.watcher.watch({dir.path / "a.json"});
  ASSERT_TRUE(w.wait_for(1));
  // What a reload does after every attempt: set the watched files again.
  // The change lands right after, with no gap in which it could be missed.
  for (int i = 0; i < 20; ++i) {
    w.watcher.watch({dir.path / "a.json"});
    write(dir.path / "a.json", std::to_string(i));
    ASSERT_TRUE(w.wait_for(2 + i)) << "change " << i << " was missed";
  }
  EXPECT_TRUE(w.quiet_for_a_while(21)) << "one pass per change, none for re-watching";
}

TEST(ReloadWatcher, UnrelatedFilesInTheFolderAreIgnored) {
  TempDir dir;
  write(dir.path / "a.json", "1");
  CountingWatcher w;
  w.watcher.watch({dir.path / "a.json"});
  ASSERT_TRUE(w.wait_for(1));
  write(dir.path / "b.json", "2");
  std::ofstream(dir.path / "notes.txt") << "x";
  EXPECT_TRUE(w.quiet_for_a_while(1));
}

TEST(ReloadWatcher, AFolderDeletedAndRecreatedIsWatchedAgain) {
  TempDir dir;
  fs::path sub = dir.path / "plugins";
  fs::create_directories(sub);
  write(sub / "a.so", "1");
  CountingWatcher w;
  w.watcher.watch({sub / "a.so"});
  ASSERT_TRUE(w.wait_for(1));
  fs::remove_all(sub);
  ASSERT_TRUE(w.wait_for(2)) << "losing the folder is a change";
  fs::create_directories(sub);
  write(sub / "a.so", "2");
  // What the controller does after each pass: watch the stack's files again.
  w.watcher.watch({sub / "a.so"});
  ASSERT_TRUE(w.wait_for(3)) << "the re-created folder is looked at";
  int now = w.changes.load();
  write(sub / "a.so", "3");
  EXPECT_TRUE(w.wait_for(now + 1)) << "and watched";
}
