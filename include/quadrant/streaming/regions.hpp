// SPDX-License-Identifier: MIT
// quadrant internals: the regions a streaming source wants and keeps, as exact, documented predicates, used by
// Streamer (streamer.hpp, update.hpp). Not for direct inclusion: <quadrant/streaming.hpp> brings it.
//
// Every test here is written out in the order docs/streaming.md gives, so that an independent reimplementation
// (the tests' oracle) gets bit-identical answers on boundary cases.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "../geometry.hpp"

namespace quadrant::detail {

// The squared distance from a point to a box, in double, is detail::squared_distance_as<double> (distance.hpp):
// per axis the gap to the nearest face (the coordinates converted to double first, then subtracted), squared,
// summed x, y, z.

/// The square of a radius, in double (r converted to double first).
template <class S>
double radius_squared(S r) noexcept {
  return double(r) * double(r);
}

/// A box that holds every box that passes the prefetch test of a ball of radius r >= 0 around p (squared distance
/// above <= radius_squared(r)), so that the octree's box query cuts off none of them. That test is rounded, and
/// passes boxes a little beyond r: the sum of squares is at least each axis' square, so a box passes only if on
/// every axis fl(gap^2) <= fl(r^2), i.e. the gap (itself rounded when subtracted) is at most r (1 + 2^-52), or at
/// most about 2^-537 when r^2 underflows; and every gap passes when r^2 overflows to infinity (S double, r above
/// about 1.3e154). So per axis the box is p -/+ (r + 2^-48 (|p| + r) + 2^-530), computed in double (the slack also
/// covers that sum's rounding), rounded outwards into S one step past the rounding; with r^2 infinite it is S's
/// whole finite range. Kept finite: an edge that would pass S's largest finite value (beyond S's range, or
/// infinite in double when S is double, or the outward step from +-max) is clamped to it, and an edge at +-max
/// still holds every finite coordinate, hence every object. So for any finite p and finite r >= 0 the box is
/// valid, and the box query, which refuses an infinite box, accepts it. (The slack only adds candidates: each one
/// found is tested exactly.)
template <class S>
Box<3, S> ball_bounds(const Vec<3, S>& p, double r) noexcept {
  constexpr S lowest = std::numeric_limits<S>::lowest(), highest = std::numeric_limits<S>::max();
  Box<3, S> b;
  const bool everything = std::isinf(r * r);
  for (int i = 0; i < 3; ++i) {
    const double c = double(p[i]);
    const double reach = r + 0x1p-48 * (std::abs(c) + r) + 0x1p-530;
    const double lo = c - reach, hi = c + reach;
    // Tested in double first: converting a double beyond S's range to S would give infinity.
    b.min[i] = everything || lo <= double(lowest) ? lowest : std::max(next_below<S>(lo), lowest);
    b.max[i] = everything || hi >= double(highest) ? highest : std::min(next_above<S>(hi), highest);
  }
  return b;
}

/// One source as update() tests resident objects against it: the kept region, i.e. the frustum with every plane
/// pushed out by the margin and its corners' box grown by it, and the ball of radius prefetch + margin.
template <class S>
struct KeptRegion {
  std::array<Plane<S>, 6> planes{};  // offsets already plus the margin (in S)
  Box<3, S> corners{};               // corner_bounds() grown by the margin on every side (in S)
  bool has_frustum = false;
  Vec<3, S> position{};
  double keep_squared = 0;  // (double(prefetch) + double(margin))^2
};

/// The kept region of a source with margin m >= 0. Pushing a plane out by m adds m to its offset (normals are
/// unit, or zero for a plane at infinity, which stays always-passing). Rounding is monotone, so every box the
/// frustum test accepts, this accepts too. With extreme values an offset or a corner may round to +-infinity in S
/// (and prefetch + margin, squared in double, to +infinity): that only widens the region, and none of it is ever
/// handed to the octree (which refuses infinite boxes); the tests below take infinities as they come.
template <class S>
KeptRegion<S> kept_region(const Frustum<S>* frustum, const Vec<3, S>& position, S prefetch, S margin) noexcept {
  KeptRegion<S> k;
  k.position = position;
  const double reach = double(prefetch) + double(margin);
  k.keep_squared = reach * reach;
  if (frustum) {
    k.has_frustum = true;
    k.planes = frustum->planes();
    for (Plane<S>& pl : k.planes) pl.offset = pl.offset + margin;
    k.corners = frustum->corner_bounds();
    for (int i = 0; i < 3; ++i) {
      k.corners.min[i] = k.corners.min[i] - margin;
      k.corners.max[i] = k.corners.max[i] + margin;
    }
  }
  return k;
}

/// True when box b lies (partly) in the grown frustum: it meets the grown corners' box, and for each plane the
/// box's corner farthest along the normal gives (offset + margin) + n.x * x + n.y * y + n.z * z >= 0, summed in S
/// in that order (the test of overlaps(Frustum, Box) with the offsets moved).
template <class S>
bool in_grown_frustum(const KeptRegion<S>& k, const Box<3, S>& b) noexcept {
  if (!overlaps(k.corners, b)) return false;
  for (const Plane<S>& pl : k.planes) {
    S sum = pl.offset;
    for (int i = 0; i < 3; ++i) sum += pl.normal[i] * (pl.normal[i] >= 0 ? b.max[i] : b.min[i]);
    if (sum < 0) return false;
  }
  return true;
}

/// The kept test of one source: in the grown frustum, or within prefetch + margin of the position.
template <class S>
bool in_kept_region(const KeptRegion<S>& k, const Box<3, S>& b) noexcept {
  if (squared_distance_as<double>(k.position, b) <= k.keep_squared) return true;
  return k.has_frustum && in_grown_frustum(k, b);
}

}  // namespace quadrant::detail
