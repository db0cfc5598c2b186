// SPDX-License-Identifier: MIT
// quadrant — the bulk build (Tree::assign) against brute force and against insertion one by one: layer masks,
// larger scenes than the oracle fuzz runs, extreme magnitudes, generic ranges, a throwing value type, the full
// tree, and the tree's life after a build (mutations, rebuilds, handles). Seeds are fixed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <forward_list>
#include <limits>
#include <random>
#include <iterator>
#include <ranges>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <quadrant/quadrant.hpp>
#include <quadrant_support/generated.hpp>

#include "support/placements.hpp"

namespace {

using quadrant::Box;
using quadrant::Config;
using quadrant::Handle;
using quadrant::Placement;
using quadrant::Tree;
using quadrant::Vec;

using quadrant_test::kPlacements;

template <int D, class S>
bool touches(const Box<D, S>& a, const Box<D, S>& b) {
  for (int i = 0; i < D; ++i)
    if (a.max[i] < b.min[i] || b.max[i] < a.min[i]) return false;
  return true;
}

// Random boxes in a world of half-width `half`: most small, some large, some flat or points, a few outside.
template <int D, class S>
class Scene {
 public:
  Scene(std::uint32_t seed, double half) : rng_(seed), half_(half) {}
  Box<D, S> world() const {
    Box<D, S> w;
    for (int i = 0; i < D; ++i) {
      w.min[i] = S(-half_);
      w.max[i] = S(half_);
    }
    return w;
  }
  Box<D, S> object() {
    const double r = real(0, 1);
    const double side = r < 0.1 ? 0 : r < 0.9 ? real(0, half_ / 50) : real(0, half_ / 2);
    const double reach = real(0, 1) < 0.05 ? 1.5 * half_ : half_;
    Box<D, S> b;
    for (int i = 0; i < D; ++i) {
      const double lo = real(-reach, reach);
      b.min[i] = S(lo);
      b.max[i] = std::max(b.min[i], S(lo + (real(0, 1) < 0.2 ? 0 : side)));
    }
    return b;
  }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  std::uint32_t bits() { return static_cast<std::uint32_t>(rng_()); }

 private:
  std::mt19937 rng_;
  double half_;
};

template <int D, class S>
Config<D, S> config_for(const Box<D, S>& world, Placement p, int threshold = 8) {
  Config<D, S> c;
  c.world = world;
  c.placement = p;
  c.max_depth = 12;
  c.split_threshold = threshold;
  return c;
}

using Item = std::tuple<Box<2, float>, int, std::uint32_t>;

template <class TreeT>
std::set<std::pair<int, int>> value_pairs(const TreeT& tree, std::uint32_t mask = ~0u) {
  std::set<std::pair<int, int>> pairs;
  tree.for_each_pair(
      [&](Handle a, Handle b) {
        const int x = tree.value(a), y = tree.value(b);
        pairs.emplace(std::min(x, y), std::max(x, y));
      },
      mask);
  return pairs;
}

// ---- against brute force, with layers, 2D and 3D, float and double ---------------------------------------------

// The k nearest by brute force: the sorted distances (ties make the objects themselves ambiguous).
template <int D, class S>
std::vector<double> nearest_distances(const std::vector<std::tuple<Box<D, S>, int, std::uint32_t>>& items,
                                      const std::vector<bool>& live, const Vec<D, S>& at, std::size_t k,
                                      std::uint32_t mask, double max_distance) {
  std::vector<double> d;
  for (std::size_t j = 0; j < items.size(); ++j) {
    const auto& [box, v, layers] = items[j];
    if (!live[j] || (layers & mask) == 0) continue;
    double s = 0;
    for (int i = 0; i < D; ++i) {
      const double c = std::clamp(double(at[i]), double(box.min[i]), double(box.max[i])) - double(at[i]);
      s += c * c;
    }
    if (std::sqrt(s) <= max_distance) d.push_back(std::sqrt(s));
  }
  std::sort(d.begin(), d.end());
  if (d.size() > k) d.resize(k);
  return d;
}

template <int D, class S>
void check_against_brute_force(std::uint32_t seed, double half) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(std::string("placement ") + std::to_string(static_cast<int>(p)) + ", half-width " +
                 std::to_string(half) + ", seed " + std::to_string(seed));
    Scene<D, S> scene(seed, half);
    std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> items;
    for (int i = 0; i < 1500; ++i) items.emplace_back(scene.object(), i, 1u << (scene.bits() % 4));
    Tree<D, int, S> tree(config_for(scene.world(), p));
    const std::vector<Handle> handles = tree.assign(items);
    tree.validate();
    ASSERT_EQ(tree.size(), items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      ASSERT_TRUE(tree.contains(handles[i]));
      EXPECT_EQ(tree.value(handles[i]), std::get<1>(items[i]));
      EXPECT_EQ(tree.layers(handles[i]), std::get<2>(items[i]));
    }
    for (int q = 0; q < 60; ++q) {
      Box<D, S> window = scene.object();
      const std::uint32_t mask = q % 3 == 0 ? ~0u : 1u << (scene.bits() % 4);
      std::set<int> got, want;
      tree.query(window, [&](const int& v) { got.insert(v); }, mask);
      for (const auto& [box, v, layers] : items)
        if ((layers & mask) != 0 && touches(box, window)) want.insert(v);
      EXPECT_EQ(got, want) << "window query " << q;
    }
    for (std::uint32_t mask : {~0u, 1u, 6u}) {
      std::set<std::pair<int, int>> want;
      for (std::size_t i = 0; i < items.size(); ++i)
        for (std::size_t j = i + 1; j < items.size(); ++j)
          if ((std::get<2>(items[i]) & mask) != 0 && (std::get<2>(items[j]) & mask) != 0 &&
              touches(std::get<0>(items[i]), std::get<0>(items[j])))
            want.emplace(std::get<1>(items[i]), std::get<1>(items[j]));
      EXPECT_EQ(value_pairs(tree, mask), want) << "pairs, mask " << mask;
    }
    // Nearest: the k-th distance agrees with brute force.
    std::vector<quadrant::Neighbor<S>> found;
    for (int q = 0; q < 20; ++q) {
      Vec<D, S> at;
      for (int i = 0; i < D; ++i) at[i] = S(scene.real(-half, half));
      tree.nearest(at, 5, found);
      const std::vector<double> d =
          nearest_distances(items, std::vector<bool>(items.size(), true), at, 5, ~0u,
                            std::numeric_limits<double>::infinity());
      ASSERT_EQ(found.size(), 5u);
      for (std::size_t k = 0; k < 5; ++k)
        EXPECT_NEAR(double(found[k].distance), d[k], 1e-4 * std::max(1.0, d[k])) << "neighbour " << k;
    }
  }
}

