// SPDX-License-Identifier: MIT
// quadrant — polygonal query shapes: OrientedBox and ConvexPolygon, tested by separating axes.
//
// Both shapes are convex, so a box misses them exactly when some axis separates the two projections; the only
// candidate axes are the box's x and y and the shape's edge normals (the separating axis theorem). overlaps() and
// classify() share one routine: every projection of a box is computed monotonically in the box's coordinates (per
// axis the min or max corner is picked by the sign of the axis component, then multiplied and added), so a node
// classified Outside (some axis separates it) or Inside (on every axis its projection lies within the shape's)
// stays so for every box inside the node, exactly, in floating point.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "box.hpp"

namespace quadrant {

/// A closed rectangle turned by `angle` radians counter-clockwise about its `center`; half_extents >= 0 along its
/// own x and y before rotation.
template <class S = float>
struct OrientedBox {
  Vec<2, S> center;        ///< center
  Vec<2, S> half_extents;  ///< half side lengths along the box's own axes, >= 0
  S angle;                 ///< rotation, radians, counter-clockwise
};

namespace detail {

/// One separating axis of a convex shape: a direction (any length) and the shape's projection range on it.
template <class S>
struct SatAxis {
  Vec<2, S> normal;  ///< axis direction, not normalised
  S lo;              ///< min over the shape of dot(normal, x)
  S hi;              ///< max over the shape of dot(normal, x)
};

/// Projection range [lo, hi] of the box `b` on the axis `n`. Monotone in b's coordinates: lo never decreases and hi
/// never increases when b shrinks, and lo <= hi, exactly in floating point (rounding is monotone).
template <class S>
inline std::pair<S, S> project_box(const Vec<2, S>& n, const Box<2, S>& b) noexcept {
  const S lx = n.x >= 0 ? b.min.x : b.max.x, hx = n.x >= 0 ? b.max.x : b.min.x;
  const S ly = n.y >= 0 ? b.min.y : b.max.y, hy = n.y >= 0 ? b.max.y : b.min.y;
  const S lo = n.x * lx + n.y * ly;
  const S hi = n.x * hx + n.y * hy;
  return {lo, hi};
}

/// Projection range of a point set on the axis `n`. O(points).
template <class S>
inline std::pair<S, S> project_points(const Vec<2, S>& n, std::span<const Vec<2, S>> pts) noexcept {
  S lo = dot(n, pts[0]), hi = lo;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    const S p = dot(n, pts[i]);
    lo = std::min(lo, p);
    hi = std::max(hi, p);
  }
  return {lo, hi};
}

/// The separating axis test of a convex shape (its bounding box `bounds` and its axes) against a box. With
/// Classify = false: Outside or Crossing only (the overlap test); with Classify = true also Inside, when b's
/// projection lies within the shape's on every axis. O(axes).
template <bool Classify, class S>
inline Relation sat_box(const Box<2, S>& bounds, std::span<const SatAxis<S>> axes, const Box<2, S>& b) noexcept {
  if (!overlaps(bounds, b)) return Relation::Outside;
  bool inside = Classify && contains(bounds, b);
  for (const SatAxis<S>& a : axes) {
    const auto [lo, hi] = project_box(a.normal, b);
    if (hi < a.lo || lo > a.hi) return Relation::Outside;
    if constexpr (Classify) inside = inside && a.lo <= lo && hi <= a.hi;
  }
  return inside ? Relation::Inside : Relation::Crossing;
}

/// An oriented box unpacked once per call: its two axes with projection ranges, its corners (counter-clockwise)
/// and their bounding box. cos/sin are evaluated here, identically for every call with the same box.
template <class S>
struct ObbFrame {
  std::array<SatAxis<S>, 2> axes;    ///< u = (cos, sin) then v = (-sin, cos), either scaled by 1/4 (see obb_axis)
  std::array<Vec<2, S>, 4> corners;  ///< counter-clockwise from center - u*hx - v*hy
  Box<2, S> bounds;                  ///< box of the corners
};

/// The axis n (unit length) of an oriented box with center c and half extent h along it. Near the largest finite
/// value center . n + h can overflow while every corner is finite (a box turned 45 degrees about a center at 0.9 max
/// reaches 1.3 max along its axis), and an infinite range separates nothing. Such an axis is scaled by 1/4, which
/// is exact (short of products below S's smallest normal value, far below the rounding of the huge center): the
/// range then stays within 3/4 max and a box's projection within 1/2 max, and every comparison is the same as in
/// exact arithmetic. An axis whose range stays within 1/2 max keeps its bits: a box projected on it may overflow,
/// but only to the infinity on its own side, which compares right with the finite range.
template <class S>
inline SatAxis<S> obb_axis(Vec<2, S> n, const Vec<2, S>& c, S h) noexcept {
  S d = dot(n, c);
  if (!(std::abs(d) + h <= std::numeric_limits<S>::max() / 2)) [[unlikely]] {
    n = n * S(0.25);
    h = h * S(0.25);
    d = dot(n, c);
  }
  return {n, d - h, d + h};
}

template <class S>
inline ObbFrame<S> obb_frame(const OrientedBox<S>& o) noexcept {
  const S c = std::cos(o.angle), s = std::sin(o.angle);
  const Vec<2, S> u{c, s}, v{-s, c};
  const S hx = o.half_extents.x, hy = o.half_extents.y;
  ObbFrame<S> f;
  // |center . u| + hx and |center . v| + hy are at most |cx| + |cy| + hx + hy: below half the largest finite value
  // (every box not near it) both axes keep their bits at the cost of one comparison; otherwise each is checked.
  if (std::abs(o.center.x) + std::abs(o.center.y) + hx + hy <= std::numeric_limits<S>::max() / 2) [[likely]] {
    const S cu = dot(o.center, u), cv = dot(o.center, v);
    f.axes = {SatAxis<S>{u, cu - hx, cu + hx}, SatAxis<S>{v, cv - hy, cv + hy}};
  } else {
    f.axes = {obb_axis(u, o.center, hx), obb_axis(v, o.center, hy)};
  }
  const Vec<2, S> du = u * hx, dv = v * hy;
  f.corners = {o.center - du - dv, o.center + du - dv, o.center + du + dv, o.center - du + dv};
  f.bounds = Box<2, S>{f.corners[0], f.corners[0]};
  for (const Vec<2, S>& p : f.corners) f.bounds = merge(f.bounds, Box<2, S>{p, p});
  return f;
}

}  // namespace detail

