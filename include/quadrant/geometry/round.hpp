// SPDX-License-Identifier: MIT
// quadrant — round query shapes: Circle, Sphere, Ring, Ellipse, Sector, their box tests and point tests.
//
// Circle, Sphere and Ring are tested in the caller's scalar with per-axis arithmetic that is monotone in the box
// coordinates (gap to the nearest face, reach to the farthest one), so classify agrees with overlaps exactly.
// Ellipse and Sector work in double (float input converts exactly) on the box clipped to the shape's bounding box,
// so no magnitude can overflow; their classify keeps a small relative margin from the boundary.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "box.hpp"

namespace quadrant {

/// A closed disc: the points within `radius` of `center`. radius >= 0 (0 is a point).
template <class S = float>
struct Circle {
  Vec<2, S> center;  ///< centre
  S radius;          ///< >= 0
};

/// A closed ball: the points within `radius` of `center`. radius >= 0 (0 is a point).
template <class S = float>
struct Sphere {
  Vec<3, S> center;  ///< centre
  S radius;          ///< >= 0
};

/// A closed annulus: the points whose distance to `center` lies in [inner, outer]. 0 <= inner <= outer.
template <class S = float>
struct Ring {
  Vec<2, S> center;  ///< centre
  S inner;           ///< inner radius, >= 0 (0: a full disc)
  S outer;           ///< outer radius, >= inner
};

/// A closed, rotated ellipse: semi-axes `radii` (x, y before rotation), turned by `angle` radians counter-clockwise
/// about `center`. radii >= 0 (a zero radius is a segment or a point).
template <class S = float>
struct Ellipse {
  Vec<2, S> center;  ///< centre
  Vec<2, S> radii;   ///< semi-axes along the ellipse's own x and y, >= 0
  S angle;           ///< rotation, radians, counter-clockwise
};

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

[[noreturn]] inline void fail(const char* shape, const std::string& defect) {
  throw std::invalid_argument(std::string("quadrant: ") + shape + ": " + defect);
}
template <class S>
void check_value(S v, const char* shape, const char* field) {
  if (std::isnan(v)) fail(shape, std::string(field) + " is NaN");
  if (!std::isfinite(v)) fail(shape, std::string(field) + " is infinite");
}
template <class S>
void check_length(S v, const char* shape, const char* field) {
  check_value(v, shape, field);
  if (v < 0) fail(shape, std::string(field) + " is negative");
}
template <int D, class S>
void check_position(const Vec<D, S>& p, const char* shape, const char* field) {
  for (int i = 0; i < D; ++i) {
    if (std::isnan(p[i])) fail(shape, std::string(field) + " coordinate is NaN");
    if (!std::isfinite(p[i])) fail(shape, std::string(field) + " coordinate is infinite");
  }
}

template <class S>
constexpr S pow2(int e) noexcept {
  S r = 1;
  for (; e > 0; --e) r *= 2;
  for (; e < 0; ++e) r /= 2;
  return r;
}

// A radius tested through squares. Ordinary radii are used as they are (k = 1). Others are scaled by a power of two
// (exact), so that radius * k is near 1 and no square overflows or underflows into a wrong answer. A zero radius
// gets the largest scale: any non-zero gap, even a subnormal one, still squares to a positive number.
template <class S>
struct Reach {
  S k;      // scale applied to every gap
  S limit;  // (radius * k)^2
};
template <class S>
Reach<S> reach(S r) noexcept {
  using L = std::numeric_limits<S>;
  constexpr S lo = pow2<S>(L::min_exponent / 3), hi = pow2<S>(L::max_exponent / 3);
  if (r >= lo && r <= hi) return {S{1}, r * r};
  const int e = r > 0 ? std::clamp(std::ilogb(r), L::min_exponent, L::max_exponent - 2) : L::min_exponent;
  const S k = std::ldexp(S{1}, -e);
  return {k, (r * k) * (r * k)};
}

// Sum over axes of (gap * k)^2, the gap being the distance from p to b along the axis (k = 1: distance_squared).
// A box inside `node` has every gap >= node's, and rounding is monotone, so its value is never below node's.
template <int D, class S>
S near_sq(const Vec<D, S>& p, const Box<D, S>& b, S k) noexcept {
  S sum = 0;
  for (int i = 0; i < D; ++i) {
    S d = 0;
    if (p[i] < b.min[i]) d = (b.min[i] - p[i]) * k;
    else if (p[i] > b.max[i]) d = (p[i] - b.max[i]) * k;
    sum += d * d;
  }
  return sum;
}
// The same with the distance to the farther face: the squared distance to b's farthest corner. A box inside `node`
// never exceeds node's value, and for one box far_sq >= near_sq, both also under rounding.
template <int D, class S>
S far_sq(const Vec<D, S>& p, const Box<D, S>& b, S k) noexcept {
  S sum = 0;
  for (int i = 0; i < D; ++i) {
    const S d = std::max(std::abs(b.min[i] - p[i]), std::abs(b.max[i] - p[i])) * k;
    sum += d * d;
  }
  return sum;
}

template <int D, class S>
bool ball_overlaps(const Vec<D, S>& c, S r, const Box<D, S>& b) noexcept {
  const Reach<S> q = reach(r);
  return near_sq(c, b, q.k) <= q.limit;
}
template <int D, class S>
Relation ball_classify(const Vec<D, S>& c, S r, const Box<D, S>& node) noexcept {
  const Reach<S> q = reach(r);
  if (near_sq(c, node, q.k) > q.limit) return Relation::Outside;
  return far_sq(c, node, q.k) <= q.limit ? Relation::Inside : Relation::Crossing;
}
// Float input is compared in double (its squares are exact there); double input is rescaled like Reach.
template <int D, class S>
bool balls_meet(const Vec<D, S>& a, S ra, const Vec<D, S>& b, S rb) noexcept {
  const double k = reach(static_cast<double>(std::max(ra, rb))).k / 2;  // halved: ra * k + rb * k cannot overflow
  double sum = 0;
  for (int i = 0; i < D; ++i) {
    // Scale before subtracting when k shrinks (huge radii), after when it grows (tiny ones): never inf - inf.
    const double d = k <= 1 ? a[i] * k - b[i] * k : (static_cast<double>(a[i]) - b[i]) * k;
    sum += d * d;
  }
  const double rs = ra * k + rb * k;
  return sum <= rs * rs;
}

// Rounds a double down (up) to S, kept finite: a finite box already covers every finite coordinate.
template <class S>
S round_down(double x) noexcept {
  x = std::clamp(x, static_cast<double>(std::numeric_limits<S>::lowest()),
                 static_cast<double>(std::numeric_limits<S>::max()));
  S s = static_cast<S>(x);
  if (static_cast<double>(s) > x) s = std::nextafter(s, std::numeric_limits<S>::lowest());
  return s;
}
template <class S>
S round_up(double x) noexcept {
  return -round_down<S>(-x);
}

// The box origin + [lo, hi], widened by a few roundings of S at that magnitude (so that it holds every box the
// shape's overlaps accepts, rounding included) and rounded outwards.
template <int D, class S>
Box<D, S> outward_box(const Vec<D, S>& origin, const Vec<D, double>& lo, const Vec<D, double>& hi) noexcept {
  constexpr double slack = 16 * static_cast<double>(std::numeric_limits<S>::epsilon());
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    const double o = origin[i];
    const double m = slack * (std::abs(o) + std::max(std::abs(lo[i]), std::abs(hi[i])));
    b.min[i] = round_down<S>(o + lo[i] - m);
    b.max[i] = round_up<S>(o + hi[i] + m);
  }
  return b;
}
template <int D, class S>
Box<D, S> ball_box(const Vec<D, S>& c, S r) noexcept {
  Vec<D, double> lo, hi;
  for (int i = 0; i < D; ++i) {
    lo[i] = -static_cast<double>(r);
    hi[i] = static_cast<double>(r);
  }
  return outward_box(c, lo, hi);
}