TEST(Build, AgreesWithBruteForce2DFloat) { check_against_brute_force<2, float>(11, 1000); }
TEST(Build, AgreesWithBruteForce2DDouble) { check_against_brute_force<2, double>(12, 1e6); }
TEST(Build, AgreesWithBruteForce3DFloat) { check_against_brute_force<3, float>(13, 100); }
TEST(Build, AgreesWithBruteForce3DDouble) { check_against_brute_force<3, double>(14, 1e-3); }
// Objects packed in a corner finer than the build's sort key resolves (65536 cells a side in 2D, 1024 in 3D), so
// below some depth their order in the build says nothing of where they lie, and the children's entries must be
// sorted out rather than found in runs.
template <int D, class S>
void check_below_key_resolution(std::uint32_t seed) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(std::string("placement ") + std::to_string(static_cast<int>(p)));
    std::mt19937 rng(seed);
    const double corner = D == 2 ? 1.0 / (1 << 20) : 1.0 / (1 << 14);  // of the world's side
    std::uniform_real_distribution<double> at(0, corner), side(0, corner / 40);
    std::vector<std::pair<Box<D, S>, int>> items;
    for (int k = 0; k < 1200; ++k) {
      Box<D, S> b;
      for (int i = 0; i < D; ++i) {
        b.min[i] = S(at(rng));
        b.max[i] = S(double(b.min[i]) + (k % 10 == 0 ? corner / 3 : side(rng)));
      }
      items.emplace_back(b, k);
    }
    Config<D, S> cfg;
    for (int i = 0; i < D; ++i) {
      cfg.world.min[i] = 0;
      cfg.world.max[i] = 1;
    }
    cfg.placement = p;
    cfg.max_depth = 30;
    cfg.split_threshold = 4;
    Tree<D, int, S> tree(cfg);
    tree.assign(items);
    tree.validate();
    EXPECT_GT(tree.stats().depth, D == 2 ? 17 : 11);  // deeper than the key's cells
    std::set<std::pair<int, int>> want;
    for (std::size_t a = 0; a < items.size(); ++a)
      for (std::size_t b = a + 1; b < items.size(); ++b)
        if (touches(items[a].first, items[b].first)) want.emplace(items[a].second, items[b].second);
    EXPECT_EQ(value_pairs(tree), want);
    for (int q = 0; q < 50; ++q) {
      Box<D, S> window;
      for (int i = 0; i < D; ++i) {
        window.min[i] = S(at(rng));
        window.max[i] = S(double(window.min[i]) + corner / 8);
      }
      std::set<int> got, expected;
      tree.query(window, [&](const int& v) { got.insert(v); });
      for (const auto& [box, v] : items)
        if (touches(box, window)) expected.insert(v);
      EXPECT_EQ(got, expected) << "window " << q;
    }
  }
}

TEST(Build, BelowTheSortKeysResolution) {
  check_below_key_resolution<2, double>(17);
  check_below_key_resolution<3, float>(18);
  check_below_key_resolution<3, double>(19);
}

TEST(Build, AgreesWithBruteForceAtExtremeMagnitudes) {
  check_against_brute_force<2, float>(15, 1e37);
  check_against_brute_force<3, double>(16, 1e300);
}

// ---- the shape of a built tree: split exactly where insertion's rule says ----------------------------------------

// Halves of a cell and which half owns a point, computed here as the tree's contract describes them (std::midpoint
// cuts, a point on a cut belongs to the upper half; a loose child's bounds are its cell grown by half its side,
// within its parent's).
template <int D, class S>
Box<D, S> half_of(const Box<D, S>& cell, const Vec<D, S>& p) {
  Box<D, S> c;
  for (int i = 0; i < D; ++i) {
    const S mid = std::midpoint(cell.min[i], cell.max[i]);
    c.min[i] = p[i] >= mid ? mid : cell.min[i];
    c.max[i] = p[i] >= mid ? cell.max[i] : mid;
  }
  return c;
}

// True when `b` could go down from a node with this cell and these bounds into the child owning its key point.
template <int D, class S>
bool goes_down(Placement p, const Box<D, S>& cell, const Box<D, S>& bounds, const Box<D, S>& world,
               const Box<D, S>& b, bool root) {
  Vec<D, S> key;
  for (int i = 0; i < D; ++i) key[i] = p == Placement::Loose ? std::midpoint(b.min[i], b.max[i]) : b.min[i];
  for (int i = 0; i < D; ++i)
    if (root && !(world.min[i] <= key[i] && key[i] <= world.max[i])) return false;
  const Box<D, S> child = half_of(cell, key);
  for (int i = 0; i < D; ++i) {
    if (p == Placement::Parent && b.max[i] > child.max[i]) return false;
    if (p == Placement::Loose) {
      const S half = (child.max[i] - child.min[i]) / 2;
      if (b.min[i] < std::max(child.min[i] - half, bounds.min[i]) || b.max[i] > std::min(child.max[i] + half, bounds.max[i]))
        return false;
    }
  }
  return true;
}

template <int D, class S>
bool may_split(const Config<D, S>& cfg, const Box<D, S>& cell, int depth) {
  if (depth >= cfg.max_depth) return false;
  for (int i = 0; i < D; ++i) {
    const S mid = std::midpoint(cell.min[i], cell.max[i]);
    if (!(cell.min[i] < mid && mid < cell.max[i]) || mid - cell.min[i] < cfg.min_node_size ||
        cell.max[i] - mid < cfg.min_node_size)
      return false;
  }
  return true;
}

