// SPDX-License-Identifier: MIT
// Segment<D> (overlap with boxes, entry fraction, infinite node bounds) and Frustum, for float and double.
//
// Oracles (none shares code with the library):
//  * Segments on an integer lattice: the parameter interval inside each slab as exact int64 fractions; the
//    library must agree on every case (touching ones are frequent) and its entry fraction must equal the exact
//    fraction rounded. Real-valued segments: sampled points that lie inside the box by more than tol force an
//    overlap and bound the entry fraction from above; the point at the entry fraction must be within tol of the
//    box; samples before it must not be inside by more than tol.
//  * Frustum points: the clip-space definition, c = M (p, 1) with -c.w <= c.x, c.y <= c.w and the depth range of
//    the convention; points within tol of a plane are skipped.
//  * Frustum boxes: the separating axis theorem in double on the analytic frustum (corners from the camera's
//    position, axes, field of view and depth range), with the 3 + 6 face normals and the 18 edge-edge axes. The box
//    beyond a face plane, or beyond the frustum's x, y or z extent, by over tol: no overlap; overlap over tol on
//    every axis: overlap; separated otherwise (by an edge-edge axis, or along a face normal on the side where the
//    frustum ends in an edge): the documented conservative answer (reported). tol is 1e-4 (float) or 1e-9 (double) times the scene
//    size; at least 95% of the cases must be decided.
#include <quadrant/geometry.hpp>

#include "support/shape_testing.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

namespace {

using namespace quadrant;
using quadrant_test::lattice;
using quadrant_test::sub_box;
using quadrant_test::uniform;


template <int D, class S>
Box<D, S> lattice_box(std::mt19937& rng, int lo, int hi) {
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    const int a = lattice(rng, lo, hi), c = lattice(rng, lo, hi);
    b.min[i] = static_cast<S>(std::min(a, c));
    b.max[i] = static_cast<S>(std::max(a, c));
  }
  return b;
}


template <int D_, class S_>
struct Dim {
  static constexpr int D = D_;
  using S = S_;
};
template <class P>
class SegmentTest : public ::testing::Test {};
using Dims = ::testing::Types<Dim<2, float>, Dim<2, double>, Dim<3, float>, Dim<3, double>>;
TYPED_TEST_SUITE(SegmentTest, Dims);

// ---- segments ----------------------------------------------------------------------------------------------------------

struct Frac {
  long long n, d;  // d > 0
};
bool less(Frac a, Frac b) { return a.n * b.d < b.n * a.d; }

// Exact slab clipping of a lattice segment: the entry fraction, or nullopt.
template <int D, class S>
std::optional<Frac> exact_entry(const Segment<D, S>& s, const Box<D, S>& b) {
  Frac enter{0, 1}, exit{1, 1};
  for (int i = 0; i < D; ++i) {
    const long long a = static_cast<long long>(s.a[i]), d = static_cast<long long>(s.b[i]) - a;
    const long long lo = static_cast<long long>(b.min[i]), hi = static_cast<long long>(b.max[i]);
    if (d == 0) {
      if (a < lo || a > hi) return std::nullopt;
      continue;
    }
    Frac t1{lo - a, d}, t2{hi - a, d};
    if (d < 0) t1 = Frac{a - lo, -d}, t2 = Frac{a - hi, -d};
    if (less(t2, t1)) std::swap(t1, t2);
    if (less(enter, t1)) enter = t1;
    if (less(t2, exit)) exit = t2;
  }
  if (less(exit, enter)) return std::nullopt;
  return enter;
}

TYPED_TEST(SegmentTest, LatticeMatchesExactFractions) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  std::mt19937 rng(11);
  int hits = 0, touching = 0, axis_parallel = 0;
  const int rounds = 40000;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(round);
    Segment<D, S> s;
    for (int i = 0; i < D; ++i) {
      s.a[i] = static_cast<S>(lattice(rng, -6, 6));
      s.b[i] = lattice(rng, 0, 3) == 0 ? s.a[i] : static_cast<S>(lattice(rng, -6, 6));
      axis_parallel += s.a[i] == s.b[i];
    }
    const Box<D, S> b = lattice_box<D, S>(rng, -5, 5);
    const std::optional<Frac> expected = exact_entry(s, b);
    const std::optional<S> t = entry_fraction(s, b);
    ASSERT_EQ(t.has_value(), expected.has_value());
    ASSERT_EQ(overlaps(s, b), expected.has_value());
    if (!expected) continue;
    ++hits;
    const double exact = double(expected->n) / double(expected->d);
    EXPECT_NEAR(double(*t), exact, double(std::numeric_limits<S>::epsilon()) * exact);
    if (expected->n == 0) {
      EXPECT_EQ(*t, S{0});
    }
    if (expected->n == expected->d) {
      EXPECT_EQ(*t, S{1});
    }
    // Touching: growing the box by nothing but shrinking it by a hair loses the segment.
    Box<D, S> shrunk = b;
    for (int i = 0; i < D; ++i) {
      shrunk.min[i] = static_cast<S>(shrunk.min[i] + static_cast<S>(0.01));
      shrunk.max[i] = static_cast<S>(shrunk.max[i] - static_cast<S>(0.01));
    }
    bool empty = false;
    for (int i = 0; i < D; ++i) empty = empty || shrunk.min[i] > shrunk.max[i];
    touching += empty || !overlaps(s, shrunk);
  }
  EXPECT_GT(hits, rounds / 10);
  EXPECT_GT(touching, hits / 10);
  EXPECT_GT(axis_parallel, rounds / 5);
}

template <int D>
double depth_inside(const std::array<double, 3>& p, const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  double d = std::numeric_limits<double>::infinity();
  for (int i = 0; i < D; ++i) d = std::min({d, p[i] - lo[i], hi[i] - p[i]});
  return d;
}

