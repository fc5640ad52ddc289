// registry.hpp -- lock-light metric storage and Prometheus text rendering.
//
// Hot path: a series is found by label value under a shared lock (a
// std::map with heterogeneous lookup, so no string is built) and updated
// with relaxed atomics; only the first observation of a new label value
// takes the exclusive lock and allocates.  Each family caps its label
// values (max): beyond it observations go to the value "_other", so a
// stream of odd tool names cannot grow memory without bound.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tgp::metrics {

inline constexpr std::string_view kOverflow = "_other";

struct Counter {
  std::atomic<std::uint64_t> value{0};
  void add(std::uint64_t n = 1) { value.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t get() const { return value.load(std::memory_order_relaxed); }
};

// Upper bounds in nanoseconds, strictly increasing; +Inf is implicit.
struct Buckets {
  std::vector<double> seconds;
  std::vector<std::uint64_t> ns;
  explicit Buckets(std::vector<double> s);
};

class Histogram {
 public:
  explicit Histogram(const Buckets& b);
  void observe(std::uint64_t ns);
  // Appends _bucket / _sum / _count lines; `labels` is `k="v",` or empty.
  void render(std::string& out, std::string_view name, std::string_view labels) const;

 private:
  const Buckets& b_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // per bucket, non-cumulative; last = +Inf
  std::atomic<std::uint64_t> count_{0}, sum_ns_{0};
};

// Label value -> T.  T is constructed from `args` on first use.
template <class T>
class Family {
 public:
  explicit Family(std::size_t max) : max_(max) {}

  template <class... A>
  T& get(std::string_view key, const A&... args) {
    {
      std::shared_lock lock(mutex_);
      auto it = items_.find(key);
      if (it != items_.end()) return *it->second;
    }
    std::unique_lock lock(mutex_);
    auto it = items_.find(key);
    if (it != items_.end()) return *it->second;
    if (items_.size() >= max_) {
      key = kOverflow;
      it = items_.find(key);
      if (it != items_.end()) return *it->second;
    }
    return *items_.emplace(std::string(key), std::make_unique<T>(args...)).first->second;
  }

  // Visits (label value, series) in label order under the shared lock.
  template <class F>
  void each(F&& f) const {
    std::shared_lock lock(mutex_);
    for (const auto& kv : items_) f(kv.first, *kv.second);
  }

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::unique_ptr<T>, std::less<>> items_;
  std::size_t max_;
};

// Prometheus label value escaping (\\, \", \n).
std::string escape_label(std::string_view v);
// "name{labels} value\n"
void sample(std::string& out, std::string_view name, std::string_view labels,
            std::string_view value);
void header(std::string& out, std::string_view name, std::string_view type, std::string_view help);

}  // namespace tgp::metrics