// Every inner node held more than the threshold and passed an object down; every leaf holding more could not
// split or would pass none down. With validate() (each object in the deepest node it fits) this is the tree
// insertion's rule builds, node for node.
template <int D, class S>
void check_split_rule(const Tree<D, int, S>& tree, const Config<D, S>& cfg) {
  tree.validate();
  tree.for_each_node([&](const auto& v) {
    if (!v.leaf) {
      EXPECT_GT(v.count, static_cast<std::size_t>(cfg.split_threshold)) << "node " << v.id;
      EXPECT_LT(v.items.size(), v.count) << "node " << v.id << " split but kept every object";
      return;
    }
    if (v.items.size() <= static_cast<std::size_t>(cfg.split_threshold) || !may_split(cfg, v.cell, v.depth)) return;
    for (const auto& e : v.items)
      EXPECT_FALSE(goes_down(cfg.placement, v.cell, v.bounds, cfg.world, e.box, v.depth == 0))
          << "leaf " << v.id << " at depth " << v.depth << " should have split";
  });
}

// Scenes the build's keys must get exactly right: boxes and points on the cells' cuts at every level, outside the
// world, large ones, and a cluster packed deeper than the keys reach; with and without min_node_size.
template <int D, class S>
void check_built_shapes(std::uint32_t seed, double half) {
  std::mt19937 rng(seed);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  for (Placement p : {Placement::Loose, Placement::Parent}) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE("placement " + std::to_string(static_cast<int>(p)) + ", variant " + std::to_string(variant) +
                   ", half-width " + std::to_string(half));
      Box<D, S> world;
      for (int i = 0; i < D; ++i) {
        world.min[i] = S(-half);
        world.max[i] = S(half * (0.7 + 0.1 * i));
      }
      Config<D, S> cfg = config_for(world, p, variant == 1 ? 1 : 8);
      cfg.max_depth = variant == 2 ? 20 : 9;
      if (variant == 1) cfg.min_node_size = S(half / 40);
      std::vector<std::pair<Box<D, S>, int>> items;
      for (int k = 0; k < 6000; ++k) {
        Box<D, S> b;
        const int kind = k % 4;
        const int level = 1 + static_cast<int>(rng() % 12);
        for (int i = 0; i < D; ++i) {
          const double w = double(world.max[i]) - double(world.min[i]);
          if (kind == 0) {  // on a cut (up to rounding, which the build must follow as the tree does)
            const double step = w / double(1 << level);
            b.min[i] = S(double(world.min[i]) + step * double(rng() % (1u << level)));
            b.max[i] = std::max(b.min[i], S(double(b.min[i]) + step * double(rng() % 3)));
          } else if (kind == 1) {  // small, some outside the world
            b.min[i] = S(real(double(world.min[i]) - w / 10, double(world.max[i]) + w / 10));
            b.max[i] = std::max(b.min[i], S(double(b.min[i]) + real(0, w / 500)));
          } else if (kind == 2) {  // a tight cluster: deeper than the keyed levels
            b.min[i] = S(double(world.min[i]) + w / 3 + real(0, w * 1e-5));
            b.max[i] = b.min[i];
          } else {  // points and large boxes
            b.min[i] = S(real(double(world.min[i]), double(world.max[i])));
            b.max[i] = std::max(b.min[i], S(double(b.min[i]) + (rng() % 2 ? 0.0 : real(0, w / 4))));
          }
        }
        items.emplace_back(b, k);
      }
      Tree<D, int, S> tree(cfg);
      tree.assign(items);
      check_split_rule(tree, cfg);
      EXPECT_GT(tree.stats().depth, variant == 2 ? 12 : 4);
      // The same objects re-rooted over the same world (rebuild keys the stored boxes).
      tree.rebuild(world);
      check_split_rule(tree, cfg);
    }
  }
}

TEST(Build, SplitsWhereInsertionsRuleSays2DFloat) { check_built_shapes<2, float>(71, 1000); }
TEST(Build, SplitsWhereInsertionsRuleSays2DDouble) { check_built_shapes<2, double>(72, 1e-3); }
TEST(Build, SplitsWhereInsertionsRuleSays3DFloat) { check_built_shapes<3, float>(73, 1e30); }
TEST(Build, SplitsWhereInsertionsRuleSays3DDouble) { check_built_shapes<3, double>(74, 1e200); }

// ---- the same answers as insertion, on a larger scene ------------------------------------------------------------

TEST(Build, SameAnswersAsInsertingOneByOne) {
  for (Placement p : kPlacements) {
    for (int threshold : {1, 8, 0}) {
      SCOPED_TRACE("placement " + std::to_string(static_cast<int>(p)) + ", threshold " + std::to_string(threshold));
      Scene<2, float> scene(21 + threshold, 500);
      Config<2, float> cfg = config_for(scene.world(), p, threshold);
      if (threshold == 0) cfg.max_depth = 5;
      std::vector<std::pair<Box<2, float>, int>> items;
      for (int i = 0; i < 20000; ++i) items.emplace_back(scene.object(), i);
      Tree<2, int> built(cfg), inserted(cfg);
      built.assign(items);
      for (const auto& [box, v] : items) inserted.insert(box, v);
      built.validate();
      EXPECT_EQ(value_pairs(built), value_pairs(inserted));
      for (int q = 0; q < 200; ++q) {
        const Box<2, float> window = scene.object();
        std::set<int> a, b;
        built.query(window, [&](const int& v) { a.insert(v); });
        inserted.query(window, [&](const int& v) { b.insert(v); });
        ASSERT_EQ(a, b) << "window " << q;
      }
    }
  }
}

