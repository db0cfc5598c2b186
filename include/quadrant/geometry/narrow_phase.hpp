// SPDX-License-Identifier: MIT
// quadrant — exact narrow-phase tests between the 2D shapes a game collides: circles, oriented boxes and convex
// polygons, plus point containment. All are closed (touching counts), allocation-free and O(vertices) or
// O(vertices of one * vertices of the other) for two polygons. (Circle–circle and sphere–sphere are in circle.hpp;
// a shape against an axis-aligned box is overlaps(shape, box) next to the shape.)
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <array>
#include <span>

#include "box.hpp"
#include "polygon.hpp"
#include "circle.hpp"

namespace quadrant {

namespace detail {

/// True when the closed segment [a, b] comes within r of c. Computed in double without division: in the middle
/// of the segment the squared distance is cross^2 / |e|^2, compared as cross^2 <= r^2 |e|^2.
template <class S>
bool segment_within(const Vec<2, S>& a, const Vec<2, S>& b, const Vec<2, S>& c, S radius) noexcept {
  const double ex = double(b.x) - double(a.x), ey = double(b.y) - double(a.y);
  const double wx = double(c.x) - double(a.x), wy = double(c.y) - double(a.y);
  const double r2 = double(radius) * double(radius);
  const double t = wx * ex + wy * ey;
  if (t <= 0) return wx * wx + wy * wy <= r2;
  const double ee = ex * ex + ey * ey;
  if (t >= ee) {
    const double vx = double(c.x) - double(b.x), vy = double(c.y) - double(b.y);
    return vx * vx + vy * vy <= r2;
  }
  const double cross = ex * wy - ey * wx;
  return cross * cross <= r2 * ee;
}

/// Circle against a convex outline given counter-clockwise with its outward edge axes. When the centre is on the
/// inner side of every edge it is inside; otherwise the nearest point of the outline lies on an edge whose outer
/// side holds the centre, so only those edges are measured.
template <class S>
bool circle_outline(const Circle<S>& c, std::span<const Vec<2, S>> pts, std::span<const SatAxis<S>> axes) noexcept {
  bool inside = true;
  const std::size_t n = pts.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (dot(axes[i].normal, c.center) <= axes[i].hi) continue;
    inside = false;
    if (segment_within(pts[i], pts[(i + 1) % n], c.center, c.radius)) return true;
  }
  return inside;
}

/// True when the axis separates the point set from the range [lo, hi].
template <class S>
bool separates(const SatAxis<S>& a, std::span<const Vec<2, S>> pts) noexcept {
  const auto [lo, hi] = project_points(a.normal, pts);
  return hi < a.lo || lo > a.hi;
}

/// Separating axis test of two convex shapes, each given by its points and its axes. O((n + m) * axes).
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

/// Closed overlap of a circle (radius >= 0) and a convex polygon: the centre is inside, or some edge comes within
/// the radius. O(vertices); distances in double.
template <class S>
bool overlaps(const Circle<S>& c, const ConvexPolygon<S>& poly) noexcept {
  return detail::circle_outline(c, poly.vertices(), poly.axes());
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

/// Closed overlap of a circle and an oriented box: the centre in the box's own frame, clamped to the half
/// extents, is within the radius. One cos and sin.
template <class S>
bool overlaps(const Circle<S>& c, const OrientedBox<S>& o) noexcept {
  const detail::ObbFrame<S> f = detail::obb_frame(o);
  const double dx = double(c.center.x) - double(o.center.x), dy = double(c.center.y) - double(o.center.y);
  const auto gap = [&](const detail::SatAxis<S>& a, S half) {
    const double along = dx * double(a.normal.x) + dy * double(a.normal.y);
    return std::max(std::abs(along) - double(half), 0.0);
  };
  const double gx = gap(f.axes[0], o.half_extents.x), gy = gap(f.axes[1], o.half_extents.y);
  return gx * gx + gy * gy <= double(c.radius) * double(c.radius);
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
