#include "redis_buckets.hpp"

#include <hiredis/hiredis.h>

#include <cmath>
#include <cstdlib>
#include <memory>

namespace tgp::ratelimit {

namespace {

// KEYS: the buckets.  ARGV: per bucket, its rate (tokens/s) and burst.
// Returns {1, "0", 0} when every bucket gave a token, else {0, wait, index}
// for the bucket whose token is furthest off (1-based), taking none.
// Times are whole microseconds of the store's clock (exact in a double);
// numbers are written with 17 significant digits (Lua's tostring keeps 14).
// A bucket's time never goes back (a failover to a replica whose clock is
// behind must not credit an interval twice).  A token count that is not a
// number (tampered with) counts as empty.
constexpr const char* take_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tokens, stamps = {}, {}
local wait, limiting = 0, 0
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1]) / 1000000
  local burst = tonumber(ARGV[2 * i])
  local b = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local have = tonumber(b[1]) or burst
  if have ~= have then have = 0 end
  local at = tonumber(b[2]) or now
  if now > at then
    have = math.min(burst, have + (now - at) * rate)
    at = now
  end
  tokens[i], stamps[i] = have, at
  if have < 1 then
    local w = (1 - have) / rate / 1000000
    if w > wait then wait, limiting = w, i end
  end
end
if wait > 0 then return {0, string.format('%.17g', wait), limiting} end
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  redis.call('HSET', KEYS[i], 'tokens', string.format('%.17g', tokens[i] - 1),
             'at', string.format('%.17g', stamps[i]))
  redis.call('PEXPIRE', KEYS[i], math.min(math.ceil(burst / rate * 1000) + 1000, 1e12))
end
return {1, '0', 0}
)lua";

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

Reply command(redisContext* c, const std::vector<std::string>& argv) {
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  return Reply(static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(args.size()), args.data(), lens.data())));
}

std::string number_text(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

}  // namespace

RedisBuckets::RedisBuckets(Options options) : options_(std::move(options)) {}

RedisBuckets::~RedisBuckets() { drop_locked(); }

std::string RedisBuckets::where() const {
  return "redis://" + options_.host + ":" + std::to_string(options_.port);
}

void RedisBuckets::drop_locked() {
  if (context_) redisFree(context_);
  context_ = nullptr;
}

void RedisBuckets::fail_locked(const std::string& why) {
  drop_locked();
  last_failure_ = why;
  retry_after_ = std::chrono::steady_clock::now() + options_.timeout;
}

bool RedisBuckets::connect_locked(std::string* why) {
  if (context_) return true;
  const auto now = std::chrono::steady_clock::now();
  if (now < retry_after_) {
    *why = last_failure_ + "; not tried again until a timeout has passed";
    return false;
  }
  context_ =
      redisConnectWithTimeout(options_.host.c_str(), options_.port, to_timeval(options_.timeout));
  if (!context_ || context_->err) {
    *why = context_ ? std::string(context_->errstr) : std::string("out of memory");
    fail_locked(*why);
    return false;
  }
  if (redisSetTimeout(context_, to_timeval(options_.timeout)) != REDIS_OK) {
    *why = "cannot set the connection's timeout";
    fail_locked(*why);
    return false;
  }
  if (!options_.password.empty()) {
    Reply r = command(context_, {"AUTH", options_.password});
    if (!r || r->type == REDIS_REPLY_ERROR) {
      *why = r ? "AUTH refused: " + std::string(r->str, r->len) : std::string(context_->errstr);
      fail_locked(*why);
      return false;
    }
  }
  Reply r = command(context_, {"SCRIPT", "LOAD", take_script});
  if (!r || r->type != REDIS_REPLY_STRING) {
    *why = r && r->type == REDIS_REPLY_ERROR ? "SCRIPT LOAD refused: " + std::string(r->str, r->len)
           : context_->err                   ? std::string(context_->errstr)
                                             : std::string("SCRIPT LOAD gave no script id");
    fail_locked(*why);
    return false;
  }
  script_sha_.assign(r->str, r->len);
  return true;
}

RedisBuckets::Outcome RedisBuckets::take_all(const std::vector<Take>& takes) {
  Outcome out;
  if (takes.empty()) {
    out.ok = true;
    return out;
  }
  std::lock_guard lock(mutex_);
  // One attempt on a fresh connection after a broken one: a store that
  // restarted since the last call is reached again without a failed call.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool fresh = context_ == nullptr;
    if (!connect_locked(&out.error)) return out;
    std::vector<std::string> argv{"EVALSHA", script_sha_, std::to_string(takes.size())};
    for (const auto& t : takes) argv.push_back(t.key);
    for (const auto& t : takes) {
      argv.push_back(number_text(t.rate));
      argv.push_back(number_text(t.burst));
    }
    Reply r = command(context_, argv);
    if (!r) {
      out.error = context_->errstr[0] ? std::string(context_->errstr) : std::string("no reply");
      // Tried again only when the old connection had been closed under us
      // (the store restarted): then the script surely did not run.  After
      // a timeout it may have, and a second run would take a second token.
      const bool closed = context_->err == REDIS_ERR_EOF;
      if (fresh || !closed) {
        fail_locked(out.error);
        return out;
      }
      drop_locked();
      continue;
    }
    if (r->type == REDIS_REPLY_ERROR) {
      out.error = std::string(r->str, r->len);
      // The store lost the script (SCRIPT FLUSH, a restart): load it again.
      if (fresh || out.error.rfind("NOSCRIPT", 0) != 0) {
        fail_locked(out.error);
        return out;
      }
      drop_locked();
      continue;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
        r->element[0]->type != REDIS_REPLY_INTEGER || r->element[1]->type != REDIS_REPLY_STRING ||
        r->element[2]->type != REDIS_REPLY_INTEGER) {
      out.error = "the store's answer to the rate-limit script has an unexpected shape";
      return out;
    }
    out.ok = true;
    out.error.clear();
    if (r->element[0]->integer == 1) return out;
    out.wait = std::strtod(std::string(r->element[1]->str, r->element[1]->len).c_str(), nullptr);
    if (!(out.wait > 0) || !std::isfinite(out.wait)) out.wait = 1e-3;
    out.limiting = static_cast<std::size_t>(r->element[2]->integer - 1);
    return out;
  }
  return out;
}

}  // namespace tgp::ratelimit
