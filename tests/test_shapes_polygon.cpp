// SPDX-License-Identifier: MIT
// OrientedBox, ConvexPolygon and the 2D narrow phase, for float and double.
//
// Oracles (none shares code with the library):
//  * Exact: on an integer lattice every quantity of the library is exact in float, so polygon-vs-box and
//    polygon-vs-polygon are compared with an exact predicate oracle (two convex point sets meet iff two edges
//    meet, by orientation tests, or one holds a vertex of the other) and must agree on every case, touching ones
//    included (they are frequent on a small lattice).
//  * Sutherland–Hodgman: for real-valued shapes (rotated boxes, perturbed polygons) the subject is clipped by the
//    other shape's half-planes moved inward by tol (a non-empty result: certainly overlapping) and moved outward by
//    tol (an empty result: certainly disjoint, the distance exceeds tol). Cases between the two are within tol of
//    touching and skipped; tol is 1e-4 for float (inputs are rounded to float, cos/sin too) and 1e-9 for double,
//    on shapes of size ~10. At least 95% of the cases must be decided.
//  * Circles: the distance from the center to the polygon by crossing-number point-in-polygon and a ternary search
//    along each edge; |distance - radius| <= tol is skipped.
//  * Any finite magnitude (subnormal to the largest value, float and double): separating axes in long double on
//    both shapes' outlines with unit normals, a band of a few roundings of S at the shape's magnitude undecided (see
//    "at any finite magnitude" below).
#include <quadrant/geometry.hpp>

#include "support/shape_testing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace quadrant;
using quadrant_test::lattice;
using quadrant_test::sub_box;
using quadrant_test::uniform;

using Pt = std::array<double, 2>;
using Poly = std::vector<Pt>;

// ---- oracle geometry, in double ----------------------------------------------------------------------------------

double orient(const Pt& a, const Pt& b, const Pt& c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

// Convex hull, counter-clockwise, without collinear points (Andrew's monotone chain).
Poly hull(Poly pts) {
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  if (pts.size() < 3) return pts;
  Poly h(2 * pts.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && orient(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  for (std::size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && orient(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  h.resize(k - 1);
  return h;
}

bool in_bbox(const Pt& a, const Pt& b, const Pt& p) {
  return std::min(a[0], b[0]) <= p[0] && p[0] <= std::max(a[0], b[0]) && std::min(a[1], b[1]) <= p[1] &&
         p[1] <= std::max(a[1], b[1]);
}

// Closed segments (possibly points) meet. Exact for integer coordinates.
bool segments_meet(const Pt& p1, const Pt& p2, const Pt& q1, const Pt& q2) {
  const double o1 = orient(p1, p2, q1), o2 = orient(p1, p2, q2), o3 = orient(q1, q2, p1), o4 = orient(q1, q2, p2);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return true;
  if (o1 == 0 && in_bbox(p1, p2, q1)) return true;
  if (o2 == 0 && in_bbox(p1, p2, q2)) return true;
  if (o3 == 0 && in_bbox(q1, q2, p1)) return true;
  if (o4 == 0 && in_bbox(q1, q2, p2)) return true;
  return false;
}

bool in_convex(const Poly& p, const Pt& q) {  // p counter-clockwise, >= 3 vertices, closed
  for (std::size_t i = 0; i < p.size(); ++i)
    if (orient(p[i], p[(i + 1) % p.size()], q) < 0) return false;
  return true;
}

// Two convex point sets (1 point, 2 = a segment, >= 3 = a counter-clockwise polygon) meet.
bool exact_meet(const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j)
      if (segments_meet(a[i], a[(i + 1) % a.size()], b[j], b[(j + 1) % b.size()])) return true;
  if (b.size() >= 3 && in_convex(b, a[0])) return true;
  if (a.size() >= 3 && in_convex(a, b[0])) return true;
  return false;
}

// Keep the part of subj at signed distance >= offset on the left of a -> b.
Poly clip_half_plane(const Poly& subj, const Pt& a, const Pt& b, double offset) {
  const double len = std::hypot(b[0] - a[0], b[1] - a[1]);
  const auto dist = [&](const Pt& p) { return orient(a, b, p) / len - offset; };
  Poly out;
  for (std::size_t i = 0; i < subj.size(); ++i) {
    const Pt& c = subj[i];
    const Pt& n = subj[(i + 1) % subj.size()];
    const double dc = dist(c), dn = dist(n);
    if (dc >= 0) out.push_back(c);
    if ((dc >= 0) != (dn >= 0)) {
      const double t = dc / (dc - dn);
      out.push_back(Pt{c[0] + t * (n[0] - c[0]), c[1] + t * (n[1] - c[1])});
    }
  }
  return out;
}

// Sutherland–Hodgman: subj clipped by the counter-clockwise clipper's half-planes moved inward by offset.
Poly clip_convex(Poly subj, const Poly& clipper, double offset) {
  for (std::size_t i = 0; i < clipper.size() && !subj.empty(); ++i)
    subj = clip_half_plane(subj, clipper[i], clipper[(i + 1) % clipper.size()], offset);
  return subj;
}

// +1 certainly overlapping, -1 certainly disjoint, 0 within tol of touching. b must have area.
int sh_oracle(const Poly& a, const Poly& b, double tol) {
  if (!clip_convex(a, b, tol).empty()) return 1;
  if (clip_convex(a, b, -tol).empty()) return -1;
  return 0;
}

// Distance from c to the closed polygon (0 inside): crossing-number parity, then a ternary search per edge.
double distance_to(const Poly& p, const Pt& c) {
  bool in = false;
  for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++)
    if ((p[i][1] > c[1]) != (p[j][1] > c[1]) &&
        c[0] < (p[j][0] - p[i][0]) * (c[1] - p[i][1]) / (p[j][1] - p[i][1]) + p[i][0])
      in = !in;
  if (in) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Pt& a = p[i];
    const Pt& b = p[(i + 1) % p.size()];
    const auto f = [&](double t) { return std::hypot(a[0] + t * (b[0] - a[0]) - c[0], a[1] + t * (b[1] - a[1]) - c[1]); };
    double lo = 0, hi = 1;
    for (int it = 0; it < 100; ++it) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      if (f(m1) < f(m2)) hi = m2;
      else lo = m1;
    }
    best = std::min({best, f(lo), f(0), f(1)});
  }
  return best;
}

// ---- conversions ---------------------------------------------------------------------------------------------------

template <class S>
Poly to_poly(std::span<const Vec<2, S>> v) {
  Poly p;
  for (const auto& q : v) p.push_back(Pt{double(q.x), double(q.y)});
  return p;
}

template <class S>
Poly box_poly(const Box<2, S>& b) {  // distinct corners, counter-clockwise
  const Pt lo{double(b.min.x), double(b.min.y)}, hi{double(b.max.x), double(b.max.y)};
  if (lo == hi) return {lo};
  if (lo[0] == hi[0] || lo[1] == hi[1]) return {lo, hi};
  return {lo, Pt{hi[0], lo[1]}, hi, Pt{lo[0], hi[1]}};
}

template <class S>
Poly obb_poly(const OrientedBox<S>& o) {  // in double from the (rounded) fields
  const double c = std::cos(double(o.angle)), s = std::sin(double(o.angle));
  const double hx = o.half_extents.x, hy = o.half_extents.y, x = o.center.x, y = o.center.y;
  return {Pt{x - c * hx + s * hy, y - s * hx - c * hy}, Pt{x + c * hx + s * hy, y + s * hx - c * hy},
          Pt{x + c * hx - s * hy, y + s * hx + c * hy}, Pt{x - c * hx - s * hy, y - s * hx + c * hy}};
}

template <class S>
ConvexPolygon<S> make_polygon(const Poly& p) {
  std::vector<Vec<2, S>> v;
  for (const Pt& q : p) v.push_back(Vec<2, S>{static_cast<S>(q[0]), static_cast<S>(q[1])});
  return ConvexPolygon<S>(std::span<const Vec<2, S>>(v));
}

// ---- random inputs ---------------------------------------------------------------------------------------------------


// Hull of random lattice points with at least 3 vertices.
Poly lattice_polygon(std::mt19937& rng, int lo, int hi) {
  for (;;) {
    Poly pts;
    const int n = lattice(rng, 3, 8);
    for (int i = 0; i < n; ++i) pts.push_back(Pt{double(lattice(rng, lo, hi)), double(lattice(rng, lo, hi))});
    Poly h = hull(pts);
    if (h.size() >= 3) return h;
  }
}

template <class S>
Box<2, S> lattice_box(std::mt19937& rng, int lo, int hi) {
  Box<2, S> b;
  for (int i = 0; i < 2; ++i) {
    const int a = lattice(rng, lo, hi), c = lattice(rng, lo, hi);
    b.min[i] = static_cast<S>(std::min(a, c));
    b.max[i] = static_cast<S>(std::max(a, c));
  }
  return b;
}

// Real-valued strongly convex polygon: points on an ellipse at well separated angles, rounded to S.
template <class S>
ConvexPolygon<S> real_polygon(std::mt19937& rng, double cx, double cy, double size) {
  const int n = lattice(rng, 3, 9);
  const double rx = uniform(rng, 0.3, 1.0) * size, ry = uniform(rng, 0.3, 1.0) * size, turn = uniform(rng, 0, 7);
  std::vector<Vec<2, S>> v;
  for (int i = 0; i < n; ++i) {
    const double a = turn + 2 * std::numbers::pi * (i + uniform(rng, 0.0, 0.5)) / n;
    v.push_back(Vec<2, S>{static_cast<S>(cx + rx * std::cos(a)), static_cast<S>(cy + ry * std::sin(a))});
  }
  return ConvexPolygon<S>(std::span<const Vec<2, S>>(v));
}

template <class S>
OrientedBox<S> real_obb(std::mt19937& rng, double spread, double size) {
  return OrientedBox<S>{Vec<2, S>{static_cast<S>(uniform(rng, -spread, spread)), static_cast<S>(uniform(rng, -spread, spread))},
                        Vec<2, S>{static_cast<S>(uniform(rng, 0.05, size)), static_cast<S>(uniform(rng, 0.05, size))},
                        static_cast<S>(uniform(rng, -4, 4))};
}

template <class S>
Box<2, S> real_box(std::mt19937& rng, double spread, double size) {
  Box<2, S> b;
  for (int i = 0; i < 2; ++i) {
    const double lo = uniform(rng, -spread, spread);
    const int kind = lattice(rng, 0, 5);  // zero-size axes now and then
    const double hi = kind == 0 ? lo : lo + uniform(rng, 0, size);
    b.min[i] = static_cast<S>(lo);
    b.max[i] = std::max(b.min[i], static_cast<S>(hi));
  }
  return b;
}


template <class S>
double tolerance() {
  return std::is_same_v<S, float> ? 1e-4 : 1e-9;
}

template <class S>
class PolygonTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PolygonTest, Scalars);

