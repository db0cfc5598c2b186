// SPDX-License-Identifier: MIT
// Tree unit tests: the contract's edge cases (bad input leaves the tree unchanged, objects outside the world, many
// objects on one point, precision limits, full trees, merging after churn, early stop) and the promise that
// queries, pair walks, in-node moves and rebuilds after warm-up allocate nothing.
#include <quadrant/quadrant.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "counting_new.hpp"
#include "support/placements.hpp"

namespace {

using namespace quadrant;

using quadrant_test::kPlacements;

Config<2, float> config2(Placement placement, int threshold = 8, int depth = 8) {
  Config<2, float> c;
  c.world = {{0, 0}, {100, 100}};
  c.placement = placement;
  c.split_threshold = threshold;
  c.max_depth = depth;
  return c;
}

std::vector<int> found(const QuadTree<int>& tree, const auto& shape) {
  std::vector<int> v;
  tree.query(shape, [&](const int& x) { v.push_back(x); });
  std::sort(v.begin(), v.end());
  return v;
}

// A snapshot of everything observable, to prove a failed call changed nothing.
struct Snapshot {
  std::size_t size;
  std::vector<int> all;
  std::size_t pairs;
  Stats stats;
  bool operator==(const Snapshot& o) const {
    return size == o.size && all == o.all && pairs == o.pairs && stats.nodes == o.stats.nodes &&
           stats.references == o.stats.references && stats.depth == o.stats.depth;
  }
};
Snapshot snapshot(const QuadTree<int>& t) {
  std::size_t pairs = 0;
  t.for_each_pair([&](Handle, Handle) { ++pairs; });
  return {t.size(), found(t, Box2{{-1e9f, -1e9f}, {1e9f, 1e9f}}), pairs, t.stats()};
}

TEST(Config, BadConfigsThrowNamingTheField) {
  auto expect_bad = [](Config<2, float> c, const char* word) {
    try {
      QuadTree<int> t(c);
      ADD_FAILURE() << "accepted a bad config: " << word;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  Config<2, float> c = config2(Placement::Loose);
  c.max_depth = -1;
  expect_bad(c, "max_depth");
  c = config2(Placement::Loose);
  c.split_threshold = -3;
  expect_bad(c, "split_threshold");
  c = config2(Placement::Loose);
  c.min_node_size = -1;
  expect_bad(c, "min_node_size");
  c.min_node_size = std::numeric_limits<float>::quiet_NaN();
  expect_bad(c, "min_node_size");
  c = config2(Placement::Loose);
  c.world = {{0, 0}, {0, 10}};
  expect_bad(c, "empty");
  c.world = {{0, 0}, {std::numeric_limits<float>::infinity(), 10}};
  expect_bad(c, "infinite");
  c.world = {{0, std::numeric_limits<float>::quiet_NaN()}, {1, 10}};
  expect_bad(c, "NaN");
  c = config2(Placement::Loose);
  c.placement = static_cast<Placement>(42);
  expect_bad(c, "placement");
  c = config2(Placement::Loose, 0, 20);
  expect_bad(c, "split_threshold 0");
  Config<3, float> oct;
  oct.world = {{0, 0, 0}, {1, 1, 1}};
  oct.split_threshold = 0;  // with the default max_depth 8: 19 million nodes, refused before allocating
  EXPECT_THROW(Octree<int>{oct}, std::invalid_argument);
  // Depth 30: about 1.4e27 nodes, more than any integer type holds; the message says so without overflowing (found
  // by fuzzing under UBSan: the count was converted to long long).
  oct.max_depth = 30;
  try {
    Octree<int> refused{oct};
    ADD_FAILURE() << "a full octree of depth 30 was built";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("e+27 nodes"), std::string::npos) << e.what();
  }
}

TEST(Config, PlacementNames) {
  EXPECT_STREQ(to_string(Placement::Loose), "Loose");
  EXPECT_STREQ(to_string(Placement::Parent), "Parent");
  EXPECT_STREQ(to_string(Placement::Leaves), "Leaves");
  EXPECT_STREQ(to_string(static_cast<Placement>(9)), "?");
}

TEST(Config, DefaultsAreTheDocumentedOnes) {
  Config<3, double> c;
  EXPECT_EQ(c.max_depth, 8);
  EXPECT_EQ(c.split_threshold, 32);
  EXPECT_EQ(c.min_node_size, 0.0);
  EXPECT_EQ(c.placement, Placement::Loose);
}

// QueryStats::box_tests counts every object box the query tested, hit or not. With one leaf (max_depth 0) every
// stored box in the query's layers is tested once; with a deeper tree, Leaves tests a box in each leaf of the
// query that lists it, so never fewer than the hits.
TEST(QueryStats, CountsEveryBoxTestedUnderEachPlacement) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> at(0, 95), side(0, 5);
    QuadTree<int> flat(config2(p, 8, 0)), deep(config2(p, 4, 6));
    for (int i = 0; i < 200; ++i) {
      const float x = at(rng), y = at(rng);
      const Box<2, float> b{{x, y}, {x + side(rng), y + side(rng)}};
      flat.insert(b, i, i % 2 == 0 ? 1u : 2u);
      deep.insert(b, i, i % 2 == 0 ? 1u : 2u);
    }
    const Box<2, float> window{{20, 20}, {40, 40}};
    std::size_t hits = 0;
    const quadrant::QueryStats all = flat.query(window, [&](const int&) { ++hits; });
    EXPECT_EQ(all.box_tests, 200u);
    EXPECT_EQ(all.hits, hits);
    EXPECT_GT(hits, 0u);
    EXPECT_EQ(flat.query(window, [](const int&) {}, 1u).box_tests, 100u);
    const quadrant::QueryStats some = deep.query(window, [](const int&) {});
    EXPECT_EQ(some.hits, hits);
    EXPECT_GE(some.box_tests, some.hits);
    EXPECT_LT(some.box_tests, 200u);
  }
}

