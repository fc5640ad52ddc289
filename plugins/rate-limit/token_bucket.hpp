// token_bucket.hpp -- one rate limit: token buckets, global or per session.
//
// A bucket holds up to `burst` tokens and refills at `rate` tokens per
// second; a call takes one.  Per-session buckets live in a map bounded by
// `max_sessions`: a full bucket carries no information (a new one starts
// full), so full buckets are evicted first, then the least recently used.
#pragma once

#include "../common/glob.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tgp::ratelimit {

using Clock = std::chrono::steady_clock;

class Limit {
 public:
  Limit(std::string name, NameGlobs tools, bool per_session, double count, double seconds,
        double burst, std::size_t max_sessions);

  const std::string& name() const { return name_; }
  bool applies(std::string_view tool) const { return tools_.matches(tool); }
  // Takes a token; returns 0 on success, else the seconds until one is due.
  double take(std::string_view session, Clock::time_point now);
  // Gives back a token taken by take() (when another limit denied the call).
  void refund(std::string_view session);
  std::string describe() const;  // "10 per 60 s per session"
  bool per_session() const { return per_session_; }
  double rate() const { return rate_; }  // tokens per second
  double burst() const { return burst_; }

  // State handoff (hot reload).  export_state refills every bucket to `now`
  // and returns {"name", "per", "tokens", "sessions": [[id, tokens,
  // idle_ms], ...]}; import_state takes such an object from an older
  // instance (same name and `per`; the caller checks), clamps tokens to this
  // limit's burst and keeps at most max_sessions sessions, the most recently
  // used.  Throws std::runtime_error on a malformed object.
  boost::json::object export_state(Clock::time_point now);
  void import_state(const boost::json::object& state, Clock::time_point now);

 private:
  struct Bucket {
    double tokens;
    Clock::time_point last;  // of the last refill
    Clock::time_point used;  // of the last take(), for LRU eviction
  };
  Bucket& bucket(std::string_view session, Clock::time_point now);
  void refill(Bucket& b, Clock::time_point now) const;
  void evict(Clock::time_point now);

  std::string name_;
  NameGlobs tools_;
  bool per_session_;
  double count_, seconds_, rate_, burst_;
  std::size_t max_sessions_;
  std::mutex mutex_;
  Bucket global_;
  std::unordered_map<std::string, Bucket> sessions_;
};

}  // namespace tgp::ratelimit