// ---- ConvexPolygon construction --------------------------------------------------------------------------------------

template <class S>
void expect_rejected(std::vector<Vec<2, S>> v, const std::string& what) {
  SCOPED_TRACE(what);
  try {
    ConvexPolygon<S> p{std::span<const Vec<2, S>>(v)};
    ADD_FAILURE() << "accepted " << what;
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("quadrant: convex polygon: ", 0), 0u) << e.what();
  }
}

TYPED_TEST(PolygonTest, RejectsInvalidPolygons) {
  using S = TypeParam;
  using V = Vec<2, S>;
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  expect_rejected<S>({}, "no vertices");
  expect_rejected<S>({V{0, 0}, V{1, 0}}, "two vertices");
  expect_rejected<S>({V{0, 0}, V{1, 0}, V{nan, 1}}, "NaN");
  expect_rejected<S>({V{0, 0}, V{1, 0}, V{0, inf}}, "infinity");
  expect_rejected<S>({V{0, 0}, V{-inf, 0}, V{0, 1}}, "-infinity");
  expect_rejected<S>({V{0, 0}, V{1, 1}, V{2, 2}}, "collinear");
  expect_rejected<S>({V{0, 0}, V{1, 1}, V{2, 2}, V{1, 1}}, "collinear back and forth");
  expect_rejected<S>({V{3, 3}, V{3, 3}, V{3, 3}}, "one point");
  expect_rejected<S>({V{0, 0}, V{4, 0}, V{4, 4}, V{2, 1}, V{0, 4}}, "dart (reflex vertex)");
  expect_rejected<S>({V{0, 0}, V{4, 0}, V{4, 2}, V{2, 2}, V{2, 4}, V{0, 4}}, "L shape");
  expect_rejected<S>({V{0, 0}, V{4, 4}, V{4, 0}, V{0, 4}}, "bow tie");
  // A pentagram: every turn is to the left, yet the outline winds twice.
  std::vector<V> star;
  for (int i = 0; i < 5; ++i) {
    const double a = 2 * std::numbers::pi * (2 * i) / 5;
    star.push_back(V{static_cast<S>(10 * std::cos(a)), static_cast<S>(10 * std::sin(a))});
  }
  expect_rejected<S>(star, "pentagram");
  // A heptagram {7/2} and {7/3}: winding 2 and 3.
  for (int k : {2, 3}) {
    std::vector<V> s7;
    for (int i = 0; i < 7; ++i) {
      const double a = 2 * std::numbers::pi * (k * i) / 7;
      s7.push_back(V{static_cast<S>(10 * std::cos(a)), static_cast<S>(10 * std::sin(a))});
    }
    expect_rejected<S>(s7, "heptagram");
  }
  expect_rejected<S>({V{0, 0}, V{4, 0}, V{8, 0}, V{4, 0}, V{4, 4}}, "spike along an edge");
  expect_rejected<S>({V{0, 0}, V{4, 0}, V{2, 0}, V{2, 3}}, "edge turning back");
  if constexpr (std::is_same_v<S, double>) {
    const S big = std::numeric_limits<S>::max() / 2;
    expect_rejected<S>({V{-big, -big}, V{big, -big}, V{0, big}}, "overflowing normals");
  }
}

TYPED_TEST(PolygonTest, NormalisesOutline) {
  using S = TypeParam;
  using V = Vec<2, S>;
  const ConvexPolygon<S> ccw{V{0, 0}, V{4, 0}, V{4, 3}, V{0, 3}};
  ASSERT_EQ(ccw.vertices().size(), 4u);
  EXPECT_EQ(ccw.bounds(), (Box<2, S>{V{0, 0}, V{4, 3}}));
  // Repeated vertices, a closing copy of the first one, and vertices in the middle of edges are dropped.
  const ConvexPolygon<S> messy{V{0, 0}, V{2, 0}, V{4, 0}, V{4, 0}, V{4, 3}, V{2, 3}, V{0, 3}, V{0, 1}, V{0, 0}};
  EXPECT_EQ(messy.vertices().size(), 4u);
  // A vertex a rounding error off the line is dropped as well.
  const ConvexPolygon<S> nearly{V{0, 0}, V{static_cast<S>(1.0 / 3), std::numeric_limits<S>::epsilon() / 8},
                                V{1, 0}, V{1, 1}};
  EXPECT_EQ(nearly.vertices().size(), 3u);
  // Clockwise input is stored counter-clockwise: the same cyclic sequence.
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE(round);
    Poly h = lattice_polygon(rng, -5, 5);
    const ConvexPolygon<S> a = make_polygon<S>(h);
    std::reverse(h.begin(), h.end());
    const ConvexPolygon<S> b = make_polygon<S>(h);
    const Poly pa = to_poly<S>(a.vertices()), pb = to_poly<S>(b.vertices());
    ASSERT_EQ(pa.size(), pb.size());
    std::size_t shift = 0;
    while (shift < pb.size() && pb[shift] != pa[0]) ++shift;
    ASSERT_LT(shift, pb.size());
    for (std::size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(pa[i], pb[(i + shift) % pb.size()]);
    for (std::size_t i = 0; i < pa.size(); ++i)
      EXPECT_GT(orient(pa[i], pa[(i + 1) % pa.size()], pa[(i + 2) % pa.size()]), 0);
    for (int k = 0; k < 5; ++k) {
      const Box<2, S> box = lattice_box<S>(rng, -7, 7);
      EXPECT_EQ(overlaps(a, box), overlaps(b, box));
      EXPECT_EQ(classify(a, box), classify(b, box));
    }
    // The precomputed axes: outward normals whose ranges are the vertices' projection range.
    for (const auto& axis : a.axes()) {
      const auto [lo, hi] = detail::project_points(axis.normal, a.vertices());
      EXPECT_EQ(axis.lo, lo);
      EXPECT_EQ(axis.hi, hi);
    }
  }
}

// ---- ConvexPolygon as a query shape ------------------------------------------------------------------------------------

TYPED_TEST(PolygonTest, PolygonBoxMatchesExactOracle) {
  using S = TypeParam;
  std::mt19937 rng(1001);
  int touching = 0, hits = 0;
  const int rounds = 20000;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(round);
    const Poly h = lattice_polygon(rng, -6, 6);
    const ConvexPolygon<S> p = make_polygon<S>(h);
    const Box<2, S> b = lattice_box<S>(rng, -8, 8);
    const bool expected = exact_meet(h, box_poly(b));
    ASSERT_EQ(overlaps(p, b), expected) << "box " << b.min.x << "," << b.min.y << " " << b.max.x << "," << b.max.y;
    hits += expected;
    // Touching: they meet, but no part of the box reaches 1e-6 into the polygon.
    if (expected && clip_convex(box_poly(b), h, 1e-6).empty()) ++touching;
  }
  EXPECT_GT(hits, rounds / 5);
  EXPECT_GT(touching, rounds / 50);
}

