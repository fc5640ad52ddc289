#include "generation.hpp"

#include <algorithm>

namespace toolgate::detail {

template <class Hooks>
static void sort_waterfall(Hooks& hooks) {
  std::stable_sort(hooks.begin(), hooks.end(), [](const auto& a, const auto& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.order < b.order;
  });
}

void Generation::resolve_order() {
  sort_waterfall(pre_execute);
  sort_waterfall(wrappers);
  sort_waterfall(post_execute);
  std::sort(guards.begin(), guards.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  std::stable_sort(observers.begin(), observers.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
}

}  // namespace toolgate::detail
