// SPDX-License-Identifier: MIT
// The C API against the C++ Tree it wraps: the same objects in both, then every query shape (box, point, ball,
// ring, ellipse, sector, oriented box, polygon, segment, frustum), pairs, two-tree pairs, ray casts and nearest
// must give the same objects in the same order, in 2D and 3D, float and double, every placement. (The C++ Tree is
// checked against brute force by the other tests; this one checks that the binding maps every field faithfully.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <quadrant/quadrant.hpp>

#include "quadrant/c/quadrant.h"

namespace {

using quadrant::Placement;

// One tree's settings on both sides: the C config and the C++ Config, over [lo, hi]^D.
template <int D, class S>
struct Configs {
  quadrant_config c;
  quadrant::Config<D, S> cpp;
  Configs(Placement placement, double lo, double hi, int split) {
    quadrant_config_init(&c, D, sizeof(S) == 4 ? QUADRANT_FLOAT : QUADRANT_DOUBLE);
    for (int i = 0; i < D; ++i) {
      c.world_min[i] = lo, c.world_max[i] = hi;
      cpp.world.min[i] = S(lo), cpp.world.max[i] = S(hi);
    }
    c.placement = placement == Placement::Loose    ? QUADRANT_LOOSE
                  : placement == Placement::Parent ? QUADRANT_PARENT
                                                   : QUADRANT_LEAVES;
    cpp.placement = placement;
    c.split_threshold = cpp.split_threshold = split;
  }
};

template <int D, class S>
std::string trace(Placement placement) {
  return std::string(D == 2 ? "2D " : "3D ") + (sizeof(S) == 4 ? "float " : "double ") + quadrant::to_string(placement);
}

template <int D, class S>
void check_parity(Placement placement, std::uint32_t seed) {
  SCOPED_TRACE((trace<D, S>(placement)));
  std::mt19937 rng(seed);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const Configs<D, S> configs(placement, -50, 150, 6);
  const quadrant_config& cc = configs.c;
  const quadrant::Config<D, S>& config = configs.cpp;
  quadrant_tree* ct = nullptr;
  ASSERT_EQ(quadrant_tree_create(&cc, &ct), QUADRANT_OK) << quadrant_last_error();
  quadrant::Tree<D, std::uint64_t, S> tree(config);
  for (std::uint64_t i = 0; i < 300; ++i) {
    double lo[3], hi[3];
    quadrant::Box<D, S> b;
    // 3D boxes larger, so that the octree's scene is as crowded as the quadtree's.
    const double side = (real(0, 1) < 0.1 ? real(5, 30) : real(0, 4)) * (D == 3 ? 3 : 1);
    for (int a = 0; a < D; ++a) {
      lo[a] = static_cast<double>(static_cast<S>(real(-60, 160)));
      hi[a] = static_cast<double>(static_cast<S>(lo[a] + side));
      b.min[a] = static_cast<S>(lo[a]), b.max[a] = static_cast<S>(hi[a]);
    }
    const std::uint32_t layers = 1u << (i % 3);
    ASSERT_EQ(quadrant_tree_insert(ct, lo, hi, i, layers, nullptr), QUADRANT_OK) << quadrant_last_error();
    tree.insert(b, i, layers);
  }
  // The values each side reports, in order.
  auto c_query = [&](const quadrant_shape& s, std::uint32_t layers) {
    std::vector<std::uint64_t> out;
    const quadrant_status st = quadrant_tree_query(
        ct, &s, layers,
        [](void* user, quadrant_handle, std::uint64_t v) {
          static_cast<std::vector<std::uint64_t>*>(user)->push_back(v);
          return 1;
        },
        &out, nullptr);
    EXPECT_EQ(st, QUADRANT_OK) << quadrant_last_error();
    return out;
  };
  auto cpp_query = [&](const auto& shape, std::uint32_t layers) {
    std::vector<std::uint64_t> out;
    tree.query(shape, [&](const std::uint64_t& v) { out.push_back(v); }, layers);
    return out;
  };
  using V = quadrant::Vec<D, S>;
  auto point = [&](double lo, double hi, double* c) {
    V v;
    for (int a = 0; a < D; ++a) c[a] = static_cast<double>(v[a] = static_cast<S>(real(lo, hi)));
    return v;
  };
  std::size_t hits = 0, frustum_hits = 0;
  for (int round = 0; round < 25; ++round) {
    const std::uint32_t layers = round % 2 == 0 ? ~0u : 3u;
    double p[3], q[3];
    const V pv = point(-40, 140, p), qv = point(-40, 140, q);
    const S r = static_cast<S>(real(0, 30)), r2 = static_cast<S>(real(0, 30)), angle = static_cast<S>(real(-3, 3));
    // box, point, ball, segment
    double lo[3], hi[3];
    quadrant::Box<D, S> box;
    for (int a = 0; a < D; ++a) {
      lo[a] = std::min(p[a], q[a]), hi[a] = std::max(p[a], q[a]);
      box.min[a] = static_cast<S>(lo[a]), box.max[a] = static_cast<S>(hi[a]);
    }
    auto want = cpp_query(box, layers);
    hits += want.size();
    EXPECT_EQ(c_query(quadrant_shape_box(D, lo, hi), layers), want) << "box";
    EXPECT_EQ(c_query(quadrant_shape_point(D, p), layers), cpp_query(pv, layers)) << "point";
    if constexpr (D == 2) {
      EXPECT_EQ(c_query(quadrant_shape_ball(D, p, r), layers), cpp_query(quadrant::Circle<S>{pv, r}, layers)) << "circle";
    } else {
      EXPECT_EQ(c_query(quadrant_shape_ball(D, p, r), layers), cpp_query(quadrant::Sphere<S>{pv, r}, layers)) << "sphere";
    }
    EXPECT_EQ(c_query(quadrant_shape_segment(D, p, q), layers), cpp_query(quadrant::Segment<D, S>{pv, qv}, layers))
        << "segment";
    if constexpr (D == 2) {
      const S inner = std::min(r, r2), outer = std::max(r, r2);
      EXPECT_EQ(c_query(quadrant_shape_ring(p[0], p[1], inner, outer), layers),
                cpp_query(quadrant::Ring<S>{pv, inner, outer}, layers))
          << "ring";
      EXPECT_EQ(c_query(quadrant_shape_ellipse(p[0], p[1], r, r2, angle), layers),
                cpp_query(quadrant::Ellipse<S>{pv, {r, r2}, angle}, layers))
          << "ellipse";
      const S half = static_cast<S>(std::abs(angle));
      EXPECT_EQ(c_query(quadrant_shape_sector(p[0], p[1], q[0] - p[0], q[1] - p[1], r * 2, half), layers),
                cpp_query(quadrant::Sector<S>{pv, qv - pv, r * 2, half}, layers))
          << "sector";
      EXPECT_EQ(c_query(quadrant_shape_oriented_box(p[0], p[1], r, r2, angle), layers),
                cpp_query(quadrant::OrientedBox<S>{pv, {r, r2}, angle}, layers))
          << "oriented box";
      // A convex polygon: a regular pentagon around p.
      std::vector<double> xy;
      std::vector<quadrant::Vec<2, S>> outline;
      for (int k = 0; k < 5; ++k) {
        const double t = angle + k * 2 * std::numbers::pi / 5;
        const S x = static_cast<S>(p[0] + r * std::cos(t)), y = static_cast<S>(p[1] + r * std::sin(t));
        xy.push_back(x), xy.push_back(y);
        outline.push_back({x, y});
      }
      EXPECT_EQ(c_query(quadrant_shape_polygon(xy.data(), 5), layers),
                cpp_query(quadrant::ConvexPolygon<S>(std::span<const quadrant::Vec<2, S>>(outline)), layers))
          << "polygon";
    } else {
      // A perspective camera at p looking along +x (column-major), both clip conventions and layouts.
      const double f = 1 / std::tan(0.6), n = 1, far = 40 + r;
      double m[16] = {};
      // view: translate by -p, then the axes x -> -z (look along +x): rows of the view matrix.
      const double view[4][4] = {{0, 1, 0, -p[1]}, {0, 0, 1, -p[2]}, {-1, 0, 0, p[0]}, {0, 0, 0, 1}};
      const double proj[4][4] = {{f, 0, 0, 0}, {0, f, 0, 0}, {0, 0, (far + n) / (n - far), 2 * far * n / (n - far)}, {0, 0, -1, 0}};
      for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col) {
          double v = 0;
          for (int k = 0; k < 4; ++k) v += proj[row][k] * view[k][col];
          m[4 * col + row] = v;
        }
      S ms[16];
      for (int i = 0; i < 16; ++i) ms[i] = static_cast<S>(m[i]);
      const auto frustum = quadrant::Frustum<S>::from_view_projection(ms, quadrant::MatrixLayout::ColumnMajor,
                                                                       quadrant::ClipDepth::MinusOneToOne);
      auto fw = cpp_query(frustum, layers);
      frustum_hits += fw.size();
      EXPECT_EQ(c_query(quadrant_shape_frustum(m, 0, 0), layers), fw) << "frustum";
      double t[16];
      for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col) t[4 * row + col] = m[4 * col + row];
      EXPECT_EQ(c_query(quadrant_shape_frustum(t, 1, 0), layers), fw) << "frustum, row-major";
    }
    // Ray casts: values and fractions in order.
    std::vector<std::pair<std::uint64_t, double>> cr, pr;
    ASSERT_EQ(quadrant_tree_raycast(
                  ct, p, q, layers,
                  [](void* user, quadrant_handle, std::uint64_t v, double t) {
                    static_cast<std::vector<std::pair<std::uint64_t, double>>*>(user)->emplace_back(v, t);
                    return 1;
                  },
                  &cr),
              QUADRANT_OK);
    tree.raycast(quadrant::Segment<D, S>{pv, qv},
                 [&](quadrant::Handle, const std::uint64_t& v, S t) { pr.emplace_back(v, static_cast<double>(t)); },
                 layers);
    EXPECT_EQ(cr, pr) << "raycast";
    // The same into arrays: all of them, and the first alone.
    {
      std::vector<quadrant_handle> rh(pr.size() + 1);
      std::vector<std::uint64_t> rv(pr.size() + 1);
      std::vector<double> rt(pr.size() + 1);
      std::size_t n = 99;
      ASSERT_EQ(quadrant_tree_raycast_into(ct, p, q, layers, rh.data(), rv.data(), rt.data(), rh.size(), &n),
                QUADRANT_OK);
      ASSERT_EQ(n, pr.size());
      for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(std::make_pair(rv[k], rt[k]), pr[k]) << "raycast_into";
      ASSERT_EQ(quadrant_tree_raycast_into(ct, p, q, layers, nullptr, rv.data(), nullptr, 1, &n), QUADRANT_OK);
      EXPECT_EQ(n, pr.empty() ? 0u : 1u);
      if (!pr.empty()) {
        EXPECT_EQ(rv[0], pr[0].first) << "raycast_into, the first hit";
      }
    }
    // The leaves a box touches, into an array, as the callback gives them.
    {
      const quadrant_shape window = quadrant_shape_box(D, p, p);
      std::vector<std::uint32_t> by_fn;
      ASSERT_EQ(quadrant_tree_query_nodes(
                    ct, &window, 0,
                    [](void* user, const quadrant_node* n) {
                      static_cast<std::vector<std::uint32_t>*>(user)->push_back(n->id);
                      return 1;
                    },
                    &by_fn),
                QUADRANT_OK);
      std::vector<quadrant_node> nodes(by_fn.size());
      std::size_t n = 0;
      ASSERT_EQ(quadrant_tree_query_nodes_into(ct, &window, 0, nodes.data(), nodes.size(), &n), QUADRANT_OK);
      ASSERT_EQ(n, by_fn.size());
      for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(nodes[k].id, by_fn[k]) << "query_nodes_into";
      std::size_t expected = 0;
      tree.query_nodes(pv, [&](const quadrant::NodeView<D, S>&) { ++expected; }, false);
      EXPECT_EQ(n, expected) << "query_nodes against the C++ tree";
    }
    // Nearest 7.
    quadrant_handle hs[7];
    double dist[7];
    std::size_t count = 0;
    ASSERT_EQ(quadrant_tree_nearest(ct, p, 7, INFINITY, layers, hs, dist, &count), QUADRANT_OK);
    const auto nn = tree.nearest(pv, 7, std::numeric_limits<S>::infinity(), layers);
    ASSERT_EQ(count, nn.size());
    for (std::size_t k = 0; k < count; ++k) {
      std::uint64_t v = 0;
      ASSERT_EQ(quadrant_tree_value(ct, hs[k], &v), QUADRANT_OK);
      EXPECT_EQ(v, tree.value(nn[k].handle));
      EXPECT_EQ(dist[k], static_cast<double>(nn[k].distance));
    }
  }
  EXPECT_GT(hits, 100u);  // the windows found something
  if constexpr (D == 3) {
    EXPECT_GT(frustum_hits, 20u);
  }
  // Pairs, in order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> cp, pp;
  ASSERT_EQ(quadrant_tree_pairs(
                ct, ~0u,
                [](void* user, quadrant_handle, std::uint64_t a, quadrant_handle, std::uint64_t b) {
                  static_cast<std::vector<std::pair<std::uint64_t, std::uint64_t>>*>(user)->emplace_back(a, b);
                  return 1;
                },
                &cp),
            QUADRANT_OK);
  tree.for_each_pair([&](const std::uint64_t& a, const std::uint64_t& b) { pp.emplace_back(a, b); });
  EXPECT_EQ(cp, pp) << "pairs";
  EXPECT_GT(pp.size(), 50u);
  // Two trees: the C tree against a second C tree of the other placement; a tree of another kind is refused.
  quadrant_config oc = cc;
  oc.placement = cc.placement == QUADRANT_LOOSE ? QUADRANT_PARENT : QUADRANT_LOOSE;
  quadrant_tree* other = nullptr;
  ASSERT_EQ(quadrant_tree_create(&oc, &other), QUADRANT_OK);
  quadrant::Config<D, S> config2 = config;
  config2.placement = oc.placement == QUADRANT_LOOSE ? Placement::Loose : Placement::Parent;
  quadrant::Tree<D, std::uint64_t, S> tree2(config2);
  for (std::uint64_t i = 0; i < 100; ++i) {
    double lo[3], hi[3];
    quadrant::Box<D, S> b;
    for (int a = 0; a < D; ++a) {
      lo[a] = static_cast<double>(static_cast<S>(real(-40, 140)));
      hi[a] = static_cast<double>(static_cast<S>(lo[a] + real(0, 8) * (D == 3 ? 3 : 1)));
      b.min[a] = static_cast<S>(lo[a]), b.max[a] = static_cast<S>(hi[a]);
    }
    ASSERT_EQ(quadrant_tree_insert(other, lo, hi, 1000 + i, ~0u, nullptr), QUADRANT_OK);
    tree2.insert(b, 1000 + i);
  }
  std::set<std::pair<std::uint64_t, std::uint64_t>> c2, p2;
  ASSERT_EQ(quadrant_trees_pairs(
                ct, other, ~0u, ~0u,
                [](void* user, quadrant_handle, std::uint64_t a, quadrant_handle, std::uint64_t b) {
                  static_cast<std::set<std::pair<std::uint64_t, std::uint64_t>>*>(user)->emplace(a, b);
                  return 1;
                },
                &c2),
            QUADRANT_OK);
  quadrant::for_each_pair(tree, tree2, [&](const std::uint64_t& a, const std::uint64_t& b) { p2.emplace(a, b); });
  EXPECT_EQ(c2, p2) << "two-tree pairs";
  {
    std::vector<quadrant_handle> flat(2 * p2.size());
    std::size_t n = 0;
    ASSERT_EQ(quadrant_trees_pairs_into(ct, other, ~0u, ~0u, flat.data(), p2.size(), &n), QUADRANT_OK);
    ASSERT_EQ(n, p2.size());
    std::set<std::pair<std::uint64_t, std::uint64_t>> c3;
    for (std::size_t k = 0; k < n; ++k) {
      std::uint64_t va = 0, vb = 0;
      ASSERT_EQ(quadrant_tree_value(ct, flat[2 * k], &va), QUADRANT_OK);
      ASSERT_EQ(quadrant_tree_value(other, flat[2 * k + 1], &vb), QUADRANT_OK);
      c3.emplace(va, vb);
    }
    EXPECT_EQ(c3, p2) << "two-tree pairs into an array";
  }
  EXPECT_GT(p2.size(), 10u);
  quadrant_config wrong;
  quadrant_config_init(&wrong, D == 2 ? 3 : 2, cc.scalar);
  quadrant_tree* w = nullptr;
  ASSERT_EQ(quadrant_tree_create(&wrong, &w), QUADRANT_OK);
  EXPECT_EQ(quadrant_trees_pairs(ct, w, ~0u, ~0u, [](void*, quadrant_handle, std::uint64_t, quadrant_handle, std::uint64_t) { return 1; }, nullptr),
            QUADRANT_INVALID_ARGUMENT);
  EXPECT_EQ(quadrant_trees_pairs(ct, ct, ~0u, ~0u, [](void*, quadrant_handle, std::uint64_t, quadrant_handle, std::uint64_t) { return 1; }, nullptr),
            QUADRANT_INVALID_ARGUMENT);
  quadrant_tree_destroy(w);
  quadrant_tree_destroy(other);
  // Stats agree.
  quadrant_stats cs;
  ASSERT_EQ(quadrant_tree_stats(ct, &cs), QUADRANT_OK);
  const quadrant::Stats s = tree.stats();
  EXPECT_EQ(cs.nodes, s.nodes);
  EXPECT_EQ(cs.objects, s.objects);
  EXPECT_EQ(cs.depth, s.depth);
  quadrant_tree_destroy(ct);
}