TYPED_TEST(PolygonTest, PolygonClassifyIsConsistent) {
  using S = TypeParam;
  std::mt19937 rng(2002);
  int inside = 0, outside = 0, total = 0;
  for (int round = 0; round < 10000; ++round) {
    SCOPED_TRACE(round);
    const bool lattice_shape = round % 2 == 0;
    const ConvexPolygon<S> p = lattice_shape ? make_polygon<S>(lattice_polygon(rng, -6, 6))
                                             : real_polygon<S>(rng, uniform(rng, -3, 3), uniform(rng, -3, 3), 6);
    const Box<2, S> node = round % 3 == 0   ? lattice_box<S>(rng, -8, 8)
                           : round % 3 == 1 ? real_box<S>(rng, 7, 4)
                                            : real_box<S>(rng, 4, 1);
    const Relation r = quadrant_test::expect_classify_consistent(rng, p, node);
    inside += r == Relation::Inside;
    outside += r == Relation::Outside;
    ++total;
  }
  EXPECT_GT(inside, total / 20);
  EXPECT_GT(outside, total / 10);
}

TYPED_TEST(PolygonTest, PolygonConstructedCases) {
  using S = TypeParam;
  using V = Vec<2, S>;
  using B = Box<2, S>;
  const ConvexPolygon<S> tri{V{0, 0}, V{4, 0}, V{0, 4}};  // hypotenuse x + y = 4
  EXPECT_TRUE(overlaps(tri, B{V{2, 2}, V{3, 3}}));         // touches the hypotenuse at (2, 2)
  EXPECT_FALSE(overlaps(tri, B{V{2, static_cast<S>(2.25)}, V{3, 3}}));
  EXPECT_TRUE(overlaps(tri, B{V{4, 0}, V{4, 0}}));  // zero-size box on a vertex
  EXPECT_TRUE(overlaps(tri, B{V{1, 3}, V{1, 3}}));  // on the hypotenuse
  EXPECT_FALSE(overlaps(tri, B{V{1, static_cast<S>(3.125)}, V{1, static_cast<S>(3.125)}}));
  EXPECT_TRUE(overlaps(tri, B{V{-1, -1}, V{0, 0}}));  // corner to corner
  EXPECT_TRUE(overlaps(tri, B{V{-10, -10}, V{10, 10}}));  // the box holds the polygon
  EXPECT_EQ(classify(tri, B{V{-10, -10}, V{10, 10}}), Relation::Crossing);
  EXPECT_EQ(classify(tri, B{V{1, 1}, V{2, 2}}), Relation::Inside);  // touches the hypotenuse from inside
  EXPECT_EQ(classify(tri, B{V{0, 0}, V{0, 0}}), Relation::Inside);
  EXPECT_EQ(classify(tri, B{V{3, 3}, V{4, 4}}), Relation::Outside);
  // The box meets the bounds; only the hypotenuse's normal separates it (x + y >= 5 > 4).
  EXPECT_EQ(classify(tri, B{V{static_cast<S>(2.5), static_cast<S>(2.5)}, V{5, 5}}), Relation::Outside);
  EXPECT_EQ(bounding_box(tri), (B{V{0, 0}, V{4, 4}}));
  EXPECT_TRUE(contains(tri, V{2, 2}));
  EXPECT_FALSE(contains(tri, V{static_cast<S>(2.001), 2}));
  check_shape(tri);
}

// ---- OrientedBox ------------------------------------------------------------------------------------------------------

TYPED_TEST(PolygonTest, OrientedBoxCheckShape) {
  using S = TypeParam;
  using V = Vec<2, S>;
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  const auto rejects = [](const OrientedBox<S>& o, const char* what) {
    try {
      check_shape(o);
      ADD_FAILURE() << "accepted " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("quadrant: oriented box: ", 0), 0u) << e.what();
    }
  };
  rejects({V{nan, 0}, V{1, 1}, 0}, "NaN center");
  rejects({V{0, inf}, V{1, 1}, 0}, "infinite center");
  rejects({V{0, 0}, V{nan, 1}, 0}, "NaN extent");
  rejects({V{0, 0}, V{1, inf}, 0}, "infinite extent");
  rejects({V{0, 0}, V{-1, 1}, 0}, "negative extent");
  rejects({V{0, 0}, V{1, static_cast<S>(-0.5)}, 0}, "negative extent");
  rejects({V{0, 0}, V{1, 1}, nan}, "NaN angle");
  rejects({V{0, 0}, V{1, 1}, -inf}, "infinite angle");
  const S big = std::numeric_limits<S>::max();
  rejects({V{big, 0}, V{big, 1}, 0}, "overflowing corners");
  EXPECT_NO_THROW(check_shape(OrientedBox<S>{V{1, 2}, V{0, 0}, 3}));
  EXPECT_NO_THROW(check_shape(OrientedBox<S>{V{1, 2}, V{0, 5}, -100}));
}

TYPED_TEST(PolygonTest, OrientedBoxConstructedCases) {
  using S = TypeParam;
  using V = Vec<2, S>;
  using B = Box<2, S>;
  const OrientedBox<S> axis{V{1, 2}, V{2, 1}, 0};  // [-1, 3] x [1, 3]
  EXPECT_EQ(bounding_box(axis), (B{V{-1, 1}, V{3, 3}}));
  EXPECT_TRUE(overlaps(axis, B{V{3, 3}, V{4, 4}}));
  EXPECT_FALSE(overlaps(axis, B{V{static_cast<S>(3.0625), 0}, V{4, 4}}));
  EXPECT_EQ(classify(axis, B{V{-1, 1}, V{3, 3}}), Relation::Inside);
  const auto c = corners(axis);
  EXPECT_EQ(c[0], (V{-1, 1}));
  EXPECT_EQ(c[1], (V{3, 1}));
  EXPECT_EQ(c[2], (V{3, 3}));
  EXPECT_EQ(c[3], (V{-1, 3}));
  // A diamond: the unit square turned 45 degrees about the origin reaches sqrt(2) along the axes.
  const OrientedBox<S> diamond{V{0, 0}, V{1, 1}, static_cast<S>(std::numbers::pi / 4)};
  const S r2 = static_cast<S>(std::sqrt(2.0));
  const B bb = bounding_box(diamond);
  EXPECT_NEAR(double(bb.max.x), std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(double(bb.min.y), -std::sqrt(2.0), 1e-6);
  EXPECT_TRUE(overlaps(diamond, B{V{static_cast<S>(0.7), static_cast<S>(0.7)}, V{2, 2}}));
  EXPECT_FALSE(overlaps(diamond, B{V{static_cast<S>(0.72), static_cast<S>(0.72)}, V{2, 2}}));  // bbox overlaps
  EXPECT_TRUE(overlaps(diamond, B{V{static_cast<S>(r2 * 0.999f), 0}, V{2, 0}}));
  EXPECT_TRUE(contains(diamond, V{static_cast<S>(0.7), static_cast<S>(0.7)}));
  EXPECT_FALSE(contains(diamond, V{static_cast<S>(0.72), static_cast<S>(0.72)}));
  // Zero extents: a segment along the turned x axis, and a point.
  const OrientedBox<S> seg{V{0, 0}, V{2, 0}, static_cast<S>(std::numbers::pi / 4)};
  EXPECT_TRUE(overlaps(seg, B{V{1, 1}, V{2, 2}}));
  EXPECT_FALSE(overlaps(seg, B{V{static_cast<S>(0.5), static_cast<S>(-1)}, V{static_cast<S>(0.6), static_cast<S>(0.4)}}));
  const OrientedBox<S> point{V{1, 1}, V{0, 0}, 1};
  EXPECT_TRUE(overlaps(point, B{V{1, 1}, V{1, 1}}));
  EXPECT_TRUE(overlaps(point, B{V{0, 0}, V{1, 1}}));
  EXPECT_FALSE(overlaps(point, B{V{0, 0}, V{static_cast<S>(0.99), 1}}));
}

TYPED_TEST(PolygonTest, OrientedBoxMatchesClippingOracle) {
  using S = TypeParam;
  std::mt19937 rng(3003);
  const double tol = tolerance<S>();
  int decided = 0, hits = 0;
  const int rounds = 20000;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(round);
    const OrientedBox<S> o = real_obb<S>(rng, 5, 4);
    const Box<2, S> b = real_box<S>(rng, 6, 7);
    const Poly bp = box_poly(b);
    const int expected = bp.size() >= 3 ? sh_oracle(obb_poly(o), bp, tol) : sh_oracle(bp, obb_poly(o), tol);
    if (expected == 0) continue;
    ++decided;
    hits += expected > 0;
    ASSERT_EQ(overlaps(o, b), expected > 0);
    // bounding_box holds the corners and every sampled point.
    const Box<2, S> bb = bounding_box(o);
    for (const Pt& q : obb_poly(o)) {
      EXPECT_LE(double(bb.min.x), q[0] + tol);
      EXPECT_GE(double(bb.max.x), q[0] - tol);
      EXPECT_LE(double(bb.min.y), q[1] + tol);
      EXPECT_GE(double(bb.max.y), q[1] - tol);
    }
  }
  EXPECT_GE(decided, rounds * 95 / 100);
  EXPECT_GT(hits, decided / 5);
  EXPECT_LT(hits, decided * 4 / 5);
}

