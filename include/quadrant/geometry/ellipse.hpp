// SPDX-License-Identifier: MIT
// quadrant — the rotated Ellipse as a query shape: its box tests and point test. Include <quadrant/geometry.hpp>,
// which brings this and every query shape.
//
// An ellipse works in double (float input converts exactly) on the box clipped to the ellipse's bounding box, so
// every frame coordinate is within about 3 times the larger radius (plus a rounding of the center); an ellipse with
// a radius beyond 2^1020 (double input only) is worked in a frame scaled by 2^-4, and a box far larger than a
// radius is clipped to the ellipse's own rectangle before it is scaled onto the unit disc, so no intermediate
// overflows at any finite magnitude. Its classify keeps a small relative margin from the boundary.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "box.hpp"
#include "circle.hpp"
#include "clip.hpp"
#include "numeric.hpp"

namespace quadrant {

/// A closed, rotated ellipse: semi-axes `radii` (x, y before rotation), turned by `angle` radians counter-clockwise
/// about `center`. radii >= 0 (a zero radius is a segment or a point).
template <class S = float>
struct Ellipse {
  Vec<2, S> center;  ///< center
  Vec<2, S> radii;   ///< semi-axes along the ellipse's own x and y, >= 0
  S angle;           ///< rotation, radians, counter-clockwise
};

namespace detail::rnd {

constexpr double eps = std::numeric_limits<double>::epsilon();

// ---- ellipse: the box is turned into the ellipse's frame, clipped to the ellipse's own rectangle [-rx, rx] x
// [-ry, ry], then scaled so that the ellipse is the unit disc (a zero radius pins that coordinate to 0, making the
// disc a diameter: no division by zero). The clipped polygon's distance to the origin decides.

// The frame is scaled by k, a power of two. A box is clamped to the bounding box before it is turned, so its frame
// coordinates, their sums and differences stay within about 3 times the larger radius (the center's magnitude only
// adds a rounding of it), which overflows only for radii beyond 2^1022. Radii below 2^1020 (all of float's) keep
// k = 1, decided by one comparison per query; larger ones take k = 2^-4, exact but for values under 2^-1018 (far
// below the rounding of the huge radius).
struct EllipseFrame {
  double c, s;    // cos and sin of the angle
  double k;       // scale of the frame: 1, or 2^-4 for a radius beyond 2^1020
  double ox, oy;  // center * k
  double rx, ry;  // radii * k
};
template <class S>
EllipseFrame ellipse_frame(const Ellipse<S>& e) noexcept {
  const double a = e.angle, cx = e.center.x, cy = e.center.y, rx = e.radii.x, ry = e.radii.y;
  const double k = std::max(rx, ry) < 0x1p1020 ? 1.0 : 0x1p-4;
  return {std::cos(a), std::sin(a), k, cx * k, cy * k, rx * k, ry * k};
}
template <class S>
Box<2, S> ellipse_box(const Ellipse<S>& e, const EllipseFrame& f) noexcept {
  const double rx = e.radii.x, ry = e.radii.y;
  const double hx = std::hypot(rx * f.c, ry * f.s), hy = std::hypot(rx * f.s, ry * f.c);
  return outward_box(e.center, Vec<2, double>{-hx, -hy}, Vec<2, double>{hx, hy});
}

// Squared distance, in the frame where the ellipse is the unit disc, from its center to the quadrilateral q (frame
// coordinates) clipped to the ellipse's own rectangle; +inf when nothing of q is left.
inline double ellipse_gap_sq(const std::array<Pt, 4>& q, double rx, double ry) noexcept {
  Poly p;
  // Both radii positive and q within 2^30 radii on each axis (every box classify tests here, as it has extent <= 1e9
  // radii, and nearly every other): scale at once; the unit disc lies inside the scaled rectangle, so clipping to it
  // first cannot change whether the distance is <= 1. Otherwise clip first, in the unscaled frame: a zero radius
  // needs no division, and a box far larger than a radius (a needle thinner than the rounding of its length, a
  // center far larger than the radii) is cut where it crosses the rectangle, so every quotient stays within 1:
  // scaling it whole could overflow the squares below, or lose the crossing to rounding of the huge quotients.
  constexpr double room = 0x1p30;
  bool direct = rx > 0 && ry > 0;
  for (const Pt& v : q) direct = direct && std::abs(v.x) <= rx * room && std::abs(v.y) <= ry * room;
  if (direct) {
    for (const Pt& v : q) p.v[p.n++] = Pt{v.x / rx, v.y / ry};
    return polygon_gap_sq(p);
  }
  for (const Pt& v : q) p.v[p.n++] = v;
  clip_axis(p, false, rx, true);
  clip_axis(p, false, -rx, false);
  clip_axis(p, true, ry, true);
  clip_axis(p, true, -ry, false);
  if (p.n == 0) return std::numeric_limits<double>::infinity();
  for (int i = 0; i < p.n; ++i) p.v[i] = Pt{rx > 0 ? p.v[i].x / rx : 0.0, ry > 0 ? p.v[i].y / ry : 0.0};
  return polygon_gap_sq(p);
}

}  // namespace detail::rnd

// ---- Ellipse --------------------------------------------------------------------------------------------------

/// Throws std::invalid_argument for a NaN or infinite field or a negative radius.
template <class S>
void check_shape(const Ellipse<S>& e) {
  detail::rnd::check_position(e.center, "ellipse", "center");
  detail::rnd::check_length(e.radii.x, "ellipse", "x radius");
  detail::rnd::check_length(e.radii.y, "ellipse", "y radius");
  detail::rnd::check_value(e.angle, "ellipse", "angle");
}
/// The tight axis-aligned box of the rotated ellipse (half extents hypot(rx cos, ry sin), hypot(rx sin, ry cos)),
/// widened by a few roundings. O(1).
template <class S>
Box<2, S> bounding_box(const Ellipse<S>& e) noexcept {
  return detail::rnd::ellipse_box(e, detail::rnd::ellipse_frame(e));
}
namespace detail {
// An ellipse with its rotation and bounding box worked out once, for the many tests of one query.
template <class S>
struct PreparedEllipse {
  Ellipse<S> e;
  rnd::EllipseFrame f;
  Box<2, S> bb;
};
template <class S>
PreparedEllipse<S> prepare(const Ellipse<S>& e) noexcept {
  const rnd::EllipseFrame f = rnd::ellipse_frame(e);
  return {e, f, rnd::ellipse_box(e, f)};
}
}  // namespace detail

namespace detail::rnd {
// The ellipse's circumscribed and inscribed circles, each moved off the ellipse by 2^-20 of its radius plus the
// rounding of the differences: a box beyond the first misses the ellipse, one reaching inside the second meets it,
// and a node within the second lies inside it. Monotone in the box, so overlaps and classify stay consistent.
struct CircleBounds {
  double near2, far2, outer, inner;
};
// In the unscaled frame: a difference or square that overflows is +inf, which only ever fails the tests below, so
// they stay sound (and monotone) at any magnitude.
template <class S>
CircleBounds circle_bounds(const Ellipse<S>& e, const Box<2, S>& b) noexcept {
  double near2 = 0, far2 = 0, scale = 0;
  for (int i = 0; i < 2; ++i) {
    const double lo = double(b.min[i]) - double(e.center[i]), hi = double(b.max[i]) - double(e.center[i]);
    const double gap = lo > 0 ? lo : (hi < 0 ? -hi : 0.0), reach = std::max(std::abs(lo), std::abs(hi));
    near2 += gap * gap;
    far2 += reach * reach;
    scale = std::max({scale, std::abs(double(b.min[i])), std::abs(double(b.max[i])), std::abs(double(e.center[i]))});
  }
  const double slack = 16 * eps * scale, rx = e.radii.x, ry = e.radii.y;
  return {near2, far2, std::max(rx, ry) * (1 + 0x1p-20) + slack, std::min(rx, ry) * (1 - 0x1p-20) - slack};
}
}  // namespace detail::rnd

/// overlaps(Ellipse, Box) with the ellipse prepared (what Tree::query uses).
template <class S>
bool overlaps(const detail::PreparedEllipse<S>& prepared, const Box<2, S>& b) noexcept {
  const auto& [e, f, bb] = prepared;
  if (!overlaps(bb, b)) return false;
  const detail::rnd::CircleBounds cb = detail::rnd::circle_bounds(e, b);
  if (cb.near2 > cb.outer * cb.outer) return false;
  if (cb.inner > 0 && cb.near2 < cb.inner * cb.inner) return true;
  if (overlaps(b, e.center)) return true;  // exact; the frame test below may round a box around the center away
  const auto q = detail::rnd::frame_corners(clamp(b, bb), f.ox, f.oy, f.k, f.c, f.s);
  return detail::rnd::ellipse_gap_sq(q, f.rx, f.ry) <= 1;
}
/// classify(Ellipse, Box) with the ellipse prepared (what Tree::query uses).
template <class S>
Relation classify(const detail::PreparedEllipse<S>& prepared, const Box<2, S>& node) noexcept {
  using detail::rnd::Pt;
  // Plain references, not a structured binding: the lambdas below capture f, and capturing a binding is C++20
  // that clang 14 (and Apple clang of its age) rejects.
  const Ellipse<S>& e = prepared.e;
  const detail::rnd::EllipseFrame& f = prepared.f;
  const Box<2, S>& bb = prepared.bb;
  if (!overlaps(bb, node)) return Relation::Outside;
  // Cheap first (see circle_bounds): most nodes of a query are settled here; the rest take the frame test.
  const detail::rnd::CircleBounds cb = detail::rnd::circle_bounds(e, node);
  if (cb.near2 > cb.outer * cb.outer) return Relation::Outside;
  if (cb.inner > 0 && cb.far2 < cb.inner * cb.inner) return Relation::Inside;
  const std::array<Pt, 4> q = detail::rnd::frame_corners(clamp(node, bb), f.ox, f.oy, f.k, f.c, f.s);
  double extent = 0;  // bounds every frame coordinate of every box inside node, within rounding
  for (const Pt& p : q) extent = std::max(extent, std::abs(p.x) + std::abs(p.y));
  const double sep = 64 * detail::rnd::eps * extent;
  const auto all = [&](auto pred) { return std::all_of(q.begin(), q.end(), pred); };
  if (all([&](Pt p) { return p.x > f.rx + sep; }) || all([&](Pt p) { return p.x < -f.rx - sep; }) ||
      all([&](Pt p) { return p.y > f.ry + sep; }) || all([&](Pt p) { return p.y < -f.ry - sep; }))
    return Relation::Outside;
  const double rmin = std::min(f.rx, f.ry);
  if (!(rmin > 0) || extent > 1e9 * rmin) return Relation::Crossing;
  const double m = 64 * detail::rnd::eps * (extent / rmin);
  if (detail::rnd::ellipse_gap_sq(q, f.rx, f.ry) > (1 + m) * (1 + m)) return Relation::Outside;
  if (!contains(bb, node)) return Relation::Crossing;
  const bool inside = all([&](Pt p) {
    const double x = p.x / f.rx, y = p.y / f.ry;
    return x * x + y * y <= (1 - m) * (1 - m);
  });
  return inside ? Relation::Inside : Relation::Crossing;
}
/// Closed overlap with box b, exact up to rounding: b is clipped to the ellipse's bounding box, turned into the
/// ellipse's frame, clipped to its rectangle and scaled so the ellipse is the unit disc; the resulting polygon's
/// distance to the origin is compared with 1. Zero radii (a segment or a point) need no division. O(1), in double.
template <class S>
bool overlaps(const Ellipse<S>& e, const Box<2, S>& b) noexcept {
  return overlaps(detail::prepare(e), b);
}
/// Outside: node misses the bounding box, is separated from the ellipse's own rectangle along one of its axes, or
/// its distance exceeds 1 by a margin; Inside: all four corners inside by a margin (the ellipse is convex). The
/// margins, 64 roundings of double scaled by (node's extent / smaller radius), cover the rotation's rounding; very
/// thin ellipses (ratio above 1e9, or a zero radius) are never Inside. O(1).
template <class S>
Relation classify(const Ellipse<S>& e, const Box<2, S>& node) noexcept {
  return classify(detail::prepare(e), node);
}
/// True when p lies in the closed ellipse; the same test as overlaps(e, Box{p, p}). O(1).
template <class S>
bool contains(const Ellipse<S>& e, const Vec<2, S>& p) noexcept {
  return overlaps(e, Box<2, S>{p, p});
}

}  // namespace quadrant
