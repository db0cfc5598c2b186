// SPDX-License-Identifier: MIT
// Geometry: closed overlap, containment, union, distance and validation, for D = 2, 3 and float, double. Each
// relation is checked against a per-axis interval oracle on random boxes with coordinates on a small integer
// lattice, so touching and equal faces happen often.
#include <quadrant/geometry.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace {

using namespace quadrant;

template <int D_, class S_>
struct Dim {
  static constexpr int D = D_;
  using S = S_;
};
using Dims = ::testing::Types<Dim<2, float>, Dim<2, double>, Dim<3, float>, Dim<3, double>>;

template <class P>
class GeometryTest : public ::testing::Test {};
TYPED_TEST_SUITE(GeometryTest, Dims);

template <int D, class S>
Box<D, S> random_box(std::mt19937& rng) {
  std::uniform_int_distribution<int> coord(-4, 4);
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    int a = coord(rng), c = coord(rng);
    b.min[i] = static_cast<S>(std::min(a, c));
    b.max[i] = static_cast<S>(std::max(a, c));
  }
  return b;
}

TYPED_TEST(GeometryTest, RelationsMatchPerAxisIntervals) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  std::mt19937 rng(12345);
  int touching = 0;
  for (int round = 0; round < 20000; ++round) {
    SCOPED_TRACE(round);
    const Box<D, S> a = random_box<D, S>(rng), b = random_box<D, S>(rng);
    bool overlap = true, inside = true, touch = false;
    for (int i = 0; i < D; ++i) {
      overlap = overlap && !(a.max[i] < b.min[i] || b.max[i] < a.min[i]);
      inside = inside && a.min[i] <= b.min[i] && b.max[i] <= a.max[i];
      touch = touch || a.max[i] == b.min[i] || b.max[i] == a.min[i];
    }
    if (overlap && touch) ++touching;
    EXPECT_EQ(overlaps(a, b), overlap);
    EXPECT_EQ(overlaps(b, a), overlap);
    EXPECT_EQ(contains(a, b), inside);
    const Box<D, S> u = merge(a, b);
    EXPECT_TRUE(contains(u, a) && contains(u, b));
    for (int i = 0; i < D; ++i) {
      EXPECT_EQ(u.min[i], std::min(a.min[i], b.min[i]));
      EXPECT_EQ(u.max[i], std::max(a.max[i], b.max[i]));
    }
    if (overlap) {
      const Box<D, S> x = intersection(a, b);
      EXPECT_TRUE(is_valid(x));
      EXPECT_TRUE(contains(a, x) && contains(b, x));
    }
    // Point relations and distance: a lattice point against box a.
    Vec<D, S> p;
    double d2 = 0;
    bool in = true;
    for (int i = 0; i < D; ++i) {
      p[i] = static_cast<S>(std::uniform_int_distribution<int>(-6, 6)(rng));
      const double lo = a.min[i], hi = a.max[i], v = p[i];
      const double gap = v < lo ? lo - v : (v > hi ? v - hi : 0.0);
      d2 += gap * gap;
      in = in && lo <= v && v <= hi;
    }
    EXPECT_EQ(overlaps(a, p), in);
    EXPECT_EQ(contains(a, p), in);
    EXPECT_DOUBLE_EQ(static_cast<double>(distance_squared(p, a)), d2);
    EXPECT_NEAR(static_cast<double>(distance(p, a)), std::sqrt(d2), 1e-5);
    EXPECT_EQ(distance_squared(p, a) == 0, in);
  }
  EXPECT_GT(touching, 1000) << "the lattice must produce many touching pairs";
}

