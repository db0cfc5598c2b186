// SPDX-License-Identifier: MIT
// quadrant — the round query shapes of one radius: Circle, Sphere and Ring, their box tests and point tests, and
// what the other round shapes (ellipse.hpp, sector.hpp) share with them: the checks of their fields and a ball's
// tests. Include <quadrant/geometry.hpp>, which brings this and every query shape.
//
// Circle, Sphere and Ring are tested in the caller's scalar with per-axis arithmetic that is monotone in the box
// coordinates (gap to the nearest face, reach to the farthest one: distance.hpp), so classify agrees with overlaps
// exactly.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "box.hpp"
#include "distance.hpp"
#include "numeric.hpp"

namespace quadrant {

/// A closed disc: the points within `radius` of `center`. radius >= 0 (0 is a point).
template <class S = float>
struct Circle {
  Vec<2, S> center;  ///< center
  S radius;          ///< >= 0
};

/// A closed ball: the points within `radius` of `center`. radius >= 0 (0 is a point).
template <class S = float>
struct Sphere {
  Vec<3, S> center;  ///< center
  S radius;          ///< >= 0
};

/// A closed annulus: the points whose distance to `center` lies in [inner, outer]. 0 <= inner <= outer.
template <class S = float>
struct Ring {
  Vec<2, S> center;  ///< center
  S inner;           ///< inner radius, >= 0 (0: a full disc)
  S outer;           ///< outer radius, >= inner
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

// A ball's tests go through scaled_squared_distance (distance.hpp): the sum over axes of (gap * k)^2, monotone in
// the box's coordinates, and its farthest-corner twin, so classify agrees with overlaps exactly.
template <int D, class S>
bool ball_overlaps(const Vec<D, S>& c, S r, const Box<D, S>& b) noexcept {
  const Reach<S> q = reach(r);
  return scaled_squared_distance(c, b, q.k) <= q.limit;
}
template <int D, class S>
Relation ball_classify(const Vec<D, S>& c, S r, const Box<D, S>& node) noexcept {
  const Reach<S> q = reach(r);
  if (scaled_squared_distance(c, node, q.k) > q.limit) return Relation::Outside;
  return scaled_squared_max_distance(c, node, q.k) <= q.limit ? Relation::Inside : Relation::Crossing;
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

template <int D, class S>
Box<D, S> ball_box(const Vec<D, S>& c, S r) noexcept {
  Vec<D, double> lo, hi;
  for (int i = 0; i < D; ++i) {
    lo[i] = -static_cast<double>(r);
    hi[i] = static_cast<double>(r);
  }
  return outward_box(c, lo, hi);
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
/// Closed overlap with box b: the squared distance from the center to b is at most radius^2. O(1), exact; radii so
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
/// Closed overlap of two discs (touching counts): center distance <= sum of radii. O(1).
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
/// Closed overlap with box b: squared distance from the center to b <= radius^2. O(1), exact (as Circle).
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
/// Closed overlap of two balls (touching counts): center distance <= sum of radii. O(1).
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
/// Closed overlap with box b. A box is connected, so its distances to the center fill [nearest, farthest corner]:
/// it meets the ring iff nearest <= outer and farthest >= inner. O(1), exact; inner == 0 is the disc.
template <class S>
bool overlaps(const Ring<S>& r, const Box<2, S>& b) noexcept {
  const auto o = detail::rnd::reach(r.outer), i = detail::rnd::reach(r.inner);
  return detail::scaled_squared_distance(r.center, b, o.k) <= o.limit &&
         detail::scaled_squared_max_distance(r.center, b, i.k) >= i.limit;
}
/// Outside: nearest > outer or farthest < inner. Inside: nearest >= inner and farthest <= outer. Monotone, hence
/// exactly consistent with overlaps. O(1).
template <class S>
Relation classify(const Ring<S>& r, const Box<2, S>& node) noexcept {
  const auto o = detail::rnd::reach(r.outer), i = detail::rnd::reach(r.inner);
  const auto nearest = [&](const auto& q) { return detail::scaled_squared_distance(r.center, node, q.k); };
  const auto farthest = [&](const auto& q) { return detail::scaled_squared_max_distance(r.center, node, q.k); };
  if (nearest(o) > o.limit || farthest(i) < i.limit) return Relation::Outside;
  if (nearest(i) >= i.limit && farthest(o) <= o.limit) return Relation::Inside;
  return Relation::Crossing;
}
/// True when p's distance to the center lies in [inner, outer]; the same test as overlaps(r, Box{p, p}). O(1).
template <class S>
bool contains(const Ring<S>& r, const Vec<2, S>& p) noexcept {
  return overlaps(r, Box<2, S>{p, p});
}

}  // namespace quadrant