// A build without handles makes the tree a build with handles makes from the same range, node for node: the same
// objects in the same slots (the space order; a range of unknown size may key fewer levels and order ties
// otherwise), and handle_at names them.
TEST(Build, WithoutHandlesTheSameTree) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE("placement " + std::to_string(static_cast<int>(p)));
    Scene<2, float> scene(31, 500);
    std::vector<std::tuple<Box<2, float>, int, std::uint32_t>> items;
    for (int i = 0; i < 5000; ++i) items.emplace_back(scene.object(), i, 1u << (scene.bits() % 3));
    const std::forward_list<std::tuple<Box<2, float>, int, std::uint32_t>> list(items.begin(), items.end());
    auto check = [&](const auto& range, const char* kind) {
      SCOPED_TRACE(kind);
      Tree<2, int> with(config_for(scene.world(), p)), without(config_for(scene.world(), p));
      const Handle stale = without.insert(scene.object(), -1);
      const std::vector<Handle> handles = with.assign(range);
      without.assign(range, quadrant::no_handles);
      EXPECT_FALSE(without.contains(stale));
      without.validate();
      ASSERT_EQ(without.size(), items.size());
      EXPECT_EQ(without.stats().nodes, with.stats().nodes);
      EXPECT_EQ(without.stats().depth, with.stats().depth);
      // Item i sits in the slot its handle names in `with`, with its value, box and layers.
      for (std::size_t i = 0; i < items.size(); ++i) {
        const Handle h = without.handle_at(handles[i].index());
        ASSERT_TRUE(without.contains(h)) << "item " << i;
        EXPECT_EQ(without.value(h), std::get<1>(items[i]));
        EXPECT_EQ(without.bounds(h), std::get<0>(items[i]));
        EXPECT_EQ(without.layers(h), std::get<2>(items[i]));
      }
      EXPECT_EQ(value_pairs(without), value_pairs(with));
      for (int q = 0; q < 100; ++q) {
        const Box<2, float> window = scene.object();
        std::set<int> got, want;
        without.query(window, [&](const int& v) { got.insert(v); });
        for (const auto& [box, v, layers] : items)
          if (touches(box, window)) want.insert(v);
        ASSERT_EQ(got, want) << "window " << q;
      }
    };
    check(items, "vector");
    check(list, "forward_list");
  }
  // A bad item throws as with handles, naming it, and the tree keeps what it held.
  Tree<2, int> tree(config_for(Box<2, float>{{0, 0}, {100, 100}}, Placement::Loose));
  const Handle kept = tree.insert({{1, 1}, {2, 2}}, 7);
  std::vector<std::pair<Box<2, float>, int>> bad = {{{{0, 0}, {1, 1}}, 0}, {{{3, 3}, {2, 4}}, 1}};
  try {
    tree.assign(bad, quadrant::no_handles);
    FAIL() << "min > max was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(item 1)"), std::string::npos) << e.what();
  }
  ASSERT_TRUE(tree.contains(kept));
  EXPECT_EQ(tree.size(), 1u);
  tree.validate();
}

// ---- k nearest from the home table ------------------------------------------------------------------------------

// A built tree starts its k-nearest searches from the node its home table names for the query point. The answers
// must be brute force's wherever the point is (inside, on the world's faces, far outside), whatever the layers and
// the distance limit (a start node with nothing in the layers, or out of reach), and after the tree changes:
// splits keep the table (its nodes live on as inner nodes), a freed node drops it. validate() checks every cell of
// the table.
template <int D, class S>
void check_nearest_from_homes(std::uint32_t seed, double half) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(std::string("placement ") + std::to_string(static_cast<int>(p)) + ", half-width " +
                 std::to_string(half));
    Scene<D, S> scene(seed, half);
    std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> items;
    for (int i = 0; i < 4000; ++i) items.emplace_back(scene.object(), i, 1u << (scene.bits() % 3));
    std::vector<bool> live(items.size(), true);
    Tree<D, int, S> tree(config_for(scene.world(), p, 8));
    std::vector<Handle> handles = tree.assign(items);
    auto check = [&](const char* stage) {
      SCOPED_TRACE(stage);
      tree.validate();
      std::vector<quadrant::Neighbor<S>> found;
      for (int q = 0; q < 60; ++q) {
        Vec<D, S> at;
        const double reach = q % 10 == 0 ? 3 * half : half;  // some far outside the world
        for (int i = 0; i < D; ++i) at[i] = S(scene.real(-reach, reach));
        if (q % 10 == 1) at = scene.world().min;  // on the world's lower corner
        if (q % 10 == 2) at = scene.world().max;
        const std::size_t k = q % 3 == 0 ? 1 : 7;
        const std::uint32_t mask = q % 4 == 0 ? 4u : ~0u;
        const double limit = q % 5 == 0 ? half / 20 : std::numeric_limits<double>::infinity();
        tree.nearest(at, k, found, S(limit), mask);
        const std::vector<double> want = nearest_distances(items, live, at, k, mask, limit);
        ASSERT_EQ(found.size(), want.size()) << "query " << q;
        for (std::size_t j = 0; j < want.size(); ++j)
          EXPECT_NEAR(double(found[j].distance), want[j], 1e-5 * std::max(half, want[j]))
              << "query " << q << ", neighbour " << j;
      }
    };
    check("built");
    // Dense inserts near one corner split leaves the table names.
    for (int i = 0; i < 1500; ++i) {
      Box<D, S> b = scene.object();
      for (int a = 0; a < D; ++a) {
        const S shift = S(-half * 0.7) - b.min[a];
        b.min[a] = std::max(S(-half), S(b.min[a] + shift * S(0.9)));
        b.max[a] = std::max(b.min[a], S(b.max[a] + shift * S(0.9)));
      }
      items.emplace_back(b, int(items.size()), 1u << (scene.bits() % 3));
      live.push_back(true);
      handles.push_back(tree.insert(std::get<0>(items.back()), std::get<1>(items.back()), std::get<2>(items.back())));
    }
    check("after splits");
    for (std::size_t j = 0; j < items.size(); j += 2) {
      tree.erase(handles[j]);
      live[j] = false;
    }
    check("after merges");
  }
}

TEST(Build, NearestFromTheHomeTable2DFloat) { check_nearest_from_homes<2, float>(91, 1000); }
TEST(Build, NearestFromTheHomeTable3DDouble) { check_nearest_from_homes<3, double>(92, 1e-3); }
TEST(Build, NearestFromTheHomeTable2DDoubleHuge) { check_nearest_from_homes<2, double>(93, 1e30); }

// ---- ranges, errors, values that throw ---------------------------------------------------------------------------