TYPED_TEST(PolygonTest, OrientedBoxClassifyIsConsistent) {
  using S = TypeParam;
  std::mt19937 rng(4004);
  int inside = 0, outside = 0, total = 0;
  for (int round = 0; round < 10000; ++round) {
    SCOPED_TRACE(round);
    OrientedBox<S> o = real_obb<S>(rng, 4, 5);
    if (round % 5 == 0) o.angle = 0;  // exact axis-aligned edges: node faces touch them
    if (round % 7 == 0) o.half_extents.y = 0;
    const Box<2, S> node = round % 3 == 0   ? lattice_box<S>(rng, -6, 6)
                           : round % 3 == 1 ? real_box<S>(rng, 6, 3)
                                            : real_box<S>(rng, 4, 1);
    const Relation r = quadrant_test::expect_classify_consistent(rng, o, node);
    inside += r == Relation::Inside;
    outside += r == Relation::Outside;
    ++total;
  }
  EXPECT_GT(inside, total / 20);
  EXPECT_GT(outside, total / 10);
}

// ---- narrow phase -------------------------------------------------------------------------------------------------------

TYPED_TEST(PolygonTest, PolygonPolygonMatchesExactOracle) {
  using S = TypeParam;
  std::mt19937 rng(5005);
  int hits = 0;
  const int rounds = 20000;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(round);
    const Poly ha = lattice_polygon(rng, -6, 3), hb = lattice_polygon(rng, -3, 6);
    const ConvexPolygon<S> a = make_polygon<S>(ha), b = make_polygon<S>(hb);
    const bool expected = exact_meet(ha, hb);
    ASSERT_EQ(overlaps(a, b), expected);
    ASSERT_EQ(overlaps(b, a), expected);
    hits += expected;
  }
  EXPECT_GT(hits, rounds / 5);
  EXPECT_LT(hits, rounds * 4 / 5);
}

TYPED_TEST(PolygonTest, PolygonPairsMatchClippingOracle) {
  using S = TypeParam;
  std::mt19937 rng(6006);
  const double tol = tolerance<S>();
  int decided = 0, hits = 0;
  const int rounds = 6000;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(round);
    const ConvexPolygon<S> a = real_polygon<S>(rng, uniform(rng, -4, 4), uniform(rng, -4, 4), 4);
    const ConvexPolygon<S> b = real_polygon<S>(rng, uniform(rng, -4, 4), uniform(rng, -4, 4), 4);
    const OrientedBox<S> o = real_obb<S>(rng, 4, 3), o2 = real_obb<S>(rng, 4, 3);
    const Poly pa = to_poly<S>(a.vertices()), pb = to_poly<S>(b.vertices()), po = obb_poly(o), po2 = obb_poly(o2);
    const auto check = [&](int expected, bool got, const char* what) {
      SCOPED_TRACE(what);
      if (expected == 0) return;
      ++decided;
      hits += expected > 0;
      EXPECT_EQ(got, expected > 0);
    };
    check(sh_oracle(pa, pb, tol), overlaps(a, b), "polygon-polygon");
    check(sh_oracle(pb, pa, tol), overlaps(b, a), "polygon-polygon reversed");
    check(sh_oracle(po, pa, tol), overlaps(o, a), "obb-polygon");
    check(sh_oracle(pa, po, tol), overlaps(a, o), "polygon-obb");
    check(sh_oracle(po, po2, tol), overlaps(o, o2), "obb-obb");
    check(sh_oracle(po2, po, tol), overlaps(o2, o), "obb-obb reversed");
  }
  EXPECT_GE(decided, rounds * 6 * 95 / 100);
  EXPECT_GT(hits, decided / 5);
  EXPECT_LT(hits, decided * 4 / 5);
}

TYPED_TEST(PolygonTest, CirclesMatchDistanceOracle) {
  using S = TypeParam;
  std::mt19937 rng(7007);
  const double tol = tolerance<S>();
  int decided = 0, hits = 0, cases = 0;
  for (int round = 0; round < 6000; ++round) {
    SCOPED_TRACE(round);
    const ConvexPolygon<S> p = real_polygon<S>(rng, uniform(rng, -3, 3), uniform(rng, -3, 3), 5);
    const OrientedBox<S> o = real_obb<S>(rng, 3, 4);
    const Circle<S> c{Vec<2, S>{static_cast<S>(uniform(rng, -7, 7)), static_cast<S>(uniform(rng, -7, 7))},
                      static_cast<S>(round % 10 == 0 ? 0.0 : uniform(rng, 0, 4))};
    const Pt cc{double(c.center.x), double(c.center.y)};
    const double r = c.radius;
    const auto check = [&](double dist, bool got, const char* what) {
      SCOPED_TRACE(what);
      ++cases;
      if (std::abs(dist - r) <= tol) return;
      ++decided;
      hits += dist < r;
      EXPECT_EQ(got, dist < r) << "distance " << dist << " radius " << r;
    };
    const double dp = distance_to(to_poly<S>(p.vertices()), cc), dob = distance_to(obb_poly(o), cc);
    check(dp, overlaps(c, p), "circle-polygon");
    check(dp, overlaps(p, c), "polygon-circle");
    check(dob, overlaps(c, o), "circle-obb");
    check(dob, overlaps(o, c), "obb-circle");
  }
  EXPECT_GE(decided, cases * 95 / 100);
  EXPECT_GT(hits, decided / 5);
  EXPECT_LT(hits, decided * 4 / 5);
}

TYPED_TEST(PolygonTest, NarrowPhaseConstructedCases) {
  using S = TypeParam;
  using V = Vec<2, S>;
  const ConvexPolygon<S> square{V{0, 0}, V{4, 0}, V{4, 4}, V{0, 4}};
  // Circles: touching an edge, a corner (distance 5 from (4, 4) to (7, 8)), inside, containing, radius zero.
  EXPECT_TRUE(overlaps(Circle<S>{V{6, 2}, 2}, square));
  EXPECT_FALSE(overlaps(Circle<S>{V{6, 2}, static_cast<S>(1.99)}, square));
  EXPECT_TRUE(overlaps(Circle<S>{V{7, 8}, 5}, square));
  EXPECT_FALSE(overlaps(Circle<S>{V{7, 8}, static_cast<S>(4.99)}, square));
  EXPECT_TRUE(overlaps(Circle<S>{V{2, 2}, static_cast<S>(0.5)}, square));
  EXPECT_TRUE(overlaps(Circle<S>{V{2, 2}, 100}, square));
  EXPECT_TRUE(overlaps(square, Circle<S>{V{4, 4}, 0}));
  EXPECT_TRUE(overlaps(square, Circle<S>{V{2, 4}, 0}));
  EXPECT_TRUE(overlaps(square, Circle<S>{V{2, 3}, 0}));
  EXPECT_FALSE(overlaps(square, Circle<S>{V{2, static_cast<S>(4.01)}, 0}));
  // Polygons: sharing an edge, a vertex on an edge, corner to corner, apart by a hair, one inside the other.
  EXPECT_TRUE(overlaps(square, ConvexPolygon<S>{V{4, 1}, V{6, 1}, V{6, 3}, V{4, 3}}));
  EXPECT_TRUE(overlaps(square, ConvexPolygon<S>{V{6, 0}, V{6, 4}, V{4, 2}}));
  EXPECT_TRUE(overlaps(square, ConvexPolygon<S>{V{4, 4}, V{6, 5}, V{5, 6}}));
  EXPECT_FALSE(overlaps(square, ConvexPolygon<S>{V{static_cast<S>(4.01), 4}, V{6, 5}, V{5, 6}}));
  EXPECT_TRUE(overlaps(square, ConvexPolygon<S>{V{1, 1}, V{2, 1}, V{1, 2}}));
  EXPECT_TRUE(overlaps(ConvexPolygon<S>{V{1, 1}, V{2, 1}, V{1, 2}}, square));
  // Diagonal gap: the triangle's hypotenuse x + y = 9 faces the square's corner (4, 4) from distance 1/sqrt(2).
  EXPECT_FALSE(overlaps(square, ConvexPolygon<S>{V{9, 0}, V{9, 9}, V{0, 9}}));
  EXPECT_TRUE(overlaps(square, ConvexPolygon<S>{V{8, 0}, V{8, 8}, V{0, 8}}));
  // Oriented boxes (angle 0 is exact): sharing an edge, a corner, apart; a circle touching one.
  const OrientedBox<S> a{V{0, 0}, V{1, 2}, 0}, b{V{3, 0}, V{2, 1}, 0}, c{V{2, 3}, V{1, 1}, 0};
  EXPECT_TRUE(overlaps(a, b));
  EXPECT_TRUE(overlaps(a, c));
  EXPECT_FALSE(overlaps(a, OrientedBox<S>{V{2, static_cast<S>(3.01)}, V{1, 1}, 0}));
  EXPECT_TRUE(overlaps(Circle<S>{V{4, 0}, 3}, a));
  EXPECT_FALSE(overlaps(Circle<S>{V{4, 0}, static_cast<S>(2.99)}, a));
  EXPECT_TRUE(overlaps(a, ConvexPolygon<S>{V{1, 2}, V{3, 2}, V{3, 5}}));
  EXPECT_TRUE(overlaps(ConvexPolygon<S>{V{1, 2}, V{3, 2}, V{3, 5}}, a));
  // Turned boxes: a diamond between two squares' corners, apart by a hair and overlapping by a hair.
  const S q = static_cast<S>(std::numbers::pi / 4);
  const OrientedBox<S> diamond{V{0, 0}, V{1, 1}, q};  // reaches x = sqrt(2)
  EXPECT_FALSE(overlaps(diamond, OrientedBox<S>{V{static_cast<S>(2.43), 0}, V{1, 1}, 0}));
  EXPECT_TRUE(overlaps(diamond, OrientedBox<S>{V{static_cast<S>(2.4), 0}, V{1, 1}, 0}));
  EXPECT_FALSE(overlaps(diamond, OrientedBox<S>{V{static_cast<S>(2.84), 0}, V{1, 1}, q}));
  EXPECT_TRUE(overlaps(diamond, OrientedBox<S>{V{static_cast<S>(2.82), 0}, V{1, 1}, q}));
  // The separating axis of a diamond against a square that only its own axes find.
  EXPECT_FALSE(overlaps(diamond, ConvexPolygon<S>{V{1, 1}, V{3, 1}, V{3, 3}, V{1, 3}}));
  EXPECT_TRUE(overlaps(diamond, ConvexPolygon<S>{V{static_cast<S>(0.7), static_cast<S>(0.7)}, V{3, 1}, V{3, 3}, V{1, 3}}));
  // contains
  EXPECT_TRUE(contains(a, V{1, 2}));
  EXPECT_FALSE(contains(a, V{static_cast<S>(1.01), 2}));
  EXPECT_TRUE(contains(square, V{0, 4}));
  EXPECT_FALSE(contains(square, V{-1, 4}));
}