TYPED_TEST(SegmentTest, RealSegmentsMatchSampling) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  const double tol = std::is_same_v<S, float> ? 1e-4 : 1e-9;
  std::mt19937 rng(12);
  int hits = 0, forced = 0;
  for (int round = 0; round < 3000; ++round) {
    SCOPED_TRACE(round);
    Segment<D, S> s;
    Box<D, S> b;
    std::array<double, 3> a{}, e{}, lo{}, hi{};
    for (int i = 0; i < D; ++i) {
      s.a[i] = static_cast<S>(uniform(rng, -10, 10));
      s.b[i] = static_cast<S>(uniform(rng, -10, 10));
      const double c = uniform(rng, -6, 6), h = uniform(rng, 0, 5);
      b.min[i] = static_cast<S>(c - h);
      b.max[i] = std::max(b.min[i], static_cast<S>(c + h));
      a[i] = s.a[i];
      e[i] = double(s.b[i]) - double(s.a[i]);
      lo[i] = b.min[i];
      hi[i] = b.max[i];
    }
    const std::optional<S> t = entry_fraction(s, b);
    ASSERT_EQ(overlaps(s, b), t.has_value());
    hits += t.has_value();
    const auto at = [&](double u) {
      std::array<double, 3> p{};
      for (int i = 0; i < D; ++i) p[i] = a[i] + u * e[i];
      return p;
    };
    for (int k = 0; k <= 1000; ++k) {
      const double u = k / 1000.0;
      const double depth = depth_inside<D>(at(u), lo, hi);
      if (depth > tol) {
        ++forced;
        ASSERT_TRUE(t.has_value()) << "sample " << u << " is inside";
        EXPECT_LE(double(*t), u + tol);
        break;
      }
      if (t && u < double(*t) - tol) {
        EXPECT_LE(depth, tol) << "sample " << u << " before the entry";
      }
    }
    if (t) {
      ASSERT_GE(*t, S{0});
      ASSERT_LE(*t, S{1});
      EXPECT_GE(depth_inside<D>(at(double(*t)), lo, hi), -tol * 20);
    }
  }
  EXPECT_GT(hits, 300);
  EXPECT_GT(forced, 300);
}

TYPED_TEST(SegmentTest, ZeroLengthAndAxisParallel) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  using V = Vec<D, S>;
  std::mt19937 rng(13);
  for (int round = 0; round < 5000; ++round) {
    V p;
    for (int i = 0; i < D; ++i) p[i] = static_cast<S>(lattice(rng, -5, 5));
    const Box<D, S> b = lattice_box<D, S>(rng, -4, 4);
    const std::optional<S> t = entry_fraction(Segment<D, S>{p, p}, b);
    ASSERT_EQ(t.has_value(), overlaps(b, p));
    if (t) {
      EXPECT_EQ(*t, S{0});
    }
  }
  // The box [0, 2]^D; segments along its faces and edges.
  Box<D, S> box;
  for (int i = 0; i < D; ++i) box.min[i] = 0, box.max[i] = 2;
  V a{}, b{};
  for (int i = 0; i < D; ++i) a[i] = b[i] = 2;  // on the top corner
  a[0] = -1;
  b[0] = 3;  // along the top edge through x in [0, 2]: enters at 1/4
  EXPECT_EQ(entry_fraction(Segment<D, S>{a, b}, box), std::optional<S>(static_cast<S>(0.25)));
  b[0] = 0;  // ends exactly on the corner of the face
  EXPECT_EQ(entry_fraction(Segment<D, S>{a, b}, box), std::optional<S>(S{1}));
  b[0] = static_cast<S>(-0.5);  // stops short
  EXPECT_FALSE(entry_fraction(Segment<D, S>{a, b}, box).has_value());
  a[1] = b[1] = static_cast<S>(2.0625);  // parallel to the face, just off it
  a[0] = -1;
  b[0] = 3;
  EXPECT_FALSE(overlaps(Segment<D, S>{a, b}, box));
  a[1] = b[1] = 0;  // on the opposite face, starting inside
  a[0] = 1;
  EXPECT_EQ(entry_fraction(Segment<D, S>{a, b}, box), std::optional<S>(S{0}));
  // Diagonal through a corner only: (3, 1) -> (1, 3) in the xy plane touches the box [0, 2]^D at (2, 2).
  V c{}, d{};
  for (int i = 0; i < D; ++i) c[i] = d[i] = 1;
  c[0] = 3, c[1] = 1, d[0] = 1, d[1] = 3;
  EXPECT_TRUE(overlaps(Segment<D, S>{c, d}, box));
  box.max[0] = box.max[1] = static_cast<S>(1.96875);
  EXPECT_FALSE(overlaps(Segment<D, S>{c, d}, box));
}

// One end point far away (|a| ~ 1e20 or the largest finite value / 4): the slab fractions round to 1 near the
// other end, which used to report boxes just beyond it. A box the segment's extent misses is never hit, by
// overlaps, entry_fraction or classify (node bounds), and the tree's placements agree with each other.
TYPED_TEST(SegmentTest, FarEndPointNeverReachesBeyondTheOtherEnd) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  using V = Vec<D, S>;
  // The reported case: from far along +x to the origin; the box [-2, -1] x [-1, 1]^(D-1) lies beyond the origin.
  for (const S far : {S(1e20), std::numeric_limits<S>::max() / 4}) {
    V a{}, b{};
    a[0] = far;
    Box<D, S> box;
    for (int i = 0; i < D; ++i) box.min[i] = -1, box.max[i] = 1;
    box.min[0] = -2;
    box.max[0] = -1;
    const Segment<D, S> seg{a, b};
    EXPECT_FALSE(overlaps(seg, box)) << far;
    EXPECT_FALSE(entry_fraction(seg, box).has_value()) << far;
    EXPECT_EQ(classify(seg, box), Relation::Outside) << far;
    box.max[0] = 0;  // now it touches the end point
    EXPECT_EQ(entry_fraction(seg, box), std::optional<S>(S{1})) << far;
  }
  std::mt19937 rng(29);
  std::size_t beyond = 0;
  for (int round = 0; round < 20000; ++round) {
    V a, b;
    for (int i = 0; i < D; ++i) {
      a[i] = static_cast<S>(uniform(rng, -10, 10));
      b[i] = static_cast<S>(uniform(rng, -10, 10));
    }
    const int axis = static_cast<int>(rng() % D);
    a[axis] = static_cast<S>(rng() % 2 ? 1e20 : -1e20);
    const Box<D, S> box = lattice_box<D, S>(rng, -10, 10);
    const Segment<D, S> seg = rng() % 2 ? Segment<D, S>{a, b} : Segment<D, S>{b, a};
    if (overlaps(bounding_box(seg), box)) continue;
    ++beyond;
    ASSERT_FALSE(overlaps(seg, box)) << "round " << round;
    ASSERT_FALSE(entry_fraction(seg, box).has_value()) << "round " << round;
  }
  EXPECT_GT(beyond, 5000u);
}