TEST(Build, TakesAnyForwardRangeOfTuples) {
  Tree<2, std::string> tree(config_for(Box<2, float>{{0, 0}, {100, 100}}, Placement::Loose));
  // A forward range that makes its items on the fly (a prvalue pair per element), as a transform view would.
  const quadrant_support::Generated items(300, [](std::uint32_t i) {
    const float x = float(i % 20) * 5, y = float(i / 20) * 5;
    return std::pair{Box<2, float>{{x, y}, {x + 1, y + 1}}, std::to_string(i)};
  });
  static_assert(std::ranges::random_access_range<decltype(items)>);  // read in the order of the records
  const std::vector<Handle> handles = tree.assign(items);
  ASSERT_EQ(handles.size(), 300u);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(tree.value(handles[std::size_t(i)]), std::to_string(i));
  tree.validate();
  // A range that can only be read front to back: each item's handle still names it.
  std::forward_list<std::tuple<Box<2, float>, std::string, std::uint32_t>> list;
  for (int i = 299; i >= 0; --i) {
    const float x = float(i % 20) * 5 + 2, y = float(i / 20) * 5 + 2;
    list.emplace_front(Box<2, float>{{x, y}, {x + 1, y + 1}}, "item " + std::to_string(i), 1u << (i % 3));
  }
  static_assert(!std::ranges::bidirectional_range<decltype(list)>);
  const std::vector<Handle> listed = tree.assign(list);
  ASSERT_EQ(listed.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    const Handle h = listed[std::size_t(i)];
    EXPECT_EQ(tree.value(h), "item " + std::to_string(i));
    EXPECT_EQ(tree.layers(h), 1u << (i % 3));
    EXPECT_EQ(tree.bounds(h).min.x, float(i % 20) * 5 + 2);
  }
  for (Handle h : handles) EXPECT_FALSE(tree.contains(h));
  tree.validate();
  // An empty range empties the tree.
  tree.assign(std::vector<std::pair<Box<2, float>, std::string>>{});
  EXPECT_TRUE(tree.empty());
  for (Handle h : handles) EXPECT_FALSE(tree.contains(h));
  tree.validate();
}

TEST(Build, BadItemNamesItsIndexAndChangesNothing) {
  Tree<2, int> tree(config_for(Box<2, float>{{0, 0}, {100, 100}}, Placement::Parent));
  const Handle kept = tree.insert({{1, 1}, {2, 2}}, 7);
  std::vector<std::tuple<Box<2, float>, int, std::uint32_t>> items = {
      {{{0, 0}, {1, 1}}, 0, 1u}, {{{3, 3}, {4, 4}}, 1, 1u}, {{{5, 5}, {6, 6}}, 2, 0u}};
  try {
    tree.assign(items);
    FAIL() << "a zero layer mask was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(item 2)"), std::string::npos) << e.what();
  }
  std::get<2>(items[2]) = 1u;
  std::get<0>(items[1]).max.x = std::numeric_limits<float>::quiet_NaN();
  try {
    tree.assign(items);
    FAIL() << "a NaN box was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(item 1)"), std::string::npos) << e.what();
  }
  ASSERT_TRUE(tree.contains(kept));
  EXPECT_EQ(tree.size(), 1u);
  EXPECT_EQ(tree.value(kept), 7);
  tree.validate();
}

// A value whose copy throws on the n-th copy made.
struct Fragile {
  static inline int copies_left = 1 << 30;
  int v = 0;
  explicit Fragile(int x) : v(x) {}
  Fragile(const Fragile& o) : v(o.v) {
    if (--copies_left < 0) throw std::runtime_error("copy failed");
  }
  Fragile& operator=(const Fragile&) = default;
};

TEST(Build, ThrowingValueLeavesTheTreeEmptyAndValid) {
  Tree<2, Fragile> tree(config_for(Box<2, float>{{0, 0}, {100, 100}}, Placement::Leaves));
  const Handle old = tree.insert({{1, 1}, {2, 2}}, Fragile(1));
  std::vector<std::pair<Box<2, float>, Fragile>> items;
  for (int i = 0; i < 50; ++i) items.emplace_back(Box<2, float>{{float(i), 0}, {float(i) + 1, 1}}, Fragile(i));
  Fragile::copies_left = 20;
  EXPECT_THROW(tree.assign(items), std::runtime_error);
  Fragile::copies_left = 1 << 30;
  EXPECT_TRUE(tree.empty());
  EXPECT_FALSE(tree.contains(old));
  tree.validate();
  std::size_t seen = 0;
  tree.query(Box<2, float>{{0, 0}, {100, 100}}, [&](const Fragile&) { ++seen; });
  EXPECT_EQ(seen, 0u);
  // And it builds again.
  const std::vector<Handle> handles = tree.assign(items);
  EXPECT_EQ(tree.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(tree.value(handles[std::size_t(i)]).v, i);
  tree.validate();
}

// ---- life after a build -------------------------------------------------------------------------------------------

TEST(Build, MutationsAndRebuildsAfterABuild) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE("placement " + std::to_string(static_cast<int>(p)));
    Scene<3, float> scene(31, 100);
    Tree<3, int> tree(config_for(scene.world(), p));
    std::vector<std::pair<Box<3, float>, int>> items;
    std::vector<Handle> handles;
    for (int round = 0; round < 4; ++round) {
      items.clear();
      for (int i = 0; i < 2000; ++i) items.emplace_back(scene.object(), round * 10000 + i);
      const std::vector<Handle> old = handles;
      tree.assign(items, handles);
      for (Handle h : old) ASSERT_FALSE(tree.contains(h));
      // Erase a third, move a third, insert some: the tree stays valid and agrees with brute force.
      std::vector<std::pair<Box<3, float>, int>> live;
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i % 3 == 0) {
          tree.erase(handles[i]);
        } else if (i % 3 == 1) {
          items[i].first = scene.object();
          tree.move(handles[i], items[i].first);
          live.push_back(items[i]);
        } else {
          live.push_back(items[i]);
        }
      }
      for (int i = 0; i < 300; ++i) {
        live.emplace_back(scene.object(), -1 - i);
        tree.insert(live.back().first, live.back().second);
      }
      tree.validate();
      ASSERT_EQ(tree.size(), live.size());
      std::set<std::pair<int, int>> want;
      for (std::size_t i = 0; i < live.size(); ++i)
        for (std::size_t j = i + 1; j < live.size(); ++j)
          if (touches(live[i].first, live[j].first))
            want.emplace(std::min(live[i].second, live[j].second), std::max(live[i].second, live[j].second));
      EXPECT_EQ(value_pairs(tree), want) << "round " << round;
    }
  }
}