namespace detail {
// Tree::query works out an oriented box's corners and axes (its trigonometry) once, not per box tested.
template <class S>
ObbFrame<S> prepare(const OrientedBox<S>& o) noexcept {
  return obb_frame(o);
}
}  // namespace detail

/// overlaps(OrientedBox, Box) with the box's frame worked out (what Tree::query uses).
template <class S>
bool overlaps(const detail::ObbFrame<S>& f, const Box<2, S>& b) noexcept {
  return detail::sat_box<false, S>(f.bounds, f.axes, b) != Relation::Outside;
}
/// classify(OrientedBox, Box) with the box's frame worked out (what Tree::query uses).
template <class S>
Relation classify(const detail::ObbFrame<S>& f, const Box<2, S>& node) noexcept {
  return detail::sat_box<true, S>(f.bounds, f.axes, node);
}

// ---- OrientedBox as a query shape -----------------------------------------------------------------------------

/// Throws std::invalid_argument when a field is NaN or infinite, a half extent is negative, or the corners
/// overflow. Zero half extents (a segment or a point) are valid.
template <class S>
void check_shape(const OrientedBox<S>& o) {
  check_point(o.center, "oriented box: center");
  check_point(o.half_extents, "oriented box: half_extents");
  if (o.half_extents.x < 0 || o.half_extents.y < 0)
    throw std::invalid_argument("quadrant: oriented box: half extent is negative");
  if (std::isnan(o.angle)) throw std::invalid_argument("quadrant: oriented box: angle is NaN");
  if (!std::isfinite(o.angle)) throw std::invalid_argument("quadrant: oriented box: angle is infinite");
  for (const Vec<2, S>& p : detail::obb_frame(o).corners)
    if (!is_finite(p)) throw std::invalid_argument("quadrant: oriented box: corners overflow");
}

/// The box of the four corners (tight). Costs one cos and one sin.
template <class S>
Box<2, S> bounding_box(const OrientedBox<S>& o) noexcept {
  return detail::obb_frame(o).bounds;
}