// ---- at any finite magnitude --------------------------------------------------------------------------------------------
//
// Reference (long double, no library code): both shapes as convex outlines, and their signed separation, the largest
// gap between their projections on x, y and the unit normal of every edge of either. Positive: they are apart by at
// least that; negative: they overlap, and no translation shorter than -separation pulls them apart (the least
// penetration of two convex polygons lies along one of those normals; extra axes only make it smaller). Within the
// band of zero the case is undecided. The band is the library's rounding: 32 roundings of S at the shape's magnitude
// (|center| + extents, or the largest vertex coordinate) and 64 of S's smallest subnormal (products of subnormal
// coordinates). Long double must hold every coordinate of S with a wider significand (x86's 80-bit format does);
// where it does not, the test is skipped.

using LD = long double;
using LPt = std::array<LD, 2>;
using Outline = std::vector<LPt>;
enum class Verdict { Yes, No, Skip };

template <class S>
bool reference_fits() {
  return std::numeric_limits<LD>::digits > std::numeric_limits<S>::digits + 8 &&
         std::numeric_limits<LD>::max_exponent > std::numeric_limits<S>::max_exponent + 4;
}

template <class S>
Outline outline(const OrientedBox<S>& o) {
  const LD c = std::cos(LD(o.angle)), s = std::sin(LD(o.angle));
  const LD hx = o.half_extents.x, hy = o.half_extents.y, x = o.center.x, y = o.center.y;
  return {LPt{x - c * hx + s * hy, y - s * hx - c * hy}, LPt{x + c * hx + s * hy, y + s * hx - c * hy},
          LPt{x + c * hx - s * hy, y + s * hx + c * hy}, LPt{x - c * hx - s * hy, y - s * hx + c * hy}};
}
template <class S>
Outline outline(const ConvexPolygon<S>& p) {
  Outline r;
  for (const Vec<2, S>& v : p.vertices()) r.push_back(LPt{LD(v.x), LD(v.y)});
  return r;
}
template <class S>
Outline outline(const Box<2, S>& b) {
  const LD x0 = b.min.x, y0 = b.min.y, x1 = b.max.x, y1 = b.max.y;
  return {LPt{x0, y0}, LPt{x1, y0}, LPt{x1, y1}, LPt{x0, y1}};
}
template <class S>
Outline outline(const Vec<2, S>& p) {
  return {LPt{LD(p.x), LD(p.y)}};
}

LD separation(const Outline& a, const Outline& b) {
  LD sep = -std::numeric_limits<LD>::infinity();
  const auto range = [](const Outline& p, LD nx, LD ny) {
    LD lo = std::numeric_limits<LD>::infinity(), hi = -lo;
    for (const LPt& q : p) {
      lo = std::min(lo, nx * q[0] + ny * q[1]);
      hi = std::max(hi, nx * q[0] + ny * q[1]);
    }
    return std::pair{lo, hi};
  };
  const auto on = [&](LD nx, LD ny) {
    const auto [alo, ahi] = range(a, nx, ny);
    const auto [blo, bhi] = range(b, nx, ny);
    sep = std::max({sep, blo - ahi, alo - bhi});
  };
  on(1, 0);
  on(0, 1);
  for (const Outline* p : {&a, &b})
    for (std::size_t i = 0; i < p->size(); ++i) {
      const LPt& u = (*p)[i];
      const LPt& w = (*p)[(i + 1) % p->size()];
      const LD ex = w[0] - u[0], ey = w[1] - u[1], len = std::hypot(ex, ey);
      if (len > 0) on(ey / len, -ex / len);
    }
  return sep;
}

Verdict meets(const Outline& a, const Outline& b, LD band) {
  const LD sep = separation(a, b);
  return sep < -band ? Verdict::Yes : sep > band ? Verdict::No : Verdict::Skip;
}

// Outside: apart by more than the band; Inside: every corner of the node inside by more than the band; Crossing: they
// overlap by more than the band and a corner lies outside by more than it.
enum class Expect { Outside, Inside, Crossing, Skip };
template <class S>
Expect expected_relation(const Outline& shape, const Box<2, S>& node, LD band) {
  const LD sep = separation(shape, outline(node));
  if (sep > band) return Expect::Outside;
  bool all_in = true, one_out = false;
  for (const LPt& q : outline(node)) {
    const LD s = separation(shape, Outline{q});
    all_in = all_in && s < -band;
    one_out = one_out || s > band;
  }
  if (all_in) return Expect::Inside;
  return sep < -band && one_out ? Expect::Crossing : Expect::Skip;
}

template <class S>
LD rounding_band(LD magnitude) {
  using L = std::numeric_limits<S>;
  return 32 * LD(L::epsilon()) * magnitude + 64 * LD(L::denorm_min());
}
template <class S>
LD magnitude(const OrientedBox<S>& o) {
  return std::max(std::abs(LD(o.center.x)), std::abs(LD(o.center.y))) + LD(o.half_extents.x) + LD(o.half_extents.y);
}
template <class S>
LD magnitude(const ConvexPolygon<S>& p) {
  LD m = 0;
  for (const Vec<2, S>& v : p.vertices()) m = std::max({m, std::abs(LD(v.x)), std::abs(LD(v.y))});
  return m;
}

template <class S>
S to_scalar(LD v) {
  const LD big = std::numeric_limits<S>::max();
  return static_cast<S>(std::clamp(v, -big, big));
}

template <class S>
std::string show(const OrientedBox<S>& o) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "oriented box (%.17g, %.17g) half (%.17g, %.17g) angle %.17g", double(o.center.x),
                double(o.center.y), double(o.half_extents.x), double(o.half_extents.y), double(o.angle));
  return buf;
}
template <class S>
std::string show(const ConvexPolygon<S>& p) {
  std::string r = "polygon";
  char buf[80];
  for (const Vec<2, S>& v : p.vertices()) {
    std::snprintf(buf, sizeof buf, " (%.17g, %.17g)", double(v.x), double(v.y));
    r += buf;
  }
  return r;
}
template <class S>
std::string show(const Box<2, S>& b) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "box (%.17g, %.17g) - (%.17g, %.17g)", double(b.min.x), double(b.min.y),
                double(b.max.x), double(b.max.y));
  return buf;
}