// rebuild(world) re-roots a tree whose objects outgrew its world: every handle keeps its object, value, box and
// layers; nothing lies outside the new world; queries, pairs and nearest agree with brute force; the tree goes on
// taking inserts, moves and erases. A bad world or a call from inside a walk throws and changes nothing.
template <int D, class S>
void check_rebuild(std::uint32_t seed, double half) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(std::string("placement ") + std::to_string(static_cast<int>(p)) + ", seed " + std::to_string(seed));
    Scene<D, S> scene(seed, half);
    // A world a quarter the scene's size: most objects lie outside it and pile into the root.
    Box<D, S> small, big;
    for (int i = 0; i < D; ++i) {
      small.min[i] = S(-half / 4), small.max[i] = S(half / 4);
      big.min[i] = S(-2 * half), big.max[i] = S(2 * half);
    }
    Tree<D, int, S> tree(config_for(small, p));
    std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> items;
    std::vector<Handle> handles;
    for (int i = 0; i < 1200; ++i) {
      items.emplace_back(scene.object(), i, 1u << (scene.bits() % 3));
      handles.push_back(tree.insert(std::get<0>(items.back()), i, std::get<2>(items.back())));
    }
    // Some erased first, so that the rebuild meets free slots.
    for (int i = 0; i < 1200; i += 7) tree.erase(handles[std::size_t(i)]);
    const quadrant::Stats before = tree.stats();
    ASSERT_GT(before.outside_world, 500u);
    // Bad worlds and a rebuild from inside a query change nothing.
    Box<D, S> inverted = big, nan_world = big;
    std::swap(inverted.min[0], inverted.max[0]);
    nan_world.min[D - 1] = std::numeric_limits<S>::quiet_NaN();
    EXPECT_THROW(tree.rebuild(inverted), std::invalid_argument);
    EXPECT_THROW(tree.rebuild(nan_world), std::invalid_argument);
    bool refused = false;
    tree.query(small, [&](Handle, const int&) {
      try {
        tree.rebuild(big);
      } catch (const std::logic_error&) {
        refused = true;
      }
      return false;
    });
    EXPECT_TRUE(refused);
    EXPECT_EQ(tree.config().world, small);
    EXPECT_EQ(tree.stats().outside_world, before.outside_world);
    tree.validate();

    tree.rebuild(big);
    tree.validate();
    EXPECT_EQ(tree.config().world, big);
    EXPECT_EQ(tree.config().placement, p);
    EXPECT_EQ(tree.stats().outside_world, 0u);
    // Loose and Parent kept the outsiders in the root; Leaves lists them in the border leaves they reach.
    if (p != Placement::Leaves) {
      EXPECT_LT(tree.stats().root_entries, before.root_entries);
    }
    std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> live;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i % 7 == 0) {
        EXPECT_FALSE(tree.contains(handles[i]));
        continue;
      }
      ASSERT_TRUE(tree.contains(handles[i]));
      EXPECT_EQ(tree.value(handles[i]), std::get<1>(items[i]));
      EXPECT_EQ(tree.bounds(handles[i]), std::get<0>(items[i]));
      EXPECT_EQ(tree.layers(handles[i]), std::get<2>(items[i]));
      live.push_back(items[i]);
    }
    // The tree goes on: moves, erases and inserts after the rebuild.
    for (std::size_t i = 1; i < items.size(); i += 5) {
      if (i % 7 == 0) continue;
      std::get<0>(items[i]) = scene.object();
      tree.move(handles[i], std::get<0>(items[i]));
    }
    for (std::size_t i = 3; i < items.size(); i += 11) {
      if (i % 7 == 0) continue;
      tree.erase(handles[i]);
      std::get<1>(items[i]) = -1;
    }
    for (int i = 0; i < 100; ++i) {
      items.emplace_back(scene.object(), 5000 + i, ~0u);
      tree.insert(std::get<0>(items.back()), 5000 + i);
    }
    tree.validate();
    live.clear();
    for (std::size_t i = 0; i < items.size(); ++i)
      if ((i >= 1200 || i % 7 != 0) && std::get<1>(items[i]) != -1) live.push_back(items[i]);
    ASSERT_EQ(tree.size(), live.size());
    for (int q = 0; q < 40; ++q) {
      const Box<D, S> window = scene.object();
      std::set<int> got, want;
      tree.query(window, [&](const int& v) { got.insert(v); });
      for (const auto& [box, v, layers] : live)
        if (touches(box, window)) want.insert(v);
      EXPECT_EQ(got, want) << "window " << q;
    }
    std::set<std::pair<int, int>> want;
    for (std::size_t i = 0; i < live.size(); ++i)
      for (std::size_t j = i + 1; j < live.size(); ++j)
        if (touches(std::get<0>(live[i]), std::get<0>(live[j])))
          want.emplace(std::min(std::get<1>(live[i]), std::get<1>(live[j])),
                       std::max(std::get<1>(live[i]), std::get<1>(live[j])));
    EXPECT_EQ(value_pairs(tree), want);
  }
}

TEST(Build, RebuildOverANewWorld2DFloat) { check_rebuild<2, float>(61, 1000); }
TEST(Build, RebuildOverANewWorld2DDouble) { check_rebuild<2, double>(62, 1e6); }
TEST(Build, RebuildOverANewWorld3DFloat) { check_rebuild<3, float>(63, 100); }
TEST(Build, RebuildOverANewWorld3DDouble) { check_rebuild<3, double>(64, 1e-3); }

// A square window of side half * 10^u, u uniform in [min_exponent, 0.3], centered anywhere in the world.
template <int D, class S>
Box<D, S> random_window(Scene<D, S>& scene, double half, double min_exponent) {
  const double side = half * std::pow(10.0, scene.real(min_exponent, 0.3));
  Box<D, S> window;
  for (int i = 0; i < D; ++i) {
    window.min[i] = S(scene.real(-half - side / 2, half - side / 2));
    window.max[i] = S(double(window.min[i]) + side);
  }
  return window;
}