// Walks prune by the box the subtree's objects occupy, not by the room the placement allows them (a loose node's
// bounds reach half a cell beyond it): two clusters in opposite corners and a window in the empty middle, which
// every child of the root's bounds overlap under Loose. Only the root and its children are entered, built one by
// one or in bulk, and after every object has moved within its cluster.
template <int D, class S>
void check_empty_regions_skipped() {
  constexpr std::size_t fanout = std::size_t{1} << D;
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    std::mt19937 rng(29);
    std::uniform_real_distribution<double> at(0, 90), side(0.5, 3), step(-2, 2);
    Config<D, S> cfg;
    cfg.placement = p;
    cfg.split_threshold = 8;
    cfg.max_depth = 8;
    for (int i = 0; i < D; ++i) {
      cfg.world.min[i] = 0;
      cfg.world.max[i] = 1000;
    }
    std::vector<std::pair<Box<D, S>, int>> items;
    for (int k = 0; k < 400; ++k) {
      const double offset = k % 2 == 0 ? 0 : 900;  // lower or upper corner
      Box<D, S> b;
      for (int i = 0; i < D; ++i) {
        b.min[i] = S(offset + at(rng));
        b.max[i] = S(double(b.min[i]) + side(rng));
      }
      items.emplace_back(b, k);
    }
    Box<D, S> middle;
    for (int i = 0; i < D; ++i) {
      middle.min[i] = 300;
      middle.max[i] = 700;
    }
    Tree<D, int, S> one(cfg), bulk(cfg);
    std::vector<Handle> handles;
    for (const auto& [b, v] : items) handles.push_back(one.insert(b, v));
    bulk.assign(items);
    for (Tree<D, int, S>* tree : {&one, &bulk}) {
      const QueryStats st = tree->query(middle, [](const int&) { ADD_FAILURE() << "nothing lies there"; });
      EXPECT_EQ(st.nodes_visited, 1 + fanout);
      EXPECT_EQ(st.box_tests, 0u);
    }
    for (std::size_t k = 0; k < items.size(); ++k) {
      Box<D, S> b = items[k].first;
      const double d = step(rng);
      for (int i = 0; i < D; ++i) {
        b.min[i] = S(double(b.min[i]) + d);
        b.max[i] = S(double(b.max[i]) + d);
      }
      one.move(handles[k], b);
    }
    one.validate();
    EXPECT_EQ(one.query(middle, [](const int&) {}).nodes_visited, 1 + fanout);
  }
}

TEST(QueryStats, EmptyRegionsAreSkipped2DFloat) { check_empty_regions_skipped<2, float>(); }
TEST(QueryStats, EmptyRegionsAreSkipped3DDouble) { check_empty_regions_skipped<3, double>(); }

// Stats::outside_world counts the objects whose box reaches outside Config::world, Stats::root_entries the entries
// the root lists itself; a world too small for the scene shows in both, and in the pair walk's box tests.
TEST(Stats, ObjectsOutsideTheWorldAndTheRootsLoad) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> at(0, 198), side(0.5f, 2);
    std::vector<Box<2, float>> boxes;
    for (int i = 0; i < 2000; ++i) {
      const float x = at(rng), y = at(rng);
      boxes.push_back({{x, y}, {x + side(rng), y + side(rng)}});
    }
    Config<2, float> fits = config2(p, 8, 8), small = fits;
    fits.world = {{0, 0}, {200, 200}};
    small.world = {{0, 0}, {100, 100}};  // a quarter of the scene's area
    QuadTree<int> good(fits), bad(small);
    for (int i = 0; i < 2000; ++i) {
      good.insert(boxes[std::size_t(i)], i);
      bad.insert(boxes[std::size_t(i)], i);
    }
    std::size_t outside = 0;
    for (const auto& b : boxes) outside += !(b.min.x >= 0 && b.min.y >= 0 && b.max.x <= 100 && b.max.y <= 100);
    const quadrant::Stats gs = good.stats(), bs = bad.stats();
    EXPECT_EQ(gs.outside_world, 0u);
    EXPECT_EQ(bs.outside_world, outside);
    EXPECT_GT(outside, 1000u);
    std::size_t root_items = 0;
    bad.for_each_node([&](const auto& node) {
      root_items = node.items.size();
      return false;  // the root comes first
    });
    EXPECT_EQ(bs.root_entries, root_items);
    if (p != Placement::Leaves) {
      EXPECT_GT(bs.root_entries, 100u);
      EXPECT_LT(gs.root_entries, 50u);
      EXPECT_GT(bad.for_each_pair([](Handle, Handle) {}).box_tests, 4 * good.for_each_pair([](Handle, Handle) {}).box_tests);
    }
  }
}

TEST(Tree, BadInputThrowsAndChangesNothing) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 2));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-20, 120);
    std::vector<Handle> handles;
    for (int i = 0; i < 200; ++i) {
      const float x = u(rng), y = u(rng);
      handles.push_back(tree.insert({{x, y}, {x + 2, y + 3}}, i));
    }
    tree.erase(handles[5]);
    const Handle stale = handles[5];
    QuadTree<int> other(config2(p));
    const Handle foreign = other.insert({{1, 1}, {2, 2}}, 0);
    const Snapshot before = snapshot(tree);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const Box2 bad_boxes[] = {{{nan, 0}, {1, 1}}, {{0, 0}, {1, inf}}, {{0, -inf}, {1, 1}}, {{5, 0}, {1, 1}}};
    for (const Box2& b : bad_boxes) {
      EXPECT_THROW(tree.insert(b, 1), std::invalid_argument);
      EXPECT_THROW(tree.move(handles[0], b), std::invalid_argument);
      EXPECT_THROW(tree.query(b, [](const int&) {}), std::invalid_argument);
    }
    EXPECT_THROW(tree.query(Vec2{nan, 1}, [](const int&) {}), std::invalid_argument);
    // A batch of moves is checked whole before anything moves: a bad box or handle at item 2, or spans of
    // different sizes, change nothing.
    const std::vector<Handle> three = {handles[0], handles[1], handles[2]};
    for (const Box2& b : bad_boxes) {
      const std::vector<Box2> boxes = {{{0, 0}, {1, 1}}, {{3, 3}, {4, 4}}, b};
      EXPECT_THROW(tree.move(three, boxes), std::invalid_argument);
    }
    for (Handle h : {stale, foreign, Handle{}}) {
      const std::vector<Handle> with_bad = {handles[0], handles[1], h};
      const std::vector<Box2> boxes(3, Box2{{0, 0}, {1, 1}});
      try {
        tree.move(with_bad, boxes);
        ADD_FAILURE() << "a batch with a bad handle was accepted";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("(item 2)"), std::string::npos) << e.what();
      }
    }
    EXPECT_THROW(tree.move(three, std::vector<Box2>(2, Box2{{0, 0}, {1, 1}})), std::invalid_argument);
    for (Handle h : {stale, foreign, Handle{}}) {
      EXPECT_FALSE(tree.contains(h));
      EXPECT_THROW(tree.erase(h), std::invalid_argument);
      EXPECT_THROW(tree.move(h, {{0, 0}, {1, 1}}), std::invalid_argument);
      EXPECT_THROW(tree.value(h), std::invalid_argument);
      EXPECT_THROW(tree.bounds(h), std::invalid_argument);
    }
    EXPECT_TRUE(snapshot(tree) == before);
    tree.validate();
    // The stale slot is reused by the next insert with a new generation; the old handle stays stale.
    const Handle again = tree.insert({{1, 1}, {2, 2}}, 99);
    EXPECT_EQ(again.index(), stale.index());
    EXPECT_NE(again, stale);
    EXPECT_FALSE(tree.contains(stale));
    EXPECT_EQ(tree.value(again), 99);
  }
}