// The reported case: a box turned by 45 degrees near the largest finite value, whose every corner is finite while
// center . u (about 1.25 max) overflowed to infinity, so the u axis separated nothing: the corner of its bounding box,
// far outside it, was contained, and boxes beyond it were Inside.
TYPED_TEST(PolygonTest, ObbNearLargestFiniteValue) {
  using S = TypeParam;
  using V = Vec<2, S>;
  using B = Box<2, S>;
  const S big = std::numeric_limits<S>::max();
  const S c = static_cast<S>(double(big) * std::sqrt(0.5) * 1.25);
  const OrientedBox<S> o{V{c, c}, V{big / 20, big / 10}, std::numbers::pi_v<S> / 4};
  ASSERT_NO_THROW(check_shape(o));
  // Along u = (1, 1) / sqrt 2 it spans 1.2 to 1.3 max (x = y from 0.85 to 0.92 max on the diagonal); across it,
  // +-0.1 max.
  const B bb = bounding_box(o);
  EXPECT_FALSE(contains(o, bb.max));  // (0.99, 0.99) max: 1.4 max along u
  EXPECT_FALSE(overlaps(o, B{bb.max, bb.max}));
  EXPECT_EQ(classify(o, B{bb.max, bb.max}), Relation::Outside);
  EXPECT_FALSE(contains(o, bb.min));  // (0.78, 0.78) max: 1.1 max along u
  EXPECT_TRUE(contains(o, o.center));
  const S f95 = static_cast<S>(double(big) * 0.95), f90 = static_cast<S>(double(big) * 0.9);
  const S f70 = static_cast<S>(double(big) * 0.7), f01 = big / 100;
  EXPECT_FALSE(overlaps(o, B{V{f95, f95}, V{big, big}}));  // 1.34 max and beyond along u
  EXPECT_EQ(classify(o, B{V{f95, f95}, V{big, big}}), Relation::Outside);
  EXPECT_TRUE(overlaps(o, B{V{f90, f90}, V{big, big}}));  // its corner (0.9, 0.9) max is at 1.27 max along u
  EXPECT_EQ(classify(o, B{V{f90, f90}, V{big, big}}), Relation::Crossing);
  EXPECT_EQ(classify(o, B{V{f70, f70}, V{big, big}}), Relation::Crossing);  // holds the whole box
  EXPECT_EQ(classify(o, B{V{c - f01, c - f01}, V{c + f01, c + f01}}), Relation::Inside);
  EXPECT_EQ(classify(o, B{V{-big, -big}, V{big, big}}), Relation::Crossing);
  EXPECT_EQ(classify(o, B{V{-big, -big}, V{0, big}}), Relation::Outside);

  // Against the long-double reference, boxes of every size near it and far from it.
  if (!reference_fits<S>()) GTEST_SKIP() << "long double is too narrow for the reference";
  const Outline ol = outline(o);
  const LD band = rounding_band<S>(magnitude(o));
  std::mt19937 rng(8101);
  int decided = 0, hits = 0, inside = 0, outside = 0;
  for (int round = 0; round < 4000; ++round) {
    SCOPED_TRACE(round);
    B b;
    for (int i = 0; i < 2; ++i) {
      const LD mid = LD(c) + LD(big) * LD(uniform(rng, -0.2, 0.2));
      const LD half = LD(big) * std::pow(10.0L, LD(uniform(rng, -6, -0.5)));
      b.min[i] = to_scalar<S>(mid - half * LD(uniform(rng, 0, 1)));
      b.max[i] = std::max(b.min[i], to_scalar<S>(mid + half * LD(uniform(rng, 0, 1))));
    }
    const Verdict v = meets(ol, outline(b), band);
    if (v != Verdict::Skip) {
      ++decided;
      hits += v == Verdict::Yes;
      ASSERT_EQ(overlaps(o, b), v == Verdict::Yes) << show(b);
    }
    const Verdict p = meets(ol, outline(b.max), band);
    if (p != Verdict::Skip) {
      ASSERT_EQ(contains(o, b.max), p == Verdict::Yes) << show(b);
    }
    const Expect e = expected_relation(ol, b, band);
    const Relation r = classify(o, b);
    if (e != Expect::Skip) {
      const Relation want = e == Expect::Inside    ? Relation::Inside
                            : e == Expect::Outside ? Relation::Outside
                                                   : Relation::Crossing;
      ASSERT_EQ(r, want) << show(b);
    }
    inside += r == Relation::Inside;
    outside += r == Relation::Outside;
  }
  EXPECT_GT(decided, 3800);
  EXPECT_GT(hits, decided / 10);
  EXPECT_LT(hits, decided * 9 / 10);
  EXPECT_GT(inside, 100);
  EXPECT_GT(outside, 400);
}

// A length at one of several magnitudes: up to the largest finite value, up to half of it, within 2^60 of it,
// ordinary, from 2^-60 to 2^60, tiny (down to subnormal), zero, or the largest.
template <class S>
LD extreme_length(std::mt19937& rng) {
  using L = std::numeric_limits<S>;
  const LD big = L::max();
  switch (lattice(rng, 0, 6)) {
    case 0: return big * LD(uniform(rng, 0, 1));
    case 1: return big / 2 * LD(uniform(rng, 0, 1));
    case 2: return std::min(big, std::ldexp(LD(uniform(rng, 0.5, 1)), L::max_exponent - lattice(rng, 0, 60)));
    case 3: return LD(uniform(rng, 0.5, 30));
    case 4: return std::ldexp(LD(uniform(rng, 0.5, 1)), lattice(rng, -60, 60));
    case 5: return LD(to_scalar<S>(std::ldexp(LD(uniform(rng, 0.5, 1)), L::min_exponent - lattice(rng, -60, 20))));
    default: return lattice(rng, 0, 1) == 0 ? 0 : big;
  }
}
template <class S>
LD extreme_coordinate(std::mt19937& rng) {
  return (lattice(rng, 0, 1) == 0 ? 1 : -1) * extreme_length<S>(rng);
}

// Extents relative to a center's magnitude m: from m / 2 down to where S still resolves them against m well above
// the reference's band.
template <class S>
LD relative_size(std::mt19937& rng, LD m) {
  constexpr int finest = std::numeric_limits<S>::digits / 2 - 2;
  return (m > 0 ? m : 1) * std::ldexp(LD(uniform(rng, 0.5, 1)), -lattice(rng, 1, finest));
}

// A valid oriented box at any magnitude, its extents independent of its center or relative to it; angle 0 or pi/2,
// a zero extent, a needle, or a center near a corner of the finite range, often.
template <class S>
OrientedBox<S> extreme_obb(std::mt19937& rng) {
  for (;;) {
    const LD cx = extreme_coordinate<S>(rng), cy = extreme_coordinate<S>(rng);
    const LD m = std::max(std::abs(cx), std::abs(cy));
    const bool relative = lattice(rng, 0, 2) != 0;
    const LD hx = relative ? relative_size<S>(rng, m) : extreme_length<S>(rng);
    const LD hy = relative ? relative_size<S>(rng, m) : extreme_length<S>(rng);
    OrientedBox<S> o{Vec<2, S>{to_scalar<S>(cx), to_scalar<S>(cy)}, Vec<2, S>{to_scalar<S>(hx), to_scalar<S>(hy)},
                     static_cast<S>(uniform(rng, -7, 7))};
    switch (lattice(rng, 0, 9)) {
      case 0: o.angle = 0; break;
      case 1: o.angle = std::numbers::pi_v<S> / 2; break;
      case 2: o.half_extents.y = 0; break;
      case 3: o.half_extents.x = std::ldexp(o.half_extents.y, -lattice(rng, 4, 12)); break;  // a needle
      case 4:  // near a corner of the finite range, extents up to a tenth of it
      case 5: {
        const double big = double(std::numeric_limits<S>::max());
        for (int i = 0; i < 2; ++i) {
          o.center[i] = static_cast<S>((lattice(rng, 0, 1) == 0 ? 1 : -1) * big * uniform(rng, 0.5, 0.95));
          o.half_extents[i] = static_cast<S>(big * std::ldexp(uniform(rng, 0.5, 1), -lattice(rng, 4, 20)));
        }
        break;
      }
      default: break;
    }
    try {
      check_shape(o);
      return o;
    } catch (const std::invalid_argument&) {
    }
  }
}

