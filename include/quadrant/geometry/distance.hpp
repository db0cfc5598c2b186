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

// The type nearest-neighbour distances are squared in: double, for float and double alike. Float coordinates
// square exactly there; double ones are scaled first when they are too large to square (see NearestMetric). No
// wider type: long double is 64, 80 or 128 bits depending on the platform, and its results with it.
template <class S>
using WideScalar = double;

// Sum over axes of (gap * k)^2 in W, the gap being the distance from p to b along the axis (0 inside), each
// coordinate converted to W before subtracting. k = 1 is the squared distance. A box inside `node` has every gap
// >= node's, and rounding is monotone, so its value is never below node's (what classify relies on).
template <class W, int D, class S>
constexpr W scaled_squared_distance(const Vec<D, S>& p, const Box<D, S>& b, W k) noexcept {
#if defined(QUADRANT_SSE2)
  // 2D float in float (the round shapes' tests against each entry): both axes in one register, without branches,
  // as squared_distance_as does in double. p - max is computed as -(max - p), which rounds to the same bits. An
  // empty fit (min > max) may get another value than the loop's, as large: the walks classify such a fit before
  // their gate, which then skips the node (it holds nothing), so no answer depends on it.
  if constexpr (D == 2 && std::is_same_v<S, float> && std::is_same_v<W, float>) {
    if (!std::is_constant_evaluated()) {
      const __m128 v = _mm_loadu_ps(reinterpret_cast<const float*>(&b));  // min x, min y, max x, max y
      const __m128 xy = _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&p)));  // unaligned
      const __m128 pp = _mm_movelh_ps(xy, xy);                                                     // x, y, x, y
      const __m128 d = _mm_xor_ps(_mm_sub_ps(v, pp), _mm_set_ps(-0.0f, -0.0f, 0.0f, 0.0f));  // min - p, p - max
      const __m128 gap = _mm_max_ps(_mm_max_ps(d, _mm_movehl_ps(d, d)), _mm_setzero_ps());
      const __m128 g = _mm_mul_ps(gap, _mm_set1_ps(k));
      const __m128 sq = _mm_mul_ps(g, g);
      return _mm_cvtss_f32(_mm_add_ss(sq, _mm_shuffle_ps(sq, sq, 1)));
    }
  }
#endif
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
#if defined(QUADRANT_SSE2)
  // Float into double, the nearest searches' key: axes x and y in one register, without branches. Each gap is
  // max(min - p, p - max, 0), the scalar loop's value for a box (min <= max: at most one difference is positive, and
  // the same subtraction of the same converted coordinates gives the same bits; the sum adds in the same order), so
  // both paths agree bit for bit. The scalar loop's branches follow where the point lies, close to random in a
  // leaf's scan, so they mispredict; this path has none. (An empty box, min > max, may get another value here, as
  // large; no search keys one: a node that has held nothing is never reached.)
  if constexpr (std::is_same_v<S, float> && std::is_same_v<W, double>) {
    if (!std::is_constant_evaluated()) {
      const auto two = [](const Vec<D, S>& v) {  // x and y as doubles
        return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&v))));
      };
      const __m128d p = two(point);
      const __m128d gap = _mm_max_pd(_mm_max_pd(_mm_sub_pd(two(b.min), p), _mm_sub_pd(p, two(b.max))),
                                     _mm_setzero_pd());
      const __m128d sq = _mm_mul_pd(gap, gap);
      __m128d sum = _mm_add_sd(sq, _mm_unpackhi_pd(sq, sq));
      if constexpr (D == 3) {
        const __m128d pz = _mm_set_sd(double(point[2]));
        const __m128d gz = _mm_max_sd(_mm_max_sd(_mm_sub_sd(_mm_set_sd(double(b.min[2])), pz),
                                                 _mm_sub_sd(pz, _mm_set_sd(double(b.max[2])))),
                                      _mm_setzero_pd());
        sum = _mm_add_sd(sum, _mm_mul_sd(gz, gz));
      }
      return _mm_cvtsd_f64(sum);
    }
  }
#endif
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

// The distances of one nearest search, as squares in double. Double coordinates are multiplied by k, a power of
// two, before subtracting. k = 1 while the largest coordinate the search can meet (the point's, the world's, the
// root fit's) lies between 2^-509 and 2^509 in magnitude: a gap is at most 2^510 and a sum of three squares stays
// finite. Beyond 2^509, k scales it down below that; below 2^-509 (a world of tiny coordinates), up, so that its
// squares do not underflow. A power of two scales exactly (a coordinate scaled down may underflow, only below
// 2^-500 of the largest) and monotonically, so keys keep their order and a box inside a node never keys below it.
// Float coordinates need no scale: their squares are exact in double.
template <int D, class S>
struct NearestMetric {
  Vec<D, S> p;   // the query point
  Vec<D, S> pk;  // p * k
  double k = 1;

  // `magnitude`: the largest |coordinate| of the world and of every object (the root's fit).
  NearestMetric(const Vec<D, S>& point, S magnitude) noexcept : p(point), pk(point) {
    if constexpr (std::is_same_v<S, double>) {
      constexpr int kLargest = 509;
      for (int i = 0; i < D; ++i) magnitude = std::max(magnitude, std::abs(point[i]));
      if (magnitude > std::ldexp(1.0, kLargest) || (magnitude > 0 && magnitude < std::ldexp(1.0, -kLargest))) {
        k = std::ldexp(1.0, std::min(kLargest - 1 - std::ilogb(magnitude), 1000));
        for (int i = 0; i < D; ++i) pk[i] = point[i] * k;
      }
    }
  }
  // The key of box b: its squared distance from p, both scaled by k.
  double operator()(const Box<D, S>& b) const noexcept {
    if constexpr (std::is_same_v<S, double>) {
      if (k != 1) {
        double sum = 0;
        for (int i = 0; i < D; ++i) {
          const double lo = b.min[i] * k, hi = b.max[i] * k;
          double d = 0;
          if (pk[i] < lo) d = lo - pk[i];
          else if (pk[i] > hi) d = pk[i] - hi;
          sum += d * d;
        }
        return sum;
      }
    }
    return squared_distance_as<double>(p, b);
  }
  // A distance as a key: (d * k)^2. Infinity for a distance whose key would not be finite (larger than any key).
  double key_of(double distance) const noexcept { return (distance * k) * (distance * k); }
  // A key's distance: sqrt(key) / k.
  S distance_of(double key) const noexcept { return static_cast<S>(std::sqrt(key) / k); }
  // The gap from p to a face at coordinate c along axis i, scaled: c * k - p * k (negative behind the point).
  double gap(int i, S c) const noexcept { return double(c) * k - double(pk[i]); }
};

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
