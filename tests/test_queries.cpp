// SPDX-License-Identifier: MIT
// quadrant — differential tests of the query vocabulary: every shape, ray casts, nearest neighbours, layers,
// node queries and locate, against brute force over the live objects.
//
// Each case builds a random scene (fixed seed derived from the case name, printed on failure), then alternates
// rounds of queries with rounds of mutations (insert, erase, move, set_layers), validating the tree after each.
// The brute force decides overlap with the same exact predicate the tree uses (`overlaps(shape, box)`, whose own
// exactness the shape tests check against independent oracles): what is checked here is that the tree's pruning,
// inside-subtree shortcuts, layer masks, de-duplication under Placement::Leaves and best-first orders lose nothing,
// report nothing twice and keep their promised order.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <quadrant/quadrant.hpp>

namespace {

using namespace quadrant;

class Rng {
 public:
  explicit Rng(std::uint32_t seed) : gen_(seed) {}
  double real(double lo, double hi) { return lo < hi ? std::uniform_real_distribution<double>(lo, hi)(gen_) : lo; }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }
  bool chance(double p) { return real(0.0, 1.0) < p; }

 private:
  std::mt19937 gen_;
};

struct Case {
  int dim;
  bool is_double;
  Placement placement;
  int max_depth;
  int split_threshold;
  int scene;  // 0 uniform, 1 mixed (huge, points, outside the world), 2 clustered
};

std::string case_name(const Case& c) {
  static const char* scenes[] = {"Uniform", "Mixed", "Clustered"};
  return "D" + std::to_string(c.dim) + (c.is_double ? "_double_" : "_float_") + std::string(to_string(c.placement)) +
         "_depth" + std::to_string(c.max_depth) + "_threshold" + std::to_string(c.split_threshold) + "_" +
         scenes[c.scene];
}

