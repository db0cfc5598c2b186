// SPDX-License-Identifier: MIT
// quadrant internals: the regions a streaming source wants and keeps, as exact, documented predicates, used by
// Streamer (streamer.hpp, update.hpp). Not for direct inclusion: <quadrant/streaming.hpp> brings it.
//
// Every test here is written out in the order docs/streaming.md gives, so that an independent reimplementation
// (the tests' oracle) gets bit-identical answers on boundary cases.
#pragma once

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

/// A box that holds every box within `r` of p on the squared-distance test above: p -/+ r per axis computed in
/// double, then rounded outwards into S (one step past the rounding), so no such box is cut off.
template <class S>
Box<3, S> ball_bounds(const Vec<3, S>& p, double r) noexcept {
  Box<3, S> b;
  for (int i = 0; i < 3; ++i) {
    b.min[i] = next_below<S>(double(p[i]) - r);
    b.max[i] = next_above<S>(double(p[i]) + r);
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
/// frustum test accepts, this accepts too.
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
