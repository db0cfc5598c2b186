// SPDX-License-Identifier: MIT
// quadrant internals: the polygon and interval clipping numerics the ellipse and sector tests share, in double. A
// box is turned into a shape's own frame (frame_corners), clipped against lines (clip_axis, clip_interval), and its
// distance to the frame's origin measured (polygon_gap_sq). Not for direct inclusion: <quadrant/geometry.hpp>
// brings it.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <limits>

#include "box.hpp"

namespace quadrant::detail::rnd {

struct Pt {
  double x, y;
};

// The corners of b (counter-clockwise) scaled by k (a power of two) relative to (ox, oy) (already scaled), in the
// frame turned by (c, s). Scaling before subtracting keeps the differences finite when k < 1; k = 1 is exact.
template <class S>
std::array<Pt, 4> frame_corners(const Box<2, S>& b, double ox, double oy, double k, double c, double s) noexcept {
  const double x0 = b.min.x * k - ox, y0 = b.min.y * k - oy, x1 = b.max.x * k - ox, y1 = b.max.y * k - oy;
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
  bool pos = false, neg = false, left = false, right = false, below = false, above = false;
  for (int i = 0; i < poly.n; ++i) {
    const Pt a = poly.v[i], b = poly.v[(i + 1) % poly.n];
    const double side = a.x * b.y - a.y * b.x;  // > 0: origin left of a -> b
    pos = pos || side > 0;
    neg = neg || side < 0;
    left = left || a.x <= 0, right = right || a.x >= 0, below = below || a.y <= 0, above = above || a.y >= 0;
    best = std::min(best, segment_gap_sq(a, b));
  }
  // Strictly on one side of some edge and never on the other: inside. (All zero: a flat polygon; edges decide.)
  // Only when the vertices' box holds the origin, as it does for every polygon around it: the sides of a polygon
  // thinner than their rounding (a flat box seen end on, or coordinates rounded near underflow) can all take one
  // sign by rounding alone, however far the polygon lies.
  return pos != neg && left && right && below && above ? 0.0 : best;
}
// Narrows [lo, hi] to the t with a * t + c >= 0; false when no t qualifies. Negating (a, c) gives bit-for-bit the
// same bound, so a point on a line shared by the two halves is kept by one of them.
inline bool clip_interval(double a, double c, double& lo, double& hi) noexcept {
  if (a > 0) lo = std::max(lo, -c / a);
  else if (a < 0) hi = std::min(hi, -c / a);
  else return c >= 0;
  return true;
}

}  // namespace quadrant::detail::rnd