TYPED_TEST(SegmentTest, InfiniteBoxes) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  const S inf = std::numeric_limits<S>::infinity(), huge = static_cast<S>(1e30);
  std::mt19937 rng(14);
  Box<D, S> root;
  for (int i = 0; i < D; ++i) root.min[i] = -inf, root.max[i] = inf;
  int hits = 0;
  for (int round = 0; round < 20000; ++round) {
    SCOPED_TRACE(round);
    Segment<D, S> s;
    for (int i = 0; i < D; ++i) {
      s.a[i] = static_cast<S>(lattice(rng, -6, 6));
      s.b[i] = lattice(rng, 0, 2) == 0 ? s.a[i] : static_cast<S>(lattice(rng, -6, 6));
    }
    EXPECT_EQ(entry_fraction(s, root), std::optional<S>(S{0}));
    // Open some faces to infinity; the oracle puts them at +-1e30 instead.
    Box<D, S> open = lattice_box<D, S>(rng, -4, 4), finite = open;
    for (int i = 0; i < D; ++i) {
      const int k = lattice(rng, 0, 3);
      if (k == 1 || k == 3) open.min[i] = -inf, finite.min[i] = -huge;
      if (k == 2 || k == 3) open.max[i] = inf, finite.max[i] = huge;
    }
    const std::optional<S> t = entry_fraction(s, open), u = entry_fraction(s, finite);
    ASSERT_EQ(t.has_value(), u.has_value());
    ASSERT_EQ(overlaps(s, open), t.has_value());
    if (t) {
      ++hits;
      EXPECT_FALSE(std::isnan(*t));
      EXPECT_EQ(*t, *u);
    }
    // The open node is entered no later than a finite box inside it.
    const Box<D, S> inner = sub_box(rng, lattice_box<D, S>(rng, -4, 4));
    bool within = true;
    for (int i = 0; i < D; ++i) within = within && open.min[i] <= inner.min[i] && inner.max[i] <= open.max[i];
    if (const std::optional<S> ti = entry_fraction(s, inner); within && ti) {
      ASSERT_TRUE(t.has_value());
      EXPECT_LE(*t, *ti);
    }
  }
  EXPECT_GT(hits, 5000);
  // A segment parallel to an axis, against a half-open slab, on and off its face.
  Segment<D, S> s{};
  s.a[0] = -5;
  s.b[0] = 5;
  Box<D, S> slab = root;
  slab.max[1] = 0;
  EXPECT_EQ(entry_fraction(s, slab), std::optional<S>(S{0}));
  slab.max[1] = -1;
  EXPECT_FALSE(entry_fraction(s, slab).has_value());
  slab = root;
  slab.min[0] = 3;
  EXPECT_EQ(entry_fraction(s, slab), std::optional<S>(static_cast<S>(0.8)));
}

TYPED_TEST(SegmentTest, ClassifyIsConsistent) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  std::mt19937 rng(15);
  int inside = 0, outside = 0, total = 0;
  for (int round = 0; round < 10000; ++round) {
    SCOPED_TRACE(round);
    Segment<D, S> s;
    for (int i = 0; i < D; ++i) {
      s.a[i] = static_cast<S>(round % 2 ? lattice(rng, -6, 6) : uniform(rng, -6, 6));
      s.b[i] = lattice(rng, 0, 3) == 0 ? s.a[i] : static_cast<S>(round % 2 ? lattice(rng, -6, 6) : uniform(rng, -6, 6));
    }
    Box<D, S> node = lattice_box<D, S>(rng, -5, 5);
    if (round % 10 == 0) node = Box<D, S>{s.a, s.a};  // a point node on the segment
    const Relation r = classify(s, node);
    EXPECT_EQ(r != Relation::Outside, overlaps(s, node));
    inside += r == Relation::Inside;
    outside += r == Relation::Outside;
    ++total;
    for (int k = 0; k < 8; ++k) {
      const Box<D, S> b = sub_box(rng, node);
      if (r == Relation::Outside) {
        ASSERT_FALSE(overlaps(s, b));
      }
      if (r == Relation::Inside) {
        ASSERT_TRUE(overlaps(s, b));
      }
      // A node is entered no later than any box inside it (the ray cast's best-first order relies on it).
      if (const std::optional<S> tb = entry_fraction(s, b)) {
        EXPECT_LE(*entry_fraction(s, node), *tb);
      }
    }
  }
  EXPECT_GE(inside, total / 20);
  EXPECT_GT(outside, total / 10);
}

TYPED_TEST(SegmentTest, CheckShapeBoundsDistance) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  using V = Vec<D, S>;
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  const S big = std::numeric_limits<S>::max();
  for (int i = 0; i < D; ++i) {
    for (const S bad : {nan, inf, -inf}) {
      V a{}, b{};
      a[i] = bad;
      EXPECT_THROW(check_shape(Segment<D, S>{a, b}), std::invalid_argument);
      EXPECT_THROW(check_shape(Segment<D, S>{b, a}), std::invalid_argument);
    }
    V a{}, b{};
    a[i] = -big;
    b[i] = big;
    EXPECT_THROW(check_shape(Segment<D, S>{a, b}), std::invalid_argument);
  }
  try {
    V a{};
    a[0] = nan;
    check_shape(Segment<D, S>{a, V{}});
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("quadrant: segment: ", 0), 0u) << e.what();
  }
  EXPECT_NO_THROW(check_shape(Segment<D, S>{V{}, V{}}));
  std::mt19937 rng(16);
  for (int round = 0; round < 2000; ++round) {
    SCOPED_TRACE(round);
    V a, b, p;
    for (int i = 0; i < D; ++i) {
      a[i] = static_cast<S>(uniform(rng, -5, 5));
      b[i] = round % 5 == 0 ? a[i] : static_cast<S>(uniform(rng, -5, 5));
      p[i] = static_cast<S>(uniform(rng, -8, 8));
    }
    const Box<D, S> bb = bounding_box(Segment<D, S>{a, b});
    for (int i = 0; i < D; ++i) {
      EXPECT_EQ(bb.min[i], std::min(a[i], b[i]));
      EXPECT_EQ(bb.max[i], std::max(a[i], b[i]));
    }
    // Distance: ternary search in double along the segment.
    const auto dist2 = [&](double u) {
      double sum = 0;
      for (int i = 0; i < D; ++i) {
        const double q = double(a[i]) + u * (double(b[i]) - double(a[i])) - double(p[i]);
        sum += q * q;
      }
      return sum;
    };
    double lo = 0, hi = 1;
    for (int it = 0; it < 100; ++it) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      if (dist2(m1) < dist2(m2)) hi = m2;
      else lo = m1;
    }
    const double expected = std::min({dist2(lo), dist2(0), dist2(1)});
    EXPECT_NEAR(double(distance_squared(Segment<D, S>{a, b}, p)), expected, 1e-4 * (1 + expected));
  }
}


