// SPDX-License-Identifier: MIT
// quadrant — distances from a point to a box: to its nearest point and to its farthest corner, in the caller's
// scalar or in a wider one. Every point-to-box distance of the library (nearest neighbours, the round shapes'
// tests, AoiWorld's regions, Streamer's priorities) is computed here, so they agree bit for bit.
// Include <quadrant/geometry.hpp>, which brings this and every query shape.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "box.hpp"

namespace quadrant {

namespace detail {

// The wider type nearest-neighbour distances are squared in: double for float, long double for double, so no
// finite coordinates overflow them.
template <class S>
using WideScalar = std::conditional_t<std::is_same_v<S, float>, double, long double>;

// Sum over axes of (gap * k)^2 in W, the gap being the distance from p to b along the axis (0 inside), each
// coordinate converted to W before subtracting. k = 1 is the squared distance. A box inside `node` has every gap
// >= node's, and rounding is monotone, so its value is never below node's (what classify relies on).
template <class W, int D, class S>
constexpr W scaled_squared_distance(const Vec<D, S>& p, const Box<D, S>& b, W k) noexcept {
  W sum = 0;
  for (int i = 0; i < D; ++i) {
    W d = 0;
    if (p[i] < b.min[i]) d = (W(b.min[i]) - W(p[i])) * k;
    else if (p[i] > b.max[i]) d = (W(p[i]) - W(b.max[i])) * k;
    sum += d * d;
  }
  return sum;
}

// Squared distance from a point to a closed box (0 inside), computed in W (the coordinates converted first).
template <class W, int D, class S>
constexpr W squared_distance_as(const Vec<D, S>& point, const Box<D, S>& b) noexcept {
  return scaled_squared_distance(point, b, W(1));  // * 1 is exact: the same bits as without it
}

// Squared distance from a point to a closed box (0 inside), in the wide type.
template <int D, class S>
WideScalar<S> squared_distance(const Vec<D, S>& point, const Box<D, S>& b) noexcept {
  return squared_distance_as<WideScalar<S>>(point, b);
}

// The same with the distance to the farther face: (squared distance to b's farthest corner) * k^2, in W. A box
// inside `node` never exceeds node's value, and for one box it is >= scaled_squared_distance, also under rounding.
template <class W, int D, class S>
W scaled_squared_max_distance(const Vec<D, S>& p, const Box<D, S>& b, W k) noexcept {
  W sum = 0;
  for (int i = 0; i < D; ++i) {
    const W d = std::max(std::abs(W(b.min[i]) - W(p[i])), std::abs(W(b.max[i]) - W(p[i]))) * k;
    sum += d * d;
  }
  return sum;
}

// Squared distance from a point to the farthest corner of a box, computed in W.
template <class W, int D, class S>
W squared_max_distance_as(const Vec<D, S>& point, const Box<D, S>& b) noexcept {
  return scaled_squared_max_distance(point, b, W(1));
}

}  // namespace detail

/// Squared Euclidean distance from `p` to the closed box `b`; 0 when p is inside. O(D).
template <int D, class S>
constexpr S distance_squared(const Vec<D, S>& p, const Box<D, S>& b) noexcept {
  return detail::squared_distance_as<S>(p, b);
}

/// Euclidean distance from `p` to the closed box `b`; 0 when p is inside.
template <int D, class S>
S distance(const Vec<D, S>& p, const Box<D, S>& b) noexcept {
  return std::sqrt(distance_squared(p, b));
}

}  // namespace quadrant
