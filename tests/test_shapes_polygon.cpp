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
//  * Circles: the distance from the centre to the polygon by crossing-number point-in-polygon and a ternary search
//    along each edge; |distance - radius| <= tol is skipped.
#include <quadrant/geometry.hpp>

#include "support/shape_testing.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
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
  rejects({V{nan, 0}, V{1, 1}, 0}, "NaN centre");
  rejects({V{0, inf}, V{1, 1}, 0}, "infinite centre");
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

}  // namespace
