// SPDX-License-Identifier: MIT
// quadrant — exact narrow-phase tests between the 2D shapes a game collides: circles, oriented boxes and convex
// polygons, plus point containment. All are closed (touching counts), allocation-free and O(vertices) or
// O(vertices of one * vertices of the other) for two polygons. (Circle–circle and sphere–sphere are in circle.hpp;
// a shape against an axis-aligned box is overlaps(shape, box) next to the shape.)
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>

#include "box.hpp"
#include "polygon.hpp"
#include "circle.hpp"
#include "numeric.hpp"

namespace quadrant {

namespace detail {

/// True when every value of S lies within square_scale's window (float): its tests in double never scale.
template <class S>
inline constexpr bool unscaled_in_double =
    std::numeric_limits<S>::max_exponent <= 400 &&
    std::numeric_limits<S>::min_exponent - std::numeric_limits<S>::digits >= -400;

/// True when square_scale(largest of the magnitudes) is 1, by independent comparisons (no largest is formed): every
/// magnitude at most 2^400 and one at least 2^-400.
template <class... M>
inline bool in_square_window(M... magnitudes) noexcept {
  return ((double(magnitudes) <= 0x1p400) & ...) & ((double(magnitudes) >= 0x1p-400) | ...);
}

/// square_scale of the largest of the magnitudes: the cold path of the tests below.
template <class... M>
double largest_scale(M... magnitudes) noexcept {
  double m = 0;
  ((m = std::max(m, double(magnitudes))), ...);
  return square_scale(m);
}

/// True when the closed segment [a, b] comes within r of c. Computed in double, with every input scaled by k when
/// Scaled (double input near the ends of its range, see square_scale), without division: in the middle of the
/// segment the squared distance is cross^2 / |e|^2, compared as cross^2 <= r^2 |e|^2.
template <bool Scaled, class S>
bool segment_within(const Vec<2, S>& a, const Vec<2, S>& b, const Vec<2, S>& c, S radius, double k) noexcept {
  double ax = double(a.x), ay = double(a.y), bx = double(b.x), by = double(b.y);
  double cx = double(c.x), cy = double(c.y), r = double(radius);
  if constexpr (Scaled) ax *= k, ay *= k, bx *= k, by *= k, cx *= k, cy *= k, r *= k;
  const double ex = bx - ax, ey = by - ay, wx = cx - ax, wy = cy - ay;
  const double r2 = r * r;
  const double t = wx * ex + wy * ey;
  if (t <= 0) return wx * wx + wy * wy <= r2;
  const double ee = ex * ex + ey * ey;
  if (t >= ee) {
    const double vx = cx - bx, vy = cy - by;
    return vx * vx + vy * vy <= r2;
  }
  const double cross = ex * wy - ey * wx;
  return cross * cross <= r2 * ee;
}

/// circle_outline, at the scale k when Scaled.
template <bool Scaled, class S>
bool circle_outline_at(const Circle<S>& c, std::span<const Vec<2, S>> pts, std::span<const SatAxis<S>> axes,
                       double k) noexcept {
  bool inside = true;
  const std::size_t n = pts.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (dot(axes[i].normal, c.center) <= axes[i].hi) continue;
    inside = false;
    if (segment_within<Scaled>(pts[i], pts[(i + 1) % n], c.center, c.radius, k)) return true;
  }
  return inside;
}

/// Circle against a convex outline given counter-clockwise with its outward edge axes and its bounding box. When
/// the center is on the inner side of every edge it is inside; otherwise the nearest point of the outline lies on
/// an edge whose outer side holds the center, so only those edges are measured. Double input beyond square_scale's
/// window (a value huge, or all tiny) is measured scaled; inside it, and always for float, as it is.
template <class S>
bool circle_outline(const Circle<S>& c, std::span<const Vec<2, S>> pts, std::span<const SatAxis<S>> axes,
                    const Box<2, S>& bounds) noexcept {
  if constexpr (!unscaled_in_double<S>) {
    const S x = std::abs(c.center.x), y = std::abs(c.center.y);
    if (!in_square_window(x, y, c.radius, bounds.max.x, -bounds.min.x, bounds.max.y, -bounds.min.y)) [[unlikely]]
      return circle_outline_at<true>(c, pts, axes, largest_scale(x, y, c.radius, bounds.max.x, -bounds.min.x,
                                                                  bounds.max.y, -bounds.min.y));
  }
  return circle_outline_at<false>(c, pts, axes, 1.0);
}

/// Closed overlap of a circle and an oriented box turned by (cs, sn), with every input scaled by k when Scaled: the
/// center in the box's own frame, clamped to the half extents, is within the radius.
template <bool Scaled, class S>
bool circle_box_at(const Circle<S>& c, const OrientedBox<S>& o, S cs, S sn, double k) noexcept {
  double px = double(c.center.x), py = double(c.center.y), ox = double(o.center.x), oy = double(o.center.y);
  double hx = double(o.half_extents.x), hy = double(o.half_extents.y), r = double(c.radius);
  if constexpr (Scaled) px *= k, py *= k, ox *= k, oy *= k, hx *= k, hy *= k, r *= k;
  const double dx = px - ox, dy = py - oy;
  const auto gap = [&](S nx, S ny, double half) {
    const double along = dx * double(nx) + dy * double(ny);
    return std::max(std::abs(along) - half, 0.0);
  };
  const double gx = gap(cs, sn, hx), gy = gap(-sn, cs, hy);
  return gx * gx + gy * gy <= r * r;
}

/// True when the axis separates the point set from the range [lo, hi].
template <class S>
bool separates(const SatAxis<S>& a, std::span<const Vec<2, S>> pts) noexcept {
  const auto [lo, hi] = project_points(a.normal, pts);
  return hi < a.lo || lo > a.hi;
}

/// Separating axis test of two convex shapes, each given by its points and its axes. O((n + m) * axes). Every normal
/// has components of at most 1 (obb_axis, ConvexPolygon::axes) and each shape's own range is finite, so projecting
/// the other shape's points never gives NaN: at worst the infinity on their own side, which compares right.
template <class S>
bool sat_shapes(std::span<const Vec<2, S>> pa, std::span<const SatAxis<S>> aa, std::span<const Vec<2, S>> pb,
                std::span<const SatAxis<S>> ab) noexcept {
  for (const SatAxis<S>& a : aa)
    if (separates(a, pb)) return false;
  for (const SatAxis<S>& a : ab)
    if (separates(a, pa)) return false;
  return true;
}

/// An oriented box's axes with ranges computed from its corners (so both shapes of a pair are measured the same
/// way, as point sets).
template <class S>
std::array<SatAxis<S>, 2> corner_axes(const ObbFrame<S>& f) noexcept {
  std::array<SatAxis<S>, 2> r = f.axes;
  for (SatAxis<S>& a : r) {
    const auto [lo, hi] = project_points(a.normal, std::span<const Vec<2, S>>(f.corners));
    a.lo = std::min(a.lo, lo);
    a.hi = std::max(a.hi, hi);
  }
  return r;
}

}  // namespace detail

