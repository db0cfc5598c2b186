// SPDX-License-Identifier: MIT
// quadrant internals: rounding a box computed in double outwards into the scalar S, so that it never cuts off a
// point it should hold. Used by the round shapes' bounding boxes, the frustum's corner box, AoiWorld's tree boxes
// and Streamer's prefetch box. Also the scale the narrow phase's squared distances are computed at. Not for direct
// inclusion: <quadrant/geometry.hpp> brings it.
//
// Two roundings, kept apart because callers rely on their exact bits:
//   round_down / round_up   the nearest S at or below (above) x: tight, and finite (clamped to S's range);
//   next_below / next_above x rounded to the nearest S, then one step further out: always one step past, and
//                           infinite when x is beyond S's range (a box that holds everything).
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "box.hpp"

namespace quadrant::detail {

// Rounds a double down to S, kept finite: a finite box already covers every finite coordinate.
template <class S>
S round_down(double x) noexcept {
  x = std::clamp(x, static_cast<double>(std::numeric_limits<S>::lowest()),
                 static_cast<double>(std::numeric_limits<S>::max()));
  S s = static_cast<S>(x);
  if (static_cast<double>(s) > x) s = std::nextafter(s, std::numeric_limits<S>::lowest());
  return s;
}
// Rounds a double up to S, kept finite.
template <class S>
S round_up(double x) noexcept {
  return -round_down<S>(-x);
}

// x rounded to the nearest S, then one step down (towards -infinity).
template <class S>
S next_below(double x) noexcept {
  return std::nextafter(static_cast<S>(x), -std::numeric_limits<S>::infinity());
}
// x rounded to the nearest S, then one step up (towards +infinity).
template <class S>
S next_above(double x) noexcept {
  return std::nextafter(static_cast<S>(x), std::numeric_limits<S>::infinity());
}

// The box c +- half (computed in double, half >= 0), rounded outwards to S (round_down / round_up): it holds every
// point within `half` of c on each axis.
template <int D, class S>
Box<D, S> round_out_box(const Vec<D, S>& c, double half) noexcept {
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    const double x = static_cast<double>(c[i]);
    b.min[i] = round_down<S>(x - half);
    b.max[i] = round_up<S>(x + half);
  }
  return b;
}

// Box b grown by `grow` (>= 0) on every side, computed in double and rounded outwards to S: it holds every point
// within `grow` of b on each axis.
template <int D, class S>
Box<D, S> round_out_box(const Box<D, S>& b, double grow) noexcept {
  Box<D, S> out;
  for (int i = 0; i < D; ++i) {
    out.min[i] = round_down<S>(static_cast<double>(b.min[i]) - grow);
    out.max[i] = round_up<S>(static_cast<double>(b.max[i]) + grow);
  }
  return out;
}

// The box origin + [lo, hi], widened by a few roundings of S at that magnitude (so that it holds every box the
// shape's overlaps accepts, rounding included) and rounded outwards. The widening stays finite (and tight) when
// |origin| + |lo or hi| overflows double: the shapes rely on their box to bound the differences they compute.
template <int D, class S>
Box<D, S> outward_box(const Vec<D, S>& origin, const Vec<D, double>& lo, const Vec<D, double>& hi) noexcept {
  constexpr double slack = 16 * static_cast<double>(std::numeric_limits<S>::epsilon());
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    const double o = origin[i], reach = std::max(std::abs(lo[i]), std::abs(hi[i]));
    double m = slack * (std::abs(o) + reach);
    if (!(m <= std::numeric_limits<double>::max())) m = slack * std::abs(o) + slack * reach;
    b.min[i] = round_down<S>(o + lo[i] - m);
    b.max[i] = round_up<S>(o + hi[i] + m);
  }
  return b;
}

// A power of two k for a test computed in double with squares (the narrow phase's circle against a polygon or an
// oriented box), m being the largest magnitude among its inputs: 1 when m lies within 2^-400 .. 2^400 (every input
// of float, and of ordinary double), where a square of a few times m cannot overflow and one that underflows is of
// a quantity far below the rounding of m; otherwise the power of two that brings m near 1. Scaling is exact, short
// of quantities far below the rounding of m.
inline double square_scale(double m) noexcept {
  if (m == 0 || (m >= 0x1p-400 && m <= 0x1p400)) return 1;
  return std::ldexp(1.0, std::clamp(-std::ilogb(m), -1000, 1000));
}

}  // namespace quadrant::detail