// After a build each subtree's entries are one run, which a window holding the whole subtree reports without
// visiting its nodes. Every kind of change is followed by windows of every size, with and without a layer mask.
template <int D, class S>
void check_whole_subtrees_after_changes(std::uint32_t seed, double half) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(std::string("placement ") + quadrant::to_string(p) + ", seed " + std::to_string(seed));
    Scene<D, S> scene(seed, half);
    std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> items;
    for (int i = 0; i < 2000; ++i) items.emplace_back(scene.object(), i, 1u << (scene.bits() % 3));
    Tree<D, int, S> tree(config_for(scene.world(), p));
    std::vector<Handle> handles = tree.assign(items);
    std::vector<bool> live(items.size(), true);
    auto check = [&](const std::string& after) {
      SCOPED_TRACE("after " + after);
      tree.validate();
      for (int q = 0; q < 40; ++q) {
        // Windows from a hundredth of the world to all of it and beyond.
        const Box<D, S> window = random_window(scene, half, -2);
        const std::uint32_t mask = q % 2 == 0 ? ~0u : 1u << (scene.bits() % 3);
        std::multiset<int> got, want;
        tree.query(window, [&](const int& v) { got.insert(v); }, mask);
        for (std::size_t i = 0; i < items.size(); ++i)
          if (live[i] && (std::get<2>(items[i]) & mask) != 0 && touches(std::get<0>(items[i]), window))
            want.insert(std::get<1>(items[i]));
        ASSERT_EQ(got, want) << "window " << q;
      }
    };
    // The whole world holds the root's children: right after a build their objects are reported as runs, so far
    // fewer nodes are entered than once a change has broken the runs.
    Box<D, S> all = scene.world();
    for (int i = 0; i < D; ++i) {
      all.min[i] = S(-4 * half);
      all.max[i] = S(4 * half);
    }
    const std::size_t packed_visits = tree.query(all, [](const int&) {}).nodes_visited;
    check("the build");
    // A move within the node and a layer change keep the runs.
    Box<D, S> same = std::get<0>(items[7]);
    tree.move(handles[7], same);
    check("a move to the same box");
    std::get<2>(items[11]) = 4;
    tree.set_layers(handles[11], 4);
    check("a layer change");
    EXPECT_EQ(tree.query(all, [](const int&) {}).nodes_visited, packed_visits);
    tree.erase(handles[3]);
    live[3] = false;
    check("an erase");
    if (p != Placement::Leaves) {
      EXPECT_GT(tree.query(all, [](const int&) {}).nodes_visited, packed_visits);
    }
    items.emplace_back(scene.object(), 5000, 1u);
    live.push_back(true);
    handles.push_back(tree.insert(std::get<0>(items.back()), 5000, 1u));
    check("an insert");
    std::get<0>(items[20]) = scene.object();
    tree.move(handles[20], std::get<0>(items[20]));
    check("a move anywhere");
    const std::size_t broken_visits = tree.query(all, [](const int&) {}).nodes_visited;
    handles = tree.assign(items);
    live.assign(items.size(), true);
    check("a rebuild");
    if (p != Placement::Leaves) {
      EXPECT_LT(tree.query(all, [](const int&) {}).nodes_visited, broken_visits);
    }
  }
}

// Right after a build a subtree inside the window whose layers all pass the mask is reported by its objects' ids,
// without reading its entries. Layers here follow position (layer 1 on the low side of axis 0, 2 or 4 on the high
// side), so masks 1, 3 and 6 take that path in some subtrees and test entries in others. Checked: every handle
// and value against brute force, and a callback that stops after k objects.
template <int D, class S>
void check_subtrees_by_id(std::uint32_t seed, double half) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(std::string("placement ") + quadrant::to_string(p) + ", seed " + std::to_string(seed));
    Scene<D, S> scene(seed, half);
    std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> items;
    for (int i = 0; i < 3000; ++i) {
      Box<D, S> b = scene.object();
      if (i % 4 == 0) {
        // A cluster deeper than the keyed levels of the build, whose nodes keep the boxes that straddle their
        // children's cells (those take the build's other path).
        for (int a = 0; a < D; ++a) {
          b.min[a] = S(half * (0.3 + scene.real(0, 1e-3)));
          b.max[a] = S(double(b.min[a]) + half * scene.real(0, 1e-4));
        }
      }
      items.emplace_back(b, i, b.min[0] < S(0) ? 1u : 2u << (scene.bits() % 2));
    }
    Tree<D, int, S> tree(config_for(scene.world(), p));
    std::vector<Handle> handles = tree.assign(items);
    auto check = [&](const std::string& after) {
      SCOPED_TRACE("after " + after);
      tree.validate();
      for (int q = 0; q < 30; ++q) {
        const Box<D, S> window = random_window(scene, half, -1.5);
        for (std::uint32_t mask : {~0u, 1u, 3u, 6u, 2u}) {
          std::multiset<int> got, want;
          tree.query(window, [&](Handle h, const int& v) {
            EXPECT_EQ(h, handles[static_cast<std::size_t>(v)]) << "window " << q << ", mask " << mask;
            got.insert(v);
          }, mask);
          for (const auto& [box, v, layers] : items)
            if ((layers & mask) != 0 && touches(box, window)) want.insert(v);
          ASSERT_EQ(got, want) << "window " << q << ", mask " << mask;
          for (std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{50}}) {
            std::set<int> seen;
            const quadrant::QueryStats st = tree.query(window, [&](const int& v) {
              EXPECT_TRUE(want.count(v) == 1 && seen.insert(v).second) << "window " << q << ", value " << v;
              return seen.size() < k;
            }, mask);
            EXPECT_EQ(seen.size(), std::min(k, want.size())) << "window " << q << ", mask " << mask << ", k " << k;
            EXPECT_EQ(st.hits, seen.size());
            EXPECT_EQ(st.stopped, want.size() >= k);
          }
        }
      }
    };
    check("the build");
    // Kept packed: a move within the node, a layer change (the subtree's union only grows).
    tree.move(handles[7], std::get<0>(items[7]));
    std::get<2>(items[11]) = 1u;
    tree.set_layers(handles[11], 1u);
    check("a move in place and a layer change");
    // Built again in the new world's key order: the ids keep their slots, so they no longer follow the entries.
    Box<D, S> wider = scene.world();
    for (int i = 0; i < D; ++i) wider.max[i] = S(3 * half);
    tree.rebuild(wider);
    check("a rebuild over a wider world");
    handles = tree.assign(items);
    tree.erase(handles[5]);
    items.erase(items.begin() + 5);
    check("an erase after a second build");
  }
}

TEST(Build, SubtreesReportedByIdAgreeWithBruteForce2DFloat) { check_subtrees_by_id<2, float>(81, 1000); }
TEST(Build, SubtreesReportedByIdAgreeWithBruteForce3DDouble) { check_subtrees_by_id<3, double>(82, 1e-3); }

TEST(Build, WholeSubtreesAfterEachKindOfChange2DFloat) { check_whole_subtrees_after_changes<2, float>(41, 1000); }
TEST(Build, WholeSubtreesAfterEachKindOfChange3DDouble) { check_whole_subtrees_after_changes<3, double>(42, 1e5); }