TEST(CApiParity, EveryShapeAndWalk2DFloat) {
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) check_parity<2, float>(p, 1);
}
TEST(CApiParity, EveryShapeAndWalk2DDouble) {
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) check_parity<2, double>(p, 2);
}
TEST(CApiParity, EveryShapeAndWalk3DFloat) {
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) check_parity<3, float>(p, 3);
}
TEST(CApiParity, EveryShapeAndWalk3DDouble) {
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) check_parity<3, double>(p, 4);
}

// quadrant_tree_assign builds what the C++ Tree::assign builds from the same items: the same handles, values,
// layers and boxes, and every box query answers the same objects in the same order; a bad item is named and
// leaves the tree as it was.
template <int D, class S>
void check_assign(Placement placement, std::uint32_t seed) {
  SCOPED_TRACE((trace<D, S>(placement)));
  std::mt19937 rng(seed);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const Configs<D, S> configs(placement, 0, 100, 5);
  const quadrant_config& cc = configs.c;
  const quadrant::Config<D, S>& config = configs.cpp;
  quadrant_tree* ct = nullptr;
  ASSERT_EQ(quadrant_tree_create(&cc, &ct), QUADRANT_OK) << quadrant_last_error();
  quadrant::Tree<D, std::uint64_t, S> tree(config);
  const std::size_t n = 500;
  std::vector<double> mins(n * D), maxs(n * D);
  std::vector<std::uint64_t> values(n);
  std::vector<std::uint32_t> layers(n);
  std::vector<std::tuple<quadrant::Box<D, S>, std::uint64_t, std::uint32_t>> items(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& [b, v, l] = items[i];
    const double side = real(0, 1) < 0.1 ? real(5, 20) : real(0, 3);
    for (int a = 0; a < D; ++a) {
      mins[i * D + a] = static_cast<double>(b.min[a] = static_cast<S>(real(-5, 105)));
      maxs[i * D + a] = static_cast<double>(b.max[a] = static_cast<S>(mins[i * D + a] + side));
    }
    values[i] = v = 1000 + i * 7;
    layers[i] = l = 1u << (i % 4);
  }
  // Something to replace first: assign drops it.
  const double lo[3] = {1, 1, 1}, hi[3] = {2, 2, 2};
  quadrant_handle old = 0;
  ASSERT_EQ(quadrant_tree_insert(ct, lo, hi, 5, ~0u, &old), QUADRANT_OK);
  std::vector<quadrant_handle> handles(n);
  ASSERT_EQ(quadrant_tree_assign(ct, mins.data(), maxs.data(), values.data(), layers.data(), n, handles.data()),
            QUADRANT_OK)
      << quadrant_last_error();
  const std::vector<quadrant::Handle> want = tree.assign(items);
  EXPECT_EQ(quadrant_tree_contains(ct, old), 0);
  ASSERT_EQ(quadrant_tree_size(ct), n);
  ASSERT_EQ(quadrant_tree_validate(ct), QUADRANT_OK) << quadrant_last_error();
  for (std::size_t i = 0; i < n; ++i) {
    // The C handle is slot + 1 below, generation above.
    EXPECT_EQ(handles[i] & 0xffffffffu, want[i].index() + 1u);
    std::uint64_t v = 0;
    std::uint32_t l = 0;
    double bmin[3], bmax[3];
    ASSERT_EQ(quadrant_tree_value(ct, handles[i], &v), QUADRANT_OK);
    ASSERT_EQ(quadrant_tree_layers(ct, handles[i], &l), QUADRANT_OK);
    ASSERT_EQ(quadrant_tree_bounds(ct, handles[i], bmin, bmax), QUADRANT_OK);
    EXPECT_EQ(v, values[i]);
    EXPECT_EQ(l, layers[i]);
    for (int a = 0; a < D; ++a) {
      EXPECT_EQ(bmin[a], mins[i * D + a]);
      EXPECT_EQ(bmax[a], maxs[i * D + a]);
    }
  }
  for (int round = 0; round < 40; ++round) {
    double qlo[3], qhi[3];
    quadrant::Box<D, S> q;
    for (int a = 0; a < D; ++a) {
      const double x = real(-10, 100), w = real(0, 30);
      qlo[a] = static_cast<double>(q.min[a] = static_cast<S>(x));
      qhi[a] = static_cast<double>(q.max[a] = static_cast<S>(x + w));
    }
    std::vector<std::uint64_t> got(n), expect;
    std::size_t count = 0;
    const quadrant_shape shape = quadrant_shape_box(D, qlo, qhi);
    ASSERT_EQ(quadrant_tree_query_into(ct, &shape, ~0u, nullptr, got.data(), n, &count), QUADRANT_OK);
    got.resize(count);
    const quadrant::QueryStats want_stats = tree.query(q, [&](const std::uint64_t& v) { expect.push_back(v); });
    EXPECT_EQ(got, expect);
    // The array form with the walk's counts: those of the C++ walk.
    quadrant_query_stats stats{};
    std::size_t again = 0;
    ASSERT_EQ(quadrant_tree_query_into_stats(ct, &shape, ~0u, nullptr, nullptr, 0, &again, &stats), QUADRANT_OK);
    EXPECT_EQ(again, count);
    EXPECT_EQ(stats.nodes_visited, want_stats.nodes_visited);
    EXPECT_EQ(stats.box_tests, want_stats.box_tests);
    EXPECT_EQ(stats.hits, count);
  }
  // Values and layers may be left out: values become the items' indices, layers every layer.
  quadrant_tree* plain = nullptr;
  ASSERT_EQ(quadrant_tree_create(&cc, &plain), QUADRANT_OK);
  ASSERT_EQ(quadrant_tree_assign(plain, mins.data(), maxs.data(), nullptr, nullptr, n, handles.data()), QUADRANT_OK);
  for (std::size_t i = 0; i < n; i += 37) {
    std::uint64_t v = 0;
    std::uint32_t l = 0;
    ASSERT_EQ(quadrant_tree_value(plain, handles[i], &v), QUADRANT_OK);
    ASSERT_EQ(quadrant_tree_layers(plain, handles[i], &l), QUADRANT_OK);
    EXPECT_EQ(v, i);
    EXPECT_EQ(l, ~0u);
  }
  quadrant_tree_destroy(plain);
  // A bad item is named, and nothing changes: not the objects, not their handles.
  ASSERT_EQ(quadrant_tree_assign(ct, mins.data(), maxs.data(), values.data(), layers.data(), n, handles.data()),
            QUADRANT_OK);
  for (int bad = 0; bad < 3; ++bad) {
    std::vector<double> bmins = mins, bmaxs = maxs;
    std::vector<std::uint32_t> blayers = layers;
    if (bad == 0) bmins[17 * D + 1] = std::numeric_limits<double>::quiet_NaN();
    if (bad == 1) bmaxs[17 * D] = bmins[17 * D] - 1;
    if (bad == 2) blayers[17] = 0;
    std::vector<quadrant_handle> bh(n, 0);
    EXPECT_EQ(quadrant_tree_assign(ct, bmins.data(), bmaxs.data(), values.data(), blayers.data(), n, bh.data()),
              QUADRANT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(quadrant_last_error()).find("item 17"), std::string::npos) << quadrant_last_error();
    ASSERT_EQ(quadrant_tree_size(ct), n);
    for (std::size_t i = 0; i < n; i += 11) EXPECT_EQ(quadrant_tree_contains(ct, handles[i]), 1);
    EXPECT_EQ(quadrant_tree_validate(ct), QUADRANT_OK);
  }
  EXPECT_EQ(quadrant_tree_assign(ct, nullptr, maxs.data(), nullptr, nullptr, n, nullptr), QUADRANT_INVALID_ARGUMENT);
  EXPECT_EQ(quadrant_tree_size(ct), n);
  // Zero objects empties the tree.
  ASSERT_EQ(quadrant_tree_assign(ct, nullptr, nullptr, nullptr, nullptr, 0, nullptr), QUADRANT_OK);
  EXPECT_EQ(quadrant_tree_size(ct), 0u);
  EXPECT_EQ(quadrant_tree_contains(ct, handles[0]), 0);
  quadrant_tree_destroy(ct);
}