// The box relations at extreme coordinates: signed zeros, subnormals, the largest finite values and infinities
// (2D float boxes take an SSE2 path on x86-64; every type is checked against the per-axis reference), and in
// constant evaluation, which takes the portable path.
TYPED_TEST(GeometryTest, RelationsAtExtremeCoordinates) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  using L = std::numeric_limits<S>;
  const S values[] = {S(0), -S(0), L::denorm_min(), -L::denorm_min(), L::min(), S(1), S(-1), S(1e-30), S(-1e30),
                      L::max(), L::lowest(), L::infinity(), -L::infinity()};
  std::mt19937 rng(777);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(values) - 1);
  auto random_extreme = [&] {
    Box<D, S> b;
    for (int i = 0; i < D; ++i) {
      const S x = values[pick(rng)], y = values[pick(rng)];
      b.min[i] = std::min(x, y);
      b.max[i] = std::max(x, y);
    }
    return b;
  };
  int overlapping = 0, containing = 0;
  for (int round = 0; round < 20000; ++round) {
    const Box<D, S> a = random_extreme(), b = random_extreme();
    bool overlap = true, inside = true;
    for (int i = 0; i < D; ++i) {
      overlap = overlap && a.min[i] <= b.max[i] && b.min[i] <= a.max[i];
      inside = inside && a.min[i] <= b.min[i] && b.max[i] <= a.max[i];
    }
    overlapping += overlap;
    containing += inside;
    ASSERT_EQ(overlaps(a, b), overlap) << round;
    ASSERT_EQ(overlaps(b, a), overlap) << round;
    ASSERT_EQ(contains(a, b), inside) << round;
  }
  EXPECT_GT(overlapping, 1000) << "the values must produce many overlapping pairs";
  EXPECT_GT(containing, 100) << "the values must produce boxes inside others";
  constexpr Box<D, S> unit = [] {
    Box<D, S> b{};
    for (int i = 0; i < D; ++i) b.max[i] = S(1);
    return b;
  }();
  constexpr Box<D, S> corner = [] {
    Box<D, S> b{};
    for (int i = 0; i < D; ++i) b.min[i] = b.max[i] = S(1);
    return b;
  }();
  static_assert(overlaps(unit, corner) && contains(unit, corner) && !contains(corner, unit));
}

// The squared distance in the wide type that nearest searches order by, at extreme coordinates, against the
// per-axis definition (each coordinate converted, the gap subtracted in the wide type, squares summed axis by axis):
// equal bit for bit, sign of zero included, since ranks and ties follow it; and the scaled form the round shapes
// test with, in the tree's scalar. Float boxes take SSE2 paths on x86-64; constant evaluation the portable ones.
TYPED_TEST(GeometryTest, WideDistanceAtExtremeCoordinates) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  using W = detail::WideScalar<S>;
  using L = std::numeric_limits<S>;
  const S values[] = {S(0), -S(0), L::denorm_min(), -L::denorm_min(), L::min(), S(1), S(-1), S(1e-30), S(-1e30),
                      S(3.5), S(-2.25), L::max(), L::lowest(), L::infinity(), -L::infinity()};
  std::mt19937 rng(4242);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(values) - 1);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int inside = 0, far = 0;
  for (int round = 0; round < 40000; ++round) {
    Box<D, S> b;
    Vec<D, S> p;
    for (int i = 0; i < D; ++i) {
      const S x = values[pick(rng)], y = values[pick(rng)];
      b.min[i] = std::min(x, y);
      b.max[i] = std::max(x, y);
      // Query points are finite (nearest refuses others): an extreme value, or near the box's faces.
      S v = values[pick(rng)];
      if (!std::isfinite(v) || round % 3 == 0)
        v = std::isfinite(b.min[i]) ? static_cast<S>(b.min[i] + static_cast<S>(unit(rng))) : S(unit(rng));
      if (!std::isfinite(v)) v = L::max();
      p[i] = v;
    }
    W expected = 0;
    for (int i = 0; i < D; ++i) {
      W gap = 0;
      if (W(p[i]) < W(b.min[i])) gap = W(b.min[i]) - W(p[i]);
      else if (W(p[i]) > W(b.max[i])) gap = W(p[i]) - W(b.max[i]);
      expected += gap * gap;
    }
    const W got = detail::squared_distance(p, b);
    ASSERT_TRUE(got == expected && std::signbit(got) == std::signbit(expected))
        << round << ": " << static_cast<long double>(got) << " against " << static_cast<long double>(expected);
    // The round shapes' form: in the tree's own scalar, each gap scaled by a power of two (2D float takes SSE2).
    for (const S k : {S(1), std::ldexp(S(1), -20), std::ldexp(S(1), 20)}) {
      S scaled = 0;
      for (int i = 0; i < D; ++i) {
        S gap = 0;
        if (p[i] < b.min[i]) gap = (b.min[i] - p[i]) * k;
        else if (p[i] > b.max[i]) gap = (p[i] - b.max[i]) * k;
        scaled += gap * gap;
      }
      const S got_scaled = detail::scaled_squared_distance(p, b, k);
      ASSERT_TRUE(got_scaled == scaled && std::signbit(got_scaled) == std::signbit(scaled))
          << round << ", k " << k << ": " << got_scaled << " against " << scaled;
    }
    inside += expected == 0;
    far += std::isinf(expected);
  }
  EXPECT_GT(inside, 1000) << "the values must put many points inside their box";
  EXPECT_GT(far, 500) << "the values must give many infinite distances";
  constexpr Vec<D, S> origin{};
  constexpr Box<D, S> ahead = [] {
    Box<D, S> b{};
    for (int i = 0; i < D; ++i) b.min[i] = b.max[i] = S(i + 2);
    return b;
  }();
  static_assert(detail::squared_distance_as<W>(origin, ahead) == (D == 2 ? W(13) : W(29)));
  EXPECT_EQ(detail::squared_distance(origin, ahead), D == 2 ? W(13) : W(29));
}