/// Exact closed overlap with a valid box, by the separating axis theorem on x, y and the box's own two axes.
/// Touching counts. Costs one cos and one sin.
template <class S>
bool overlaps(const OrientedBox<S>& o, const Box<2, S>& b) noexcept {
  return overlaps(detail::obb_frame(o), b);
}

/// Outside / Crossing / Inside for a node's bounds; exactly consistent with overlaps (same axes, monotone box
/// projections). Inside means the node lies within the oriented box.
template <class S>
Relation classify(const OrientedBox<S>& o, const Box<2, S>& node) noexcept {
  return classify(detail::obb_frame(o), node);
}

// ---- ConvexPolygon --------------------------------------------------------------------------------------------

/// A closed convex polygon, stored counter-clockwise with its separating axes precomputed, so a query against a
/// box costs O(vertices) with no allocation and no trigonometry.
///
/// The constructor accepts either winding and normalises the outline: a vertex equal to the next one (also the
/// last equal to the first, as closed outlines are often given) is dropped, and so is a vertex lying on the
/// straight line between its neighbours (within a few ulps of the coordinates: it adds nothing to the shape). It
/// throws std::invalid_argument ("quadrant: convex polygon: ...") for fewer than 3 vertices, a NaN or infinite
/// coordinate, all vertices on one line (zero area), an edge that turns back on its neighbour (a spike), turns of
/// both signs (not convex), an outline winding more than once (a self-intersecting star), or coordinates so large
/// that the edge normals overflow. Construction is O(n) for an outline with nothing to drop, O(n^2) at worst.
template <class S = float>
class ConvexPolygon {
 public:
  /// Builds the polygon from its outline (either winding; see the class comment for what is dropped or rejected).
  explicit ConvexPolygon(std::span<const Vec<2, S>> vertices);
  /// Same, from a braced list: `ConvexPolygon<float>{{0, 0}, {4, 0}, {0, 3}}`.
  ConvexPolygon(std::initializer_list<Vec<2, S>> vertices)
      : ConvexPolygon(std::span<const Vec<2, S>>(vertices.begin(), vertices.size())) {}

  /// The vertices counter-clockwise (after the clean-up above), at least 3.
  std::span<const Vec<2, S>> vertices() const noexcept { return vertices_; }
  /// The tight axis-aligned box of the vertices.
  const Box<2, S>& bounds() const noexcept { return bounds_; }
  /// The separating axes: axes()[i] is the outward normal of the edge from vertex i to vertex i + 1, with the
  /// polygon's projection range on it; hi is the edge's own offset. The normal is the edge turned a quarter turn and
  /// scaled by a power of two so that its larger component lies in [1/2, 1) (in [1/8, 1/4) when a coordinate
  /// exceeds a quarter of the largest finite value): projecting any finite point then neither overflows into a
  /// wrong answer nor loses precision to underflow above S's smallest normal value.
  std::span<const detail::SatAxis<S>> axes() const noexcept { return axes_; }

 private:
  std::vector<Vec<2, S>> vertices_;
  std::vector<detail::SatAxis<S>> axes_;
  Box<2, S> bounds_{};
};

namespace detail {

[[noreturn]] inline void polygon_error(const char* defect) {
  throw std::invalid_argument(std::string("quadrant: convex polygon: ") + defect);
}

/// The constructor's shape checks work in double on the vertices scaled by one power of two (exact) so that the
/// largest coordinate lies in [1/2, 1): their products and squares then neither overflow (a double polygon beyond
/// 1e154) nor underflow (one below 1e-154), and every check depends on the outline's shape, not its magnitude.
template <class S>
std::vector<Vec<2, double>> check_frame(std::span<const Vec<2, S>> pts) {
  S m = 0;
  for (const Vec<2, S>& p : pts) m = std::max({m, std::abs(p.x), std::abs(p.y)});
  int e = 0;
  std::frexp(double(m), &e);
  std::vector<Vec<2, double>> q;
  q.reserve(pts.size());
  for (const Vec<2, S>& p : pts)
    q.push_back(Vec<2, double>{std::ldexp(double(p.x), -e), std::ldexp(double(p.y), -e)});
  return q;
}

/// Distance from p to the line through a and b, a != b (points in the check frame).
inline double line_distance(const Vec<2, double>& a, const Vec<2, double>& b, const Vec<2, double>& p) noexcept {
  const double ex = b.x - a.x, ey = b.y - a.y, px = p.x - a.x, py = p.y - a.y;
  return std::abs(ex * py - ey * px) / std::hypot(ex, ey);
}

/// How far a vertex may stray from the line of its neighbours and still count as on it: a few ulps (of S) of the
/// largest coordinate involved, the rounding a caller's own arithmetic leaves in a point meant to be on the line.
template <class S>
double straight_tolerance(const Vec<2, double>& a, const Vec<2, double>& b, const Vec<2, double>& c) noexcept {
  const double m =
      std::max({std::abs(a.x), std::abs(a.y), std::abs(b.x), std::abs(b.y), std::abs(c.x), std::abs(c.y)});
  return 4.0 * double(std::numeric_limits<S>::epsilon()) * m;
}

}  // namespace detail

