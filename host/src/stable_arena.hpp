// stable_arena.hpp -- append-only storage whose elements never move.
//
// The wrapper chain hands out pointers to what it stores (results from
// `next`, signals given to a plugin) and checks them later by address, so
// elements must keep their addresses.  std::deque does, but allocates its
// map and a first block even when empty -- twice per wrapper on the call
// path.  Here the first N elements live inline (no allocation on the
// common path: a wrapper calls next once or twice), the rest in a list.
#pragma once

#include <array>
#include <cstddef>
#include <list>
#include <memory>
#include <optional>
#include <utility>

namespace toolgate::detail {

template <class T, std::size_t N>
class StableArena {
 public:
  StableArena() = default;
  StableArena(const StableArena&) = delete;
  StableArena& operator=(const StableArena&) = delete;

  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (inline_used_ < N) {
      // Counted once built: an element whose construction threw is not one.
      T& x = inline_[inline_used_].emplace(std::forward<Args>(args)...);
      ++inline_used_;
      return x;
    }
    if (!overflow_) overflow_ = std::make_unique<std::list<T>>();
    return overflow_->emplace_back(std::forward<Args>(args)...);
  }

  // Whether `p` points at one of the elements (compares addresses only: a
  // pointer from elsewhere is never dereferenced).
  bool holds(const T* p) const {
    for (std::size_t i = 0; i < inline_used_; ++i)
      if (&*inline_[i] == p) return true;
    if (overflow_)
      for (const auto& x : *overflow_)
        if (&x == p) return true;
    return false;
  }

 private:
  std::array<std::optional<T>, N> inline_;
  std::size_t inline_used_ = 0;
  // Created on the first element past N: an empty std::list still costs
  // an out-of-line clear when destroyed, once per wrapper level.
  std::unique_ptr<std::list<T>> overflow_;
};

}  // namespace toolgate::detail
