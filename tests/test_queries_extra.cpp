// SPDX-License-Identifier: MIT
// quadrant — focused tests for query behaviour that the randomized oracle (test_queries) reaches only by chance:
// exact boundaries (a node at exactly max_distance, points on shared cell faces, equal keys in two leaves that
// list the same object) and the pruning promises of docs/queries.md (layer-less subtrees skipped by rays and
// nearest searches, objects of subtrees inside the query not tested). Every expectation is computed here by brute
// force or from the geometry of the cells, never copied from the implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <quadrant/quadrant.hpp>

namespace {

using namespace quadrant;
using V2 = Vec<2, float>;
using B2 = Box<2, float>;

Config<2, float> config2(Placement placement, int max_depth, int split_threshold) {
  Config<2, float> cfg;
  cfg.world = B2{{-50, -50}, {50, 50}};
  cfg.max_depth = max_depth;
  cfg.split_threshold = split_threshold;
  cfg.placement = placement;
  return cfg;
}

struct Obj {
  Handle h;
  B2 box;
  std::uint32_t layers;
};

// The oracle's own point-to-box distance, squared.
float dist2(const V2& p, const B2& b) {
  float s = 0;
  for (int i = 0; i < 2; ++i) {
    float d = 0;
    if (p[i] < b.min[i]) d = b.min[i] - p[i];
    else if (p[i] > b.max[i]) d = p[i] - b.max[i];
    s += d * d;
  }
  return s;
}

std::vector<std::pair<float, std::uint32_t>> brute_nearest(const std::vector<Obj>& objs, const V2& p, float max_d,
                                                           std::uint32_t mask) {
  std::vector<std::pair<float, std::uint32_t>> all;
  for (const Obj& o : objs)
    if ((o.layers & mask) != 0 && dist2(p, o.box) <= max_d * max_d) all.emplace_back(dist2(p, o.box), o.h.index());
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<std::pair<float, std::uint32_t>> brute_ray(const std::vector<Obj>& objs, const Segment<2, float>& s,
                                                       std::uint32_t mask) {
  std::vector<std::pair<float, std::uint32_t>> all;
  for (const Obj& o : objs)
    if ((o.layers & mask) != 0)
      if (const auto t = entry_fraction(s, o.box)) all.emplace_back(*t, o.h.index());
  std::sort(all.begin(), all.end());
  return all;
}

template <class Tr>
std::vector<std::pair<float, std::uint32_t>> tree_nearest(const Tr& tree, const V2& p, float max_d,
                                                          std::uint32_t mask = ~0u) {
  std::vector<std::pair<float, std::uint32_t>> got;
  for (const Neighbor<float>& n : tree.nearest(p, 1000, max_d, mask))
    got.emplace_back(n.distance * n.distance, n.handle.index());
  return got;
}

std::vector<std::uint32_t> ids(const std::vector<std::pair<float, std::uint32_t>>& v) {
  std::vector<std::uint32_t> out;
  for (const auto& [k, id] : v) out.push_back(id);
  return out;
}

// A node whose bounds lie exactly at max_distance from the point must still be entered: max_distance is inclusive
// and the object inside it, touching the node's face, is exactly at max_distance.
TEST(QueriesExtra, NearestEntersANodeExactlyAtMaxDistance) {
  for (Placement placement : {Placement::Parent, Placement::Leaves}) {
    SCOPED_TRACE(to_string(placement));
    QuadTree<int> tree(config2(placement, 4, 1));
    std::vector<Obj> objs;
    auto add = [&](const B2& b) { objs.push_back({tree.insert(b, 0), b, ~0u}); };
    add(B2{{0, 20}, {5, 25}});        // in the cell [0, 50] x [0, 50]; its left face is x = 0
    add(B2{{-40, -40}, {-35, -35}});  // elsewhere, so that the root splits
    add(B2{{-30, 30}, {-28, 32}});
    tree.validate();
    const V2 p{-10, 22};
    const float max_d = 10;
    // The setting this test is about: the object is listed by a node other than the root whose bounds are at
    // exactly max_distance from p (its distance from p is max_distance too).
    bool exercised = false;
    tree.for_each_node([&](const NodeView<2, float>& v) {
      for (const auto& e : v.items)
        if (e.handle.index() == objs[0].h.index() && v.id != 0 && distance_squared(p, v.bounds) == max_d * max_d)
          exercised = true;
    });
    ASSERT_TRUE(exercised);
    const auto expected = brute_nearest(objs, p, max_d, ~0u);
    ASSERT_EQ(expected.size(), 1u);
    EXPECT_EQ(ids(tree_nearest(tree, p, max_d)), ids(expected));
    int calls = 0;
    tree.for_each_nearest(p, [&](Handle h, const int&, float d) {
      ++calls;
      EXPECT_EQ(h.index(), objs[0].h.index());
      EXPECT_EQ(d, max_d);
    }, max_d);
    EXPECT_EQ(calls, 1);
  }
}

// locate on grid lines of a full tree: a point on a face shared by two cells belongs to the upper cell, except on
// the world's upper faces. The expected leaf is found from the cells alone.
TEST(QueriesExtra, LocateOnSharedFacesPicksTheUpperCell) {
  for (Placement placement : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    SCOPED_TRACE(to_string(placement));
    QuadTree<int> tree(config2(placement, 3, 0));  // cells 12.5 wide
    const B2 world = tree.config().world;
    int checked = 0;
    for (int ix = 0; ix <= 16; ++ix)
      for (int iy = 0; iy <= 16; ++iy) {
        const V2 p{-50 + 6.25f * static_cast<float>(ix), -50 + 6.25f * static_cast<float>(iy)};  // grid lines and cell middles
        std::vector<std::uint32_t> owners;
        tree.for_each_node([&](const NodeView<2, float>& v) {
          if (!v.leaf) return;
          for (int i = 0; i < 2; ++i) {
            if (p[i] < v.cell.min[i] || p[i] > v.cell.max[i]) return;
            if (p[i] == v.cell.max[i] && v.cell.max[i] != world.max[i]) return;
          }
          owners.push_back(v.id);
        });
        ASSERT_EQ(owners.size(), 1u);
        EXPECT_EQ(tree.locate(p).id, owners.front()) << "(" << p.x << ", " << p.y << ")";
        const NodeView<2, float> v = tree.locate(p);
        for (int i = 0; i < 2; ++i) {  // the upper cell: p is its min corner coordinate unless on the world's top
          if (p[i] != world.max[i]) {
            EXPECT_LE(v.cell.min[i], p[i]);
            EXPECT_LT(p[i], v.cell.max[i]);
          }
        }
        ++checked;
      }
    EXPECT_EQ(checked, 17 * 17);
  }
}

// Under Leaves an object listed by two leaves that are at the same key (same distance, same entry fraction) must
// still be reported once: here the query point and the ray lie on the face y = 0 shared by the two leaves.
TEST(QueriesExtra, LeavesEqualKeysInTwoLeavesReportOnce) {
  QuadTree<int> tree(config2(Placement::Leaves, 2, 0));  // full tree, cells 25 wide
  std::vector<Obj> objs;
  auto add = [&](const B2& b) { objs.push_back({tree.insert(b, 0), b, ~0u}); };
  add(B2{{10, -5}, {20, 5}});     // listed by [0, 25] x [-25, 0] and [0, 25] x [0, 25]
  add(B2{{60, -5}, {70, 5}});     // outside the world, listed by the two leaves at x in [25, 50] beside y = 0
  add(B2{{-20, -3}, {-12, 4}});   // on the left, across y = 0 too
  add(B2{{-40, 30}, {-35, 35}});  // a bystander
  tree.validate();
  // The premise: each of the first three objects is listed by two leaves that meet along y = 0.
  for (int k = 0; k < 3; ++k) {
    int listed = 0;
    tree.for_each_node([&](const NodeView<2, float>& v) {
      for (const auto& e : v.items) listed += e.handle.index() == objs[static_cast<std::size_t>(k)].h.index();
    });
    ASSERT_EQ(listed, 2) << "object " << k;
  }
  for (const V2 p : {V2{40, 0}, V2{80, 0}, V2{-45, 0}, V2{0, 0}}) {
    SCOPED_TRACE(::testing::Message() << "point (" << p.x << ", " << p.y << ")");
    EXPECT_EQ(ids(tree_nearest(tree, p, std::numeric_limits<float>::infinity())),
              ids(brute_nearest(objs, p, std::numeric_limits<float>::infinity(), ~0u)));
  }
  for (const Segment<2, float> s : {Segment<2, float>{{40, 0}, {-40, 0}}, Segment<2, float>{{90, 0}, {-49, 0}},
                                    Segment<2, float>{{-49, 0}, {90, 0}}}) {
    std::vector<std::pair<float, std::uint32_t>> got;
    tree.raycast(s, [&](Handle h, const int&, float t) { got.emplace_back(t, h.index()); });
    EXPECT_EQ(got, brute_ray(objs, s, ~0u)) << "ray from x = " << s.a.x << " to x = " << s.b.x;
  }
}

// docs/queries.md, Layers: "a subtree without the layer is skipped whole" — for rays and nearest searches too. A
// walk can only enter a node whose subtree holds the layer, so it enters at most as many nodes as hold it (and,
// for a ray, whose bounds the segment crosses).
TEST(QueriesExtra, RaysAndNearestSkipSubtreesWithoutTheLayer) {
  for (Placement placement : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    SCOPED_TRACE(to_string(placement));
    QuadTree<int> tree(config2(placement, 6, 2));
    std::vector<Obj> objs;
    for (int i = 0; i < 40; ++i)
      for (int j = 0; j < 8; ++j) {
        const float x = -48 + 2.4f * static_cast<float>(i), y = -45 + 11.5f * static_cast<float>(j);
        const B2 b{{x, y}, {x + 0.8f, y + 0.8f}};
        const std::uint32_t layer = x < 0 ? 1u : 2u;  // layer 1 on the left, layer 2 on the right
        objs.push_back({tree.insert(b, 0, layer), b, layer});
      }
    tree.validate();
    for (std::uint32_t mask : {1u, 2u}) {
      SCOPED_TRACE(::testing::Message() << "mask " << mask);
      const Segment<2, float> s{{-49, -20.3f}, {49, 21.7f}};
      std::size_t with_layer = 0, crossed_with_layer = 0;
      tree.for_each_node([&](const NodeView<2, float>& v) {
        if (v.count == 0 || (v.layers & mask) == 0) return;
        ++with_layer;
        if (entry_fraction(s, v.bounds)) ++crossed_with_layer;
      });
      ASSERT_LT(with_layer, static_cast<std::size_t>(tree.stats().nodes));  // some subtrees lack the layer
      std::vector<std::pair<float, std::uint32_t>> got;
      const QueryStats rs = tree.raycast(s, [&](Handle h, const int&, float t) { got.emplace_back(t, h.index()); }, mask);
      EXPECT_EQ(got, brute_ray(objs, s, mask));
      EXPECT_LE(rs.nodes_visited, crossed_with_layer);
      std::size_t seen = 0;
      const QueryStats ns = tree.for_each_nearest(V2{0.5f, 0.5f}, [&](Handle, const int&, float) { ++seen; },
                                                  std::numeric_limits<float>::infinity(), mask);
      EXPECT_EQ(seen, brute_nearest(objs, V2{0.5f, 0.5f}, std::numeric_limits<float>::infinity(), mask).size());
      EXPECT_LE(ns.nodes_visited, with_layer);
    }
  }
}

// docs/queries.md: under Loose and Parent the objects of a subtree whose bounds lie inside the shape are reported
// without being tested. So the box tests are at most the entries of the nodes whose bounds are not inside it.
TEST(QueriesExtra, ObjectsOfInsideSubtreesAreNotTested) {
  for (Placement placement : {Placement::Loose, Placement::Parent}) {
    SCOPED_TRACE(to_string(placement));
    QuadTree<int> tree(config2(placement, 6, 4));
    std::vector<Obj> objs;
    for (int i = 0; i < 30; ++i)
      for (int j = 0; j < 30; ++j) {
        const float x = -47 + 3.1f * static_cast<float>(i), y = -46 + 3.05f * static_cast<float>(j);
        const B2 b{{x, y}, {x + 1, y + 1}};
        objs.push_back({tree.insert(b, 0), b, ~0u});
      }
    tree.validate();
    for (const B2 q : {B2{{-30, -30}, {30, 30}}, B2{{-1000, -1000}, {1000, 1000}}, B2{{-12.5f, 0}, {37.5f, 50}}}) {
      std::size_t untested_bound = 0, inside_entries = 0;
      tree.for_each_node([&](const NodeView<2, float>& v) {
        if (v.id != 0 && contains(q, v.bounds)) inside_entries += v.items.size();
        else untested_bound += v.items.size();
      });
      ASSERT_GT(inside_entries, 0u);  // the shortcut has something to skip
      std::vector<std::uint32_t> got, expected;
      const QueryStats st = tree.query(q, [&](Handle h, const int&) { got.push_back(h.index()); });
      for (const Obj& o : objs)
        if (overlaps(q, o.box)) expected.push_back(o.h.index());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, expected);
      EXPECT_LE(st.box_tests, untested_bound);
    }
  }
}

// query_nodes reports exactly the leaves whose cells overlap the shape. For shapes whose classify is conservative
// near the boundary (the sector's corners where the arc meets an edge, the ellipse's margin), a Crossing cell may
// still miss the shape: it must be tested, not reported. Compared with overlaps(shape, cell) over a fine grid.
TEST(QueriesExtra, NodeQueriesTestCrossingCells) {
  QuadTree<int> tree(config2(Placement::Loose, 5, 0));  // full tree, cells 3.125 wide
  std::mt19937 gen(12345);
  auto real = [&](double lo, double hi) { return static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(gen)); };
  auto check = [&](const auto& shape, const char* what, int round) {
    std::vector<std::uint32_t> got, expected;
    tree.query_nodes(shape, [&](const NodeView<2, float>& v) { got.push_back(v.id); }, false);
    tree.for_each_node([&](const NodeView<2, float>& v) {
      if (v.leaf && overlaps(shape, v.cell)) expected.push_back(v.id);
    });
    EXPECT_EQ(got, expected) << what << " #" << round;
  };
  // A wide fan (half angle 2.48) whose classify answers Crossing for the cell [-6.25, -3.125] x [-40.625, -37.5],
  // which the fan misses (found by search; overlaps(sector, cell) is the exact test).
  check(Sector<float>{V2{6.93767357f, -25.1200886f}, V2{0.624645054f, 0.17169483f}, 16.1733131f, 2.48414826f},
        "wide sector", -1);
  for (int round = 0; round < 200; ++round) {
    const V2 c{real(-40, 40), real(-40, 40)};
    const float half_angles[] = {real(0.05, 0.6), real(0.6, 1.5), real(1.6, 3.1)};
    check(Sector<float>{c, V2{real(-1, 1), real(-1, 1) + 0.01f}, real(5, 30), half_angles[round % 3]}, "sector", round);
    check(Ellipse<float>{c, V2{real(1, 25), real(0.5, 25)}, real(-4, 4)}, "ellipse", round);
    check(OrientedBox<float>{c, V2{real(0.5, 20), real(0.5, 20)}, real(-4, 4)}, "oriented box", round);
    const float inner = real(0, 15);
    check(Ring<float>{c, inner, inner + real(0, 15)}, "ring", round);
    check(Segment<2, float>{c, V2{real(-50, 50), real(-50, 50)}}, "segment", round);
  }
}

}  // namespace
