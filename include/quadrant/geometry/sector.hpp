// SPDX-License-Identifier: MIT
// quadrant — the circular Sector (a fan: a sword swing, a cone of vision) as a query shape: its box tests and point
// test. Include <quadrant/geometry.hpp>, which brings this and every query shape.
//
// A sector works in double (float input converts exactly) on the box clipped to the fan's bounding box, relative
// to the apex and scaled by a power of two that brings the radius near 1 (exact). So at any magnitude a difference
// or square that overflows (a huge radius against the far end of the range, a tiny one at a huge apex) lies far
// beyond the radius: its infinity, or a NaN made from it, only fails comparisons, so it can only reject a part of a
// box that misses the fan anyway, or leave a node Crossing. Its classify keeps a small relative margin from the
// boundary. A full turn is the circle.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <utility>

#include "box.hpp"
#include "circle.hpp"
#include "clip.hpp"
#include "numeric.hpp"

namespace quadrant {

/// A closed circular sector (a fan, the shape of a sword swing or a cone of vision): the points within `radius` of
/// `apex` whose direction from the apex is within `half_angle` of `direction`. half_angle in [0, pi]: 0 is a
/// segment, pi/2 a half disc, pi the full disc. `direction` need not be unit length but must not be zero.
template <class S = float>
struct Sector {
  Vec<2, S> apex;       ///< the tip of the fan
  Vec<2, S> direction;  ///< the fan's axis, any non-zero length
  S radius;             ///< >= 0
  S half_angle;         ///< radians, in [0, pi] (pi = std::numbers::pi_v<S>)
};

namespace detail::rnd {

// ---- sector: the union of two convex halves, each the disc cut by two or three half-planes through the apex
// (the axis, one edge, and for fans no wider than a half disc the "in front of the apex" line). The nearest point
// of a box's part inside a half lies on one of the box's edges, so each edge is clipped to the half (an interval)
// and its nearest point tested. Coordinates are relative to the apex and scaled by a power of two.

struct SectorFrame {
  Pt u, a, b;     // axis, and the edges at +half_angle and -half_angle (unit)
  double ca;      // cos(half_angle)
  bool narrow;    // half_angle <= pi/2: the fan lies in front of its apex
  double k, rk;   // scale of relative coordinates, radius * k
};
template <class S>
SectorFrame sector_frame(const Sector<S>& s) noexcept {
  double dx = s.direction.x, dy = s.direction.y;
  const double big = std::max(std::abs(dx), std::abs(dy));
  const int e = big > 0 ? std::ilogb(big) : 0;  // a power-of-two rescale keeps hypot finite for any direction
  dx = std::ldexp(dx, -e);
  dy = std::ldexp(dy, -e);
  const double len = std::hypot(dx, dy);
  const Pt u{dx / len, dy / len};
  const double h = s.half_angle, c = std::cos(h), sn = std::sin(h);
  const Reach<double> r = reach(static_cast<double>(s.radius));
  return {u,        Pt{u.x * c - u.y * sn, u.x * sn + u.y * c}, Pt{u.x * c + u.y * sn, u.y * c - u.x * sn}, c,
          h <= std::numbers::pi / 2, r.k, static_cast<double>(s.radius) * r.k};
}
template <class S>
bool full_turn(const Sector<S>& s) noexcept {
  return s.half_angle >= std::numbers::pi_v<S>;
}
template <class S>
Box<2, S> sector_box(const Sector<S>& s, const SectorFrame& f) noexcept {
  const double r = s.radius;
  Vec<2, double> lo{0, 0}, hi{0, 0};  // the apex
  const auto add = [&](double x, double y) {
    lo = Vec<2, double>{std::min(lo.x, x), std::min(lo.y, y)};
    hi = Vec<2, double>{std::max(hi.x, x), std::max(hi.y, y)};
  };
  add(r * f.a.x, r * f.a.y);
  add(r * f.b.x, r * f.b.y);
  // The arc's extreme point along an axis direction, when that direction is inside the fan (generously: a spare
  // point only widens the box).
  const double ca = f.ca - 1e-9;
  if (f.u.x >= ca) add(r, 0);
  if (-f.u.x >= ca) add(-r, 0);
  if (f.u.y >= ca) add(0, r);
  if (-f.u.y >= ca) add(0, -r);
  return outward_box(s.apex, lo, hi);
}
struct RelBox {
  double lx, ly, hx, hy;
};
template <class S>
RelBox relative_box(const Box<2, S>& b, const Vec<2, S>& o, double k) noexcept {
  const double ox = o.x, oy = o.y;
  return {(b.min.x - ox) * k, (b.min.y - oy) * k, (b.max.x - ox) * k, (b.max.y - oy) * k};
}
// True when a box edge, clipped to the half-planes n[0..count) (n . p >= 0), has a point within rk of the apex.
inline bool edges_meet(const std::array<Pt, 3>& n, int count, double rk, const RelBox& r) noexcept {
  const double lim = rk * rk;
  for (int vertical = 0; vertical < 2; ++vertical) {
    for (int side = 0; side < 2; ++side) {
      // A horizontal edge is y = fixed, x in [lo, hi]; a vertical one x = fixed, y in [lo, hi].
      const double fixed = vertical ? (side ? r.hx : r.lx) : (side ? r.hy : r.ly);
      double lo = vertical ? r.ly : r.lx, hi = vertical ? r.hy : r.hx;
      bool ok = true;
      for (int i = 0; i < count && ok; ++i)
        ok = vertical ? clip_interval(n[i].y, n[i].x * fixed, lo, hi) : clip_interval(n[i].x, n[i].y * fixed, lo, hi);
      if (!ok || lo > hi) continue;
      const double t = std::clamp(0.0, lo, hi);
      if (t * t + fixed * fixed <= lim) return true;
    }
  }
  return false;
}
// True when the segment from the apex, direction w (unit), length len, meets the box (slab test).
inline bool ray_meets(Pt w, double len, const RelBox& r) noexcept {
  double s0 = 0, s1 = len;
  const auto slab = [&](double d, double lo, double hi) {
    if (d == 0) return lo <= 0 && 0 <= hi;
    double a = lo / d, b = hi / d;
    if (a > b) std::swap(a, b);
    s0 = std::max(s0, a);
    s1 = std::min(s1, b);
    return true;
  };
  return slab(w.x, r.lx, r.hx) && slab(w.y, r.ly, r.hy) && s0 <= s1;
}
inline bool fan_meets(const SectorFrame& f, const RelBox& r) noexcept {
  if (r.lx <= 0 && 0 <= r.hx && r.ly <= 0 && 0 <= r.hy) return true;  // the apex
  // The radial edges: they also catch fans thinner than the rounding of the clipped intervals below.
  if (ray_meets(f.u, f.rk, r) || ray_meets(f.a, f.rk, r) || ray_meets(f.b, f.rk, r)) return true;
  const int count = f.narrow ? 3 : 2;
  const std::array<Pt, 3> upper{Pt{-f.u.y, f.u.x}, Pt{f.a.y, -f.a.x}, f.u};  // left of u, right of a
  const std::array<Pt, 3> lower{Pt{f.u.y, -f.u.x}, Pt{-f.b.y, f.b.x}, f.u};  // right of u, left of b
  return edges_meet(upper, count, f.rk, r) || edges_meet(lower, count, f.rk, r);
}

}  // namespace detail::rnd

// ---- Sector ---------------------------------------------------------------------------------------------------

/// Throws std::invalid_argument for a NaN or infinite field, a negative radius, a zero direction, or a half_angle
/// outside [0, pi] (pi = std::numbers::pi_v<S>).
template <class S>
void check_shape(const Sector<S>& s) {
  detail::rnd::check_position(s.apex, "sector", "apex");
  detail::rnd::check_position(s.direction, "sector", "direction");
  if (s.direction.x == 0 && s.direction.y == 0) detail::rnd::fail("sector", "direction is zero");
  detail::rnd::check_length(s.radius, "sector", "radius");
  detail::rnd::check_value(s.half_angle, "sector", "half_angle");
  if (s.half_angle < 0 || s.half_angle > std::numbers::pi_v<S>)
    detail::rnd::fail("sector", "half_angle is outside [0, pi]");
}
/// The tight box of the fan (apex, the two arc ends, and the arc's extreme points along the axes that the fan
/// spans), widened by a few roundings. O(1).
template <class S>
Box<2, S> bounding_box(const Sector<S>& s) noexcept {
  if (detail::rnd::full_turn(s)) return detail::rnd::ball_box(s.apex, s.radius);
  return detail::rnd::sector_box(s, detail::rnd::sector_frame(s));
}
namespace detail {
// A sector with its frame (unit axis, edge directions, cosines) and bounding box worked out once per query.
template <class S>
struct PreparedSector {
  Sector<S> s;
  bool full;
  rnd::SectorFrame f;
  Box<2, S> bb;
};
template <class S>
PreparedSector<S> prepare(const Sector<S>& s) noexcept {
  if (rnd::full_turn(s)) return {s, true, {}, {}};
  const rnd::SectorFrame f = rnd::sector_frame(s);
  return {s, false, f, rnd::sector_box(s, f)};
}
}  // namespace detail

/// overlaps(Sector, Box) with the sector prepared (what Tree::query uses).
template <class S>
bool overlaps(const detail::PreparedSector<S>& prepared, const Box<2, S>& b) noexcept {
  const auto& [s, full, f, bb] = prepared;
  if (full) return detail::rnd::ball_overlaps(s.apex, s.radius, b);
  if (!overlaps(bb, b)) return false;
  return detail::rnd::fan_meets(f, detail::rnd::relative_box(clamp(b, bb), s.apex, f.k));
}
/// classify(Sector, Box) with the sector prepared (what Tree::query uses).
template <class S>
Relation classify(const detail::PreparedSector<S>& prepared, const Box<2, S>& node) noexcept {
  using detail::rnd::Pt;
  const auto& [s, full, f, bb] = prepared;
  if (full) return detail::rnd::ball_classify(s.apex, s.radius, node);
  if (!overlaps(bb, node)) return Relation::Outside;
  const detail::rnd::RelBox r = detail::rnd::relative_box(clamp(node, bb), s.apex, f.k);
  const double lim = f.rk * f.rk, m = 0x1p-30;
  const auto gap = [](double lo, double hi) { return lo > 0 ? lo : (hi < 0 ? -hi : 0.0); };
  const double gx = gap(r.lx, r.hx), gy = gap(r.ly, r.hy);
  if (gx * gx + gy * gy > lim * (1 + m)) return Relation::Outside;
  const std::array<Pt, 4> q{Pt{r.lx, r.ly}, Pt{r.hx, r.ly}, Pt{r.hx, r.hy}, Pt{r.lx, r.hy}};
  // For each corner: sa >= 0 on the inner side of edge a, sb likewise for edge b, su >= 0 in front of the apex.
  std::array<double, 4> sa, sb, su, room;
  for (int i = 0; i < 4; ++i) {
    const Pt p = q[i];
    sa[i] = p.x * f.a.y - p.y * f.a.x;
    sb[i] = f.b.x * p.y - f.b.y * p.x;
    su[i] = f.u.x * p.x + f.u.y * p.y;
    room[i] = m * (std::abs(p.x) + std::abs(p.y));
  }
  const auto all = [](auto pred) {
    for (int i = 0; i < 4; ++i)
      if (!pred(i)) return false;
    return true;
  };
  if (f.narrow) {
    if (all([&](int i) { return sa[i] < -room[i]; }) || all([&](int i) { return sb[i] < -room[i]; }) ||
        all([&](int i) { return su[i] < -room[i]; }))
      return Relation::Outside;
  } else if (all([&](int i) { return sa[i] < -room[i] && sb[i] < -room[i]; })) {
    return Relation::Outside;
  }
  if (!contains(bb, node)) return Relation::Crossing;
  const double fx = std::max(std::abs(r.lx), std::abs(r.hx)), fy = std::max(std::abs(r.ly), std::abs(r.hy));
  if (fx * fx + fy * fy > lim * (1 - m)) return Relation::Crossing;
  bool inside;
  if (f.narrow) {
    inside = all([&](int i) { return sa[i] >= room[i] && sb[i] >= room[i] && su[i] >= room[i]; });
  } else {
    inside = all([&](int i) { return su[i] >= room[i]; }) || all([&](int i) { return sa[i] >= room[i]; }) ||
             all([&](int i) { return sb[i] >= room[i]; });
  }
  return inside ? Relation::Inside : Relation::Crossing;
}
/// Closed overlap with box b, exact up to rounding: b is clipped to the fan's bounding box; it overlaps when it holds
/// the apex, meets one of the three radial edges, or one of its edges, clipped to either convex half of the fan,
/// has a point within the radius. half_angle pi is the disc, 0 the segment; O(1), in double.
template <class S>
bool overlaps(const Sector<S>& s, const Box<2, S>& b) noexcept {
  return overlaps(detail::prepare(s), b);
}
/// Outside: node misses the bounding box or the disc, or lies beyond an edge line of the fan (narrow fans) or in
/// the gap behind the apex (wide fans). Inside: within the disc, and every corner inside the fan (narrow) or inside
/// one half-plane through the apex that the fan holds (wide: the axis's, or either edge's). Angular tests keep a
/// relative margin of 2^-30, the disc tests are monotone. half_angle pi: as the circle. O(1).
template <class S>
Relation classify(const Sector<S>& s, const Box<2, S>& node) noexcept {
  return classify(detail::prepare(s), node);
}
/// True when p lies in the closed sector; the same test as overlaps(s, Box{p, p}). O(1).
template <class S>
bool contains(const Sector<S>& s, const Vec<2, S>& p) noexcept {
  return overlaps(s, Box<2, S>{p, p});
}

}  // namespace quadrant
