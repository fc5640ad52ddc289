#include "shared_store.hpp"

#include "secret_files.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>

namespace toolgate::mcp {

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

std::string reply_text(const redisReply* r) { return std::string(r->str, r->len); }

}  // namespace

void SharedStore::ReplyDeleter::operator()(redisReply* r) const { freeReplyObject(r); }

SharedStore::SharedStore(const SharedStoreOptions& options) : options_(options) {
  if (!options_.password_file.empty())
    password_ = read_secret_lines(options_.password_file, "Redis password file", 1).front();
}

SharedStore::~SharedStore() { drop_locked(); }

std::string SharedStore::where() const {
  return "redis://" + options_.host + ":" + std::to_string(options_.port) + " (prefix \"" +
         options_.prefix + "\")";
}

void SharedStore::drop_locked() {
  if (context_) redisFree(context_);
  context_ = nullptr;
}

void SharedStore::fail_locked(const std::string& why) {
  drop_locked();
  last_failure_ = why;
  retry_after_ = std::chrono::steady_clock::now() + options_.timeout;
}

bool SharedStore::connect_locked(std::string* why) {
  if (context_) return true;
  if (std::chrono::steady_clock::now() < retry_after_) {
    *why = last_failure_ + " (not tried again until " + std::to_string(options_.timeout.count()) +
           " ms after that failure)";
    return false;
  }
  context_ =
      redisConnectWithTimeout(options_.host.c_str(), options_.port, to_timeval(options_.timeout));
  if (!context_ || context_->err) {
    *why = "cannot connect: " +
           (context_ ? std::string(context_->errstr) : std::string("out of memory"));
    fail_locked(*why);
    return false;
  }
  if (redisSetTimeout(context_, to_timeval(options_.timeout)) != REDIS_OK) {
    *why = "cannot set the connection's timeout";
    fail_locked(*why);
    return false;
  }
  if (!password_.empty()) {
    const char* argv[] = {"AUTH", password_.c_str()};
    const size_t lens[] = {4, password_.size()};
    OwnedReply r(static_cast<redisReply*>(redisCommandArgv(context_, 2, argv, lens)));
    if (!r || r->type == REDIS_REPLY_ERROR) {
      *why = r ? "AUTH refused: " + reply_text(r.get()) : std::string(context_->errstr);
      fail_locked(*why);
      return false;
    }
  }
  return true;
}

SharedStore::OwnedReply SharedStore::run(const std::vector<std::string>& argv, std::string* why) {
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  std::lock_guard lock(mutex_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool fresh = context_ == nullptr;
    if (!connect_locked(why)) return nullptr;
    OwnedReply r(static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(args.size()), args.data(), lens.data())));
    if (!r) {
      *why = context_->errstr[0] ? std::string(context_->errstr) : std::string("no reply");
      // Again only on a connection that was closed under us before the
      // command (the store restarted): after a timeout it may have run.
      if (fresh || context_->err != REDIS_ERR_EOF) {
        fail_locked(*why);
        return nullptr;
      }
      drop_locked();
      continue;
    }
    if (r->type == REDIS_REPLY_ERROR) {
      *why = "the store refused " + argv.front() + ": " + reply_text(r.get());
      fail_locked(*why);
      return nullptr;
    }
    return r;
  }
  return nullptr;
}

std::optional<std::string> SharedStore::pin_once(std::string_view tool, const std::string& pin,
                                                 std::string* why) {
  auto r = run({"SET", options_.prefix + "pin:" + std::string(tool), pin, "NX", "GET"}, why);
  if (!r) return std::nullopt;
  if (r->type == REDIS_REPLY_NIL) return pin;  // none held: ours is the pin now
  if (r->type == REDIS_REPLY_STRING) return reply_text(r.get());
  *why = "the store's answer to SET ... NX GET has an unexpected type";
  return std::nullopt;
}

std::optional<bool> SharedStore::spend_once(std::string_view nonce, std::int64_t expires_unix_ms,
                                            std::string* why) {
  if (expires_unix_ms <= 0) {
    *why = "the state has no expiry";
    return std::nullopt;
  }
  // Kept past the state's expiry by a margin, and as a duration the store
  // counts on its own clock: a replica whose clock is behind still opens
  // the state after this one's expiry, and the key must outlive that.  (An
  // absolute expiry already past on the store's clock would not be kept
  // at all.)
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const auto keep_ms = std::max<std::int64_t>(expires_unix_ms - now, 0) + spent_margin_ms;
  auto r = run({"SET", options_.prefix + "spent:" + std::string(nonce), "1", "NX", "PX",
                std::to_string(keep_ms)},
               why);
  if (!r) return std::nullopt;
  if (r->type == REDIS_REPLY_NIL) return false;  // spent already, here or on another replica
  if (r->type == REDIS_REPLY_STATUS) return true;
  *why = "the store's answer to SET ... NX PXAT has an unexpected type";
  return std::nullopt;
}

}  // namespace toolgate::mcp