// ---- frustum: cameras built here, independently of the library ---------------------------------------------------------

using V3 = std::array<double, 3>;
using Mat4 = std::array<std::array<double, 4>, 4>;  // row-major

V3 operator+(V3 a, V3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
V3 operator-(V3 a, V3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 operator*(V3 a, double k) { return {a[0] * k, a[1] * k, a[2] * k}; }
double dot3(V3 a, V3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V3 cross3(V3 a, V3 b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
V3 unit(V3 a) { return a * (1 / std::sqrt(dot3(a, a))); }

Mat4 mul(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}

struct Camera {
  V3 eye{}, fwd{}, side{}, up{};  // right-handed orthonormal frame: side = fwd x up_hint
  bool ortho = false, infinite = false;
  double fovy = 1, aspect = 1, n = 1, f = 10, half_w = 1, half_h = 1;
  ClipDepth depth = ClipDepth::MinusOneToOne;

  // lookAt (right-handed, the camera looks down its -z).
  Mat4 view() const {
    return Mat4{{{side[0], side[1], side[2], -dot3(side, eye)},
                 {up[0], up[1], up[2], -dot3(up, eye)},
                 {-fwd[0], -fwd[1], -fwd[2], dot3(fwd, eye)},
                 {0, 0, 0, 1}}};
  }
  // gluPerspective / glOrtho, and their [0, 1] depth versions (Vulkan, Direct3D right-handed).
  Mat4 projection() const {
    const bool zo = depth == ClipDepth::ZeroToOne;
    if (ortho) {
      const std::array<double, 4> z = zo ? std::array<double, 4>{0, 0, -1 / (f - n), -n / (f - n)}
                                         : std::array<double, 4>{0, 0, -2 / (f - n), -(f + n) / (f - n)};
      return Mat4{{{1 / half_w, 0, 0, 0}, {0, 1 / half_h, 0, 0}, z, {0, 0, 0, 1}}};
    }
    const double t = 1 / std::tan(fovy / 2);
    std::array<double, 4> z = zo ? std::array<double, 4>{0, 0, f / (n - f), f * n / (n - f)}
                                 : std::array<double, 4>{0, 0, (f + n) / (n - f), 2 * f * n / (n - f)};
    if (infinite) z = zo ? std::array<double, 4>{0, 0, 0, n} : std::array<double, 4>{0, 0, -1, -2 * n};  // zo: reversed
    return Mat4{{{t / aspect, 0, 0, 0}, {0, t, 0, 0}, z, {0, 0, -1, 0}}};
  }
  Mat4 matrix() const { return mul(projection(), view()); }
  template <class S>
  std::array<S, 16> column_major() const {
    const Mat4 m = matrix();
    std::array<S, 16> r{};
    for (int row = 0; row < 4; ++row)
      for (int c = 0; c < 4; ++c) r[4 * c + row] = static_cast<S>(m[row][c]);
    return r;
  }
  // Corner i: bit 0 right (+side), bit 1 top (+up), bit 2 far.
  std::array<V3, 8> corners() const {
    std::array<V3, 8> r;
    for (int i = 0; i < 8; ++i) {
      const double d = (i & 4) ? f : n;
      const double hh = ortho ? half_h : d * std::tan(fovy / 2), hw = ortho ? half_w : hh * aspect;
      r[i] = eye + fwd * d + side * ((i & 1) ? hw : -hw) + up * ((i & 2) ? hh : -hh);
    }
    return r;
  }
  // A point of the frustum from parameters in [0, 1]^3.
  V3 inside_point(double x, double y, double z) const {
    const double d = n + z * (f - n);
    const double hh = ortho ? half_h : d * std::tan(fovy / 2), hw = ortho ? half_w : hh * aspect;
    return eye + fwd * d + side * ((2 * x - 1) * hw) + up * ((2 * y - 1) * hh);
  }
  double scale() const { return 1 + f + std::sqrt(dot3(eye, eye)) + (ortho ? half_w + half_h : 0); }
};

Camera look(V3 eye, V3 dir, V3 up_hint) {
  Camera c;
  c.eye = eye;
  c.fwd = unit(dir);
  c.side = unit(cross3(c.fwd, up_hint));
  c.up = cross3(c.side, c.fwd);
  return c;
}

Camera random_camera(std::mt19937& rng) {
  std::normal_distribution<double> g;
  V3 dir, up;
  do {
    dir = unit(V3{g(rng), g(rng), g(rng)});
    up = unit(V3{g(rng), g(rng), g(rng)});
  } while (std::abs(dot3(dir, up)) > 0.9);
  Camera c = look(V3{uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)}, dir, up);
  c.ortho = lattice(rng, 0, 3) == 0;
  c.depth = lattice(rng, 0, 1) ? ClipDepth::ZeroToOne : ClipDepth::MinusOneToOne;
  c.fovy = uniform(rng, 0.5, 1.8);
  c.aspect = uniform(rng, 0.5, 2);
  c.n = uniform(rng, 0.1, 2);
  c.f = c.n + uniform(rng, 1, 40);
  c.half_w = uniform(rng, 1, 6);
  c.half_h = uniform(rng, 1, 6);
  return c;
}

// The clip-space oracle on the (rounded) matrix: the signed distances of p to the six constraints
// -w <= x, x <= w, -w <= y, y <= w, depth low <= z, z <= w, in world units; all >= 0 means inside.
template <class S>
std::array<double, 6> clip_margins(const std::array<S, 16>& m, ClipDepth depth, V3 p) {
  const auto row = [&](int r) { return std::array<double, 4>{m[r], m[4 + r], m[8 + r], m[12 + r]}; };
  const auto value = [&](int r) { return row(r)[0] * p[0] + row(r)[1] * p[1] + row(r)[2] * p[2] + row(r)[3]; };
  const double x = value(0), y = value(1), z = value(2), w = value(3);
  const double low = depth == ClipDepth::ZeroToOne ? z : w + z;
  const std::array<double, 6> c{w + x, w - x, w + y, w - y, low, w - z};
  // Gradient lengths of the six constraints, to turn clip units into distances.
  std::array<double, 6> r{};
  const int axis[6] = {0, 0, 1, 1, 2, 2};
  const double sign[6] = {1, -1, 1, -1, 1, -1};
  for (int k = 0; k < 6; ++k) {
    const double wk = (k == 4 && depth == ClipDepth::ZeroToOne) ? 0 : 1;
    double len = 0;
    for (int i = 0; i < 3; ++i) {
      const double gi = wk * row(3)[i] + sign[k] * row(axis[k])[i];
      len += gi * gi;
    }
    r[k] = len > 0 ? c[k] / std::sqrt(len) : (c[k] >= 0 ? 1e300 : -1e300);
  }
  return r;
}

double min_margin(const std::array<double, 6>& m) { return *std::min_element(m.begin(), m.end()); }

// Separating axes between the analytic frustum and a box. `face`: the largest gap by which the box lies beyond
// one face plane of the frustum (outward side only: what a plane test sees) or beyond the frustum's extent along
// x, y or z (what the corners' box sees). `all`: the largest gap over every separating axis, both directions,
// edge-edge axes included. Positive: separated by that much.
struct Gaps {
  double face, all;
};
Gaps sat_gaps(const std::array<V3, 8>& fc, V3 lo, V3 hi) {
  const auto range = [](V3 axis, auto&& points) {
    double mn = 1e300, mx = -1e300;
    for (const V3& p : points) mn = std::min(mn, dot3(axis, p)), mx = std::max(mx, dot3(axis, p));
    return std::pair<double, double>{mn, mx};
  };
  std::array<V3, 8> bc;
  for (int i = 0; i < 8; ++i) bc[i] = V3{(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]};
  const auto gap = [&](V3 axis) {
    const auto [fmin, fmax] = range(axis, fc);
    const auto [bmin, bmax] = range(axis, bc);
    return std::max(fmin - bmax, bmin - fmax);
  };
  const auto beyond = [&](V3 outward) { return range(outward, bc).first - range(outward, fc).second; };
  const V3 ex{1, 0, 0}, ey{0, 1, 0}, ez{0, 0, 1};
  Gaps g{std::max({gap(ex), gap(ey), gap(ez)}), 0};
  g.all = g.face;
  V3 centroid{0, 0, 0};
  for (const V3& p : fc) centroid = centroid + p * 0.125;
  const int faces[6][3] = {{0, 1, 2}, {4, 5, 6}, {0, 2, 4}, {1, 3, 5}, {0, 1, 4}, {2, 3, 6}};
  for (const auto& q : faces) {
    V3 n = unit(cross3(fc[q[1]] - fc[q[0]], fc[q[2]] - fc[q[0]]));
    if (dot3(n, centroid - fc[q[0]]) > 0) n = n * -1.0;  // outward
    g.face = std::max(g.face, beyond(n));
    g.all = std::max(g.all, gap(n));
  }
  const V3 edges[6] = {fc[1] - fc[0], fc[2] - fc[0], fc[4] - fc[0], fc[5] - fc[1], fc[6] - fc[2], fc[7] - fc[3]};
  for (const V3& e : edges)
    for (const V3& a : {ex, ey, ez}) {
      const V3 c = cross3(e, a);
      if (dot3(c, c) > 1e-18 * dot3(e, e)) g.all = std::max(g.all, gap(unit(c)));
    }
  return g;
}

template <class S>
Vec<3, S> vec(V3 p) {
  return Vec<3, S>{static_cast<S>(p[0]), static_cast<S>(p[1]), static_cast<S>(p[2])};
}

template <class S>
class FrustumTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FrustumTest, Scalars);

template <class S>
double frustum_tol() {
  return std::is_same_v<S, float> ? 1e-4 : 1e-9;
}

TYPED_TEST(FrustumTest, PointsMatchClipSpace) {
  using S = TypeParam;
  std::mt19937 rng(21);
  int decided = 0, inside = 0, total = 0;
  for (int cam = 0; cam < 200; ++cam) {
    SCOPED_TRACE(cam);
    const Camera c = random_camera(rng);
    const auto m = c.column_major<S>();
    const Frustum<S> f = Frustum<S>::from_view_projection(m, c.depth);
    const double tol = frustum_tol<S>() * c.scale();
    for (int k = 0; k < 200; ++k) {
      const V3 p = c.inside_point(uniform(rng, -0.3, 1.3), uniform(rng, -0.3, 1.3), uniform(rng, -0.1, 1.1));
      const Vec<3, S> ps = vec<S>(p);
      const double margin = min_margin(clip_margins(m, c.depth, V3{double(ps.x), double(ps.y), double(ps.z)}));
      ++total;
      if (std::abs(margin) <= tol) continue;
      ++decided;
      inside += margin > 0;
      ASSERT_EQ(contains(f, ps), margin > 0) << "margin " << margin << " point " << k;
    }
  }
  EXPECT_GE(decided, total * 95 / 100);
  EXPECT_GT(inside, decided / 4);
  EXPECT_LT(inside, decided * 3 / 4);
}

// A game camera is rarely at the origin: the translation makes the matrix's last column large, which must not
// make a healthy matrix look singular (it once did, with a row-length criterion).
TYPED_TEST(FrustumTest, CamerasFarFromTheOriginAreAccepted) {
  using S = TypeParam;
  std::mt19937 rng(8);
  for (int cam = 0; cam < 200; ++cam) {
    SCOPED_TRACE(cam);
    Camera c = random_camera(rng);
    const double reach = cam < 100 ? 100 : 3000;
    c.eye = V3{uniform(rng, -reach, reach), uniform(rng, -reach / 10, reach / 10), uniform(rng, -reach, reach)};
    c.ortho = false;
    const auto m = c.column_major<S>();
    const Frustum<S> f = Frustum<S>::from_view_projection(m, c.depth);  // must not throw
    const V3 mid = c.inside_point(0.5, 0.5, 0.5);
    EXPECT_TRUE(contains(f, vec<S>(mid)));
    EXPECT_FALSE(contains(f, vec<S>(c.eye + c.fwd * -(c.f + 1))));  // behind the camera
  }
}

TYPED_TEST(FrustumTest, BoxesMatchSeparatingAxes) {
  using S = TypeParam;
  std::mt19937 rng(22);
  int decided = 0, total = 0, conservative = 0, hits = 0, center_inside = 0;
  for (int cam = 0; cam < 100; ++cam) {
    SCOPED_TRACE(cam);
    const Camera c = random_camera(rng);
    const auto m = c.column_major<S>();
    const Frustum<S> f = Frustum<S>::from_view_projection(m, c.depth);
    const double tol = frustum_tol<S>() * c.scale();
    const std::array<V3, 8> fc = c.corners();
    for (int k = 0; k < 200; ++k) {
      const V3 mid = c.inside_point(uniform(rng, -0.6, 1.6), uniform(rng, -0.6, 1.6), uniform(rng, -0.3, 1.3));
      const double size = uniform(rng, 0, c.scale() / 4);
      const V3 half{lattice(rng, 0, 5) ? uniform(rng, 0, size) : 0, uniform(rng, 0, size), uniform(rng, 0, size)};
      const Box<3, S> b{vec<S>(mid - half), vec<S>(mid + half)};
      if (!is_valid(b)) continue;
      const V3 lo{double(b.min.x), double(b.min.y), double(b.min.z)}, hi{double(b.max.x), double(b.max.y), double(b.max.z)};
      const bool got = overlaps(f, b);
      ++total;
      // The center inside the frustum (by the clip-space oracle): the box must be reported.
      const Vec<3, S> cs = center(b);
      if (min_margin(clip_margins(m, c.depth, V3{double(cs.x), double(cs.y), double(cs.z)})) > tol) {
        ++center_inside;
        ASSERT_TRUE(got) << "box " << k << " holds a visible center";
      }
      const Gaps g = sat_gaps(fc, lo, hi);
      if (g.face > tol) {
        ++decided;
        ASSERT_FALSE(got) << "box " << k << " is beyond a face plane, gap " << g.face;
      } else if (g.all < -tol) {
        ++decided, ++hits;
        ASSERT_TRUE(got) << "box " << k << " overlaps by " << -g.all;
      } else if (g.face < -tol && g.all > tol) {  // separated, but beyond no face plane
        ++decided, ++conservative;
        ASSERT_TRUE(got) << "box " << k << " is the documented conservative case";
      }
      // Far away: the same box moved 10 scene sizes off along the view's side axis.
      const V3 shift = c.side * (10 * c.scale());
      EXPECT_FALSE(overlaps(f, Box<3, S>{vec<S>(lo + shift), vec<S>(hi + shift)}));
    }
  }
  EXPECT_GE(decided, total * 95 / 100);
  EXPECT_GT(hits, decided / 5);
  EXPECT_GT(decided - hits - conservative, decided / 5);
  EXPECT_GT(conservative, 0);
  EXPECT_GT(center_inside, total / 10);
}

TYPED_TEST(FrustumTest, CamerasAlongEachAxis) {
  using S = TypeParam;
  const V3 dirs[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (const ClipDepth depth : {ClipDepth::MinusOneToOne, ClipDepth::ZeroToOne}) {
    for (const V3& dir : dirs) {
      SCOPED_TRACE(std::to_string(dir[0]) + " " + std::to_string(dir[1]) + " " + std::to_string(dir[2]));
      Camera c = look(V3{1, 2, 3}, dir, std::abs(dir[1]) > 0.5 ? V3{0, 0, 1} : V3{0, 1, 0});
      c.fovy = std::numbers::pi / 2, c.aspect = 1, c.n = 1, c.f = 20, c.depth = depth;
      const auto m = c.column_major<S>();
      const Frustum<S> f = Frustum<S>::from_view_projection(m, depth);
      const auto in = [&](V3 p) { return contains(f, vec<S>(p)); };
      const auto oracle = [&](V3 p) { return min_margin(clip_margins(m, depth, p)) >= 0; };
      for (const double d : {-10.0, 0.5, 0.99, 1.01, 10.0, 19.9, 20.1, 40.0}) {
        const V3 p = c.eye + dir * d;
        EXPECT_EQ(in(p), d > 1 && d < 20) << d;
        EXPECT_EQ(oracle(p), d > 1 && d < 20) << d;
      }
      // Half width 10 at distance 10 (90 degrees), on each side.
      for (const V3& side : {c.side, c.side * -1.0, c.up, c.up * -1.0}) {
        EXPECT_TRUE(in(c.eye + dir * 10 + side * 9.9));
        EXPECT_FALSE(in(c.eye + dir * 10 + side * 10.1));
      }
      for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(double(f.planes()[4].normal[i]), dir[i], 1e-6);  // near plane faces forward
        EXPECT_NEAR(double(f.planes()[5].normal[i]), -dir[i], 1e-6);
      }
      const V3 mid = c.eye + dir * 10, one{1, 1, 1};
      EXPECT_EQ(classify(f, Box<3, S>{vec<S>(mid - one), vec<S>(mid + one)}), Relation::Inside);
      EXPECT_EQ(classify(f, Box<3, S>{vec<S>(c.eye - dir * 10 - one), vec<S>(c.eye - dir * 10 + one)}),
                Relation::Outside);
      const V3 all{30, 30, 30};
      EXPECT_EQ(classify(f, Box<3, S>{vec<S>(c.eye - all), vec<S>(c.eye + all)}), Relation::Crossing);
      EXPECT_TRUE(overlaps(f, Box<3, S>{vec<S>(mid - all * 10), vec<S>(mid + all * 10)}));
      EXPECT_FALSE(overlaps(f, Box<3, S>{vec<S>(c.eye + dir * 25 - one), vec<S>(c.eye + dir * 25 + one)}));
    }
  }
}

TYPED_TEST(FrustumTest, OrthographicIsABox) {
  using S = TypeParam;
  using V = Vec<3, S>;
  for (const ClipDepth depth : {ClipDepth::MinusOneToOne, ClipDepth::ZeroToOne}) {
    Camera c = look(V3{0, 0, 0}, V3{0, 0, -1}, V3{0, 1, 0});
    c.ortho = true, c.half_w = 2, c.half_h = 1, c.n = 1, c.f = 5, c.depth = depth;
    const Frustum<S> f = Frustum<S>::from_view_projection(c.column_major<S>(), depth);
    const Box<3, S> volume{V{-2, -1, -5}, V{2, 1, -1}};
    std::mt19937 rng(23);
    int hits = 0;
    for (int k = 0; k < 5000; ++k) {
      Box<3, S> b = lattice_box<3, S>(rng, -12, 12);
      for (int i = 0; i < 3; ++i) b.min[i] /= 2, b.max[i] /= 2;  // half-integer lattice
      ASSERT_EQ(overlaps(f, b), overlaps(volume, b));
      hits += overlaps(volume, b);
      const Relation r = classify(f, b);
      EXPECT_EQ(r, classify(volume, b));
    }
    EXPECT_GT(hits, 500);
    EXPECT_TRUE(contains(f, V{2, 1, -5}));
    EXPECT_FALSE(contains(f, V{2, static_cast<S>(1.001), -5}));
  }
}

TYPED_TEST(FrustumTest, InfiniteFarPlanes) {
  using S = TypeParam;
  for (const ClipDepth depth : {ClipDepth::MinusOneToOne, ClipDepth::ZeroToOne}) {  // GL infinite; reversed-Z
    Camera c = look(V3{1, 2, 3}, V3{1, -2, 0.5}, V3{0, 1, 0});
    c.infinite = true, c.n = 0.5, c.fovy = 1, c.aspect = 1.5, c.depth = depth;
    const Frustum<S> f = Frustum<S>::from_view_projection(c.column_major<S>(), depth);
    EXPECT_FALSE(f.has_corners());
    const Box<3, S> bb = bounding_box(f);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isinf(bb.min[i]) && bb.min[i] < 0 && std::isinf(bb.max[i]));
    EXPECT_TRUE(contains(f, vec<S>(c.eye + c.fwd * 1e4)));
    EXPECT_TRUE(contains(f, vec<S>(c.eye + c.fwd * 0.51)));
    EXPECT_FALSE(contains(f, vec<S>(c.eye + c.fwd * 0.49)));
    EXPECT_FALSE(contains(f, vec<S>(c.eye - c.fwd * 5)));
    const Plane<S>& at_infinity = f.planes()[depth == ClipDepth::ZeroToOne ? 4 : 5];
    EXPECT_EQ(at_infinity.normal, (Vec<3, S>{0, 0, 0}));
    EXPECT_GT(at_infinity.offset, S{0});
    EXPECT_EQ(classify(f, Box<3, S>{vec<S>(c.eye + c.fwd * 1000), vec<S>(c.eye + c.fwd * 1001)}), Relation::Inside);
  }
}

TYPED_TEST(FrustumTest, RejectsInvalidMatrices) {
  using S = TypeParam;
  const Camera c = look(V3{1, 2, 3}, V3{0, 0, -1}, V3{0, 1, 0});
  const std::array<S, 16> good = c.column_major<S>();
  const auto rejects = [](const std::array<S, 16>& m, ClipDepth depth, const std::string& what) {
    try {
      (void)Frustum<S>::from_view_projection(m, depth);
      ADD_FAILURE() << "accepted " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("quadrant: frustum: " + what, 0), 0u) << e.what();
    }
  };
  for (int i = 0; i < 16; ++i) {
    std::array<S, 16> m = good;
    m[i] = std::numeric_limits<S>::quiet_NaN();
    rejects(m, ClipDepth::MinusOneToOne, "matrix entry is NaN");
    m[i] = -std::numeric_limits<S>::infinity();
    rejects(m, ClipDepth::ZeroToOne, "matrix entry is infinite");
  }
  rejects(std::array<S, 16>{}, ClipDepth::MinusOneToOne, "matrix is singular");
  std::array<S, 16> rank3 = good;
  for (int col = 0; col < 4; ++col) rank3[4 * col + 2] = rank3[4 * col + 3];  // row 2 = row 3
  rejects(rank3, ClipDepth::MinusOneToOne, "matrix is singular");
  // Invertible, but row 3 + row 0 = (0, 0, 0, -1): the left plane keeps nothing.
  std::array<S, 16> empty{};
  empty[0] = 1, empty[5] = 1, empty[10] = 1, empty[3] = -1, empty[15] = -1;
  rejects(empty, ClipDepth::MinusOneToOne, "left plane is degenerate");
  EXPECT_NO_THROW(check_shape(Frustum<S>::from_view_projection(good)));
  // The pointer form: a null pointer, and layouts and depths that are no enumerator.
  const auto rejects_ptr = [](const S* m, MatrixLayout layout, ClipDepth depth, const std::string& what) {
    try {
      (void)Frustum<S>::from_view_projection(m, layout, depth);
      ADD_FAILURE() << "accepted " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "quadrant: frustum: " + what);
    }
  };
  rejects_ptr(nullptr, MatrixLayout::ColumnMajor, ClipDepth::MinusOneToOne, "matrix is null");
  rejects_ptr(good.data(), static_cast<MatrixLayout>(2), ClipDepth::MinusOneToOne, "unknown matrix layout");
  rejects_ptr(good.data(), MatrixLayout::RowMajor, static_cast<ClipDepth>(7), "unknown clip depth");
}