// quadrant_tree_rebuild re-roots as Tree::rebuild does: the same answers, nothing outside the new world, the
// config's world updated, handles kept; a bad world changes nothing.
template <int D, class S>
void check_rebuild(Placement placement, std::uint32_t seed) {
  SCOPED_TRACE((trace<D, S>(placement)));
  std::mt19937 rng(seed);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const Configs<D, S> configs(placement, 0, 25, 5);  // a world far smaller than the scene's [0, 100]
  quadrant_tree* ct = nullptr;
  ASSERT_EQ(quadrant_tree_create(&configs.c, &ct), QUADRANT_OK);
  quadrant::Tree<D, std::uint64_t, S> tree(configs.cpp);
  std::vector<quadrant_handle> handles;
  for (std::uint64_t i = 0; i < 300; ++i) {
    double lo[3], hi[3];
    quadrant::Box<D, S> b;
    for (int a = 0; a < D; ++a) {
      lo[a] = static_cast<double>(b.min[a] = static_cast<S>(real(0, 100)));
      hi[a] = static_cast<double>(b.max[a] = static_cast<S>(lo[a] + real(0, 4)));
    }
    handles.emplace_back();
    ASSERT_EQ(quadrant_tree_insert(ct, lo, hi, i, ~0u, &handles.back()), QUADRANT_OK);
    tree.insert(b, i);
  }
  quadrant_stats st;
  ASSERT_EQ(quadrant_tree_stats(ct, &st), QUADRANT_OK);
  ASSERT_GT(st.outside_world, 200u);
  const double bad_min[3] = {0, 0, 0}, bad_max[3] = {-1, 100, 100};
  EXPECT_EQ(quadrant_tree_rebuild(ct, bad_min, bad_max), QUADRANT_INVALID_ARGUMENT);
  EXPECT_EQ(quadrant_tree_rebuild(ct, nullptr, bad_max), QUADRANT_INVALID_ARGUMENT);
  quadrant_config after;
  ASSERT_EQ(quadrant_tree_config(ct, &after), QUADRANT_OK);
  EXPECT_EQ(after.world_max[0], 25);
  const double wmin[3] = {-10, -10, -10}, wmax[3] = {110, 110, 110};
  ASSERT_EQ(quadrant_tree_rebuild(ct, wmin, wmax), QUADRANT_OK) << quadrant_last_error();
  quadrant::Box<D, S> w;
  for (int a = 0; a < D; ++a) w.min[a] = S(-10), w.max[a] = S(110);
  tree.rebuild(w);
  ASSERT_EQ(quadrant_tree_validate(ct), QUADRANT_OK);
  ASSERT_EQ(quadrant_tree_stats(ct, &st), QUADRANT_OK);
  EXPECT_EQ(st.outside_world, 0u);
  ASSERT_EQ(quadrant_tree_config(ct, &after), QUADRANT_OK);
  for (int a = 0; a < D; ++a) EXPECT_EQ(after.world_max[a], 110);
  for (std::size_t i = 0; i < handles.size(); ++i) {
    std::uint64_t v = 0;
    ASSERT_EQ(quadrant_tree_value(ct, handles[i], &v), QUADRANT_OK);
    EXPECT_EQ(v, i);
  }
  for (int round = 0; round < 30; ++round) {
    double qlo[3], qhi[3];
    quadrant::Box<D, S> q;
    for (int a = 0; a < D; ++a) {
      qlo[a] = static_cast<double>(q.min[a] = static_cast<S>(real(-5, 100)));
      qhi[a] = static_cast<double>(q.max[a] = static_cast<S>(qlo[a] + real(0, 30)));
    }
    std::vector<std::uint64_t> got(300), want;
    std::size_t count = 0;
    const quadrant_shape shape = quadrant_shape_box(D, qlo, qhi);
    ASSERT_EQ(quadrant_tree_query_into(ct, &shape, ~0u, nullptr, got.data(), got.size(), &count), QUADRANT_OK);
    got.resize(count);
    tree.query(q, [&](const std::uint64_t& v) { want.push_back(v); });
    EXPECT_EQ(got, want);
  }
  quadrant_tree_destroy(ct);
}

TEST(CApiParity, RebuildReRootsAsTheTreeDoes) {
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    check_rebuild<2, float>(p, 21);
    check_rebuild<3, double>(p, 22);
  }
}

TEST(CApiParity, AssignBuildsWhatTheTreeBuilds) {
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    check_assign<2, float>(p, 11);
    check_assign<2, double>(p, 12);
    check_assign<3, float>(p, 13);
    check_assign<3, double>(p, 14);
  }
}

}  // namespace
