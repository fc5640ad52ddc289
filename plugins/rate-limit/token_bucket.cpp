#include "token_bucket.hpp"

#include <algorithm>
#include <cstdio>

namespace tgp::ratelimit {

Limit::Limit(std::string name, NameGlobs tools, bool per_session, double count, double seconds,
             double burst, std::size_t max_sessions)
    : name_(std::move(name)),
      tools_(std::move(tools)),
      per_session_(per_session),
      count_(count),
      seconds_(seconds),
      rate_(count / seconds),
      burst_(burst),
      max_sessions_(max_sessions),
      global_{burst, Clock::now(), Clock::now()} {}

void Limit::refill(Bucket& b, Clock::time_point now) const {
  const double elapsed = std::chrono::duration<double>(now - b.last).count();
  if (elapsed > 0) b.tokens = std::min(burst_, b.tokens + elapsed * rate_);
  b.last = std::max(b.last, now);
}

void Limit::evict(Clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    refill(it->second, now);
    it = it->second.tokens >= burst_ ? sessions_.erase(it) : std::next(it);
  }
  while (sessions_.size() >= max_sessions_) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(), [](const auto& a, const auto& b) {
      return a.second.used < b.second.used;
    });
    sessions_.erase(oldest);
  }
}

Limit::Bucket& Limit::bucket(std::string_view session, Clock::time_point now) {
  if (!per_session_) return global_;
  auto it = sessions_.find(std::string(session));
  if (it != sessions_.end()) return it->second;
  if (sessions_.size() >= max_sessions_) evict(now);
  return sessions_.emplace(std::string(session), Bucket{burst_, now, now}).first->second;
}

double Limit::take(std::string_view session, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  Bucket& b = bucket(session, now);
  refill(b, now);
  b.used = now;
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return 0;
  }
  return (1.0 - b.tokens) / rate_;
}

void Limit::refund(std::string_view session) {
  std::lock_guard lock(mutex_);
  Bucket* b = &global_;
  if (per_session_) {
    auto it = sessions_.find(std::string(session));
    if (it == sessions_.end()) return;
    b = &it->second;
  }
  b->tokens = std::min(burst_, b->tokens + 1.0);
}

std::string Limit::describe() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%g per %g s%s", count_, seconds_, per_session_ ? " per session" : "");
  return buf;
}

}  // namespace tgp::ratelimit
