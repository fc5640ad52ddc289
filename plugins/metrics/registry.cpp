#include "registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tgp::metrics {

Buckets::Buckets(std::vector<double> s) : seconds(std::move(s)) {
  ns.reserve(seconds.size());
  for (double d : seconds) ns.push_back(static_cast<std::uint64_t>(std::llround(d * 1e9)));
}

Histogram::Histogram(const Buckets& b)
    : b_(b), counts_(new std::atomic<std::uint64_t>[b.ns.size() + 1]) {
  for (std::size_t i = 0; i <= b.ns.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(std::uint64_t ns) {
  const auto i =
      static_cast<std::size_t>(std::lower_bound(b_.ns.begin(), b_.ns.end(), ns) - b_.ns.begin());
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(ns, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

namespace {

std::string seconds_text(std::uint64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%llu.%09llu", static_cast<unsigned long long>(ns / 1000000000ULL),
                static_cast<unsigned long long>(ns % 1000000000ULL));
  return buf;
}

}  // namespace

void Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
  // Read the buckets first and derive the count from them, so that
  // _count equals the +Inf bucket even while calls are being observed.
  std::uint64_t cumulative = 0;
  const std::string bucket = std::string(name) + "_bucket";
  char le[64];
  for (std::size_t i = 0; i <= b_.ns.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    if (i < b_.ns.size())
      std::snprintf(le, sizeof le, "le=\"%.9g\"", b_.seconds[i]);
    else
      std::snprintf(le, sizeof le, "le=\"+Inf\"");
    sample(out, bucket, std::string(labels) + le, std::to_string(cumulative));
  }
  std::string plain(labels);
  if (!plain.empty()) plain.pop_back();  // trailing comma
  sample(out, std::string(name) + "_sum", plain,
         seconds_text(sum_ns_.load(std::memory_order_relaxed)));
  sample(out, std::string(name) + "_count", plain, std::to_string(cumulative));
}

std::string escape_label(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void sample(std::string& out, std::string_view name, std::string_view labels,
            std::string_view value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  out += value;
  out += '\n';
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

}  // namespace tgp::metrics
