// split_calls.hpp -- the begun split-phase calls waiting for complete_call(),
// keyed by call id, and the thread that expires those nobody completes
// (docs/design.md §3.1).  Each call leaves the table exactly once -- by
// complete_call, by expiry or when the host goes -- and whoever takes it
// out finishes it, outside the lock.
#pragma once

#include "pipeline/split_call.hpp"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace toolgate::detail {

class SplitCalls {
 public:
  SplitCalls(std::chrono::milliseconds expiry, std::size_t max_pending);
  // Expires every call still pending (each gets its tool/result).
  ~SplitCalls();

  // Takes `call` into the table.  False, leaving `call` with the caller,
  // when its id is already pending or the table is full; *why says which.
  bool add(std::unique_ptr<SplitCall>& call, std::string* why);
  // The pending call with this id, removed from the table; nullptr if none.
  std::unique_ptr<SplitCall> take(std::string_view call_id);
  std::size_t size() const;

 private:
  void expire_loop(std::stop_token stop);

  const std::chrono::milliseconds expiry_;
  const std::size_t max_pending_;
  mutable std::mutex mutex_;
  std::condition_variable_any changed_;
  std::map<std::string, std::unique_ptr<SplitCall>, std::less<>> pending_;
  std::uint64_t added_ = 0;  // wakes the expirer
  std::jthread expirer_;     // last: stopped before the table goes
};

}  // namespace toolgate::detail
