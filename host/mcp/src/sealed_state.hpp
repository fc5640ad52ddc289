// sealed_state.hpp -- the requestState of the gateway's own input_required
// results (MCP 2026-07-28 multi round-trip requests).
//
// Under 2026-07-28 the gateway cannot ask the client anything mid-call: an
// `ask` ends the call with an input_required result, and the client retries
// the same call with its answer and the requestState echoed.  The state is
// the only thing that ties the answer to the question, and the client (or
// anyone on the wire) can change it, so it is sealed: an HMAC-SHA256 over
// claims the gateway checks on the retry -- the tool, the hash of the exact
// final arguments that were shown, the session and an expiry -- with a key
// only the gateway holds.  A retry whose state does not open, has expired,
// or names other arguments is asked again, never approved.
//
// Token: "tg1." + base64url(canonical JSON claims) + "." + base64url(MAC),
// the MAC taken over everything before the last dot.
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::mcp {

class StateSealer {
 public:
  using Clock = std::chrono::system_clock;
  // A fresh random 32-byte key (a key this process alone holds).
  StateSealer();
  // Keys shared by replicas (--seal-key-file): states are sealed with the
  // first and opened with any, so a new key can be put first while states
  // sealed with the old one are still out.  At least one.
  explicit StateSealer(std::vector<std::string> keys);

  // `claims` plus "exp" (now + ttl, Unix milliseconds), sealed.
  std::string seal(boost::json::object claims, std::chrono::milliseconds ttl) const;
  // The claims of a state this key sealed, not expired at `now`; nullopt
  // with *why otherwise.
  std::optional<boost::json::object> open(std::string_view state, std::string* why,
                                          Clock::time_point now = Clock::now()) const;

 private:
  static std::string mac(const std::string& key, std::string_view text);
  std::vector<std::string> keys_;
};

class SharedStore;

// Nonces of sealed states that were spent, until they expire: a sealed
// approval is good for one run of its call.  claim() is false, with *why,
// for a nonce seen before; expired ones are forgotten (their states no
// longer open).  With a shared store (not owned, may be null) a nonce is
// spent for every replica, and a store that does not answer makes claim()
// false (fail closed: the user is asked again).
class UsedNonces {
 public:
  explicit UsedNonces(SharedStore* shared = nullptr) : shared_(shared) {}
  bool claim(const std::string& nonce, std::int64_t expires_unix_ms, std::string* why);

 private:
  SharedStore* shared_;
  std::mutex mutex_;
  std::map<std::string, std::int64_t> used_;
};

// 128 random bits, hex: a sealed state's nonce.
std::string random_nonce();

// The hash of a call's arguments the seal vouches for: SHA-256 of their
// canonical JSON (canonical_json.hpp), so two spellings hash alike.
std::string arguments_hash(const boost::json::object& arguments);

}  // namespace toolgate::mcp