/// The four corners of an oriented box, counter-clockwise, starting at center - u*hx - v*hy where
/// u = (cos angle, sin angle) and v = (-sin angle, cos angle). Zero extents give repeated corners.
template <class S>
std::array<Vec<2, S>, 4> corners(const OrientedBox<S>& o) noexcept {
  return detail::obb_frame(o).corners;
}

/// True when the point lies in the closed oriented box; the same test as overlaps(o, Box{p, p}).
template <class S>
bool contains(const OrientedBox<S>& o, const Vec<2, S>& p) noexcept {
  return overlaps(o, Box<2, S>{p, p});
}

/// True when the point lies in the closed polygon; the same test as overlaps(poly, Box{p, p}). O(vertices).
template <class S>
bool contains(const ConvexPolygon<S>& poly, const Vec<2, S>& p) noexcept {
  return overlaps(poly, Box<2, S>{p, p});
}

/// Closed overlap of a circle (radius >= 0) and a convex polygon: the center is inside, or some edge comes within
/// the radius. O(vertices); distances in double.
template <class S>
bool overlaps(const Circle<S>& c, const ConvexPolygon<S>& poly) noexcept {
  return detail::circle_outline(c, poly.vertices(), poly.axes(), poly.bounds());
}
/// Same as overlaps(circle, polygon).
template <class S>
bool overlaps(const ConvexPolygon<S>& poly, const Circle<S>& c) noexcept {
  return overlaps(c, poly);
}

/// Closed overlap of two convex polygons by the separating axis theorem on both sets of edge normals.
/// O(n * m).
template <class S>
bool overlaps(const ConvexPolygon<S>& a, const ConvexPolygon<S>& b) noexcept {
  return detail::sat_shapes(a.vertices(), a.axes(), b.vertices(), b.axes());
}

/// Closed overlap of two oriented boxes by the separating axis theorem on their four axes. One cos and sin each.
template <class S>
bool overlaps(const OrientedBox<S>& a, const OrientedBox<S>& b) noexcept {
  const detail::ObbFrame<S> fa = detail::obb_frame(a), fb = detail::obb_frame(b);
  const auto aa = detail::corner_axes(fa), ab = detail::corner_axes(fb);
  return detail::sat_shapes<S>(fa.corners, aa, fb.corners, ab);
}

/// Closed overlap of a circle and an oriented box: the center in the box's own frame, clamped to the half
/// extents, is within the radius. One cos and sin; in double, double input scaled by a power of two when a value
/// is huge or all are tiny (see square_scale), so no difference or square overflows or underflows into a wrong
/// answer.
template <class S>
bool overlaps(const Circle<S>& c, const OrientedBox<S>& o) noexcept {
  const S cs = std::cos(o.angle), sn = std::sin(o.angle);  // as obb_frame: the same box as the other tests see
  if constexpr (!detail::unscaled_in_double<S>) {
    const S x = std::abs(c.center.x), y = std::abs(c.center.y), ox = std::abs(o.center.x), oy = std::abs(o.center.y);
    const S hx = o.half_extents.x, hy = o.half_extents.y;
    if (!detail::in_square_window(x, y, c.radius, ox, oy, hx, hy)) [[unlikely]]
      return detail::circle_box_at<true>(c, o, cs, sn, detail::largest_scale(x, y, c.radius, ox, oy, hx, hy));
  }
  return detail::circle_box_at<false>(c, o, cs, sn, 1.0);
}
/// Same as overlaps(circle, oriented box).
template <class S>
bool overlaps(const OrientedBox<S>& o, const Circle<S>& c) noexcept {
  return overlaps(c, o);
}

/// Closed overlap of an oriented box and a convex polygon by the separating axis theorem (the box's two axes and
/// the polygon's edge normals). O(vertices), one cos and sin.
template <class S>
bool overlaps(const OrientedBox<S>& o, const ConvexPolygon<S>& poly) noexcept {
  const detail::ObbFrame<S> f = detail::obb_frame(o);
  const auto ao = detail::corner_axes(f);
  return detail::sat_shapes<S>(f.corners, ao, poly.vertices(), poly.axes());
}
/// Same as overlaps(oriented box, polygon).
template <class S>
bool overlaps(const ConvexPolygon<S>& poly, const OrientedBox<S>& o) noexcept {
  return overlaps(o, poly);
}

}  // namespace quadrant