TEST(Tree, ObjectsOutsideTheWorldAreKeptAndFound) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 1));
    tree.insert({{-50, -50}, {-40, -40}}, 1);     // wholly outside
    tree.insert({{95, 95}, {130, 130}}, 2);          // straddles the world's corner
    tree.insert({{1e6f, 1e6f}, {1e6f, 1e6f}}, 3);    // a point far away
    tree.insert({{-1e7f, -1e7f}, {1e7f, 1e7f}}, 4);  // bigger than the world
    for (int i = 0; i < 50; ++i) {
      const float f = static_cast<float>(i);
      tree.insert({{f, f}, {f + 1, f + 1}}, 10 + i);
    }
    tree.validate();
    EXPECT_EQ(found(tree, Box2{{-45, -45}, {-44, -44}}), (std::vector<int>{1, 4}));
    EXPECT_EQ(found(tree, Vec2{120, 120}), (std::vector<int>{2, 4}));
    EXPECT_EQ(found(tree, Vec2{1e6f, 1e6f}), (std::vector<int>{3, 4}));
    EXPECT_EQ(found(tree, Box2{{-100, 200}, {-90, 300}}), (std::vector<int>{4}));
  }
}

TEST(Tree, ThousandsOnOnePointAtDeepMaxDepth) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 1, 64));
    std::vector<Handle> handles;
    for (int i = 0; i < 3000; ++i) handles.push_back(tree.insert({{37.5f, 12.25f}, {37.5f, 12.25f}}, i));
    tree.insert({{50, 50}, {50, 50}}, -1);  // on every split line of the world's center
    tree.validate();
    EXPECT_EQ(found(tree, Vec2{37.5f, 12.25f}).size(), 3000u);
    EXPECT_EQ(found(tree, Vec2{50, 50}), (std::vector<int>{-1}));
    std::size_t pairs = 0;
    tree.for_each_pair([&](Handle, Handle) { ++pairs; });
    EXPECT_EQ(pairs, 3000u * 2999u / 2);
    EXPECT_LE(tree.stats().depth, 64);
    for (Handle h : handles) tree.erase(h);
    tree.validate();
    EXPECT_EQ(tree.size(), 1u);
  }
}

// Boxes sharing an edge or a face cannot be separated by splitting; under Leaves, flat boxes in 3D (floors, walls,
// objects clamped onto the world's face) used to refine a shared edge down to max_depth, doubling the cells along
// it at each level: two of them built 1.68 million nodes. Every placement keeps a tree of such boxes within
// fanout x (max_depth + 1) nodes per object.
template <int D>
void expect_linear_nodes(const Tree<D, int, float>& t, std::size_t objects, int max_depth) {
  const std::size_t budget = (std::size_t{1} << D) * static_cast<std::size_t>(max_depth + 1) * objects;
  EXPECT_LE(t.stats().nodes, budget) << objects << " objects";
  t.validate();
}

TEST(Tree, SharedEdgesOfFlatBoxesStayShallow) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    Config<3, float> c;
    c.world = {{0, 0, 0}, {1, 1, 1}};
    c.max_depth = 18;
    c.split_threshold = 1;
    c.placement = p;
    {
      Tree<3, int, float> t(c);  // two floor tiles sharing the edge y = 0.3 (not a split line)
      t.insert({{0.1f, 0.1f, 0.4f}, {0.9f, 0.3f, 0.4f}}, 1);
      t.insert({{0.1f, 0.3f, 0.4f}, {0.9f, 0.7f, 0.4f}}, 2);
      expect_linear_nodes(t, 2, c.max_depth);
    }
    {
      // A tiny world, two objects inside, five beyond its top face (clamped onto it under Leaves).
      c.world = {{0, 0, 0}, {1e-3f, 1e-3f, 1e-3f}};
      c.max_depth = 25;
      Tree<3, int, float> t(c);
      t.insert({{1e-4f, 1e-4f, 1e-4f}, {2e-4f, 2e-4f, 2e-4f}}, 0);
      t.insert({{3e-4f, 1e-4f, 1e-4f}, {4e-4f, 2e-4f, 2e-4f}}, 0);
      for (int i = 0; i < 5; ++i) {
        const float x = 1e-4f * float(i);
        t.insert({{x, x, 0.5f}, {x + 3e-4f, x + 3.1e-4f, 0.6f}}, i);
      }
      expect_linear_nodes(t, 7, c.max_depth);
    }
  }
  // Random small sets of boxes whose coordinates come from a few values (so they share edges and faces, on and
  // off split lines, inside and outside the world), a third of the sides flat.
  std::mt19937 rng(11);
  const float values[] = {0.0f, 0.1f, 0.3f, 0.3f, 0.5f, 0.7f, 0.7f, 1.0f, 1.2f, -0.2f, 0.33f};
  auto random_box = [&](auto& box, int dims) {
    for (int a = 0; a < dims; ++a) {
      const float x = values[rng() % 11], y = rng() % 3 == 0 ? x : values[rng() % 11];
      box.min[a] = std::min(x, y);
      box.max[a] = std::max(x, y);
    }
  };
  for (int trial = 0; trial < 1500; ++trial) {
    const Placement p = kPlacements[trial % 3];
    const int threshold = 1 + static_cast<int>(rng() % 3), objects = 2 + static_cast<int>(rng() % 6);
    SCOPED_TRACE("trial " + std::to_string(trial));
    Config<3, float> c3;
    c3.world = {{0, 0, 0}, {1, 1, 1}};
    c3.max_depth = 14;
    c3.split_threshold = threshold;
    c3.placement = p;
    Tree<3, int, float> t3(c3);
    Config<2, float> c2 = config2(p, threshold, 14);
    c2.world = {{0, 0}, {1, 1}};
    Tree<2, int, float> t2(c2);
    for (int i = 0; i < objects; ++i) {
      Box<3, float> b3;
      random_box(b3, 3);
      t3.insert(b3, i);
      Box<2, float> b2;
      random_box(b2, 2);
      t2.insert(b2, i);
    }
    expect_linear_nodes(t3, std::size_t(objects), c3.max_depth);
    expect_linear_nodes(t2, std::size_t(objects), c2.max_depth);
    if (::testing::Test::HasFailure()) break;
  }
}

TEST(Tree, SplittingStopsWhereFloatCannotHalve) {
  for (Placement p : kPlacements) {
    Config<2, float> c = config2(p, 1, 200);
    c.world = {{1, 1}, {std::nextafter(1.f, 2.f), std::nextafter(std::nextafter(1.f, 2.f), 2.f)}};
    QuadTree<int> tree(c);
    for (int i = 0; i < 100; ++i) tree.insert({c.world.min, c.world.max}, i);
    tree.insert({c.world.min, c.world.min}, 100);
    tree.validate();
    EXPECT_LE(tree.stats().depth, 1);
    EXPECT_EQ(found(tree, c.world.min).size(), 101u);
  }
}