template <class S>
ConvexPolygon<S>::ConvexPolygon(std::span<const Vec<2, S>> input) {
  if (input.size() < 3) detail::polygon_error("fewer than 3 vertices");
  for (const Vec<2, S>& p : input) check_point(p, "convex polygon");

  // Drop repeated vertices (cyclically: a closing copy of the first vertex goes too).
  std::vector<Vec<2, S>> pts;
  pts.reserve(input.size());
  for (const Vec<2, S>& p : input)
    if (pts.empty() || !(pts.back() == p)) pts.push_back(p);
  while (pts.size() > 1 && pts.back() == pts.front()) pts.pop_back();
  if (pts.size() < 3) detail::polygon_error("zero area (fewer than 3 distinct vertices)");

  // All on one line: every vertex within tolerance of the line through the first vertex and the farthest one.
  std::vector<Vec<2, double>> q = detail::check_frame<S>(pts);
  {
    std::size_t far = 1;
    double best = 0;
    for (std::size_t i = 1; i < q.size(); ++i) {
      const double dx = q[i].x - q[0].x, dy = q[i].y - q[0].y;
      if (dx * dx + dy * dy > best) best = dx * dx + dy * dy, far = i;
    }
    bool flat = true;
    for (std::size_t i = 1; i < q.size() && flat; ++i)
      flat = detail::line_distance(q[0], q[far], q[i]) <= detail::straight_tolerance<S>(q[0], q[far], q[i]);
    if (flat) detail::polygon_error("zero area (all vertices on one line)");
  }

  // Drop vertices on the straight line between their neighbours; a vertex on that line but not between them is a
  // spike (the outline turns back on itself), which no convex outline has. Repeat until nothing changes: dropping
  // one vertex can straighten the next.
  for (bool changed = true; changed && q.size() >= 3;) {
    changed = false;
    for (std::size_t i = 0; i < q.size() && q.size() >= 3;) {
      const std::size_t n = q.size();
      const Vec<2, double>& prev = q[(i + n - 1) % n];
      const Vec<2, double>& cur = q[i];
      const Vec<2, double>& next = q[(i + 1) % n];
      const double ax = cur.x - prev.x, ay = cur.y - prev.y;
      const double bx = next.x - cur.x, by = next.y - cur.y;
      const bool on_line = prev == next || detail::line_distance(prev, next, cur) <=
                                               detail::straight_tolerance<S>(prev, next, cur);
      if (on_line) {
        if (prev == next || ax * bx + ay * by <= 0) detail::polygon_error("not convex (an edge turns back)");
        pts.erase(pts.begin() + static_cast<std::ptrdiff_t>(i));
        q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
        continue;
      }
      ++i;
    }
  }
  if (pts.size() < 3) detail::polygon_error("zero area (all vertices on one line)");

  // Every turn must have the same sign, and the edge directions must go round exactly once: with all turns one way
  // and each turn under a half turn, the x component of the edge direction changes sign twice per full turn, so a
  // star winding k times shows 2k sign changes.
  const std::size_t n = pts.size();
  int positive = 0, negative = 0, changes = 0, last_sign = 0, first_sign = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec<2, double>& a = q[i];
    const Vec<2, double>& b = q[(i + 1) % n];
    const Vec<2, double>& c = q[(i + 2) % n];
    const double cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
    if (cross > 0) ++positive;
    else if (cross < 0) ++negative;
    const int sign = b.x > a.x ? 1 : (b.x < a.x ? -1 : 0);
    if (sign != 0) {
      if (first_sign == 0) first_sign = sign;
      else if (sign != last_sign) ++changes;
      last_sign = sign;
    }
  }
  if (last_sign != first_sign) ++changes;  // cyclic
  if (positive != 0 && negative != 0) detail::polygon_error("not convex (turns both ways)");
  if (positive + negative != static_cast<int>(n)) detail::polygon_error("not convex (an edge turns back)");
  if (changes != 2) detail::polygon_error("not convex (the outline winds more than once)");
  if (negative != 0) std::reverse(pts.begin(), pts.end());

  vertices_ = std::move(pts);
  bounds_ = Box<2, S>{vertices_[0], vertices_[0]};
  for (const Vec<2, S>& p : vertices_) bounds_ = merge(bounds_, Box<2, S>{p, p});

  // Edge i's outward normal for a counter-clockwise outline is (e.y, -e.x), stored scaled by a power of two (see
  // axes()): a tiny polygon's edge times a coordinate underflowed to zero, a large one's overflowed. Its hi is the
  // edge's own offset, its lo is at the antipodal vertex, found by a pointer that only moves forward (rotating
  // calipers): O(n) total. The documented limit stays that of the unscaled normal: the edge vector and its products
  // with the vertices must be finite.
  const S reach = std::max({std::abs(bounds_.min.x), std::abs(bounds_.min.y), std::abs(bounds_.max.x),
                            std::abs(bounds_.max.y)});
  const int extra = reach > std::numeric_limits<S>::max() / 4 ? 2 : 0;
  axes_.resize(n);
  std::size_t j = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec<2, S>& from = vertices_[i];
    const Vec<2, S>& to = vertices_[(i + 1) % n];
    const Vec<2, S> e = to - from, edge_normal{e.y, -e.x};
    if (!is_finite(edge_normal)) detail::polygon_error("coordinates too large (edge normals overflow)");
    int exponent = 0;
    std::frexp(std::max(std::abs(e.x), std::abs(e.y)), &exponent);
    const Vec<2, S> normal{std::ldexp(e.y, -exponent - extra), std::ldexp(-e.x, -exponent - extra)};
    const S hi = std::max(dot(normal, from), dot(normal, to));
    if (i == 0) {
      for (std::size_t k = 1; k < n; ++k)
        if (dot(normal, vertices_[k]) < dot(normal, vertices_[j])) j = k;
    } else {
      for (std::size_t steps = 0; steps < n && dot(normal, vertices_[(j + 1) % n]) <= dot(normal, vertices_[j]);
           ++steps)
        j = (j + 1) % n;
    }
    axes_[i] = detail::SatAxis<S>{normal, dot(normal, vertices_[j]), hi};
    if (!std::isfinite(dot(edge_normal, vertices_[j])) ||
        !std::isfinite(std::max(dot(edge_normal, from), dot(edge_normal, to))))
      detail::polygon_error("coordinates too large (edge normals overflow)");
  }
}

// ---- ConvexPolygon as a query shape ---------------------------------------------------------------------------

/// Nothing to check: the constructor already rejected every invalid polygon.
template <class S>
void check_shape(const ConvexPolygon<S>&) noexcept {}

/// The tight box of the vertices. O(1).
template <class S>
Box<2, S> bounding_box(const ConvexPolygon<S>& p) noexcept {
  return p.bounds();
}

/// Exact closed overlap with a valid box, by the separating axis theorem on x, y and the polygon's edge normals.
/// Touching counts. O(vertices), no allocation.
template <class S>
bool overlaps(const ConvexPolygon<S>& p, const Box<2, S>& b) noexcept {
  return detail::sat_box<false, S>(p.bounds(), p.axes(), b) != Relation::Outside;
}

/// Outside / Crossing / Inside for a node's bounds; exactly consistent with overlaps (same axes, monotone box
/// projections). Inside means the node lies within the polygon. O(vertices).
template <class S>
Relation classify(const ConvexPolygon<S>& p, const Box<2, S>& node) noexcept {
  return detail::sat_box<true, S>(p.bounds(), p.axes(), node);
}

}  // namespace quadrant