constexpr double eps = std::numeric_limits<double>::epsilon();

struct Pt {
  double x, y;
};

// ---- ellipse: the box is turned into the ellipse's frame, clipped to the ellipse's own rectangle [-rx, rx] x
// [-ry, ry], then scaled so that the ellipse is the unit disc (a zero radius pins that coordinate to 0, making the
// disc a diameter: no division by zero). The clipped polygon's distance to the origin decides.

struct EllipseFrame {
  double c, s, rx, ry;  // cos and sin of the angle, radii
};
template <class S>
EllipseFrame ellipse_frame(const Ellipse<S>& e) noexcept {
  const double a = e.angle;
  return {std::cos(a), std::sin(a), static_cast<double>(e.radii.x), static_cast<double>(e.radii.y)};
}
template <class S>
Box<2, S> ellipse_box(const Ellipse<S>& e, const EllipseFrame& f) noexcept {
  const double hx = std::hypot(f.rx * f.c, f.ry * f.s), hy = std::hypot(f.rx * f.s, f.ry * f.c);
  return outward_box(e.center, Vec<2, double>{-hx, -hy}, Vec<2, double>{hx, hy});
}
// The corners of b (counter-clockwise) relative to o, in the frame turned by (c, s).
template <class S>
std::array<Pt, 4> frame_corners(const Box<2, S>& b, const Vec<2, S>& o, double c, double s) noexcept {
  const double ox = o.x, oy = o.y;
  const double x0 = b.min.x - ox, y0 = b.min.y - oy, x1 = b.max.x - ox, y1 = b.max.y - oy;
  const auto turn = [&](double x, double y) { return Pt{c * x + s * y, c * y - s * x}; };
  return {turn(x0, y0), turn(x1, y0), turn(x1, y1), turn(x0, y1)};
}