std::uint32_t seed_of(const std::string& name) {
  std::uint32_t h = 2166136261u;
  for (char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 16777619u;
  return h;
}

// ---- the scene: live objects as brute force sees them ----

template <int D, class S>
struct Object {
  Handle handle;
  Box<D, S> box;
  std::uint32_t layers;
};

template <int D, class S>
class Checker {
 public:
  using Tr = Tree<D, int, S>;
  using B = Box<D, S>;
  using V = Vec<D, S>;

  Checker(const Case& c, std::uint32_t seed) : case_(c), rng_(seed), tree_(make_config(c)) {}

  static Config<D, S> make_config(const Case& c) {
    Config<D, S> cfg;
    for (int i = 0; i < D; ++i) {
      cfg.world.min[i] = S{-50};
      cfg.world.max[i] = S{50};
    }
    cfg.max_depth = c.max_depth;
    cfg.split_threshold = c.split_threshold;
    cfg.placement = c.placement;
    return cfg;
  }

  S coord(double lo, double hi) { return static_cast<S>(rng_.real(lo, hi)); }

  V random_point(double lo = -55, double hi = 55) {
    V p{};
    for (int i = 0; i < D; ++i) p[i] = coord(lo, hi);
    return p;
  }

  B random_box() {
    V c{};
    double side = rng_.real(0, 6);
    if (case_.scene == 2) {
      // Clustered: most objects near a few centers.
      static const double centers[3] = {-30, 5, 33};
      const double at = centers[rng_.integer(0, 2)];
      for (int i = 0; i < D; ++i) c[i] = coord(at - 6, at + 6);
      side = rng_.real(0, 2);
    } else {
      c = random_point(-50, 50);
    }
    if (case_.scene == 1) {
      const int kind = rng_.integer(0, 9);
      if (kind == 0) side = 0;                                  // a point
      if (kind == 1) side = rng_.real(40, 200);                 // huge
      if (kind == 2) for (int i = 0; i < D; ++i) c[i] = coord(60, 90);  // outside the world
      if (kind == 3) for (int i = 0; i < D; ++i) c[i] = static_cast<S>(std::round(c[i] / 12.5) * 12.5);  // on split lines
    }
    B b;
    for (int i = 0; i < D; ++i) {
      const double half = side / 2 * rng_.real(0.3, 1.0);
      b.min[i] = static_cast<S>(c[i] - half);
      b.max[i] = static_cast<S>(c[i] + half);
    }
    return b;
  }

  std::uint32_t random_layers() { return 1u << rng_.integer(0, 3) | (rng_.chance(0.3) ? 1u << rng_.integer(0, 3) : 0u); }
  std::uint32_t random_mask() {
    if (rng_.chance(0.4)) return ~0u;
    return 1u << rng_.integer(0, 3) | (rng_.chance(0.3) ? 1u << rng_.integer(0, 3) : 0u);
  }

  void insert_random() {
    const B b = random_box();
    const std::uint32_t layers = random_layers();
    const Handle h = tree_.insert(b, next_value_++, layers);
    objects_.push_back({h, b, layers});
  }

  void mutate() {
    const int ops = 1 + static_cast<int>(objects_.size() / 5);
    for (int k = 0; k < ops && !objects_.empty(); ++k) {
      const std::size_t i = static_cast<std::size_t>(rng_.integer(0, static_cast<int>(objects_.size()) - 1));
      switch (rng_.integer(0, 3)) {
        case 0:
          tree_.erase(objects_[i].handle);
          objects_[i] = objects_.back();
          objects_.pop_back();
          break;
        case 1: {
          B b = objects_[i].box;
          if (rng_.chance(0.5)) {
            b = random_box();
          } else {
            const V d = random_point(-2, 2);
            b.min = b.min + d;
            b.max = b.max + d;
          }
          tree_.move(objects_[i].handle, b);
          objects_[i].box = b;
          break;
        }
        case 2:
          objects_[i].layers = random_layers();
          tree_.set_layers(objects_[i].handle, objects_[i].layers);
          break;
        default:
          insert_random();
      }
      tree_.validate();
    }
  }

  // ---- checks ----

  template <class Shape>
  void check_query(const Shape& shape, const std::string& what) {
    SCOPED_TRACE(what);
    const std::uint32_t mask = random_mask();
    std::vector<std::uint32_t> got, expected;
    const QueryStats st = tree_.query(shape, [&](Handle h, const int&) { got.push_back(h.index()); }, mask);
    for (const auto& o : objects_)
      if ((o.layers & mask) != 0 && overlaps(shape, o.box)) expected.push_back(o.handle.index());
    EXPECT_EQ(st.hits, got.size());
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected) << "mask " << mask;
    ++checks_;
  }

  void check_pairs() {
    const std::uint32_t mask = random_mask();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> got, expected;
    tree_.for_each_pair(
        [&](Handle a, Handle b) { got.emplace_back(std::min(a.index(), b.index()), std::max(a.index(), b.index())); },
        mask);
    for (std::size_t i = 0; i < objects_.size(); ++i)
      for (std::size_t j = i + 1; j < objects_.size(); ++j) {
        const auto& a = objects_[i];
        const auto& b = objects_[j];
        if ((a.layers & mask) && (b.layers & mask) && overlaps(a.box, b.box))
          expected.emplace_back(std::min(a.handle.index(), b.handle.index()), std::max(a.handle.index(), b.handle.index()));
      }
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected) << "pairs, mask " << mask;
    ++checks_;
  }

  void check_raycast(const Segment<D, S>& seg) {
    const std::uint32_t mask = random_mask();
    std::vector<std::pair<S, std::uint32_t>> got, expected;
    tree_.raycast(seg, [&](Handle h, const int&, S t) { got.emplace_back(t, h.index()); }, mask);
    for (const auto& o : objects_)
      if ((o.layers & mask) != 0)
        if (const std::optional<S> t = entry_fraction(seg, o.box)) expected.emplace_back(*t, o.handle.index());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected) << "raycast " << str(seg.a) << " -> " << str(seg.b) << ", mask " << mask;
    for (const auto& [t, id] : got) EXPECT_TRUE(t >= 0 && t <= 1);
    // Early stop: the nearest hit alone is one call.
    int calls = 0;
    std::uint32_t first = 0;
    const QueryStats st = tree_.raycast(
        seg,
        [&](Handle h, const int&, S) {
          ++calls;
          first = h.index();
          return false;
        },
        mask);
    EXPECT_EQ(calls, expected.empty() ? 0 : 1);
    if (!expected.empty()) {
      EXPECT_EQ(first, expected.front().second);
      EXPECT_TRUE(st.stopped);
    }
    ++checks_;
  }

  void check_nearest(const V& p) {
    const std::uint32_t mask = random_mask();
    const std::size_t ks[] = {1, 3, 10, objects_.size() + 5};
    const std::size_t k = ks[rng_.integer(0, 3)];
    const S max_distance = rng_.chance(0.5) ? std::numeric_limits<S>::infinity() : coord(0, 30);
    // The contract compares squared distances in double (scaled only beyond 2^509, far from these coordinates).
    using W = double;
    std::vector<std::pair<W, std::uint32_t>> all;
    for (const auto& o : objects_) {
      if ((o.layers & mask) == 0) continue;
      W d2 = 0;  // the oracle's own point-to-box distance
      for (int i = 0; i < D; ++i) {
        W d = 0;
        if (p[i] < o.box.min[i]) d = W(o.box.min[i]) - W(p[i]);
        else if (p[i] > o.box.max[i]) d = W(p[i]) - W(o.box.max[i]);
        d2 += d * d;
      }
      if (d2 <= W(max_distance) * W(max_distance)) all.emplace_back(d2, o.handle.index());
    }
    std::sort(all.begin(), all.end());
    if (all.size() > k) all.resize(k);
    const std::vector<Neighbor<S>> got = tree_.nearest(p, k, max_distance, mask);
    ASSERT_EQ(got.size(), all.size()) << "nearest to " << str(p) << " k " << k << " max " << max_distance;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].handle.index(), all[i].second) << "rank " << i << " nearest to " << str(p);
      EXPECT_EQ(got[i].distance, static_cast<S>(std::sqrt(all[i].first))) << "rank " << i;
      EXPECT_TRUE(tree_.contains(got[i].handle));
    }
    ++checks_;
  }

  template <class Shape>
  void check_query_nodes(const Shape& shape, const std::string& what) {
    SCOPED_TRACE(what);
    for (bool skip_empty : {true, false}) {
      std::vector<std::uint32_t> got, expected;
      tree_.query_nodes(shape, [&](const NodeView<D, S>& v) {
        EXPECT_TRUE(v.leaf);
        got.push_back(v.id);
      }, skip_empty);
      tree_.for_each_node([&](const NodeView<D, S>& v) {
        if (v.leaf && (!skip_empty || v.count > 0) && overlaps(shape, v.cell)) expected.push_back(v.id);
      });
      EXPECT_EQ(got, expected) << "skip_empty " << skip_empty;
    }
    ++checks_;
  }

  void check_locate(const V& p) {
    const auto& world = tree_.config().world;
    bool inside = true;
    for (int i = 0; i < D; ++i) inside = inside && p[i] >= world.min[i] && p[i] <= world.max[i];
    if (!inside) {
      EXPECT_THROW(tree_.locate(p), std::invalid_argument);
      return;
    }
    // Brute force: the one leaf whose cell owns p, faces shared with a neighbour belonging to the upper cell.
    std::vector<std::uint32_t> owners;
    tree_.for_each_node([&](const NodeView<D, S>& v) {
      if (!v.leaf) return;
      for (int i = 0; i < D; ++i) {
        if (p[i] < v.cell.min[i] || p[i] > v.cell.max[i]) return;
        if (p[i] == v.cell.max[i] && v.cell.max[i] != world.max[i]) return;
      }
      owners.push_back(v.id);
    });
    ASSERT_EQ(owners.size(), 1u) << "locate " << str(p);
    EXPECT_EQ(tree_.locate(p).id, owners.front());
    ++checks_;
  }

  static std::string str(const V& v) {
    std::ostringstream os;
    os.precision(std::numeric_limits<S>::max_digits10);
    os << '(';
    for (int i = 0; i < D; ++i) os << (i ? ", " : "") << v[i];
    return os.str() + ")";
  }

  // ---- shapes ----

  S angle() { return coord(-4, 4); }
  S radius() { return rng_.chance(0.1) ? S{0} : coord(0, 25); }

  Segment<D, S> random_segment() {
    const V a = random_point(-70, 70);
    if (rng_.chance(0.1)) return {a, a};  // zero length
    V b = random_point(-70, 70);
    if (rng_.chance(0.2)) {  // along an axis
      b = a;
      b[rng_.integer(0, D - 1)] = coord(-70, 70);
    }
    return {a, b};
  }

  void query_round() {
    for (int q = 0; q < 6; ++q) {
      B box = random_box();
      if (rng_.chance(0.3)) {
        const V c = random_point();
        const S h = coord(0, 40);
        for (int i = 0; i < D; ++i) {
          box.min[i] = c[i] - h;
          box.max[i] = c[i] + h;
        }
      }
      check_query(box, "box");
      check_query(random_point(), "point");
      const Segment<D, S> segment = random_segment();
      check_query(segment, "segment");
      check_query_nodes(segment, "segment nodes");
      check_query_nodes(random_point(), "point nodes");
      check_raycast(random_segment());
      check_nearest(random_point(-70, 70));
      check_locate(random_point(-52, 52));
      check_query_nodes(box, "box nodes");
      if constexpr (D == 2) shapes_2d();
      else shapes_3d();
    }
    check_pairs();
    // A mask no object has: the root's layer union stops the walk at once.
    const QueryStats none = tree_.query(tree_.config().world, [](const int&) {}, 1u << 20);
    EXPECT_EQ(none.hits, 0u);
    EXPECT_EQ(none.nodes_visited, 1u);
  }

  void shapes_2d() {
    const Circle<S> circle{random_point(), radius()};
    check_query(circle, "circle");
    check_query_nodes(circle, "circle nodes");
    const S inner = rng_.chance(0.2) ? S{0} : coord(0, 20);
    const Ring<S> ring{random_point(), inner, inner + coord(0, 20)};
    check_query(ring, "ring");
    check_query_nodes(ring, "ring nodes");
    const Ellipse<S> ellipse{random_point(), V{coord(0, 25), rng_.chance(0.1) ? S{0} : coord(0, 25)}, angle()};
    check_query(ellipse, "ellipse");
    check_query_nodes(ellipse, "ellipse nodes");
    const S halves[] = {S{0}, std::numbers::pi_v<S> / 2, std::numbers::pi_v<S>, coord(0, 3.14)};
    V dir = random_point(-1, 1);
    if (dir.x == 0 && dir.y == 0) dir.x = 1;
    const Sector<S> sector{random_point(), dir, radius(), halves[rng_.integer(0, 3)]};
    check_query(sector, "sector");
    check_query_nodes(sector, "sector nodes");
    const OrientedBox<S> obb{random_point(), V{coord(0, 20), coord(0, 20)}, angle()};
    check_query(obb, "oriented box");
    check_query_nodes(obb, "oriented box nodes");
    // A convex polygon: points on a circle at increasing angles, either winding.
    std::vector<V> vertices;
    const V c = random_point();
    const S r = coord(1, 30);
    const int n = rng_.integer(3, 8);
    for (int k = 0; k < n; ++k) {
      const S a = static_cast<S>(2 * std::numbers::pi * (k + rng_.real(0.1, 0.9)) / n);
      vertices.push_back(V{c.x + r * std::cos(a), c.y + r * std::sin(a)});
    }
    if (rng_.chance(0.5)) std::reverse(vertices.begin(), vertices.end());
    const ConvexPolygon<S> polygon{std::span<const V>(vertices)};
    check_query(polygon, "polygon");
    check_query_nodes(polygon, "polygon nodes");
  }

  void shapes_3d() {
    const Sphere<S> sphere{random_point(), radius()};
    check_query(sphere, "sphere");
    check_query_nodes(sphere, "sphere nodes");
    const Frustum<S> frustum = random_frustum();
    check_query(frustum, "frustum");
    check_query_nodes(frustum, "frustum nodes");
  }

  // A perspective camera somewhere in the scene looking at a random target (sometimes exactly along an axis).
  Frustum<S> random_frustum() {
    const V eye = random_point(-60, 60);
    V forward = random_point(-1, 1);
    if (rng_.chance(0.3)) {
      forward = V{0, 0, 0};
      forward[rng_.integer(0, 2)] = rng_.chance(0.5) ? S{1} : S{-1};
    }
    const double len = std::sqrt(double(dot(forward, forward)));
    if (len < 1e-3) forward = V{1, 0, 0};
    return Frustum<S>::from_view_projection(view_projection(eye, forward), rng_.chance(0.5) ? ClipDepth::ZeroToOne
                                                                                             : ClipDepth::MinusOneToOne);
  }

  std::array<S, 16> view_projection(const V& eye, const V& forward_in) {
    // Right-handed look-at and a perspective projection, written out here (column-major, as OpenGL stores them).
    auto normalize = [](std::array<double, 3> v) {
      const double l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      return std::array<double, 3>{v[0] / l, v[1] / l, v[2] / l};
    };
    auto cross = [](std::array<double, 3> a, std::array<double, 3> b) {
      return std::array<double, 3>{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    };
    const auto f = normalize({double(forward_in.x), double(forward_in.y), double(forward_in.z)});
    std::array<double, 3> up{0, 1, 0};
    if (std::abs(f[1]) > 0.99) up = {0, 0, 1};
    const auto s = normalize(cross(f, up));
    const auto u = cross(s, f);
    const double e[3] = {double(eye.x), double(eye.y), double(eye.z)};
    double view[16] = {s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
                       -(s[0] * e[0] + s[1] * e[1] + s[2] * e[2]), -(u[0] * e[0] + u[1] * e[1] + u[2] * e[2]),
                       f[0] * e[0] + f[1] * e[1] + f[2] * e[2], 1};
    const double fovy = rng_.real(0.5, 1.6), aspect = rng_.real(0.7, 2.0), zn = rng_.real(0.1, 2), zf = rng_.real(20, 90);
    const double t = 1 / std::tan(fovy / 2);
    double proj[16] = {t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, -(zf + zn) / (zf - zn), -1, 0, 0, -2 * zf * zn / (zf - zn), 0};
    std::array<S, 16> m{};
    for (int col = 0; col < 4; ++col)
      for (int row = 0; row < 4; ++row) {
        double sum = 0;
        for (int k = 0; k < 4; ++k) sum += proj[k * 4 + row] * view[col * 4 + k];
        m[static_cast<std::size_t>(col * 4 + row)] = static_cast<S>(sum);
      }
    return m;
  }

  void run() {
    const int n = case_.scene == 2 ? 400 : 250;
    for (int i = 0; i < n; ++i) insert_random();
    tree_.validate();
    for (int round = 0; round < 3; ++round) {
      query_round();
      mutate();
    }
    EXPECT_GT(checks_, 50);
  }

  Case case_;
  Rng rng_;
  Tr tree_;
  std::vector<Object<D, S>> objects_;
  int next_value_ = 0;
  int checks_ = 0;
};

