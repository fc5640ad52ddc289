#include "watcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace toolgate::detail {

namespace fs = std::filesystem;

Watcher::Watcher(std::chrono::milliseconds debounce, std::function<void()> on_change)
    : debounce_(debounce), on_change_(std::move(on_change)) {
  inotify_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_ < 0) throw std::runtime_error("inotify is unavailable");
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(inotify_);
    throw std::runtime_error("cannot create a pipe");
  }
  thread_ = std::thread([this] { run(); });
}

void Watcher::stop() {
  (void)!::write(wake_[1], "x", 1);  // "x": stop; "r": look again (see watch())
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

Watcher::~Watcher() {
  stop();
  ::close(inotify_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void Watcher::watch(const std::vector<fs::path>& files) {
  std::lock_guard lock(mutex_);
  files_.clear();
  names_.clear();
  std::set<fs::path> dirs;
  for (const auto& f : files) {
    auto abs = fs::absolute(f).lexically_normal();
    files_.insert(abs);
    names_.insert(abs.filename().string());
    dirs.insert(abs.parent_path());
  }
  for (auto it = watches_.begin(); it != watches_.end();) {
    if (dirs.count(it->first)) {
      ++it;
      continue;
    }
    ::inotify_rm_watch(inotify_, it->second);
    it = watches_.erase(it);
  }
  bool added = false;
  for (const auto& d : dirs) {
    if (watches_.count(d)) continue;
    int wd = ::inotify_add_watch(inotify_, d.c_str(),
                                 IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_CREATE | IN_DELETE |
                                     IN_ATTRIB | IN_MOVED_FROM);
    if (wd < 0) continue;  // a missing folder: the next reload reports the missing file
    watches_.emplace(d, wd);
    added = true;
  }
  // Whatever changed in a new folder before its watch existed went unseen.
  if (added) (void)!::write(wake_[1], "r", 1);
}

// Every watched file that exists has the same size and mtime across a short
// pause: a linker or a copy is not still writing it.
bool Watcher::stable() {
  std::set<fs::path> files;
  {
    std::lock_guard lock(mutex_);
    files = files_;
  }
  auto snapshot = [&] {
    std::vector<std::pair<off_t, long>> v;
    for (const auto& f : files) {
      struct stat st {};
      if (::stat(f.c_str(), &st) == 0)
        v.emplace_back(st.st_size, st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec);
      else
        v.emplace_back(-1, 0);
    }
    return v;
  };
  auto a = snapshot();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return a == snapshot();
}

void Watcher::run() {
  using Clock = std::chrono::steady_clock;
  bool pending = false;
  Clock::time_point last{};
  alignas(inotify_event) char buf[8192];
  for (;;) {
    int timeout = -1;
    if (pending) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(last + debounce_ - Clock::now());
      timeout = left.count() > 0 ? static_cast<int>(left.count()) : 0;
    }
    pollfd p[2] = {{inotify_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int n = ::poll(p, 2, timeout);
    if (n < 0 && errno != EINTR) return;
    if (p[1].revents) {
      char cmd[64];
      ssize_t got = ::read(wake_[0], cmd, sizeof cmd);
      if (got < 0) continue;  // EINTR/EAGAIN: poll again
      if (got == 0 || std::memchr(cmd, 'x', static_cast<std::size_t>(got)))
        return;        // shutting down
      pending = true;  // a new folder is watched: one more pass
      last = Clock::now();
      continue;
    }
    if (n > 0 && (p[0].revents & POLLIN)) {
      ssize_t len;
      while ((len = ::read(inotify_, buf, sizeof buf)) > 0) {
        for (char* ptr = buf; ptr < buf + len;) {
          auto* ev = reinterpret_cast<inotify_event*>(ptr);
          ptr += sizeof(inotify_event) + ev->len;
          std::lock_guard lock(mutex_);
          if (ev->mask & IN_Q_OVERFLOW) {  // events were lost: look at everything
            pending = true;
            last = Clock::now();
            continue;
          }
          if (ev->mask & IN_IGNORED) {
            // The folder itself went away (deleted, renamed, unmounted): forget
            // its watch, and reload so the stack is checked and re-watched.
            for (auto it = watches_.begin(); it != watches_.end(); ++it)
              if (it->second == ev->wd) {
                watches_.erase(it);
                pending = true;
                last = Clock::now();
                break;
              }
            continue;
          }
          if (!ev->len) continue;
          if (names_.count(ev->name)) {
            pending = true;
            last = Clock::now();
          }
        }
      }
      continue;
    }
    if (pending && Clock::now() >= last + debounce_) {
      if (!stable()) {
        last = Clock::now();
        continue;
      }
      pending = false;
      on_change_();
    }
  }
}

}  // namespace toolgate::detail
