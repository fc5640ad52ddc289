// redis_server.hpp -- a redis-server of a test's (or benchmark's) own, on
// 127.0.0.1 only, keeping nothing on disk; started on a free loopback port
// and killed when it goes out of scope.  Header-only: the unit tests and the
// benchmarks both use it.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace tgtest_redis {

// A free loopback port (bound, then released for the server to take).
inline int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

inline bool accepts(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

// available(): started, ours, and listening.
class RedisServer {
 public:
  explicit RedisServer(int port) : port_(port) { start(); }
  ~RedisServer() { stop(); }
  bool available() const { return pid_ > 0; }
  void start() {
    const std::string p = std::to_string(port_);
    std::vector<std::string> args = {"redis-server", "--port",     p,        "--bind",
                                     "127.0.0.1",    "--save",     "",       "--appendonly",
                                     "no",           "--loglevel", "warning"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Its log (start-up banners, warnings) is not the test's output.
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
    const int rc = ::posix_spawnp(&pid_, "redis-server", &quiet, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&quiet);
    if (rc != 0) {
      pid_ = 0;
      return;
    }
    // Ours, and listening: a port another process took in between fails
    // the test instead of testing someone else's server.
    for (int i = 0; i < 500 && !accepts(port_); ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = 0;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!accepts(port_)) stop();
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }
  int port() const { return port_; }

 private:
  int port_;
  pid_t pid_ = 0;
};

}  // namespace tgtest_redis