// The same matrix in either layout gives the same frustum, bit for bit; the array form is the column-major one.
TYPED_TEST(FrustumTest, RowMajorLayoutGivesTheSameFrustum) {
  using S = TypeParam;
  std::mt19937 rng(31);
  for (int cam = 0; cam < 200; ++cam) {
    SCOPED_TRACE(cam);
    const Camera c = random_camera(rng);
    const std::array<S, 16> col = c.column_major<S>();
    S row[4][4];
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k) row[r][k] = col[4 * k + r];
    const Frustum<S> a = Frustum<S>::from_view_projection(col, c.depth);
    const Frustum<S> b = Frustum<S>::from_view_projection(&row[0][0], MatrixLayout::RowMajor, c.depth);
    const Frustum<S> p = Frustum<S>::from_view_projection(col.data(), MatrixLayout::ColumnMajor, c.depth);
    for (const Frustum<S>* f : {&b, &p}) {
      for (int k = 0; k < 6; ++k) {
        EXPECT_EQ(f->planes()[k].normal, a.planes()[k].normal);
        EXPECT_EQ(f->planes()[k].offset, a.planes()[k].offset);
      }
      EXPECT_EQ(f->has_corners(), a.has_corners());
      EXPECT_EQ(f->corner_bounds(), a.corner_bounds());
    }
  }
}

