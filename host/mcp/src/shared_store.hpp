// shared_store.hpp -- what replicas of the gateway share, kept in Redis.
//
// Two things, each one atomic command, so replicas never race each other:
//   - tool pins (tool_pins.hpp): the first definition of a tool that any
//     replica saw is the pin every replica checks against
//     (SET PREFIX"pin:"TOOL PIN NX GET -- Redis 7.0);
//   - spent approvals (sealed_state.hpp): a sealed requestState's nonce is
//     spent once across the replicas, until the state expires
//     and a margin (SET PREFIX"spent:"NONCE 1 NX PX TTL).
//
// A failure -- no connection, a timeout, an error reply -- is returned, not
// thrown, and each caller fails closed: a tool whose pin cannot be checked
// is treated as drifted, an approval that cannot be spent is asked again.
// The connection (hiredis) is one, used under a mutex, with a timeout on
// connect and on every reply; after a failure the store is not tried again
// for one timeout, so a store that is down costs the calls behind it
// nothing more than the first one's wait.
//
// The rate-limit plugin keeps its buckets in the same kind of store with a
// connection of its own (plugins/ is built on the SDK alone and cannot share
// code with the host).
#pragma once

#include <toolgate/mcp/gateway.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;
struct redisReply;

namespace toolgate::mcp {

class SharedStore {
 public:
  // Reads the password file now (std::runtime_error when it is not a
  // private file); connects on first use.
  explicit SharedStore(const SharedStoreOptions& options);
  ~SharedStore();
  SharedStore(const SharedStore&) = delete;
  SharedStore& operator=(const SharedStore&) = delete;

  // The pin the store holds for `tool`: `pin` itself when it held none
  // (it holds `pin` now).  nullopt and *why when the store did not answer.
  std::optional<std::string> pin_once(std::string_view tool, const std::string& pin,
                                      std::string* why);
  // Spends `nonce` until `expires_unix_ms` and spent_margin_ms more: true
  // when no replica had spent it, false when one had.  nullopt and *why
  // when the store did not answer.  Replicas' clocks must agree within the
  // margin (a replica further behind could open a state whose nonce the
  // store has forgotten).
  static constexpr std::int64_t spent_margin_ms = 10 * 60 * 1000;
  std::optional<bool> spend_once(std::string_view nonce, std::int64_t expires_unix_ms,
                                 std::string* why);

  // "redis://HOST:PORT (prefix P)", for messages.
  std::string where() const;

 private:
  struct ReplyDeleter {
    void operator()(redisReply* r) const;
  };
  using OwnedReply = std::unique_ptr<redisReply, ReplyDeleter>;
  // One command; on a connection the store had closed (it restarted) once
  // more on a fresh one -- it surely did not run.  Null and *why on failure.
  OwnedReply run(const std::vector<std::string>& argv, std::string* why);
  bool connect_locked(std::string* why);
  void drop_locked();
  void fail_locked(const std::string& why);

  SharedStoreOptions options_;
  std::string password_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;  // owned; under mutex_
  std::chrono::steady_clock::time_point retry_after_{};
  std::string last_failure_;
};

}  // namespace toolgate::mcp
