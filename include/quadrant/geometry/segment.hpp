// SPDX-License-Identifier: MIT
// quadrant — Segment<D>: line segments (ray casts and segment queries).
//
// The one primitive is entry_fraction: the slab method clips the parameter range [0, 1] of a + t (b - a) against
// each axis's [min, max]. It is written to take tree node bounds too, whose faces may be at +-infinity: with a and
// b finite, (min - a) / d is +-inf (never NaN) for an infinite face, and an axis where the segment does not move
// (d == 0) is tested directly as a_i in [min_i, max_i] instead of dividing.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "box.hpp"

namespace quadrant {

/// The closed segment from `a` to `b` (a == b is a point). A ray cast walks it from a to b.
template <int D, class S = float>
struct Segment {
  Vec<D, S> a;  ///< start (fraction 0)
  Vec<D, S> b;  ///< end (fraction 1)
};

namespace detail {

/// Slab clipping of the closed segment against the closed box (coordinates may be infinite, see the file comment).
/// On a hit, [t_enter, t_exit] is the sub-range of [0, 1] inside the box. Monotone in the box coordinates: a
/// smaller box never gets a smaller t_enter or a larger t_exit, so a node that misses has no box inside it that
/// hits. O(D).
template <int D, class S>
bool clip_segment(const Segment<D, S>& s, const Box<D, S>& box, S& t_enter, S& t_exit) noexcept {
  // The segment's extent first, by comparisons alone (exact): the fractions below are rounded relative to the
  // segment's length, so with one end point far away a box short of the other end would get t = 1 and be hit.
  for (int i = 0; i < D; ++i)
    if (std::max(s.a[i], s.b[i]) < box.min[i] || std::min(s.a[i], s.b[i]) > box.max[i]) return false;
  S t0 = 0, t1 = 1;
  for (int i = 0; i < D; ++i) {
    const S a = s.a[i], d = s.b[i] - s.a[i];
    if (d == 0) {
      if (a < box.min[i] || a > box.max[i]) return false;
      continue;
    }
    S t_near = (box.min[i] - a) / d, t_far = (box.max[i] - a) / d;
    if (d < 0) std::swap(t_near, t_far);
    t0 = std::max(t0, t_near);
    t1 = std::min(t1, t_far);
    if (t0 > t1) return false;
  }
  t_enter = t0;
  t_exit = t1;
  return true;
}

}  // namespace detail

/// Where the closed segment first meets the closed box, as a fraction of the way from a to b in [0, 1] (0 when a
/// is inside the box); nullopt when they do not meet. The box may have infinite coordinates (node bounds open to
/// infinity, the root's (-inf, +inf)): no NaN arises. A zero-length segment is a point test; an axis the segment
/// does not move along is tested exactly. overlaps(segment, box) is exactly `entry_fraction(...).has_value()`.
/// O(D).
template <int D, class S>
std::optional<S> entry_fraction(const Segment<D, S>& s, const Box<D, S>& box) noexcept {
  S t_enter = 0, t_exit = 0;
  if (!detail::clip_segment(s, box, t_enter, t_exit)) return std::nullopt;
  return t_enter;
}

/// Squared distance from p to the closed segment (to a when the segment is a point). O(D).
template <int D, class S>
S distance_squared(const Segment<D, S>& s, const Vec<D, S>& p) noexcept {
  const Vec<D, S> e = s.b - s.a, w = p - s.a;
  const S ee = dot(e, e);
  S t = ee > 0 ? dot(w, e) / ee : S{0};
  t = std::clamp(t, S{0}, S{1});
  const Vec<D, S> r = w - e * t;
  return dot(r, r);
}

// ---- Segment as a query shape ---------------------------------------------------------------------------------

/// Throws std::invalid_argument when an end point is NaN or infinite, or b - a overflows. a == b (a point) is
/// valid.
template <int D, class S>
void check_shape(const Segment<D, S>& s) {
  check_point(s.a, "segment: a");
  check_point(s.b, "segment: b");
  if (!is_finite(s.b - s.a)) throw std::invalid_argument("quadrant: segment: b - a overflows");
}

/// The box of the two end points (tight).
template <int D, class S>
constexpr Box<D, S> bounding_box(const Segment<D, S>& s) noexcept {
  Box<D, S> r;
  for (int i = 0; i < D; ++i) {
    r.min[i] = std::min(s.a[i], s.b[i]);
    r.max[i] = std::max(s.a[i], s.b[i]);
  }
  return r;
}

/// Exact closed overlap with a box (touching counts), by the slab method; the same computation as
/// entry_fraction. O(D).
template <int D, class S>
bool overlaps(const Segment<D, S>& s, const Box<D, S>& b) noexcept {
  S t_enter = 0, t_exit = 0;
  return detail::clip_segment(s, b, t_enter, t_exit);
}

/// Outside when the segment misses the node (exactly consistent with overlaps: the slab clip is monotone in the
/// box), Inside only for a zero-size node on the segment (a segment holds no box with extent), else Crossing.
template <int D, class S>
Relation classify(const Segment<D, S>& s, const Box<D, S>& node) noexcept {
  if (!overlaps(s, node)) return Relation::Outside;
  return node.min == node.max ? Relation::Inside : Relation::Crossing;
}

}  // namespace quadrant
