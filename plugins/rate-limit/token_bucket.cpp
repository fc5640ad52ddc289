#include "token_bucket.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

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
    auto oldest = std::min_element(
        sessions_.begin(), sessions_.end(),
        [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
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

boost::json::object Limit::export_state(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  boost::json::object out{{"name", name_}, {"per", per_session_ ? "session" : "global"}};
  refill(global_, now);
  out["tokens"] = global_.tokens;
  boost::json::array sessions;
  sessions.reserve(sessions_.size());
  for (auto& [id, b] : sessions_) {
    refill(b, now);
    if (b.tokens >= burst_) continue;  // a full bucket carries no information
    const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(now - b.used).count();
    sessions.push_back(
        boost::json::array{boost::json::string(id), b.tokens, std::max<std::int64_t>(0, idle)});
  }
  out["sessions"] = std::move(sessions);
  return out;
}

void Limit::import_state(const boost::json::object& state, Clock::time_point now) {
  auto number = [](const boost::json::value& v, const char* what) {
    if (!v.is_number())
      throw std::runtime_error(std::string("rate-limit state: ") + what + " is not a number");
    const double d = v.to_number<double>();
    if (!(d >= 0) || d > 1e18)
      throw std::runtime_error(std::string("rate-limit state: ") + what + " is out of range");
    return d;
  };
  const auto* tokens = state.if_contains("tokens");
  const auto* sessions = state.if_contains("sessions");
  if (!tokens || !sessions || !sessions->is_array())
    throw std::runtime_error("rate-limit state: a limit lacks \"tokens\" or \"sessions\"");
  struct Item {
    std::string id;
    double tokens;
    double idle_ms;
  };
  std::vector<Item> items;
  for (const auto& s : sessions->get_array()) {
    const auto* a = s.if_array();
    if (!a || a->size() != 3 || !(*a)[0].is_string())
      throw std::runtime_error("rate-limit state: a session is not [id, tokens, idle_ms]");
    items.push_back({std::string((*a)[0].get_string()), number((*a)[1], "session tokens"),
                     number((*a)[2], "session idle_ms")});
  }
  const double global_tokens = number(*tokens, "tokens");
  // Keep the most recently used sessions if there are more than fit.
  std::sort(items.begin(), items.end(),
            [](const Item& x, const Item& y) { return x.idle_ms < y.idle_ms; });
  if (items.size() > max_sessions_) items.resize(max_sessions_);

  std::lock_guard lock(mutex_);
  global_ = Bucket{std::min(burst_, global_tokens), now, now};
  sessions_.clear();
  for (const auto& it : items) {
    const auto used = now - std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double, std::milli>(it.idle_ms));
    sessions_[it.id] = Bucket{std::min(burst_, it.tokens), now, used};
  }
}

std::string Limit::describe() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%g per %g s%s", count_, seconds_,
                per_session_ ? " per session" : "");
  return buf;
}

}  // namespace tgp::ratelimit
