#include "split_calls.hpp"

#include <vector>

namespace toolgate::detail {

SplitCalls::SplitCalls(std::chrono::milliseconds expiry, std::size_t max_pending)
    : expiry_(expiry), max_pending_(max_pending) {
  expirer_ = std::jthread([this](std::stop_token stop) { expire_loop(stop); });
}

SplitCalls::~SplitCalls() {
  expirer_.request_stop();
  changed_.notify_all();
  expirer_.join();
  for (auto& [id, call] : pending_)
    expire_split(*call, "the host shut down before the caller reported the result");
}

bool SplitCalls::add(std::unique_ptr<SplitCall>& call, std::string* why) {
  call->expires = std::chrono::steady_clock::now() + expiry_;
  std::lock_guard lock(mutex_);
  if (pending_.size() >= max_pending_) {
    *why = std::to_string(pending_.size()) +
           " split-phase calls are already waiting to be completed (the limit); complete or let "
           "them expire first";
    return false;
  }
  const std::string& id = call->state.identity.call_id;
  if (pending_.count(id)) {
    *why = "call id \"" + id + "\" is already begun and not completed; give each call its own id";
    return false;
  }
  pending_.emplace(id, std::move(call));
  ++added_;
  changed_.notify_all();
  return true;
}

std::unique_ptr<SplitCall> SplitCalls::take(std::string_view call_id) {
  std::lock_guard lock(mutex_);
  auto it = pending_.find(call_id);
  if (it == pending_.end()) return nullptr;
  auto call = std::move(it->second);
  pending_.erase(it);
  return call;
}

std::size_t SplitCalls::size() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

void SplitCalls::expire_loop(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    auto now = std::chrono::steady_clock::now();
    auto next = std::chrono::steady_clock::time_point::max();
    std::vector<std::unique_ptr<SplitCall>> due;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second->expires <= now) {
        due.push_back(std::move(it->second));
        it = pending_.erase(it);
      } else {
        next = std::min(next, it->second->expires);
        ++it;
      }
    }
    if (!due.empty()) {
      lock.unlock();
      for (auto& call : due)
        expire_split(*call, "the caller did not report the result of this call within " +
                                std::to_string(expiry_.count()) + " ms (split-phase expiry)");
      due.clear();  // destroyed outside the lock too
      lock.lock();
      continue;
    }
    // Woken by a stop, by the earliest expiry, or by a new call (which may
    // expire sooner than any other: a shorter expiry is never configured at
    // run time, but the wait is recomputed anyway).
    const std::uint64_t seen = added_;
    auto added = [&] { return added_ != seen; };
    if (next == std::chrono::steady_clock::time_point::max())
      changed_.wait(lock, stop, added);
    else
      changed_.wait_until(lock, stop, next, added);
  }
}

}  // namespace toolgate::detail