// A convex polygon at any magnitude (points on an ellipse, rounded to S), its size independent of its center or
// relative to it; nothing when the constructor refuses it (coordinates so large that an edge times a coordinate
// overflows, which is every polygon of some size far from the origin, or too small to keep three corners apart).
template <class S>
std::optional<ConvexPolygon<S>> extreme_polygon(std::mt19937& rng) {
  const LD cx = extreme_coordinate<S>(rng), cy = extreme_coordinate<S>(rng);
  const LD size = lattice(rng, 0, 2) == 0 ? extreme_length<S>(rng)
                                          : relative_size<S>(rng, std::max(std::abs(cx), std::abs(cy)));
  const LD rx = size * LD(uniform(rng, 0.3, 1)), ry = size * LD(uniform(rng, 0.3, 1)), turn = LD(uniform(rng, 0, 7));
  const int n = lattice(rng, 3, 8);
  std::vector<Vec<2, S>> v;
  for (int i = 0; i < n; ++i) {
    const LD a = turn + 2 * std::numbers::pi_v<LD> * (i + LD(uniform(rng, 0, 0.5))) / n;
    v.push_back(Vec<2, S>{to_scalar<S>(cx + rx * std::cos(a)), to_scalar<S>(cy + ry * std::sin(a))});
  }
  try {
    return ConvexPolygon<S>(std::span<const Vec<2, S>>(v));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

struct ExtremeTally {
  int cases = 0, decided = 0, hits = 0, points = 0, points_decided = 0;
  int outside = 0, inside = 0, crossing = 0, relations_decided = 0;
};

// Nodes around a shape (near it at every size, anywhere in the finite range, or on its boundary as contains sees it,
// found by bisection), each with boxes and points inside it: overlaps, classify and contains against the reference,
// and classify against overlaps (Inside: every box inside the node is hit; Outside: none is).
template <class S, class Shape>
void check_extreme(const Shape& shape, std::mt19937& rng, ExtremeTally& t) {
  using L = std::numeric_limits<S>;
  SCOPED_TRACE(show(shape));
  const Outline ol = outline(shape);
  const LD band = rounding_band<S>(magnitude(shape)), big = L::max();
  LD cx = 0, cy = 0, reach = 0;
  for (const LPt& q : ol) cx += q[0] / LD(ol.size()), cy += q[1] / LD(ol.size());
  for (const LPt& q : ol) reach = std::max({reach, std::abs(q[0] - cx), std::abs(q[1] - cy)});
  if (reach == 0) reach = std::max(std::abs(cx), std::abs(cy)) * 0x1p-20L + 64 * LD(L::denorm_min());
  const Vec<2, S> in{to_scalar<S>(cx), to_scalar<S>(cy)};
  for (int k = 0; k < 24; ++k) {
    LPt lo, hi;
    if (k % 8 == 7) {
      for (int i = 0; i < 2; ++i) {
        const LD a = big * LD(uniform(rng, -1, 1)), b = lattice(rng, 0, 2) == 0 ? a : big * LD(uniform(rng, -1, 1));
        lo[i] = std::min(a, b), hi[i] = std::max(a, b);
      }
    } else {
      LPt mid{cx + reach * LD(uniform(rng, -1.3, 1.3)), cy + reach * LD(uniform(rng, -1.3, 1.3))};
      LD size = reach * std::pow(10.0L, LD(uniform(rng, -4, 0.3)));
      const Vec<2, S> out{to_scalar<S>(mid[0]), to_scalar<S>(mid[1])};
      if (k % 3 == 0 && contains(shape, in) && !contains(shape, out)) {
        LPt a{LD(in.x), LD(in.y)}, b{LD(out.x), LD(out.y)};
        for (int it = 0; it < 80; ++it) {
          const LPt m{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2};
          (contains(shape, Vec<2, S>{to_scalar<S>(m[0]), to_scalar<S>(m[1])}) ? a : b) = m;
        }
        mid = a;
        size = reach * std::pow(10.0L, LD(uniform(rng, -12, -2)));
      }
      for (int i = 0; i < 2; ++i) {
        lo[i] = mid[i] - size * LD(uniform(rng, 0, 1));
        hi[i] = lattice(rng, 0, 9) == 0 ? lo[i] : mid[i] + size * LD(uniform(rng, 0, 1));
      }
    }
    Box<2, S> node;
    for (int i = 0; i < 2; ++i) {
      node.min[i] = to_scalar<S>(lo[i]);
      node.max[i] = std::max(node.min[i], to_scalar<S>(hi[i]));
    }
    const Relation rel = classify(shape, node);
    ++(rel == Relation::Inside ? t.inside : rel == Relation::Outside ? t.outside : t.crossing);
    const Expect want = expected_relation(ol, node, band);
    if (want != Expect::Skip) {
      ++t.relations_decided;
      const Relation r = want == Expect::Inside ? Relation::Inside : want == Expect::Outside ? Relation::Outside
                                                                                           : Relation::Crossing;
      EXPECT_EQ(rel, r) << show(node);
    }
    std::array<Box<2, S>, 12> boxes;
    boxes[0] = node;
    for (std::size_t j = 1; j < boxes.size(); ++j) boxes[j] = sub_box(rng, node);
    for (const Box<2, S>& b : boxes) {
      const bool hit = overlaps(shape, b);
      ++t.cases;
      const Verdict v = meets(ol, outline(b), band);
      if (v != Verdict::Skip) {
        ++t.decided;
        t.hits += v == Verdict::Yes;
        EXPECT_EQ(hit, v == Verdict::Yes) << show(b);
      }
      if (rel != Relation::Crossing) {
        EXPECT_EQ(hit, rel == Relation::Inside) << "a box inside the node: " << show(b);
      }
      const Vec<2, S> p = lattice(rng, 0, 1) == 0 ? b.min : b.max;
      ++t.points;
      const Verdict pv = meets(ol, outline(p), band);
      if (pv != Verdict::Skip) {
        ++t.points_decided;
        EXPECT_EQ(contains(shape, p), pv == Verdict::Yes) << "point (" << double(p.x) << ", " << double(p.y) << ")";
      }
    }
  }
}

void expect_useful(const ExtremeTally& t, const char* name) {
  SCOPED_TRACE(name);
  EXPECT_GE(t.decided, t.cases * 6 / 10) << t.decided << " of " << t.cases << " decided";
  EXPECT_GE(t.hits, t.decided / 10);
  EXPECT_LE(t.hits, t.decided * 9 / 10);
  EXPECT_GE(t.points_decided, t.points * 6 / 10);
  const int nodes = t.inside + t.outside + t.crossing;
  EXPECT_GE(t.relations_decided, nodes / 2);
  EXPECT_GE(t.inside, nodes / 20);
  EXPECT_GE(t.outside, nodes / 10);
}

TYPED_TEST(PolygonTest, ExtremeMagnitudesMatchReference) {
  using S = TypeParam;
  if (!reference_fits<S>()) GTEST_SKIP() << "long double is too narrow for the reference";
  std::mt19937 rng(8102);
  ExtremeTally obbs, polygons;
  for (int i = 0; i < 400; ++i) {
    SCOPED_TRACE("oriented box " + std::to_string(i));
    check_extreme<S>(extreme_obb<S>(rng), rng, obbs);
  }
  int accepted = 0, refused = 0;
  while (accepted < 400 && refused < 4000) {
    SCOPED_TRACE("polygon " + std::to_string(accepted));
    const std::optional<ConvexPolygon<S>> p = extreme_polygon<S>(rng);
    if (!p) {
      ++refused;
      continue;
    }
    ++accepted;
    check_extreme<S>(*p, rng, polygons);
  }
  EXPECT_EQ(accepted, 400) << refused << " refused";
  expect_useful(obbs, "oriented boxes");
  expect_useful(polygons, "polygons");
}


// Degenerate boxes at the ends of the range, where every quantity is exact (angle 0: cos 1, sin 0; scaling by 1/4
// is exact at these magnitudes): answers exact to one step of S. A turned quarter (pi/2 rounded: its cosine is not 0)
// and polygons too small for an edge times a coordinate to stay above S's smallest normal value.
TYPED_TEST(PolygonTest, DegenerateShapesAtExtremes) {
  using S = TypeParam;
  using V = Vec<2, S>;
  using B = Box<2, S>;
  using L = std::numeric_limits<S>;
  const S big = L::max(), inf = L::infinity();
  const auto up = [&](S x) { return std::nextafter(x, inf); };
  const auto down = [&](S x) { return std::nextafter(x, -inf); };
  // A flat box (a segment along x) near the largest value: both axes take the scaled path.
  const S c = big / 10 * 9, h = big / 20;
  const OrientedBox<S> seg{V{c, c}, V{h, 0}, 0};
  ASSERT_NO_THROW(check_shape(seg));
  EXPECT_TRUE(contains(seg, V{c, c}));
  EXPECT_TRUE(contains(seg, V{c + h, c}));
  EXPECT_FALSE(contains(seg, V{up(c + h), c}));
  EXPECT_FALSE(contains(seg, V{c, up(c)}));
  EXPECT_FALSE(contains(seg, V{c, down(c)}));
  EXPECT_TRUE(overlaps(seg, B{V{c + h, c}, V{big, big}}));
  EXPECT_FALSE(overlaps(seg, B{V{c - h, up(c)}, V{big, big}}));
  EXPECT_EQ(classify(seg, B{V{c - h, up(c)}, V{big, big}}), Relation::Outside);
  EXPECT_EQ(classify(seg, B{V{c, c}, V{c + h, c}}), Relation::Inside);
  EXPECT_EQ(classify(seg, B{V{c, c}, V{up(c + h), c}}), Relation::Crossing);
  EXPECT_EQ(classify(seg, B{V{-big, -big}, V{big, big}}), Relation::Crossing);
  // A point there, and one at the most negative corner.
  for (const V p : {V{c, -c}, V{-big, -big}, V{big, big}}) {
    const OrientedBox<S> dot_box{p, V{0, 0}, S(0.7)};
    EXPECT_TRUE(contains(dot_box, p));
    EXPECT_FALSE(contains(dot_box, V{up(p.x), p.y}));
    EXPECT_FALSE(contains(dot_box, V{p.x, down(p.y)}));
    EXPECT_EQ(classify(dot_box, B{p, p}), Relation::Inside);
    EXPECT_EQ(classify(dot_box, B{V{-big, -big}, V{down(p.x), big}}), Relation::Outside);
  }
  // Turned a quarter, near the largest value: x spans c +- h / 2, y spans -c +- h, to within cos(pi/2 rounded) * h.
  const OrientedBox<S> quarter{V{c, -c}, V{h, h / 2}, std::numbers::pi_v<S> / 2};
  ASSERT_NO_THROW(check_shape(quarter));
  const S in = h / 100 * 99, out = h / 100 * 101;
  EXPECT_TRUE(contains(quarter, V{c + in / 2, -c - in}));
  EXPECT_FALSE(contains(quarter, V{c + out / 2, -c}));
  EXPECT_FALSE(contains(quarter, V{c, -c - out}));
  EXPECT_EQ(classify(quarter, B{V{c - in / 2, -c - in}, V{c + in / 2, -c + in}}), Relation::Inside);
  EXPECT_EQ(classify(quarter, B{V{c + out / 2, -big}, V{big, big}}), Relation::Outside);
  EXPECT_EQ(classify(quarter, B{V{c - out / 2, -c - out}, V{c + out / 2, -c + out}}), Relation::Crossing);
  // Subnormal: a box of a few steps of the smallest subnormal, exact at angle 0.
  const S d = L::denorm_min();
  const OrientedBox<S> tiny{V{8 * d, 8 * d}, V{4 * d, 2 * d}, 0};
  EXPECT_TRUE(contains(tiny, V{12 * d, 10 * d}));
  EXPECT_FALSE(contains(tiny, V{13 * d, 10 * d}));
  EXPECT_FALSE(contains(tiny, V{12 * d, 11 * d}));
  EXPECT_EQ(classify(tiny, B{V{4 * d, 6 * d}, V{12 * d, 10 * d}}), Relation::Inside);
  EXPECT_EQ(classify(tiny, B{V{0, 0}, V{3 * d, big}}), Relation::Outside);
  // Polygons whose edge times a coordinate underflowed: the triangle x, y >= 0, x + y <= 4 m for a tiny m. Every
  // projection was 0, so boxes across the hypotenuse, outside it, were hit (float); in double the constructor's
  // checks underflowed and refused it as flat.
  const S subnormal = std::ldexp(S(1), L::min_exponent - 3), small = static_cast<S>(sizeof(S) == 8 ? 1e-200 : 1e-20);
  for (const S m : {S(1e-30), S(1e-38), subnormal, small}) {
    SCOPED_TRACE(double(m));
    const ConvexPolygon<S> tri{V{0, 0}, V{4 * m, 0}, V{0, 4 * m}};
    EXPECT_TRUE(contains(tri, V{2 * m, 2 * m}));
    EXPECT_TRUE(contains(tri, V{m, m}));
    EXPECT_FALSE(contains(tri, V{3 * m, 3 * m}));
    EXPECT_FALSE(overlaps(tri, B{V{3 * m, 3 * m}, V{4 * m, 4 * m}}));
    EXPECT_EQ(classify(tri, B{V{3 * m, 3 * m}, V{4 * m, 4 * m}}), Relation::Outside);
    EXPECT_EQ(classify(tri, B{V{m, m}, V{2 * m, 2 * m}}), Relation::Inside);
    EXPECT_EQ(classify(tri, B{V{m, m}, V{3 * m, 3 * m}}), Relation::Crossing);
    EXPECT_FALSE(overlaps(Circle<S>{V{3 * m, 3 * m}, m}, tri));  // sqrt 2 m away
    EXPECT_TRUE(overlaps(Circle<S>{V{3 * m, 3 * m}, m + m / 2}, tri));
  }
}

// Distance in long double from p to a convex outline, 0 inside (or on a degenerate outline).
LD distance_to(const Outline& ol, const LPt& p) {
  if (separation(ol, Outline{p}) <= 0) return 0;
  LD best = std::numeric_limits<LD>::infinity();
  for (std::size_t i = 0; i < ol.size(); ++i) {
    const LPt& a = ol[i];
    const LPt& b = ol[(i + 1) % ol.size()];
    const LD ex = b[0] - a[0], ey = b[1] - a[1], ee = ex * ex + ey * ey;
    const LD t = ee > 0 ? std::clamp(((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / ee, LD(0), LD(1)) : LD(0);
    best = std::min(best, std::hypot(a[0] + t * ex - p[0], a[1] + t * ey - p[1]));
  }
  return best;
}

// Narrow phase near the ends of the range: an oriented box or polygon at any magnitude, and beside it (within two
// of its sizes, of a 64th to twice its size) another oriented box, a polygon and a circle; every pair both ways
// against the reference.
TYPED_TEST(PolygonTest, NarrowPhaseAtExtremesMatchesReference) {
  using S = TypeParam;
  if (!reference_fits<S>()) GTEST_SKIP() << "long double is too narrow for the reference";
  std::mt19937 rng(8103);
  int total = 0, decided = 0, hits = 0;
  const auto expect = [&](Verdict v, bool got, bool got_reversed, const std::string& what) {
    ++total;
    if (v == Verdict::Skip) return;
    ++decided;
    hits += v == Verdict::Yes;
    EXPECT_EQ(got, v == Verdict::Yes) << what;
    EXPECT_EQ(got_reversed, v == Verdict::Yes) << what << " (reversed)";
  };
  for (int i = 0; i < 1500; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const std::optional<ConvexPolygon<S>> first = i % 2 == 0 ? std::nullopt : extreme_polygon<S>(rng);
    if (i % 2 != 0 && !first) continue;
    const OrientedBox<S> box = extreme_obb<S>(rng);
    const Outline a = first ? outline(*first) : outline(box);
    const LD mag_a = first ? magnitude(*first) : magnitude(box);
    const std::string name_a = first ? show(*first) : show(box);
    LD cx = 0, cy = 0, reach = 0;
    for (const LPt& q : a) cx += q[0] / LD(a.size()), cy += q[1] / LD(a.size());
    for (const LPt& q : a) reach = std::max({reach, std::abs(q[0] - cx), std::abs(q[1] - cy)});
    if (reach == 0) continue;
    const auto near_point = [&] {
      return Vec<2, S>{to_scalar<S>(cx + 2 * reach * LD(uniform(rng, -1, 1))),
                       to_scalar<S>(cy + 2 * reach * LD(uniform(rng, -1, 1)))};
    };
    const auto near_size = [&] { return reach * std::ldexp(LD(uniform(rng, 0.5, 1)), -lattice(rng, -1, 6)); };
    // Another oriented box.
    const OrientedBox<S> o{near_point(), Vec<2, S>{to_scalar<S>(near_size()), to_scalar<S>(near_size())},
                           static_cast<S>(uniform(rng, -4, 4))};
    bool o_valid = true;
    try {
      check_shape(o);
    } catch (const std::invalid_argument&) {
      o_valid = false;
    }
    if (o_valid) {
      const LD band = rounding_band<S>(std::max(mag_a, magnitude(o)));
      const Verdict v = meets(a, outline(o), band);
      const std::string what = name_a + " and " + show(o);
      if (first) expect(v, overlaps(*first, o), overlaps(o, *first), what);
      else expect(v, overlaps(box, o), overlaps(o, box), what);
    }
    // A polygon.
    {
      const Vec<2, S> c = near_point();
      const LD size = near_size();
      std::vector<Vec<2, S>> v;
      const int n = lattice(rng, 3, 7);
      for (int k = 0; k < n; ++k) {
        const LD t = 2 * std::numbers::pi_v<LD> * (k + LD(uniform(rng, 0, 0.5))) / n;
        v.push_back(
            Vec<2, S>{to_scalar<S>(LD(c.x) + size * std::cos(t)), to_scalar<S>(LD(c.y) + size * std::sin(t))});
      }
      std::optional<ConvexPolygon<S>> p;
      try {
        p.emplace(std::span<const Vec<2, S>>(v));
      } catch (const std::invalid_argument&) {
      }
      if (p) {
        const LD band = rounding_band<S>(std::max(mag_a, magnitude(*p)));
        const Verdict verdict = meets(a, outline(*p), band);
        const std::string what = name_a + " and " + show(*p);
        if (first) expect(verdict, overlaps(*first, *p), overlaps(*p, *first), what);
        else expect(verdict, overlaps(box, *p), overlaps(*p, box), what);
      }
    }
    // A circle (radius 0 now and then).
    {
      const Circle<S> circle{near_point(), lattice(rng, 0, 9) == 0 ? S(0) : to_scalar<S>(near_size())};
      const LD m = std::max(std::abs(LD(circle.center.x)), std::abs(LD(circle.center.y))) + LD(circle.radius);
      const LD band = rounding_band<S>(std::max(mag_a, m));
      const LD dist = distance_to(a, LPt{LD(circle.center.x), LD(circle.center.y)});
      const Verdict v = dist < LD(circle.radius) - band ? Verdict::Yes
                        : dist > LD(circle.radius) + band ? Verdict::No
                                                          : Verdict::Skip;
      char buf[120];
      std::snprintf(buf, sizeof buf, " and circle (%.17g, %.17g) r %.17g", double(circle.center.x),
                    double(circle.center.y), double(circle.radius));
      if (first) expect(v, overlaps(circle, *first), overlaps(*first, circle), name_a + buf);
      else expect(v, overlaps(circle, box), overlaps(box, circle), name_a + buf);
    }
  }
  EXPECT_GE(decided, total * 6 / 10) << decided << " of " << total;
  EXPECT_GE(hits, decided / 10);
  EXPECT_LE(hits, decided * 9 / 10);
}

}  // namespace