// A camera matrix given in the wrong layout (transposed) is refused wherever its view volume shows it: when it
// passes through infinity, which no camera's does. Here that is every orthographic camera's transpose and all but
// a few perspective ones'; those few are bounded volumes whose near and far planes are not parallel, which a
// camera with an oblique near plane (a mirror's or a portal's) can have, so nothing tells them from a real one.
TYPED_TEST(FrustumTest, TransposedCameraMatricesAreRefused) {
  using S = TypeParam;
  std::mt19937 rng(32);
  int perspective = 0, ortho = 0, refused_perspective = 0;
  for (int cam = 0; cam < 400; ++cam) {
    SCOPED_TRACE(cam);
    const Camera c = random_camera(rng);
    const std::array<S, 16> col = c.column_major<S>();
    EXPECT_NO_THROW((void)Frustum<S>::from_view_projection(col, c.depth));
    bool refused = false;
    try {
      const Frustum<S> f = Frustum<S>::from_view_projection(col.data(), MatrixLayout::RowMajor, c.depth);
      // Accepted: a bounded volume with near and far planes that are not parallel (an oblique camera's shape).
      EXPECT_FALSE(c.ortho) << "a transposed orthographic camera was accepted";
      EXPECT_TRUE(f.has_corners());
      const Vec<3, S> a = f.planes()[4].normal, b = f.planes()[5].normal;
      EXPECT_GT(double(a.x * b.x + a.y * b.y + a.z * b.z), -0.99) << "near and far planes are parallel";
    } catch (const std::invalid_argument& e) {
      refused = true;
      const std::string what = e.what();
      EXPECT_NE(what.find("MatrixLayout"), std::string::npos) << what;
    }
    (c.ortho ? ortho : perspective) += 1;
    if (!c.ortho) refused_perspective += refused;
  }
  EXPECT_GT(perspective, 200);
  EXPECT_GT(ortho, 50);
  std::printf("transposed cameras refused: %d of %d orthographic, %d of %d perspective\n", ortho, ortho,
              refused_perspective, perspective);
}