TEST(Tree, MinNodeSizeLimitsDepth) {
  for (Placement p : kPlacements) {
    Config<2, float> c = config2(p, 1, 30);
    c.min_node_size = 10;  // 100 -> 50 -> 25 -> 12.5; 6.25 would be too small
    QuadTree<int> tree(c);
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(0, 99);
    for (int i = 0; i < 500; ++i) {
      const float x = u(rng), y = u(rng);
      tree.insert({{x, y}, {x + 0.1f, y + 0.1f}}, i);
    }
    tree.validate();
    EXPECT_EQ(tree.stats().depth, 3);
    tree.for_each_node([](const NodeView<2, float>& n) {
      EXPECT_GE(n.cell.max.x - n.cell.min.x, 10.f);
      EXPECT_GE(n.cell.max.y - n.cell.min.y, 10.f);
    });
  }
}

TEST(Tree, FullTreeWhenThresholdIsZero) {
  for (Placement p : kPlacements) {
    QuadTree<int> quad(config2(p, 0, 4));
    EXPECT_EQ(quad.stats().nodes, 1u + 4 + 16 + 64 + 256);
    EXPECT_EQ(quad.stats().leaves, 256u);
    Config<3, double> c3;
    c3.world = {{0, 0, 0}, {8, 8, 8}};
    c3.split_threshold = 0;
    c3.max_depth = 3;
    c3.placement = p;
    Octree<int, double> oct(c3);
    EXPECT_EQ(oct.stats().nodes, 1u + 8 + 64 + 512);
    // Objects sink to the deepest node that takes them; emptying it keeps the full tree.
    const Handle h = quad.insert({{1, 1}, {2, 2}}, 1);
    int deepest = -1;
    quad.for_each_node([&](const NodeView<2, float>& n) {
      for (const auto& e : n.items)
        if (e.handle == h) deepest = n.depth;
    });
    EXPECT_EQ(deepest, 4);
    quad.erase(h);
    quad.validate();
    EXPECT_EQ(quad.stats().nodes, 341u);
    quad.insert({{1, 1}, {2, 2}}, 1);
    quad.clear();
    quad.validate();
    EXPECT_EQ(quad.stats().nodes, 341u);
  }
}

TEST(Tree, ChurnMergesEmptiedSubtrees) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 4, 12));
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0, 99);
    std::vector<Handle> handles;
    for (int i = 0; i < 2000; ++i) {
      const float x = u(rng), y = u(rng);
      handles.push_back(tree.insert({{x, y}, {x + 0.5f, y + 0.5f}}, i));
    }
    EXPECT_GT(tree.stats().nodes, 100u);
    // Move everything into one corner: the rest of the tree must fold away.
    for (Handle h : handles) {
      const float x = u(rng) / 50, y = u(rng) / 50;
      tree.move(h, {{x, y}, {x + 0.01f, y + 0.01f}});
    }
    tree.validate();
    // Everything now sits in [0, 2.1]^2. A cell that misses that corner has an empty subtree, so it must be a leaf
    // (its subtree folded away) whose parent does reach the corner.
    const Box2 occupied{{0, 0}, {2.1f, 2.1f}};
    std::vector<Box2> cell_of(tree.stats().nodes * 2 + 8);
    tree.for_each_node([&](const NodeView<2, float>& n) {
      if (n.id >= cell_of.size()) cell_of.resize(n.id + 1);
      cell_of[n.id] = n.cell;
    });
    std::size_t outside = 0;
    tree.for_each_node([&](const NodeView<2, float>& n) {
      if (overlaps(n.cell, occupied)) return;
      ++outside;
      EXPECT_TRUE(n.leaf && n.items.empty()) << "node " << n.id << " outside the occupied corner";
      EXPECT_TRUE(overlaps(cell_of[n.parent], occupied)) << "a whole empty subtree above node " << n.id;
    });
    EXPECT_GT(outside, 0u);
    std::size_t inner_outside = 0;
    tree.for_each_node([&](const NodeView<2, float>& n) {
      if (!n.leaf && !overlaps(n.cell, occupied)) ++inner_outside;
    });
    EXPECT_EQ(inner_outside, 0u);
    for (Handle h : handles) tree.erase(h);
    tree.validate();
    EXPECT_EQ(tree.stats().nodes, 1u);
    EXPECT_TRUE(tree.empty());
  }
}

TEST(Tree, MoveReportsNodeChanges) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 1, 4));
    // Four objects, one per quadrant, so the root splits.
    const Handle a = tree.insert({{10, 10}, {11, 11}}, 0);
    tree.insert({{60, 10}, {61, 11}}, 1);
    tree.insert({{10, 60}, {11, 61}}, 2);
    tree.insert({{60, 60}, {61, 61}}, 3);
    EXPECT_FALSE(tree.move(a, {{10.5f, 10.5f}, {11.5f, 11.5f}}));  // a nudge inside its cell
    EXPECT_EQ(tree.bounds(a), (Box2{{10.5f, 10.5f}, {11.5f, 11.5f}}));
    EXPECT_TRUE(tree.move(a, {{80, 80}, {81, 81}}));  // into another quadrant
    EXPECT_EQ(found(tree, Vec2{80.5f, 80.5f}), (std::vector<int>{0}));
    EXPECT_TRUE(found(tree, Vec2{10.7f, 10.7f}).empty());
    tree.validate();
  }
}

TEST(Tree, EarlyStopAndCallbackForms) {
  for (Placement p : kPlacements) {
    QuadTree<int> tree(config2(p, 2));
    std::vector<Handle> handles;
    for (int i = 0; i < 100; ++i) handles.push_back(tree.insert({{float(i % 10) * 10, float(i / 10) * 10}, {float(i % 10) * 10 + 12, float(i / 10) * 10 + 12}}, i));
    int calls = 0;
    QueryStats st = tree.query(Box2{{0, 0}, {100, 100}}, [&](Handle h, const int& v) {
      EXPECT_EQ(tree.value(h), v);
      return ++calls < 7;
    });
    EXPECT_EQ(calls, 7);
    EXPECT_TRUE(st.stopped);
    EXPECT_EQ(st.hits, 7u);
    int pairs = 0;
    PairStats ps = tree.for_each_pair([&](Handle x, Handle y) {
      EXPECT_NE(x, y);
      return ++pairs < 5;
    });
    EXPECT_EQ(pairs, 5);
    EXPECT_TRUE(ps.stopped);
    int nodes = 0;
    tree.for_each_node([&](const NodeView<2, float>&) { return ++nodes < 3; });
    EXPECT_EQ(nodes, 3);
    int each = 0;
    tree.for_each([&](Handle h, const int& v, const Box2& b) {
      EXPECT_EQ(tree.value(h), v);
      EXPECT_EQ(tree.bounds(h), b);
      ++each;
    });
    EXPECT_EQ(each, 100);
  }
}

