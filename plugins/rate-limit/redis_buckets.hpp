// redis_buckets.hpp -- rate-limit buckets kept in Redis, so that replicas of
// a gateway share one limit instead of each allowing the whole rate.
//
// Every call's buckets are taken in one server-side script (EVALSHA): the
// script reads the store's own clock (TIME), refills each bucket, and takes
// one token from every bucket or from none -- atomically, so replicas
// cannot race each other, and with one clock, so a replica whose clock runs
// ahead cannot widen a window.  A bucket's key expires once it would have
// refilled anyway (a full bucket carries no information).
//
// The connection (hiredis) is one per plugin instance, used under a mutex,
// with a timeout on connect and on every reply.  A failure -- no
// connection, a timeout, an error reply -- is reported to the caller, which
// decides (fail closed by default: rate_limit.cpp).  After a failure the
// store is not tried again for one timeout: calls meanwhile fail at once
// with the same reason instead of each waiting out the timeout in turn
// (they would queue on the connection's mutex).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

struct redisContext;

namespace tgp::ratelimit {

class RedisBuckets {
 public:
  struct Options {
    std::string host;
    int port = 6379;
    std::chrono::milliseconds timeout{250};
    std::string password;  // empty: no AUTH
  };
  explicit RedisBuckets(Options options);
  ~RedisBuckets();
  RedisBuckets(const RedisBuckets&) = delete;
  RedisBuckets& operator=(const RedisBuckets&) = delete;

  struct Take {
    std::string key;
    double rate;  // tokens per second
    double burst;
  };
  struct Outcome {
    bool ok = false;           // the store answered
    double wait = 0;           // 0: every token taken; else seconds until the limiting one is due
    std::size_t limiting = 0;  // which take limited (when wait > 0)
    std::string error;         // why the store did not answer (when !ok)
  };
  Outcome take_all(const std::vector<Take>& takes);

  // "redis://host:port", for messages.
  std::string where() const;

 private:
  bool connect_locked(std::string* why);
  void drop_locked();
  // Drops the connection and does not try the store again for a timeout.
  void fail_locked(const std::string& why);

  Options options_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;
  std::string script_sha_;
  // After a failed connection: not tried again before this, and why.
  std::chrono::steady_clock::time_point retry_after_{};
  std::string last_failure_;
};

}  // namespace tgp::ratelimit
