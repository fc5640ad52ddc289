// id_map.hpp -- request ids between the gateway and one peer.
//
// Every request the gateway sends to a peer -- one it forwards from the
// other peer or one of its own (a forwarded tools/call, an elicitation) --
// gets a fresh id from this map, so ids never collide whoever originated
// them.  The response is matched back through the same map.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace toolgate::mcp {

// Where the gateway's own requests wait for their response.
class ResponseSlot {
 public:
  // The peer's response (a JSON-RPC response object) and the text it was
  // read from (empty for one the gateway made).
  void deliver(boost::json::object response, std::string text = {});
  // No response will come (the peer is gone): `why` says so.
  void fail(std::string why);
  // Wakes waiters without completing (a signal may have fired).
  void poke();
  // For a request nobody waits on (Peer::request_text_async): called, on
  // the thread that does it, after each completion or poke.  Set before
  // the request is sent.
  void on_change(std::function<void()> f) { on_change_ = std::move(f); }
  bool done() const;

  // Waits until done or `until`; returns done().
  template <class TimePoint>
  bool wait_until(TimePoint until) {
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, until, [&] { return done_ || poked_; });
    poked_ = false;
    return done_;
  }
  // After done(): the response, or nullopt and failure() when it failed.
  const std::optional<boost::json::object>& response() const { return response_; }
  const std::string& failure() const { return failure_; }
  // After done() with a response: its text as the peer sent it (raw_json.hpp).
  const std::string& text() const { return text_; }

 private:
  void complete(std::optional<boost::json::object> response, std::string why);

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  bool poked_ = false;
  std::optional<boost::json::object> response_;
  std::string failure_;
  std::string text_;
  std::function<void()> on_change_;
};

struct PendingRequest {
  enum class Kind { forwarded, own } kind = Kind::forwarded;
  boost::json::value peer_id;  // forwarded: the id the other peer used
  std::string method;
  boost::json::object note;            // forwarded: what the response handler needs
  std::shared_ptr<ResponseSlot> slot;  // own
};

class IdMap {
 public:
  // A request forwarded from the other peer, which called it `peer_id`.
  // nullopt if a forwarded request with that peer id is still pending.
  std::optional<std::int64_t> add_forwarded(boost::json::value peer_id, std::string method,
                                            boost::json::object note = {});
  // One of the gateway's own requests.
  std::int64_t add_own(std::string method, std::shared_ptr<ResponseSlot> slot);
  // The pending request `id` (an id this map issued), removed.
  std::optional<PendingRequest> take(const boost::json::value& id);
  // The id issued for a still pending forwarded request, by the peer's id.
  std::optional<std::int64_t> find_forwarded(const boost::json::value& peer_id) const;
  // The other peer's id for the still pending forwarded request `id` (one
  // this map issued) of `method`, left pending: a long-lived request's
  // notifications name it (subscriptions/listen).
  std::optional<boost::json::value> peer_id_of(const boost::json::value& id,
                                               std::string_view method) const;
  bool erase(std::int64_t id);
  // Everything pending, removed (the peer went away).
  std::vector<PendingRequest> take_all();
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::int64_t next_ = 1;
  std::unordered_map<std::int64_t, PendingRequest> pending_;
  std::unordered_map<std::string, std::int64_t> by_peer_;  // id_key(peer id) -> ours
};

}  // namespace toolgate::mcp
