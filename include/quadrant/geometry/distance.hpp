// SPDX-License-Identifier: MIT
// quadrant — distances from a point to a box, in a type wide enough that no finite coordinates overflow them.
#pragma once

#include <type_traits>

#include "box.hpp"

namespace quadrant::detail {

// The wider type nearest-neighbour distances are squared in: double for float, long double for double, so no
// finite coordinates overflow them.
template <class S>
using WideScalar = std::conditional_t<std::is_same_v<S, float>, double, long double>;

// Squared distance from a point to a closed box (0 inside), in the wide type.
template <int D, class S>
WideScalar<S> squared_distance(const Vec<D, S>& point, const Box<D, S>& b) noexcept {
  using W = WideScalar<S>;
  W sum = 0;
  for (int i = 0; i < D; ++i) {
    W d = 0;
    if (point[i] < b.min[i]) d = W(b.min[i]) - W(point[i]);
    else if (point[i] > b.max[i]) d = W(point[i]) - W(b.max[i]);
    sum += d * d;
  }
  return sum;
}

}  // namespace quadrant::detail