TEST(Tree, HandlesHashCopyMoveAndClear) {
  QuadTree<int> tree(config2(Placement::Loose, 2));
  std::unordered_set<Handle> set;
  std::vector<Handle> handles;
  for (int i = 0; i < 100; ++i) {
    handles.push_back(tree.insert({{float(i), 0}, {float(i), 0}}, i));
    set.insert(handles.back());
  }
  EXPECT_EQ(set.size(), 100u);
  EXPECT_TRUE(Handle{}.is_null());
  EXPECT_TRUE(tree.handle_at(1000).is_null());

  // A copy is another tree: the original's handles are foreign there; handle_at maps them by slot.
  QuadTree<int> copy = tree;
  copy.validate();
  EXPECT_FALSE(copy.contains(handles[3]));
  EXPECT_THROW(copy.erase(handles[3]), std::invalid_argument);
  const Handle in_copy = copy.handle_at(handles[3].index());
  ASSERT_TRUE(copy.contains(in_copy));
  copy.value(in_copy) = 1000;
  EXPECT_EQ(tree.value(handles[3]), 3);
  // After divergence, equal-looking inserts in both trees never alias each other.
  const Handle a = tree.insert({{1, 1}, {1, 1}}, -1), b = copy.insert({{1, 1}, {1, 1}}, -2);
  EXPECT_NE(a, b);
  EXPECT_FALSE(copy.contains(a));
  EXPECT_FALSE(tree.contains(b));

  // A move keeps the handles valid in the destination and leaves an empty, usable source.
  QuadTree<int> moved = std::move(tree);
  moved.validate();
  EXPECT_TRUE(moved.contains(handles[7]));
  EXPECT_EQ(moved.value(handles[7]), 7);
  EXPECT_EQ(tree.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_FALSE(tree.contains(handles[7]));
  tree.validate();
  EXPECT_TRUE(found(tree, Box2{{-1e9f, -1e9f}, {1e9f, 1e9f}}).empty());
  const Handle fresh = tree.insert({{5, 5}, {6, 6}}, 5);
  EXPECT_EQ(found(tree, Vec2{5.5f, 5.5f}), (std::vector<int>{5}));
  EXPECT_FALSE(moved.contains(fresh));
  tree.validate();
  QuadTree<int>& alias = moved;
  moved = std::move(alias);  // self-move keeps everything
  EXPECT_TRUE(moved.contains(handles[7]));
  moved.validate();
  tree = copy;  // copy-assignment: the old handle of tree is refused, the copy's contents arrive
  EXPECT_FALSE(tree.contains(fresh));
  EXPECT_EQ(tree.size(), copy.size());
  tree.validate();

  moved.clear();
  moved.validate();
  EXPECT_TRUE(moved.empty());
  for (Handle h : handles) EXPECT_FALSE(moved.contains(h));
  EXPECT_EQ(copy.size(), 101u);
  copy.validate();

  // A moved-from full tree (split_threshold 0) rebuilds its grid on the next insert.
  QuadTree<int> full(config2(Placement::Parent, 0, 3));
  QuadTree<int> taken = std::move(full);
  EXPECT_EQ(taken.stats().nodes, 85u);
  full.validate();
  full.insert({{1, 1}, {2, 2}}, 1);
  full.validate();
  EXPECT_EQ(full.stats().nodes, 85u);
}

TEST(Tree, QueriesPairsAndSteadyFramesDoNotAllocate) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 4, 10));
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(0, 97);
    std::vector<Box2> boxes;
    for (int i = 0; i < 1000; ++i) {
      const float x = u(rng), y = u(rng);
      boxes.push_back({{x, y}, {x + 2, y + 2}});
    }
    std::vector<Handle> handles;
    handles.reserve(boxes.size());
    std::vector<Box2> back(boxes.size());
    std::size_t hits = 0, pairs = 0;
    // One game frame: rebuild, queries, all pairs, then every object nudged (some cross into other nodes).
    auto frame = [&] {
      tree.clear();
      handles.clear();
      for (std::size_t i = 0; i < boxes.size(); ++i) handles.push_back(tree.insert(boxes[i], int(i)));
      std::mt19937 frame_rng(77);
      for (int q = 0; q < 100; ++q) {
        const float x = u(frame_rng), y = u(frame_rng);
        tree.query(Box2{{x, y}, {x + 10, y + 10}}, [&](const int&) { ++hits; });
        tree.query(Vec2{x, y}, [&](Handle, const int&) { ++hits; });
      }
      tree.for_each_pair([&](Handle, Handle) { ++pairs; });
      for (Handle h : handles) {
        Box2 b = tree.bounds(h);
        b.min.x += 0.7f;
        b.max.x += 0.7f;
        tree.move(h, b);
      }
      // And back, in one batch.
      for (std::size_t i = 0; i < handles.size(); ++i) {
        back[i] = tree.bounds(handles[i]);
        back[i].min.y -= 0.5f;
        back[i].max.y -= 0.5f;
      }
      tree.move(handles, back);
    };
    frame();
    frame();
    const long before = g_allocations.load();
    frame();  // the same frame again: every pool is warm
    const long after = g_allocations.load();
    EXPECT_EQ(after - before, 0) << "allocations in a warm frame";
    EXPECT_GT(hits, 0u);
    EXPECT_GT(pairs, 0u);
  }
}

// erase allocates nothing, ever: not when a merge gathers a subtree into a bigger range, not when the merges have
// used up the room kept beyond the entry array (the array is then compacted), not in a tree made by the bulk build
// (exact ranges) or by copying (whose vectors hold only their sizes). Each placement, several thresholds, objects
// erased in random order with the survivors checked against the model along the way.
template <int D, class S>
void check_erase_never_allocates() {
  using B = Box<D, S>;
  for (const Placement placement : kPlacements) {
    for (const int threshold : {1, 8, 40}) {
      for (const int made : {0, 1, 2}) {  // by insert, by assign, by copying a tree made by insert
        SCOPED_TRACE(::testing::Message() << to_string(placement) << " threshold " << threshold << " made " << made);
        Config<D, S> config;
        for (int i = 0; i < D; ++i) {
          config.world.min[i] = S(0);
          config.world.max[i] = S(1000);
        }
        config.placement = placement;
        config.split_threshold = threshold;
        config.max_depth = 10;
        std::mt19937 rng(unsigned(40 + threshold + made));
        std::uniform_real_distribution<double> at(0, 990), side(0, 12);
        std::vector<std::pair<B, int>> items;
        for (int v = 0; v < 3000; ++v) {
          B b;
          for (int i = 0; i < D; ++i) {
            b.min[i] = S(at(rng));
            b.max[i] = b.min[i] + S(v % 10 == 0 ? 5 * side(rng) : side(rng));
          }
          items.push_back({b, v});
        }
        Tree<D, int, S> built(config);
        std::vector<Handle> handles;
        if (made == 1) {
          built.assign(items, handles);
        } else {
          for (const auto& [b, v] : items) handles.push_back(built.insert(b, v));
        }
        Tree<D, int, S> tree = made == 2 ? Tree<D, int, S>(built) : std::move(built);
        if (made == 2)
          for (std::size_t v = 0; v < items.size(); ++v) handles[v] = tree.handle_at(handles[v].index());
        std::vector<int> order(items.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<char> alive(items.size(), 1);
        long allocations = 0;
        for (std::size_t k = 0; k < order.size(); ++k) {
          const long before = g_allocations.load();
          tree.erase(handles[order[k]]);
          allocations += g_allocations.load() - before;
          alive[order[k]] = 0;
          if (k % 500 == 499) {
            tree.validate();
            B q;
            for (int i = 0; i < D; ++i) {
              q.min[i] = S(at(rng));
              q.max[i] = q.min[i] + S(300);
            }
            std::vector<int> got, want;
            tree.query(q, [&](const int& v) { got.push_back(v); });
            for (std::size_t v = 0; v < items.size(); ++v)
              if (alive[v] && overlaps(q, items[v].first)) want.push_back(int(v));
            std::sort(got.begin(), got.end());
            ASSERT_EQ(got, want) << "after " << k + 1 << " erases";
          }
        }
        EXPECT_EQ(allocations, 0) << "allocations while erasing 3000 objects";
        EXPECT_EQ(tree.size(), 0u);
        tree.validate();
      }
    }
  }
}
TEST(Tree, EraseNeverAllocates2DFloat) { check_erase_never_allocates<2, float>(); }
TEST(Tree, EraseNeverAllocates3DDouble) { check_erase_never_allocates<3, double>(); }

// n squares of side `side` at random in [0, 97 + side]^2, valued 0..n-1, for the bulk build's tests.
std::vector<std::pair<Box2, int>> square_items(int n, float side, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 97);
  std::vector<std::pair<Box2, int>> items;
  for (int i = 0; i < n; ++i) {
    const float x = u(rng), y = u(rng);
    items.push_back({{{x, y}, {x + side, y + side}}, i});
  }
  return items;
}