class QueryOracle : public ::testing::TestWithParam<Case> {};

TEST_P(QueryOracle, EveryQueryAgreesWithBruteForce) {
  const Case c = GetParam();
  const std::string name = case_name(c);
  const std::uint32_t seed = seed_of(name);
  SCOPED_TRACE("case " + name + ", seed " + std::to_string(seed));
  if (c.dim == 2 && !c.is_double) Checker<2, float>(c, seed).run();
  if (c.dim == 2 && c.is_double) Checker<2, double>(c, seed).run();
  if (c.dim == 3 && !c.is_double) Checker<3, float>(c, seed).run();
  if (c.dim == 3 && c.is_double) Checker<3, double>(c, seed).run();
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const std::tuple<int, int> configs[] = {{8, 8}, {4, 0}, {12, 1}, {0, 8}};
  for (int dim : {2, 3})
    for (bool is_double : {false, true})
      for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves})
        for (const auto& [depth, threshold] : configs)
          for (int scene : {0, 1, 2}) {
            // The full tree of an octree at depth 4 is 4681 nodes: fine. Depth 12 with threshold 1 stays sparse.
            cases.push_back({dim, is_double, p, depth, threshold, scene});
          }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Matrix, QueryOracle, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& p) { return case_name(p.param); });

}  // namespace

