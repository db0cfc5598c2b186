// SPDX-License-Identifier: MIT
// quadrant — geometry: points, boxes, their exact relations, and the box and point as query shapes.
// Include <quadrant/geometry.hpp>, which brings this and every query shape.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../detail/inline.hpp"

// QUADRANT_NO_SIMD: the portable code everywhere (see docs/core.md); the results are the same.
#if (defined(__SSE2__) || defined(_M_X64)) && !defined(QUADRANT_NO_SIMD)
#include <emmintrin.h>
#define QUADRANT_SSE2 1
#endif

namespace quadrant {

/// A point or direction in D dimensions (D = 2 or 3) with scalar S (float or double).
/// Aggregate: `Vec<2, float>{x, y}`, `Vec<3, double>{x, y, z}`; `v[i]` reads axis i (0 = x).
template <int D, class S = float>
struct Vec;

/// 2D point: `Vec<2, S>{x, y}`.
template <class S>
struct Vec<2, S> {
  static_assert(std::is_floating_point_v<S>, "quadrant: the scalar type must be float or double");
  S x;  ///< axis 0
  S y;  ///< axis 1
  /// Axis i (0 = x, 1 = y). i outside [0, 2) is a programming error (not checked).
  constexpr S& operator[](int i) noexcept { return i == 0 ? x : y; }
  /// Axis i (0 = x, 1 = y), read only.
  constexpr const S& operator[](int i) const noexcept { return i == 0 ? x : y; }
  /// Component-wise equality (exact, as floats compare).
  friend constexpr bool operator==(const Vec&, const Vec&) = default;
};

/// 3D point: `Vec<3, S>{x, y, z}`.
template <class S>
struct Vec<3, S> {
  static_assert(std::is_floating_point_v<S>, "quadrant: the scalar type must be float or double");
  S x;  ///< axis 0
  S y;  ///< axis 1
  S z;  ///< axis 2
  /// Axis i (0 = x, 1 = y, 2 = z). i outside [0, 3) is a programming error (not checked).
  constexpr S& operator[](int i) noexcept { return i == 0 ? x : (i == 1 ? y : z); }
  /// Axis i, read only.
  constexpr const S& operator[](int i) const noexcept { return i == 0 ? x : (i == 1 ? y : z); }
  /// Component-wise equality (exact, as floats compare).
  friend constexpr bool operator==(const Vec&, const Vec&) = default;
};

/// An axis-aligned box. Closed: boxes that touch overlap, and a point is a box with min == max.
/// Valid when every coordinate is finite and min[i] <= max[i] on every axis (see `is_valid`).
template <int D, class S = float>
struct Box {
  Vec<D, S> min;  ///< lowest corner
  Vec<D, S> max;  ///< highest corner
  /// Exact equality of both corners.
  friend constexpr bool operator==(const Box&, const Box&) = default;
};

/// 2D float point.
using Vec2 = Vec<2, float>;
/// 3D float point.
using Vec3 = Vec<3, float>;
/// 2D float box.
using Box2 = Box<2, float>;
/// 3D float box.
using Box3 = Box<3, float>;

// ---- Vec arithmetic -------------------------------------------------------------------------------------------

/// Component-wise sum.
template <int D, class S>
constexpr Vec<D, S> operator+(Vec<D, S> a, const Vec<D, S>& b) noexcept {
  for (int i = 0; i < D; ++i) a[i] += b[i];
  return a;
}
/// Component-wise difference.
template <int D, class S>
constexpr Vec<D, S> operator-(Vec<D, S> a, const Vec<D, S>& b) noexcept {
  for (int i = 0; i < D; ++i) a[i] -= b[i];
  return a;
}
/// Scale by a scalar (any arithmetic value converts to S: `v * 2`).
template <int D, class S>
constexpr Vec<D, S> operator*(Vec<D, S> a, std::type_identity_t<S> k) noexcept {
  for (int i = 0; i < D; ++i) a[i] *= k;
  return a;
}
/// Scale by a scalar, scalar first: `2.f * v`.
template <int D, class S>
constexpr Vec<D, S> operator*(std::type_identity_t<S> k, Vec<D, S> a) noexcept {
  return a * k;
}
/// Divide by a scalar (IEEE: by 0 gives infinities or NaN).
template <int D, class S>
constexpr Vec<D, S> operator/(Vec<D, S> a, std::type_identity_t<S> k) noexcept {
  for (int i = 0; i < D; ++i) a[i] /= k;
  return a;
}
/// Component-wise negation.
template <int D, class S>
constexpr Vec<D, S> operator-(Vec<D, S> a) noexcept {
  for (int i = 0; i < D; ++i) a[i] = -a[i];
  return a;
}
/// a = a + b.
template <int D, class S>
constexpr Vec<D, S>& operator+=(Vec<D, S>& a, const Vec<D, S>& b) noexcept {
  return a = a + b;
}
/// a = a - b.
template <int D, class S>
constexpr Vec<D, S>& operator-=(Vec<D, S>& a, const Vec<D, S>& b) noexcept {
  return a = a - b;
}
/// a = a * k.
template <int D, class S>
constexpr Vec<D, S>& operator*=(Vec<D, S>& a, std::type_identity_t<S> k) noexcept {
  return a = a * k;
}
/// a = a / k.
template <int D, class S>
constexpr Vec<D, S>& operator/=(Vec<D, S>& a, std::type_identity_t<S> k) noexcept {
  return a = a / k;
}
/// Dot product.
template <int D, class S>
constexpr S dot(const Vec<D, S>& a, const Vec<D, S>& b) noexcept {
  S sum = 0;
  for (int i = 0; i < D; ++i) sum += a[i] * b[i];
  return sum;
}

// ---- validity -------------------------------------------------------------------------------------------------

/// True when every coordinate of `p` is finite (no NaN, no infinity).
template <int D, class S>
constexpr bool is_finite(const Vec<D, S>& p) noexcept {
  for (int i = 0; i < D; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

/// True when `b` is finite and min <= max on every axis. Zero-size boxes (points, segments) are valid.
template <int D, class S>
constexpr bool is_valid(const Box<D, S>& b) noexcept {
  if (!is_finite(b.min) || !is_finite(b.max)) return false;
  for (int i = 0; i < D; ++i)
    if (b.min[i] > b.max[i]) return false;
  return true;
}

/// Throws std::invalid_argument naming `what` and the defect when `p` has a NaN or infinite coordinate.
template <int D, class S>
void check_point(const Vec<D, S>& p, const char* what) {
  for (int i = 0; i < D; ++i) {
    if (std::isnan(p[i])) throw std::invalid_argument(std::string("quadrant: ") + what + ": coordinate is NaN");
    if (!std::isfinite(p[i]))
      throw std::invalid_argument(std::string("quadrant: ") + what + ": coordinate is infinite");
  }
}

/// Throws std::invalid_argument naming `what` and the defect when `b` is not valid (NaN, infinite, min > max).
template <int D, class S>
void check_box(const Box<D, S>& b, const char* what) {
  check_point(b.min, what);
  check_point(b.max, what);
  for (int i = 0; i < D; ++i)
    if (b.min[i] > b.max[i])
      throw std::invalid_argument(std::string("quadrant: ") + what + ": box min > max on axis " + std::to_string(i));
}

// ---- box relations --------------------------------------------------------------------------------------------

/// Closed overlap: true when the boxes share at least one point (touching counts). O(D).
template <int D, class S>
QUADRANT_INLINE constexpr bool overlaps(const Box<D, S>& a, const Box<D, S>& b) noexcept {
#if defined(QUADRANT_SSE2)
  // 2D float boxes are four floats (min x, min y, max x, max y): one compare of [a.min, b.min] against
  // [b.max, a.max] tests all four sides (7 instructions against about 12 for the scalar loop; the test every walk
  // makes most). A NaN coordinate compares false, so such a box overlaps nothing (the tree refuses NaN boxes).
  if constexpr (D == 2 && std::is_same_v<S, float>) {
    if (!std::is_constant_evaluated()) {
      static_assert(sizeof(Box<2, float>) == 4 * sizeof(float), "quadrant: a 2D float box is four floats");
      const __m128 va = _mm_loadu_ps(reinterpret_cast<const float*>(&a));
      const __m128 vb = _mm_loadu_ps(reinterpret_cast<const float*>(&b));
      return _mm_movemask_ps(_mm_cmple_ps(_mm_movelh_ps(va, vb), _mm_movehl_ps(va, vb))) == 0xF;
    }
  }
#endif
  // Every comparison is made and the results combined without branches: in the entry loops of queries and pairs
  // the outcome of each comparison is close to random, and one mispredicted branch costs more than all of them.
  int apart = 0;
  for (int i = 0; i < D; ++i) apart |= int{a.max[i] < b.min[i]} | int{b.max[i] < a.min[i]};
  return apart == 0;
}

/// True when point `p` lies in the closed box `b`.
template <int D, class S>
QUADRANT_INLINE constexpr bool overlaps(const Box<D, S>& b, const Vec<D, S>& p) noexcept {
  for (int i = 0; i < D; ++i)
    if (p[i] < b.min[i] || p[i] > b.max[i]) return false;
  return true;
}

/// True when `inner` lies wholly inside the closed box `outer` (equal boxes contain each other).
template <int D, class S>
QUADRANT_INLINE constexpr bool contains(const Box<D, S>& outer, const Box<D, S>& inner) noexcept {
#if defined(QUADRANT_SSE2)
  // As in overlaps: one compare of [outer.min, inner.max] against [inner.min, outer.max] (a NaN: not contained).
  if constexpr (D == 2 && std::is_same_v<S, float>) {
    if (!std::is_constant_evaluated()) {
      const __m128 vo = _mm_loadu_ps(reinterpret_cast<const float*>(&outer));
      const __m128 vi = _mm_loadu_ps(reinterpret_cast<const float*>(&inner));
      const __m128 left = _mm_shuffle_ps(vo, vi, _MM_SHUFFLE(3, 2, 1, 0));   // outer.min, inner.max
      const __m128 right = _mm_shuffle_ps(vi, vo, _MM_SHUFFLE(3, 2, 1, 0));  // inner.min, outer.max
      return _mm_movemask_ps(_mm_cmple_ps(left, right)) == 0xF;
    }
  }
#endif
  for (int i = 0; i < D; ++i)
    if (inner.min[i] < outer.min[i] || inner.max[i] > outer.max[i]) return false;
  return true;
}

/// True when point `p` lies in the closed box `b` (same as `overlaps(b, p)`).
template <int D, class S>
QUADRANT_INLINE constexpr bool contains(const Box<D, S>& b, const Vec<D, S>& p) noexcept {
  return overlaps(b, p);
}

/// The smallest box holding both `a` and `b`.
template <int D, class S>
QUADRANT_INLINE constexpr Box<D, S> merge(const Box<D, S>& a, const Box<D, S>& b) noexcept {
  Box<D, S> r;
  for (int i = 0; i < D; ++i) {
    r.min[i] = std::min(a.min[i], b.min[i]);
    r.max[i] = std::max(a.max[i], b.max[i]);
  }
  return r;
}

/// The intersection of two overlapping boxes. For disjoint boxes the result has min > max on some axis.
template <int D, class S>
QUADRANT_INLINE constexpr Box<D, S> intersection(const Box<D, S>& a, const Box<D, S>& b) noexcept {
  Box<D, S> r;
  for (int i = 0; i < D; ++i) {
    r.min[i] = std::max(a.min[i], b.min[i]);
    r.max[i] = std::min(a.max[i], b.max[i]);
  }
  return r;
}

/// The center of `b`, rounded once (std::midpoint), so it never overflows for finite boxes.
template <int D, class S>
constexpr Vec<D, S> center(const Box<D, S>& b) noexcept {
  Vec<D, S> c;
  for (int i = 0; i < D; ++i) c[i] = std::midpoint(b.min[i], b.max[i]);
  return c;
}

/// The side lengths of `b` (max - min per axis).
template <int D, class S>
constexpr Vec<D, S> extent(const Box<D, S>& b) noexcept {
  return b.max - b.min;
}

/// The point of the closed box `b` nearest to `p` (p itself when inside).
template <int D, class S>
constexpr Vec<D, S> clamp(const Vec<D, S>& p, const Box<D, S>& b) noexcept {
  Vec<D, S> r;
  for (int i = 0; i < D; ++i) r[i] = std::clamp(p[i], b.min[i], b.max[i]);
  return r;
}

/// `b` clamped into the valid box `into` corner by corner: a box outside `into` becomes a degenerate box on its
/// boundary. Keeps overlap: if a and b overlap, so do their clamps.
template <int D, class S>
constexpr Box<D, S> clamp(const Box<D, S>& b, const Box<D, S>& into) noexcept {
  return Box<D, S>{clamp(b.min, into), clamp(b.max, into)};
}

// distance_squared and distance (point to box) are in distance.hpp, with the library's other point-to-box distances.

/// A box centered on `c` with half side lengths `half`.
template <int D, class S>
constexpr Box<D, S> box_around(const Vec<D, S>& c, const Vec<D, S>& half) noexcept {
  return Box<D, S>{c - half, c + half};
}

// ---- shapes as queries ----------------------------------------------------------------------------------------

/// How a query shape relates to a node's bounds: wholly outside, crossing the boundary, or wholly inside.
enum class Relation { Outside, Crossing, Inside };

/// Box query vs node bounds. `Inside` means every point of `node` is inside `query`.
template <int D, class S>
QUADRANT_INLINE constexpr Relation classify(const Box<D, S>& query, const Box<D, S>& node) noexcept {
  if (!overlaps(query, node)) return Relation::Outside;
  return contains(query, node) ? Relation::Inside : Relation::Crossing;
}

/// Point query vs node bounds: a point never contains a box with extent, so never `Inside` unless node is a point.
template <int D, class S>
QUADRANT_INLINE constexpr Relation classify(const Vec<D, S>& query, const Box<D, S>& node) noexcept {
  if (!overlaps(node, query)) return Relation::Outside;
  return node.min == node.max ? Relation::Inside : Relation::Crossing;
}

/// Point query vs object box: the point lies in the box.
template <int D, class S>
QUADRANT_INLINE constexpr bool overlaps(const Vec<D, S>& p, const Box<D, S>& b) noexcept {
  return overlaps(b, p);
}

/// The axis-aligned box around a query shape (for a box, itself).
template <int D, class S>
constexpr Box<D, S> bounding_box(const Box<D, S>& b) noexcept {
  return b;
}
/// The degenerate box around a point.
template <int D, class S>
constexpr Box<D, S> bounding_box(const Vec<D, S>& p) noexcept {
  return Box<D, S>{p, p};
}

/// Throws std::invalid_argument when a box query is invalid.
template <int D, class S>
void check_shape(const Box<D, S>& b) {
  check_box(b, "query box");
}
/// Throws std::invalid_argument when a query point is not finite.
template <int D, class S>
void check_shape(const Vec<D, S>& p) {
  check_point(p, "query point");
}

namespace detail {
// The form of a query shape that a query tests against many boxes: the shape itself, or (for shapes whose tests
// start with trigonometry, Ellipse and Sector) a copy with that work done once. Overloads live with the shapes.
template <class Shape>
constexpr const Shape& prepare(const Shape& shape) noexcept {
  return shape;
}
}  // namespace detail

}  // namespace quadrant