// A tree rebuilt every frame by the bulk build allocates nothing once warm (its scratch stays with the thread),
// even as the objects move and the tree's shape changes from frame to frame. Warm means the scene has run a
// while: the pools grow to the most the scene has needed (more nodes, or under Leaves more entries, as boxes touch
// more leaves), so a frame that needs more than any before allocates once (here: after 10 frames, one allocation
// in 4 frames under Leaves; after 50 frames, none).
TEST(Tree, RebuildByAssignDoesNotAllocateWhenWarm) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 4, 10));
    std::vector<std::pair<Box2, int>> items = square_items(1000, 2, 6);
    std::vector<Handle> handles;
    std::size_t pairs = 0;
    auto frame = [&](float dx) {
      for (auto& item : items) {
        item.first.min.x = std::fmod(item.first.min.x + dx, 97.f);
        item.first.max.x = item.first.min.x + 2;
      }
      tree.assign(items, handles);
      tree.for_each_pair([&](Handle, Handle) { ++pairs; });
    };
    for (int f = 0; f < 50; ++f) frame(0.5f);
    const long before = g_allocations.load();
    for (int f = 0; f < 4; ++f) frame(0.5f);
    const long after = g_allocations.load();
    EXPECT_EQ(after - before, 0) << "allocations in warm rebuilt frames";
    EXPECT_EQ(handles.size(), items.size());
    EXPECT_GT(pairs, 0u);
    tree.validate();
  }
}

// release_scratch() hands the thread's scratch back: the next build allocates it again (a warm one allocates
// nothing), and the answers are unchanged. Called from inside a walk's callback, it keeps the buffers that walk is
// using: the walk goes on to the same answer (ASan would see a freed heap in use).
TEST(Tree, ReleaseScratchFreesTheBuildsScratchAndSparesARunningWalk) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 8, 10));
    const std::vector<std::pair<Box2, int>> items = square_items(3000, 1, 31);
    std::vector<Handle> handles;
    tree.assign(items, handles);
    tree.assign(items, handles);
    long before = g_allocations.load();
    tree.assign(items, handles);
    EXPECT_EQ(g_allocations.load() - before, 0) << "a warm build";
    quadrant::release_scratch();
    before = g_allocations.load();
    tree.assign(items, handles);
    EXPECT_GT(g_allocations.load() - before, 0) << "the build after release_scratch() allocates its scratch again";
    tree.validate();
    const Box2 window{{20, 20}, {60, 50}};
    std::size_t want = 0;
    for (const auto& item : items) want += overlaps(item.first, window);
    std::size_t got = 0;
    tree.query(window, [&](const int&) { ++got; });
    EXPECT_EQ(got, want);

    // Inside callbacks: an incremental nearest search (its heap is leased) and a pair walk under Parent (its stack
    // is leased), releasing on every report.
    quadrant::release_scratch();
    std::vector<float> distances;
    tree.for_each_nearest(Vec2{50, 50}, [&](Handle, const int&, float d) {
      quadrant::release_scratch();
      distances.push_back(d);
    });
    ASSERT_EQ(distances.size(), items.size());
    EXPECT_TRUE(std::is_sorted(distances.begin(), distances.end()));
    std::size_t pairs = 0, released_pairs = 0;
    tree.for_each_pair([&](Handle, Handle) { ++pairs; });
    tree.for_each_pair([&](Handle, Handle) {
      quadrant::release_scratch();
      ++released_pairs;
    });
    EXPECT_EQ(released_pairs, pairs);
    EXPECT_GT(pairs, 0u);
  }
}

// Memory running out anywhere in a bulk build leaves the tree valid: unchanged when the build had not begun to
// replace the contents, else empty. Each allocation of the build fails in turn (the first build after
// release_scratch(), so that the scratch is allocated too), and a build that is let run answers as brute force.
TEST(Tree, BuildRunningOutOfMemoryLeavesTheTreeValid) {
  // Three clusters deeper than a build's keyed levels, so that splits below them run too.
  std::vector<std::pair<Box2, int>> items = square_items(1500, 1, 41);
  std::mt19937 rng(42);
  std::normal_distribution<float> g(0, 0.05f);
  for (int i = 0; i < 600; ++i) {
    const float x = 20 + 30 * float(i % 3) + g(rng), y = 40 + g(rng);
    items.push_back({{{x, y}, {x + 0.01f, y + 0.01f}}, 1500 + i});
  }
  const std::vector<std::pair<Box2, int>> old_items = square_items(300, 2, 43);
  const Box2 window{{15, 30}, {60, 70}};
  auto values_in = [](const QuadTree<int>& tree, const Box2& w) {
    std::multiset<int> got;
    tree.query(w, [&](const int& v) { got.insert(v); });
    return got;
  };
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 8, 14));
    std::multiset<int> old_values;
    for (const auto& item : old_items) old_values.insert(item.second);
    int failed = 0, unchanged = 0;
    for (long k = 1;; ++k) {
      tree.assign(old_items);
      quadrant::release_scratch();
      std::vector<Handle> handles;
      bool threw = false;
      g_fail_at = g_allocations.load() + k;
      try {
        tree.assign(items, handles);
      } catch (const std::bad_alloc&) {
        threw = true;
      }
      g_fail_at = -1;
      ASSERT_NO_THROW(tree.validate()) << "allocation " << k;
      if (!threw) break;
      ++failed;
      if (tree.size() == 0) {
        EXPECT_TRUE(values_in(tree, Box2{{-1e3f, -1e3f}, {1e3f, 1e3f}}).empty());
      } else {
        ++unchanged;
        EXPECT_EQ(values_in(tree, Box2{{-1e3f, -1e3f}, {1e3f, 1e3f}}), old_values) << "allocation " << k;
      }
      // The tree still works: an insert lands and is found.
      tree.insert({{1, 1}, {2, 2}}, -1);
      EXPECT_EQ(values_in(tree, Box2{{1, 1}, {1, 1}}).count(-1), 1u);
      tree.validate();
    }
    EXPECT_GE(failed, 8) << "the build makes several allocations";
    EXPECT_GE(unchanged, 3) << "some fail before the contents are replaced";
    EXPECT_LT(unchanged, failed) << "some fail after";
    ASSERT_EQ(tree.size(), items.size());
    std::multiset<int> want;
    for (const auto& [box, v] : items)
      if (overlaps(box, window)) want.insert(v);
    EXPECT_EQ(values_in(tree, window), want);
  }
}

