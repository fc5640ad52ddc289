#include "id_map.hpp"

#include "jsonrpc.hpp"

#include <toolgate/json.hpp>

namespace toolgate::mcp {

namespace json = boost::json;

void ResponseSlot::deliver(json::object response, std::string text) {
  {
    std::lock_guard lock(mutex_);
    if (done_) return;  // the first completion wins (complete() checks again)
    text_ = std::move(text);
  }
  complete(std::move(response), {});
}

void ResponseSlot::fail(std::string why) { complete(std::nullopt, std::move(why)); }

void ResponseSlot::complete(std::optional<json::object> response, std::string why) {
  {
    std::lock_guard lock(mutex_);
    if (done_) return;  // the first completion wins
    response_ = std::move(response);
    failure_ = std::move(why);
    done_ = true;
  }
  cv_.notify_all();
  if (on_change_) on_change_();
}

void ResponseSlot::poke() {
  {
    std::lock_guard lock(mutex_);
    poked_ = true;
  }
  cv_.notify_all();
  if (on_change_) on_change_();
}

bool ResponseSlot::done() const {
  std::lock_guard lock(mutex_);
  return done_;
}

std::optional<std::int64_t> IdMap::add_forwarded(json::value peer_id, std::string method,
                                                 json::object note) {
  std::lock_guard lock(mutex_);
  auto key = id_key(peer_id);
  if (by_peer_.count(key)) return std::nullopt;
  std::int64_t id = next_++;
  by_peer_.emplace(std::move(key), id);
  // On the heap: kept until the other peer answers, which may be never;
  // a copy in the message's storage would keep its whole block.
  pending_.emplace(id, PendingRequest{PendingRequest::Kind::forwarded, heap_copy(peer_id),
                                      std::move(method), std::move(note), nullptr});
  return id;
}

std::int64_t IdMap::add_own(std::string method, std::shared_ptr<ResponseSlot> slot) {
  std::lock_guard lock(mutex_);
  std::int64_t id = next_++;
  pending_.emplace(
      id,
      PendingRequest{PendingRequest::Kind::own, nullptr, std::move(method), {}, std::move(slot)});
  return id;
}

std::optional<PendingRequest> IdMap::take(const json::value& id) {
  // Only integers this map issued can match.
  std::int64_t n;
  if (id.is_int64())
    n = id.get_int64();
  else if (id.is_uint64() && id.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    n = static_cast<std::int64_t>(id.get_uint64());
  else
    return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = pending_.find(n);
  if (it == pending_.end()) return std::nullopt;
  PendingRequest p = std::move(it->second);
  pending_.erase(it);
  if (p.kind == PendingRequest::Kind::forwarded) by_peer_.erase(id_key(p.peer_id));
  return p;
}

std::optional<std::int64_t> IdMap::find_forwarded(const json::value& peer_id) const {
  std::lock_guard lock(mutex_);
  auto it = by_peer_.find(id_key(peer_id));
  if (it == by_peer_.end()) return std::nullopt;
  return it->second;
}

std::optional<json::value> IdMap::peer_id_of(const json::value& id, std::string_view method) const {
  if (!id.is_int64()) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = pending_.find(id.get_int64());
  if (it == pending_.end() || it->second.kind != PendingRequest::Kind::forwarded ||
      it->second.method != method)
    return std::nullopt;
  return it->second.peer_id;
}

bool IdMap::erase(std::int64_t id) {
  std::lock_guard lock(mutex_);
  auto it = pending_.find(id);
  if (it == pending_.end()) return false;
  if (it->second.kind == PendingRequest::Kind::forwarded)
    by_peer_.erase(id_key(it->second.peer_id));
  pending_.erase(it);
  return true;
}

std::vector<PendingRequest> IdMap::take_all() {
  std::lock_guard lock(mutex_);
  std::vector<PendingRequest> out;
  out.reserve(pending_.size());
  for (auto& [id, p] : pending_) out.push_back(std::move(p));
  pending_.clear();
  by_peer_.clear();
  return out;
}

std::size_t IdMap::size() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

}  // namespace toolgate::mcp