TEST(Build, ReserveAndAMovedFromTree) {
  Config<2, float> cfg = config_for(Box<2, float>{{0, 0}, {64, 64}}, Placement::Loose, 0);
  cfg.max_depth = 4;
  Tree<2, int> tree(cfg);
  tree.reserve(1000);
  std::vector<std::pair<Box<2, float>, int>> items;
  for (int i = 0; i < 1000; ++i) {
    const float x = float(i % 64), y = float(i / 64);
    items.emplace_back(Box<2, float>{{x, y}, {x, y}}, i);
  }
  tree.assign(items);
  Tree<2, int> other(std::move(tree));
  // The moved-from tree (split_threshold 0: its full tree is gone) builds again.
  const std::vector<Handle> handles = tree.assign(items);
  tree.validate();
  other.validate();
  EXPECT_EQ(tree.size(), 1000u);
  EXPECT_EQ(other.size(), 1000u);
  EXPECT_EQ(value_pairs(tree), value_pairs(other));
  EXPECT_EQ(tree.value(handles[999]), 999);
  EXPECT_THROW(tree.reserve(std::size_t{1} << 33), std::length_error);
}


// The build's key sort, in both forms (scratch in a vector, or in borrowed bytes that hold other objects), against
// a stable sort by the high word: keys whose high words vary in every byte, in one byte only (a single pass, whose
// result ends in the scratch), in two bytes, in none, with many duplicates, and of lengths 0, 1 and odd.
TEST(Build, KeySortAgreesWithAStableSort) {
  std::mt19937_64 rng(77);
  const std::uint64_t masks[] = {0xffffffffull, 0xff00ull, 0x00ff00ffull, 0, 0x7ull, 0xff000000ull};
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1001}, std::size_t{70000}}) {
    for (const std::uint64_t mask : masks) {
      SCOPED_TRACE("n " + std::to_string(n) + ", mask " + std::to_string(mask));
      std::vector<std::uint64_t> keys(n);
      for (std::size_t i = 0; i < n; ++i) keys[i] = (rng() & mask) << 32 | i;
      std::vector<std::uint64_t> want = keys;
      std::stable_sort(want.begin(), want.end(), [](std::uint64_t a, std::uint64_t b) { return a >> 32 < b >> 32; });
      std::vector<std::uint64_t> by_vector = keys, tmp;
      quadrant::detail::radix_sort_by_high_word(by_vector, tmp);
      EXPECT_EQ(by_vector, want);
      // Borrowed bytes: boxes, as a build lends its entry array; the sort must stay inside the 8 bytes a key.
      const std::size_t room = (n + 1) / 2;  // two keys a box
      std::vector<Box<2, float>> lent(room + 2);
      std::vector<std::uint64_t> by_bytes = keys;
      quadrant::detail::radix_sort_by_high_word(by_bytes,
                                                std::as_writable_bytes(std::span<Box<2, float>>(lent.data(), room)));
      EXPECT_EQ(by_bytes, want);
      for (std::size_t b = room; b < lent.size(); ++b)
        for (int i = 0; i < 2; ++i) {
          EXPECT_EQ(lent[b].min[i], 0.0f) << "written past the scratch";
          EXPECT_EQ(lent[b].max[i], 0.0f) << "written past the scratch";
        }
    }
  }
}
}  // namespace

// The large arrays' allocator asks for huge pages on the whole 2 MB pages inside each allocation, and only there.
TEST(Build, HugePageAdviceCoversTheWholePagesInside) {
  using quadrant::detail::huge_page_interior;
  constexpr std::uintptr_t M = std::uintptr_t{1} << 20;
  // Aligned, unaligned at either end, too small to hold a whole page, exactly one page, empty.
  EXPECT_EQ(huge_page_interior(4 * M, 8 * M).first, 4 * M);
  EXPECT_EQ(huge_page_interior(4 * M, 8 * M).last, 12 * M);
  EXPECT_EQ(huge_page_interior(4 * M + 16, 8 * M).first, 6 * M);
  EXPECT_EQ(huge_page_interior(4 * M + 16, 8 * M).last, 12 * M);
  EXPECT_EQ(huge_page_interior(4 * M - 16, 8 * M).first, 4 * M);
  EXPECT_EQ(huge_page_interior(4 * M - 16, 8 * M).last, 10 * M);
  EXPECT_EQ(huge_page_interior(3 * M, 2 * M).first, huge_page_interior(3 * M, 2 * M).last);
  EXPECT_EQ(huge_page_interior(2 * M, 2 * M).first, 2 * M);
  EXPECT_EQ(huge_page_interior(2 * M, 2 * M).last, 4 * M);
  EXPECT_EQ(huge_page_interior(2 * M, 2 * M - 1).first, huge_page_interior(2 * M, 2 * M - 1).last);
  EXPECT_EQ(huge_page_interior(5 * M, 0).first, huge_page_interior(5 * M, 0).last);

  // A vector of the allocator keeps its contents as it grows, like std::vector.
  quadrant::detail::Array<std::uint64_t> a;
  for (std::uint64_t i = 0; i < (std::uint64_t{3} << 20); ++i) a.push_back(i * 7);
  for (std::uint64_t i = 0; i < a.size(); i += 4099) ASSERT_EQ(a[i], i * 7);
  EXPECT_EQ(a.back(), ((std::uint64_t{3} << 20) - 1) * 7);

#if defined(__linux__) && !defined(QUADRANT_NO_HUGE_PAGES)
  // Where the system gives huge pages on request, the kernel marks the advised memory eligible: its mapping in
  // /proc/self/smaps says THPeligible 1. (Whether a huge page is actually found is up to the kernel, not tested.)
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(mode, modes);
  if (modes.find("[madvise]") == std::string::npos) GTEST_SKIP() << "transparent huge pages: " << modes;
  const quadrant::detail::HugePageRange inside =
      huge_page_interior(reinterpret_cast<std::uintptr_t>(a.data()), a.capacity() * sizeof(std::uint64_t));
  ASSERT_NE(inside.first, inside.last);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  int eligible = -1;
  bool in_range = false;
  while (std::getline(smaps, line)) {
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      in_range = lo <= inside.first && inside.first < hi;
    } else if (in_range && line.rfind("THPeligible:", 0) == 0) {
      eligible = std::stoi(line.substr(12));
    }
  }
  EXPECT_EQ(eligible, 1);
#endif
}