// Every query kind of the shapes issue, warm, allocates nothing: shapes (the polygon is built once, outside),
// layer masks, ray casts (per-thread heap), nearest into a kept vector, incremental nearest, node queries, locate.
TEST(Tree, ShapeRayNearestAndNodeQueriesDoNotAllocate) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 5, 6));
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(0, 97);
    for (int i = 0; i < 800; ++i) {
      const float x = u(rng), y = u(rng);
      tree.insert({{x, y}, {x + 2, y + 2}}, i, 1u << (i % 3));
    }
    const std::array<Vec2, 5> pentagon{Vec2{50, 40}, Vec2{60, 48}, Vec2{56, 60}, Vec2{44, 60}, Vec2{40, 48}};
    const ConvexPolygon<float> polygon{std::span<const Vec2>(pentagon)};
    std::vector<Neighbor<float>> near;
    std::size_t seen = 0;
    auto count = [&](const int&) { ++seen; };
    auto queries = [&] {
      std::mt19937 q_rng(3);
      for (int q = 0; q < 50; ++q) {
        const Vec2 c{u(q_rng), u(q_rng)};
        const Vec2 d{u(q_rng), u(q_rng)};
        tree.query(Circle<float>{c, 8}, count, 1u);
        tree.query(Ring<float>{c, 3, 9}, count);
        tree.query(Ellipse<float>{c, {9, 4}, 0.5f}, count);
        tree.query(Sector<float>{c, {1, 1}, 15, 0.6f}, count, 2u | 4u);
        tree.query(OrientedBox<float>{c, {6, 3}, 1.0f}, count);
        tree.query(polygon, count);
        tree.query(Segment<2, float>{c, d}, count);
        tree.raycast(Segment<2, float>{c, d}, [&](Handle, const int&, float) { ++seen; });
        tree.raycast(Segment<2, float>{c, d}, [&](Handle, const int&, float) { return false; }, 4u);
        tree.nearest(c, 8, near, 30.0f, 1u | 2u);
        seen += near.size();
        tree.for_each_nearest(c, [&](Handle, const int&, float dist) { return dist < 5; });
        tree.query_nodes(Circle<float>{c, 12}, [&](const NodeView<2, float>&) { ++seen; });
        tree.query_nodes(polygon, [&](const NodeView<2, float>&) { ++seen; }, false);
        seen += tree.locate(c).items.size();
        tree.for_each_pair([&](Handle, Handle) { ++seen; }, 2u);
      }
    };
    queries();
    const long before = g_allocations.load();
    queries();
    const long after = g_allocations.load();
    EXPECT_EQ(after - before, 0) << "allocations in warm queries";
    EXPECT_GT(seen, 0u);
  }
}

TEST(Tree, LayersFilterAndPruneWholeSubtrees) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p, 4, 8));
    // Enemies (layer 2) fill the left half, pickups (layer 4) the right half.
    std::vector<Handle> enemies;
    for (int i = 0; i < 200; ++i) {
      const float x = float(i % 20) * 2.4f, y = float(i / 20) * 9.5f;
      enemies.push_back(tree.insert({{x, y}, {x + 1, y + 1}}, i, 2u));
      tree.insert({{x + 52, y}, {x + 53, y + 1}}, 1000 + i, 4u);
    }
    tree.validate();
    const Box2 all{{0, 0}, {100, 100}};
    std::size_t hits = 0;
    const QueryStats both = tree.query(all, [&](const int&) { ++hits; });
    EXPECT_EQ(hits, 400u);
    hits = 0;
    const QueryStats left = tree.query(all, [&](const int& v) { hits += v < 1000; }, 2u);
    EXPECT_EQ(hits, 200u);
    EXPECT_EQ(left.hits, 200u);
    EXPECT_LT(left.nodes_visited, both.nodes_visited);  // the pickups' subtrees were skipped whole
    // set_layers moves an object between layers; its old layer's unions shrink back.
    for (Handle h : enemies) tree.set_layers(h, 8u);
    tree.validate();
    const QueryStats none = tree.query(all, [](const int&) {}, 2u);
    EXPECT_EQ(none.hits, 0u);
    EXPECT_EQ(none.nodes_visited, 1u);
    EXPECT_EQ(tree.layers(enemies[0]), 8u);
    std::size_t pairs = 0;
    tree.for_each_pair([&](Handle, Handle) { ++pairs; }, 16u);
    EXPECT_EQ(pairs, 0u);
    // Bad input: a zero mask, a stale handle; nothing changes.
    EXPECT_THROW(tree.insert({{1, 1}, {2, 2}}, 5, 0u), std::invalid_argument);
    EXPECT_THROW(tree.set_layers(enemies[0], 0u), std::invalid_argument);
    tree.erase(enemies[1]);
    EXPECT_THROW(tree.set_layers(enemies[1], 1u), std::invalid_argument);
    EXPECT_THROW(tree.layers(enemies[1]), std::invalid_argument);
    EXPECT_EQ(tree.size(), 399u);
    tree.validate();
  }
}

