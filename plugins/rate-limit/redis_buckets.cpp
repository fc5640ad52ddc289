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
constexpr const char* take_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local tokens = {}
local wait, limiting = 0, 0
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local b = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local have = tonumber(b[1]) or burst
  local at = tonumber(b[2]) or now
  if now > at then have = math.min(burst, have + (now - at) * rate) end
  tokens[i] = have
  if have < 1 then
    local w = (1 - have) / rate
    if w > wait then wait, limiting = w, i end
  end
end
if wait > 0 then return {0, tostring(wait), limiting} end
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  redis.call('HSET', KEYS[i], 'tokens', tostring(tokens[i] - 1), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate * 1000) + 1000)
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

bool RedisBuckets::connect_locked(std::string* why) {
  if (context_) return true;
  context_ =
      redisConnectWithTimeout(options_.host.c_str(), options_.port, to_timeval(options_.timeout));
  if (!context_ || context_->err) {
    *why = context_ ? std::string(context_->errstr) : std::string("out of memory");
    drop_locked();
    return false;
  }
  redisSetTimeout(context_, to_timeval(options_.timeout));
  if (!options_.password.empty()) {
    Reply r = command(context_, {"AUTH", options_.password});
    if (!r || r->type == REDIS_REPLY_ERROR) {
      *why = r ? "AUTH refused: " + std::string(r->str, r->len) : std::string(context_->errstr);
      drop_locked();
      return false;
    }
  }
  Reply r = command(context_, {"SCRIPT", "LOAD", take_script});
  if (!r || r->type != REDIS_REPLY_STRING) {
    *why = r && r->type == REDIS_REPLY_ERROR ? "SCRIPT LOAD refused: " + std::string(r->str, r->len)
           : context_->err                   ? std::string(context_->errstr)
                                             : std::string("SCRIPT LOAD gave no script id");
    drop_locked();
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
      drop_locked();
      if (fresh) return out;
      continue;  // the connection was old: try once more on a new one
    }
    if (r->type == REDIS_REPLY_ERROR) {
      out.error = std::string(r->str, r->len);
      // The store lost the script (SCRIPT FLUSH, a restart): load it again.
      drop_locked();
      if (fresh || out.error.rfind("NOSCRIPT", 0) != 0) return out;
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