TYPED_TEST(FrustumTest, ClassifyIsConsistentAndMasksCarry) {
  using S = TypeParam;
  std::mt19937 rng(24);
  int inside = 0, outside = 0, total = 0;
  for (int cam = 0; cam < 100; ++cam) {
    SCOPED_TRACE(cam);
    const Camera c = random_camera(rng);
    const Frustum<S> f = Frustum<S>::from_view_projection(c.column_major<S>(), c.depth);
    for (int k = 0; k < 100; ++k) {
      const V3 at = c.inside_point(uniform(rng, -0.5, 1.5), uniform(rng, -0.5, 1.5), uniform(rng, -0.3, 1.3));
      const double size = uniform(rng, 0, c.scale() / (lattice(rng, 0, 1) ? 40 : 6));
      const V3 half{uniform(rng, 0, size), uniform(rng, 0, size), lattice(rng, 0, 6) ? uniform(rng, 0, size) : 0};
      const Box<3, S> node{vec<S>(at - half), vec<S>(at + half)};
      if (!is_valid(node)) continue;
      std::uint32_t mask = Frustum<S>::all_tests;
      const Relation r = classify(f, node, mask);
      ASSERT_EQ(r, classify(f, node));
      EXPECT_EQ(r != Relation::Outside, overlaps(f, node));
      if (r == Relation::Inside) {
        EXPECT_EQ(mask, 0u);
      }
      inside += r == Relation::Inside;
      outside += r == Relation::Outside;
      ++total;
      for (int j = 0; j < 8; ++j) {
        const Box<3, S> b = sub_box(rng, node);
        if (r == Relation::Outside) {
          ASSERT_FALSE(overlaps(f, b));
        }
        if (r == Relation::Inside) {
          ASSERT_TRUE(overlaps(f, b));
        }
      }
      if (r != Relation::Crossing) continue;
      // Children classified with the parent's mask agree with a full classification, masks included.
      const Vec<3, S> mid = center(node);
      for (int child = 0; child < 8; ++child) {
        Box<3, S> cb = node;
        for (int i = 0; i < 3; ++i) ((child >> i) & 1 ? cb.min[i] : cb.max[i]) = mid[i];
        std::uint32_t inherited = mask, full = Frustum<S>::all_tests;
        const Relation rc = classify(f, cb, inherited);
        ASSERT_EQ(rc, classify(f, cb, full));
        if (rc != Relation::Outside) {
          EXPECT_EQ(inherited, full);
        }
      }
    }
  }
  EXPECT_GT(inside, total / 20);
  EXPECT_GT(outside, total / 10);
}