TEST(Tree, NearestLocateAndNodeQueriesRejectBadInput) {
  QuadTree<int> tree(config2(Placement::Loose));
  tree.insert({{1, 1}, {2, 2}}, 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW(tree.nearest({nan, 1}, 1), std::invalid_argument);
  EXPECT_THROW(tree.nearest({1, inf}, 1), std::invalid_argument);
  EXPECT_THROW(tree.nearest({1, 1}, 1, -1.0f), std::invalid_argument);
  EXPECT_THROW(tree.nearest({1, 1}, 0, nan), std::invalid_argument);
  EXPECT_THROW(tree.locate({nan, 1}), std::invalid_argument);
  EXPECT_THROW(tree.locate({101, 1}), std::invalid_argument);
  EXPECT_THROW(tree.raycast(Segment<2, float>{{0, 0}, {nan, 1}}, [](Handle, const int&, float) {}),
               std::invalid_argument);
  EXPECT_THROW(tree.query(Circle<float>{{0, 0}, -1}, [](const int&) {}), std::invalid_argument);
  EXPECT_THROW(tree.query_nodes(Circle<float>{{0, 0}, nan}, [](const NodeView<2, float>&) {}), std::invalid_argument);
  EXPECT_TRUE(tree.nearest({1, 1}, 0).empty());
  ASSERT_EQ(tree.nearest({5, 1}, 3).size(), 1u);
  EXPECT_EQ(tree.nearest({5, 1}, 3)[0].distance, 3.0f);
  EXPECT_TRUE(tree.nearest({5, 1}, 3, 2.9f).empty());
  EXPECT_EQ(tree.nearest({5, 1}, 3, 3.0f).size(), 1u);  // max_distance is inclusive
  EXPECT_EQ(tree.size(), 1u);
  tree.validate();
}

// Squared distances of far-apart float coordinates overflow float: nearest must still rank them by distance
// and keep max_distance (found by mutation review: both failed when the squares were taken in float).
TEST(Tree, NearestRanksFarApartObjectsWithoutOverflow) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    QuadTree<int> tree(config2(p));
    tree.insert({{-1e19f, 0}, {-1e19f, 0}}, 0);
    tree.insert({{0, 0}, {0, 0}}, 1);
    tree.insert({{1e25f, 0}, {1e25f, 0}}, 2);
    const auto near = tree.nearest({3e19f, 0}, 1);
    ASSERT_EQ(near.size(), 1u);
    EXPECT_EQ(tree.value(near[0].handle), 1);  // 3e19 away, against 4e19 and ~1e25
    EXPECT_EQ(near[0].distance, 3e19f);
    const auto within = tree.nearest({0, 0}, 5, 1e20f);
    ASSERT_EQ(within.size(), 2u);  // not the object at 1e25
    EXPECT_EQ(tree.value(within[0].handle), 1);
    EXPECT_EQ(tree.value(within[1].handle), 0);
  }
}

// A ray cast started from inside another ray cast's callback (on the same thread) gets its own heap.
TEST(Tree, NestedRayCastsKeepTheirOwnOrder) {
  QuadTree<int> tree(config2(Placement::Loose, 6, 2));
  for (int i = 0; i < 40; ++i) tree.insert({{float(2 * i), 10}, {float(2 * i + 1), 11}}, i);
  std::vector<int> outer, inner;
  tree.raycast(Segment<2, float>{{-1, 10.5f}, {100, 10.5f}}, [&](Handle, const int& v, float) {
    outer.push_back(v);
    if (v == 3) {
      tree.raycast(Segment<2, float>{{100, 10.5f}, {-1, 10.5f}}, [&](Handle, const int& w, float) { inner.push_back(w); });
    }
  });
  std::vector<int> forward(40), backward(40);
  for (int i = 0; i < 40; ++i) {
    forward[i] = i;
    backward[i] = 39 - i;
  }
  EXPECT_EQ(outer, forward);
  EXPECT_EQ(inner, backward);
}

TEST(Tree, OctreeDoubleBasics) {
  Config<3, double> c;
  c.world = {{-10, -10, -10}, {10, 10, 10}};
  c.split_threshold = 2;
  for (Placement p : kPlacements) {
    c.placement = p;
    Octree<int, double> tree(c);
    for (int i = 0; i < 64; ++i) {
      const double x = i % 4 * 5 - 10, y = i / 4 % 4 * 5 - 10, z = i / 16 * 5 - 10;
      tree.insert({{x, y, z}, {x + 5, y + 5, z + 5}}, i);  // a 4x4x4 lattice of touching cubes
    }
    tree.validate();
    std::size_t count = 0;
    tree.query(Vec<3, double>{-5, -5, -5}, [&](const int&) { ++count; });
    EXPECT_EQ(count, 8u);  // a lattice corner touches 8 cubes
    std::size_t pairs = 0;
    tree.for_each_pair([&](Handle, Handle) { ++pairs; });
    // Touching cubes on a 4x4x4 lattice: each pair of lattice cells within Chebyshev distance 1.
    std::size_t expected = 0;
    for (int a = 0; a < 64; ++a)
      for (int b = a + 1; b < 64; ++b)
        if (std::abs(a % 4 - b % 4) <= 1 && std::abs(a / 4 % 4 - b / 4 % 4) <= 1 && std::abs(a / 16 - b / 16) <= 1)
          ++expected;
    EXPECT_EQ(pairs, expected);
  }
}

}  // namespace

// The threaded pair finders on trees big enough to be cut into many pieces: pairs() gives for_each_pair's exact
// sequence with any number of threads, for_each_pair_parallel the same pairs spread over its workers, and an
// exception thrown by the callback on one worker reaches the caller.
template <int D>
void check_parallel_pairs(Placement p, std::uint32_t seed) {
  Config<D, float> c;
  for (int i = 0; i < D; ++i) c.world.min[i] = 0, c.world.max[i] = 200;
  c.placement = p;
  c.max_depth = 10;
  Tree<D, int, float> tree(c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-5, 205), side(0.5f, 6);
  for (int i = 0; i < 4000; ++i) {
    Box<D, float> b;
    for (int a = 0; a < D; ++a) {
      b.min[a] = u(rng);
      b.max[a] = b.min[a] + side(rng);
    }
    tree.insert(b, i);
  }
  std::vector<std::pair<Handle, Handle>> seq;
  tree.for_each_pair([&](Handle a, Handle b) { seq.emplace_back(a, b); });
  ASSERT_GT(seq.size(), 100u);
  for (unsigned threads : {0u, 1u, 2u, 4u, 7u}) {
    std::vector<std::pair<Handle, Handle>> out;
    tree.pairs(out, threads);
    EXPECT_TRUE(out == seq) << threads << " threads";
    const unsigned workers = threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads;
    std::vector<std::vector<std::pair<Handle, Handle>>> per(workers);
    tree.for_each_pair_parallel([&](unsigned w, Handle a, Handle b) { per.at(w).emplace_back(a, b); }, threads);
    std::set<std::pair<std::uint32_t, std::uint32_t>> got, want;
    std::size_t total = 0;
    for (const auto& v : per)
      for (const auto& [a, b] : v) got.emplace(a.index(), b.index()), ++total;
    for (const auto& [a, b] : seq) want.emplace(a.index(), b.index());
    EXPECT_EQ(total, seq.size()) << threads << " threads: a pair reported twice";
    EXPECT_TRUE(got == want) << threads << " threads";
  }
  std::atomic<int> calls{0};
  EXPECT_THROW(tree.for_each_pair_parallel(
                   [&](unsigned, Handle, Handle) {
                     if (++calls == 50) throw std::runtime_error("from a worker");
                   },
                   4),
               std::runtime_error);
}

TEST(Tree, ParallelPairsMatchTheSequentialWalk) {
  std::uint32_t seed = 1;
  for (Placement p : kPlacements) {
    SCOPED_TRACE(static_cast<int>(p));
    check_parallel_pairs<2>(p, seed++);
    check_parallel_pairs<3>(p, seed++);
  }
}