// A polygon of at most 24 vertices: a quadrilateral clipped by 4 lines has at most 19, even when rounding left it
// slightly non-convex (one clip turns n vertices into at most 3n/2).
struct Poly {
  std::array<Pt, 24> v;
  int n = 0;
};
// Sutherland–Hodgman against the line p.y == bound (on_y) or p.x == bound, keeping the side below (keep_below) or
// above it. New vertices are put exactly on the line.
inline void clip_axis(Poly& poly, bool on_y, double bound, bool keep_below) noexcept {
  bool all_in = true;  // the usual case near the ellipse: nothing to cut, nothing to copy
  for (int i = 0; i < poly.n && all_in; ++i) {
    const double c = on_y ? poly.v[i].y : poly.v[i].x;
    all_in = keep_below ? c <= bound : c >= bound;
  }
  if (all_in) return;
  Poly out;
  for (int i = 0; i < poly.n; ++i) {
    const Pt a = poly.v[i], b = poly.v[(i + 1) % poly.n];
    const double ca = on_y ? a.y : a.x, cb = on_y ? b.y : b.x;
    const bool in_a = keep_below ? ca <= bound : ca >= bound, in_b = keep_below ? cb <= bound : cb >= bound;
    if (in_a) out.v[out.n++] = a;
    if (in_a != in_b) {
      const double t = (bound - ca) / (cb - ca);  // in [0, 1]; cb != ca as one is in, one out
      out.v[out.n++] = on_y ? Pt{a.x + t * (b.x - a.x), bound} : Pt{bound, a.y + t * (b.y - a.y)};
    }
  }
  std::copy_n(out.v.begin(), out.n, poly.v.begin());
  poly.n = out.n;
}
// Squared distance from the origin to the segment [a, b].
inline double segment_gap_sq(Pt a, Pt b) noexcept {
  const Pt e{b.x - a.x, b.y - a.y};
  const double ee = e.x * e.x + e.y * e.y;
  const double t = ee > 0 ? std::clamp(-(a.x * e.x + a.y * e.y) / ee, 0.0, 1.0) : 0.0;
  const Pt p{a.x + t * e.x, a.y + t * e.y};
  return p.x * p.x + p.y * p.y;
}
// Squared distance from the origin to a convex polygon (0 inside); degenerate polygons (segments, points) too.
inline double polygon_gap_sq(const Poly& poly) noexcept {
  double best = std::numeric_limits<double>::infinity();
  bool pos = false, neg = false;
  for (int i = 0; i < poly.n; ++i) {
    const Pt a = poly.v[i], b = poly.v[(i + 1) % poly.n];
    const double side = a.x * b.y - a.y * b.x;  // > 0: origin left of a -> b
    pos = pos || side > 0;
    neg = neg || side < 0;
    best = std::min(best, segment_gap_sq(a, b));
  }
  // Strictly on one side of some edge and never on the other: inside. (All zero: a flat polygon; edges decide.)
  return pos != neg ? 0.0 : best;
}
// Squared distance, in the frame where the ellipse is the unit disc, from its centre to the quadrilateral q (frame
// coordinates) clipped to the ellipse's own rectangle; +inf when nothing of q is left.
inline double ellipse_gap_sq(const std::array<Pt, 4>& q, double rx, double ry) noexcept {
  Poly p;
  if (rx > 0 && ry > 0) {
    // Both radii positive: scale at once. The unit disc lies inside the scaled rectangle, so clipping to it first
    // cannot change whether the distance is <= 1; it is needed only to pin a zero radius without dividing.
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
// Narrows [lo, hi] to the t with a * t + c >= 0; false when no t qualifies. Negating (a, c) gives bit-for-bit the
// same bound, so a point on a line shared by the two halves is kept by one of them.
inline bool clip_interval(double a, double c, double& lo, double& hi) noexcept {
  if (a > 0) lo = std::max(lo, -c / a);
  else if (a < 0) hi = std::min(hi, -c / a);
  else return c >= 0;
  return true;
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

// ---- Circle ---------------------------------------------------------------------------------------------------

/// Throws std::invalid_argument for a NaN or infinite field or a negative radius.
template <class S>
void check_shape(const Circle<S>& c) {
  detail::rnd::check_position(c.center, "circle", "center");
  detail::rnd::check_length(c.radius, "circle", "radius");
}
/// The square around the circle, widened by a few roundings so it holds every box `overlaps` accepts. O(1).
template <class S>
Box<2, S> bounding_box(const Circle<S>& c) noexcept {
  return detail::rnd::ball_box(c.center, c.radius);
}
/// Closed overlap with box b: the squared distance from the centre to b is at most radius^2. O(1), exact; radii so
/// tiny or huge that their square would underflow or overflow are rescaled by a power of two first.
template <class S>
bool overlaps(const Circle<S>& c, const Box<2, S>& b) noexcept {
  return detail::rnd::ball_overlaps(c.center, c.radius, b);
}
/// Outside when the nearest point of node is beyond the radius, Inside when its farthest corner is within it.
/// Monotone in the node's coordinates, hence exactly consistent with overlaps. O(1).
template <class S>
Relation classify(const Circle<S>& c, const Box<2, S>& node) noexcept {
  return detail::rnd::ball_classify(c.center, c.radius, node);
}
/// True when p lies in the closed disc; the same test as overlaps(c, Box{p, p}). O(1).
template <class S>
bool contains(const Circle<S>& c, const Vec<2, S>& p) noexcept {
  return overlaps(c, Box<2, S>{p, p});
}
/// Closed overlap of two discs (touching counts): centre distance <= sum of radii. O(1).
template <class S>
bool overlaps(const Circle<S>& a, const Circle<S>& b) noexcept {
  return detail::rnd::balls_meet(a.center, a.radius, b.center, b.radius);
}

// ---- Sphere ---------------------------------------------------------------------------------------------------

/// Throws std::invalid_argument for a NaN or infinite field or a negative radius.
template <class S>
void check_shape(const Sphere<S>& s) {
  detail::rnd::check_position(s.center, "sphere", "center");
  detail::rnd::check_length(s.radius, "sphere", "radius");
}
/// The cube around the ball, widened by a few roundings so it holds every box `overlaps` accepts. O(1).
template <class S>
Box<3, S> bounding_box(const Sphere<S>& s) noexcept {
  return detail::rnd::ball_box(s.center, s.radius);
}
/// Closed overlap with box b: squared distance from the centre to b <= radius^2. O(1), exact (as Circle).
template <class S>
bool overlaps(const Sphere<S>& s, const Box<3, S>& b) noexcept {
  return detail::rnd::ball_overlaps(s.center, s.radius, b);
}
/// Nearest point beyond the radius: Outside; farthest corner within it: Inside. Exactly consistent. O(1).
template <class S>
Relation classify(const Sphere<S>& s, const Box<3, S>& node) noexcept {
  return detail::rnd::ball_classify(s.center, s.radius, node);
}
/// True when p lies in the closed ball; the same test as overlaps(s, Box{p, p}). O(1).
template <class S>
bool contains(const Sphere<S>& s, const Vec<3, S>& p) noexcept {
  return overlaps(s, Box<3, S>{p, p});
}
/// Closed overlap of two balls (touching counts): centre distance <= sum of radii. O(1).
template <class S>
bool overlaps(const Sphere<S>& a, const Sphere<S>& b) noexcept {
  return detail::rnd::balls_meet(a.center, a.radius, b.center, b.radius);
}

// ---- Ring -----------------------------------------------------------------------------------------------------

/// Throws std::invalid_argument for a NaN or infinite field, a negative radius, or inner > outer.
template <class S>
void check_shape(const Ring<S>& r) {
  detail::rnd::check_position(r.center, "ring", "center");
  detail::rnd::check_length(r.inner, "ring", "inner radius");
  detail::rnd::check_length(r.outer, "ring", "outer radius");
  if (r.inner > r.outer) detail::rnd::fail("ring", "inner radius exceeds outer radius");
}
/// The square around the outer circle, widened by a few roundings. O(1).
template <class S>
Box<2, S> bounding_box(const Ring<S>& r) noexcept {
  return detail::rnd::ball_box(r.center, r.outer);
}
/// Closed overlap with box b. A box is connected, so its distances to the centre fill [nearest, farthest corner]:
/// it meets the ring iff nearest <= outer and farthest >= inner. O(1), exact; inner == 0 is the disc.
template <class S>
bool overlaps(const Ring<S>& r, const Box<2, S>& b) noexcept {
  const auto o = detail::rnd::reach(r.outer), i = detail::rnd::reach(r.inner);
  return detail::rnd::near_sq(r.center, b, o.k) <= o.limit && detail::rnd::far_sq(r.center, b, i.k) >= i.limit;
}
/// Outside: nearest > outer or farthest < inner. Inside: nearest >= inner and farthest <= outer. Monotone, hence
/// exactly consistent with overlaps. O(1).
template <class S>
Relation classify(const Ring<S>& r, const Box<2, S>& node) noexcept {
  const auto o = detail::rnd::reach(r.outer), i = detail::rnd::reach(r.inner);
  if (detail::rnd::near_sq(r.center, node, o.k) > o.limit || detail::rnd::far_sq(r.center, node, i.k) < i.limit)
    return Relation::Outside;
  if (detail::rnd::near_sq(r.center, node, i.k) >= i.limit && detail::rnd::far_sq(r.center, node, o.k) <= o.limit)
    return Relation::Inside;
  return Relation::Crossing;
}
/// True when p's distance to the centre lies in [inner, outer]; the same test as overlaps(r, Box{p, p}). O(1).
template <class S>
bool contains(const Ring<S>& r, const Vec<2, S>& p) noexcept {
  return overlaps(r, Box<2, S>{p, p});
}

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
template <class S>
CircleBounds circle_bounds(const Ellipse<S>& e, const EllipseFrame& f, const Box<2, S>& b) noexcept {
  double near2 = 0, far2 = 0, scale = 0;
  for (int i = 0; i < 2; ++i) {
    const double lo = double(b.min[i]) - double(e.center[i]), hi = double(b.max[i]) - double(e.center[i]);
    const double gap = lo > 0 ? lo : (hi < 0 ? -hi : 0.0), reach = std::max(std::abs(lo), std::abs(hi));
    near2 += gap * gap;
    far2 += reach * reach;
    scale = std::max({scale, std::abs(double(b.min[i])), std::abs(double(b.max[i])), std::abs(double(e.center[i]))});
  }
  const double slack = 16 * eps * scale;
  return {near2, far2, std::max(f.rx, f.ry) * (1 + 0x1p-20) + slack, std::min(f.rx, f.ry) * (1 - 0x1p-20) - slack};
}
}  // namespace detail::rnd

/// overlaps(Ellipse, Box) with the ellipse prepared (what Tree::query uses).
template <class S>
bool overlaps(const detail::PreparedEllipse<S>& prepared, const Box<2, S>& b) noexcept {
  const auto& [e, f, bb] = prepared;
  if (!overlaps(bb, b)) return false;
  const detail::rnd::CircleBounds cb = detail::rnd::circle_bounds(e, f, b);
  if (cb.near2 > cb.outer * cb.outer) return false;
  if (cb.inner > 0 && cb.near2 < cb.inner * cb.inner) return true;
  return detail::rnd::ellipse_gap_sq(detail::rnd::frame_corners(clamp(b, bb), e.center, f.c, f.s), f.rx, f.ry) <= 1;
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
  const detail::rnd::CircleBounds cb = detail::rnd::circle_bounds(e, f, node);
  if (cb.near2 > cb.outer * cb.outer) return Relation::Outside;
  if (cb.inner > 0 && cb.far2 < cb.inner * cb.inner) return Relation::Inside;
  const std::array<Pt, 4> q = detail::rnd::frame_corners(clamp(node, bb), e.center, f.c, f.s);
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