TYPED_TEST(FrustumTest, CornersAndBoundingBox) {
  using S = TypeParam;
  std::mt19937 rng(25);
  for (int cam = 0; cam < 200; ++cam) {
    SCOPED_TRACE(cam);
    const Camera c = random_camera(rng);
    const auto m = c.column_major<S>();
    const Frustum<S> f = Frustum<S>::from_view_projection(m, c.depth);
    ASSERT_TRUE(f.has_corners());
    const double tol = 10 * frustum_tol<S>() * c.scale();
    const std::array<V3, 8> fc = c.corners();
    V3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
    for (int i = 0; i < 8; ++i)
      for (int a = 0; a < 3; ++a) {
        EXPECT_NEAR(double(f.corners()[i][a]), fc[i][a], tol) << "corner " << i;
        lo[a] = std::min(lo[a], fc[i][a]);
        hi[a] = std::max(hi[a], fc[i][a]);
      }
    const Box<3, S> bb = bounding_box(f);
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(double(bb.min[a]), lo[a], tol);
      EXPECT_NEAR(double(bb.max[a]), hi[a], tol);
    }
    // Every point the (rounded) matrix sees, by the clip-space oracle, is in the box: sample near the corners too.
    int seen = 0;
    for (int k = 0; k < 200; ++k) {
      const auto edge = [&] { return lattice(rng, 0, 1) ? uniform(rng, 0, 1) : double(lattice(rng, 0, 1)); };
      const Vec<3, S> p = vec<S>(c.inside_point(edge(), edge(), edge()));
      if (min_margin(clip_margins(m, c.depth, V3{double(p.x), double(p.y), double(p.z)})) < 0) continue;
      ++seen;
      EXPECT_TRUE(contains(bb, p));
    }
    EXPECT_GT(seen, 20);
  }
}

TYPED_TEST(FrustumTest, DocumentedConservativeCase) {
  using S = TypeParam;
  // A camera turned 20 degrees about y; the box sits outside the frustum, across its lower left edge: every plane
  // keeps part of it and it meets the corners' box (each by more than 0.4), yet an axis that is no face normal
  // separates it from the frustum by more than 0.4.
  const double yaw = 20 * std::numbers::pi / 180;
  Camera c = look(V3{0, 0, 0}, V3{-std::sin(yaw), 0, -std::cos(yaw)}, V3{0, 1, 0});
  c.fovy = std::numbers::pi / 3, c.aspect = 1, c.n = 1, c.f = 10;
  const Frustum<S> f = Frustum<S>::from_view_projection(c.column_major<S>());
  const V3 lo{-10.8, -8.5, -4.6}, hi{-4.8, -4.1, -2.4};
  const Gaps g = sat_gaps(c.corners(), lo, hi);
  EXPECT_LT(g.face, -0.4);  // no face plane, and no axis of the corners' box, separates them
  EXPECT_GT(g.all, 0.4);    // yet they are disjoint
  const Box<3, S> b{vec<S>(lo), vec<S>(hi)};
  EXPECT_TRUE(overlaps(f, b));  // the documented conservative answer
  EXPECT_NE(classify(f, b), Relation::Outside);
  for (int k = 0; k < 8; ++k) EXPECT_FALSE(contains(f, b.min + (b.max - b.min) * static_cast<S>(k / 8.0)));
}

}  // namespace