// A segment with one end point far away: every placement answers the query and the ray cast like brute force
// (the slab fractions used to round to 1 near the near end, so Loose and Parent reported boxes just beyond it
// and Leaves, which filters by the segment's bounding box first, did not).
TEST(SegmentQueries, FarEndPointAgreesAcrossPlacements) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-10, 10);
  std::vector<Box<2, float>> boxes;
  for (int i = 0; i < 400; ++i) {
    const float x = u(rng), y = u(rng);
    boxes.push_back({{x, y}, {x + 0.5f, y + 0.5f}});
  }
  for (const Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    SCOPED_TRACE(static_cast<int>(p));
    Config<2, float> c;
    c.world = {{-16, -16}, {16, 16}};
    c.placement = p;
    c.split_threshold = 4;
    Tree<2, int, float> tree(c);
    for (int i = 0; i < int(boxes.size()); ++i) tree.insert(boxes[std::size_t(i)], i);
    for (int round = 0; round < 200; ++round) {
      const Vec<2, float> near{u(rng), u(rng)};
      Vec<2, float> far = near;
      far[round % 2] = round % 4 < 2 ? 1e20f : -1e20f;
      const Segment<2, float> seg{far, near};
      std::vector<int> expected, got, cast;
      for (int i = 0; i < int(boxes.size()); ++i) {
        const Box<2, float>& b = boxes[std::size_t(i)];
        // The exact answer for an axis-parallel segment: its extent overlaps the box.
        if (overlaps(bounding_box(seg), b)) expected.push_back(i);
      }
      tree.query(seg, [&](const int& v) { got.push_back(v); });
      tree.raycast(seg, [&](Handle, const int& v, float) { cast.push_back(v); });
      std::sort(got.begin(), got.end());
      std::sort(cast.begin(), cast.end());
      ASSERT_EQ(got, expected) << "round " << round;
      ASSERT_EQ(cast, expected) << "round " << round;
    }
  }
}