TYPED_TEST(GeometryTest, TouchingAndPointBoxesOverlap) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  Box<D, S> a{}, b{}, p{};
  for (int i = 0; i < D; ++i) {
    a.min[i] = 0;
    a.max[i] = 1;
    b.min[i] = 1;
    b.max[i] = 2;
    p.min[i] = p.max[i] = 1;
  }
  EXPECT_TRUE(overlaps(a, b));
  EXPECT_TRUE(overlaps(a, p));
  EXPECT_TRUE(overlaps(p, p));
  EXPECT_TRUE(contains(a, p));
  EXPECT_TRUE(contains(a, a));
  b.min[0] = std::nextafter(S(1), S(2));
  EXPECT_FALSE(overlaps(a, b));
}

TYPED_TEST(GeometryTest, ValidationRejectsNanInfiniteAndInvertedBoxes) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  Box<D, S> ok{};
  for (int i = 0; i < D; ++i) ok.max[i] = 1;
  EXPECT_TRUE(is_valid(ok));
  EXPECT_NO_THROW(check_box(ok, "test"));
  for (int axis = 0; axis < D; ++axis) {
    for (S bad : {std::numeric_limits<S>::quiet_NaN(), std::numeric_limits<S>::infinity(),
                  -std::numeric_limits<S>::infinity()}) {
      Box<D, S> b = ok;
      b.min[axis] = bad;
      EXPECT_FALSE(is_valid(b));
      EXPECT_THROW(check_box(b, "test"), std::invalid_argument);
      b = ok;
      b.max[axis] = bad;
      EXPECT_FALSE(is_valid(b));
      EXPECT_THROW(check_box(b, "test"), std::invalid_argument);
    }
    Box<D, S> inverted = ok;
    inverted.min[axis] = 2;
    EXPECT_FALSE(is_valid(inverted));
    try {
      check_box(inverted, "insert");
      ADD_FAILURE() << "inverted box accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("min > max"), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(GeometryTest, CenterAndExtentAreExact) {
  constexpr int D = TypeParam::D;
  using S = typename TypeParam::S;
  std::mt19937 rng(7);
  for (int round = 0; round < 1000; ++round) {
    const Box<D, S> b = random_box<D, S>(rng);
    const Vec<D, S> c = center(b), e = extent(b);
    for (int i = 0; i < D; ++i) {
      EXPECT_EQ(c[i], (b.min[i] + b.max[i]) / 2);  // lattice values: exact
      EXPECT_EQ(e[i], b.max[i] - b.min[i]);
    }
    // A box far outside clamps onto the nearest face and keeps overlap with its clamp target.
    const Box<D, S> cl = clamp(b, b);
    EXPECT_EQ(cl, b);
  }
  // Center of a huge box does not overflow.
  Box<D, S> huge{};
  for (int i = 0; i < D; ++i) {
    huge.min[i] = -std::numeric_limits<S>::max();
    huge.max[i] = std::numeric_limits<S>::max();
  }
  const Vec<D, S> c = center(huge);
  for (int i = 0; i < D; ++i) EXPECT_TRUE(std::isfinite(c[i]));
}

// The query-shape contract (geometry/shape.hpp): every shape of the vocabulary models QueryShape for its own
// dimension and scalar, in float and double; other types, and shapes of the other dimension or scalar, do not.
template <class S>
constexpr bool every_shape_models_query_shape() {
  static_assert(QueryShape<Box<2, S>, 2, S>);
  static_assert(QueryShape<Box<3, S>, 3, S>);
  static_assert(QueryShape<Vec<2, S>, 2, S>);
  static_assert(QueryShape<Vec<3, S>, 3, S>);
  static_assert(QueryShape<Circle<S>, 2, S>);
  static_assert(QueryShape<Ring<S>, 2, S>);
  static_assert(QueryShape<Ellipse<S>, 2, S>);
  static_assert(QueryShape<Sector<S>, 2, S>);
  static_assert(QueryShape<OrientedBox<S>, 2, S>);
  static_assert(QueryShape<ConvexPolygon<S>, 2, S>);
  static_assert(QueryShape<Segment<2, S>, 2, S>);
  static_assert(QueryShape<Segment<3, S>, 3, S>);
  static_assert(QueryShape<Sphere<S>, 3, S>);
  static_assert(QueryShape<Frustum<S>, 3, S>);
  static_assert(!QueryShape<int, 2, S>);
  static_assert(!QueryShape<S, 2, S>);
  static_assert(!QueryShape<Box<3, S>, 2, S>);
  static_assert(!QueryShape<Box<2, S>, 3, S>);
  static_assert(!QueryShape<Vec<3, S>, 2, S>);
  static_assert(!QueryShape<Circle<S>, 3, S>);
  static_assert(!QueryShape<Sphere<S>, 2, S>);
  static_assert(!QueryShape<Segment<3, S>, 2, S>);
  static_assert(!QueryShape<Frustum<S>, 2, S>);
  return true;
}
static_assert(every_shape_models_query_shape<float>());
static_assert(every_shape_models_query_shape<double>());
static_assert(!QueryShape<Box<2, float>, 2, double>);
static_assert(!QueryShape<Circle<double>, 2, float>);

// The vector operators a game's code writes: scalar on either side, division, negation, compound assignment, in
// 2D and 3D, float and double, with integer scalars converting to the vector's type.
TEST(Vec, ArithmeticOperators) {
  Vec<2, float> v{1, -2};
  const Vec<2, float> w{3, 4};
  EXPECT_EQ(2.f * v, (Vec<2, float>{2, -4}));
  EXPECT_EQ(v * 2, (Vec<2, float>{2, -4}));
  EXPECT_EQ(v / 2.f, (Vec<2, float>{0.5f, -1}));
  EXPECT_EQ(-v, (Vec<2, float>{-1, 2}));
  v += w;
  EXPECT_EQ(v, (Vec<2, float>{4, 2}));
  v -= w;
  EXPECT_EQ(v, (Vec<2, float>{1, -2}));
  v *= 3.f;
  EXPECT_EQ(v, (Vec<2, float>{3, -6}));
  v /= 3;
  EXPECT_EQ(v, (Vec<2, float>{1, -2}));
  Vec<3, double> p{1, 2, 3};
  EXPECT_EQ(2.0 * p - p / 2.0, (Vec<3, double>{1.5, 3, 4.5}));
  EXPECT_EQ(-p + p, (Vec<3, double>{0, 0, 0}));
  p += Vec<3, double>{1, 1, 1};
  p *= 0.5;
  EXPECT_EQ(p, (Vec<3, double>{1, 1.5, 2}));
  static_assert((Vec<2, double>{2, 4} / 2.0) == Vec<2, double>{1, 2}, "usable in constant expressions");
}

TEST(QueryShape, EveryShapeModelsTheContract) {
  EXPECT_TRUE(every_shape_models_query_shape<float>());
  EXPECT_TRUE(every_shape_models_query_shape<double>());
}

}  // namespace
