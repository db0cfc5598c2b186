// SPDX-License-Identifier: MIT
// quadrant — pairs through a layer collision matrix: LayerMatrix itself, for_each_pair(fn, matrix) and
// ContactTracker::update(tree, matrix) against brute force with a plain table of its own, in 2D and 3D, float and
// double, every placement, objects with one layer or several; a mask and its matrix agree; a floor that does not
// collide with itself costs no tile-tile box test; pair callbacks taking handles, values or both. Pairs between two
// trees are in test_two_tree_pairs.cpp. Seeds are fixed.
#include <quadrant/quadrant.hpp>

#include <gtest/gtest.h>

#include "support/placements.hpp"

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using quadrant::Box;
using quadrant::Config;
using quadrant::Handle;
using quadrant::LayerMatrix;
using quadrant::Placement;
using quadrant::Tree;

using quadrant_test::kPlacements;
using quadrant_test::square;

// The oracle's matrix: a plain table, filled alongside the LayerMatrix under test.
struct Table {
  bool collide[32][32] = {};
  bool allows(std::uint32_t a, std::uint32_t b) const {
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j)
        if ((a >> i & 1u) != 0 && (b >> j & 1u) != 0 && collide[i][j]) return true;
    return false;
  }
};

TEST(LayerMatrix, SetCollidesBetweenAllAndErrors) {
  LayerMatrix m;
  EXPECT_FALSE(m.collides(0, 0));
  EXPECT_EQ(m.active(), 0u);
  m.set(2, 5);
  EXPECT_TRUE(m.collides(2, 5));
  EXPECT_TRUE(m.collides(5, 2));
  EXPECT_FALSE(m.collides(2, 2));
  EXPECT_EQ(m.active(), (1u << 2) | (1u << 5));
  EXPECT_EQ(m.partners(1u << 2), 1u << 5);
  EXPECT_EQ(m.partners((1u << 2) | (1u << 5)), (1u << 2) | (1u << 5));
  EXPECT_TRUE(m.allows(1u << 2, (1u << 5) | 1u));
  EXPECT_FALSE(m.allows(1u << 2, 1u << 2));
  m.set(5, 2, false);
  EXPECT_FALSE(m.collides(2, 5));
  EXPECT_EQ(m, LayerMatrix{});
  m.set(31, 31);
  EXPECT_TRUE(m.allows(1u << 31, 1u << 31));
  const LayerMatrix snapshot = m;
  EXPECT_THROW(m.set(32, 0), std::invalid_argument);
  EXPECT_THROW(m.set(0, -1), std::invalid_argument);
  EXPECT_THROW((void)m.collides(-1, 0), std::invalid_argument);
  EXPECT_EQ(m, snapshot);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) EXPECT_TRUE(LayerMatrix::all().collides(i, j));
  const LayerMatrix players = LayerMatrix::between(1u, ~0u);
  EXPECT_TRUE(players.collides(0, 7));
  EXPECT_TRUE(players.collides(7, 0));
  EXPECT_TRUE(players.collides(0, 0));
  EXPECT_FALSE(players.collides(7, 7));
}

template <int D, class S>
void check_against_brute_force(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  for (Placement p : kPlacements) {
    for (int round = 0; round < 4; ++round) {
      SCOPED_TRACE(std::string(quadrant::to_string(p)) + ", round " + std::to_string(round));
      // A random symmetric matrix over 6 layers, sometimes with a layer that collides with nothing.
      LayerMatrix m;
      Table table;
      for (int i = 0; i < 6; ++i)
        for (int j = i; j < 6; ++j)
          if (real(0, 1) < 0.4 && !(round == 1 && (i == 3 || j == 3))) {
            m.set(i, j);
            table.collide[i][j] = table.collide[j][i] = true;
          }
      Config<D, S> c;
      for (int i = 0; i < D; ++i) {
        c.world.min[i] = S(0);
        c.world.max[i] = S(100);
      }
      c.placement = p;
      c.split_threshold = round % 2 == 0 ? 4 : 32;
      Tree<D, int, S> tree(c);
      std::vector<std::tuple<Handle, Box<D, S>, std::uint32_t>> objects;
      const int n = D == 2 ? 400 : 900;
      for (int k = 0; k < n; ++k) {
        Box<D, S> b;
        const double side = real(0, 1) < 0.05 ? real(20, 60) : real(0, 8);
        for (int i = 0; i < D; ++i) {
          b.min[i] = S(real(-10, 100));
          b.max[i] = S(double(b.min[i]) + side);
        }
        // One layer mostly; two layers for one object in five.
        std::uint32_t layers = 1u << (rng() % 6);
        if (rng() % 5 == 0) layers |= 1u << (rng() % 6);
        objects.emplace_back(tree.insert(b, k, layers), b, layers);
      }
      std::set<std::pair<int, int>> want, got;
      for (std::size_t i = 0; i < objects.size(); ++i)
        for (std::size_t j = i + 1; j < objects.size(); ++j) {
          const auto& [ha, a, la] = objects[i];
          const auto& [hb, b, lb] = objects[j];
          bool touch = table.allows(la, lb);
          for (int x = 0; x < D && touch; ++x) touch = !(a.max[x] < b.min[x] || b.max[x] < a.min[x]);
          if (touch) want.emplace(int(i), int(j));
        }
      tree.for_each_pair([&](Handle a, Handle b) {
        int x = tree.value(a), y = tree.value(b);
        if (y < x) std::swap(x, y);
        EXPECT_TRUE(got.emplace(x, y).second) << "pair reported twice";
      }, m);
      EXPECT_EQ(got, want);
      EXPECT_GT(want.size(), 20u);
      // The matrix between(mask, mask) and the mask give the same pairs.
      for (std::uint32_t mask : {~0u, 1u | 4u, 8u}) {
        std::set<std::pair<int, int>> by_mask, by_matrix;
        tree.for_each_pair([&](Handle a, Handle b) { by_mask.emplace(std::minmax(tree.value(a), tree.value(b))); }, mask);
        tree.for_each_pair([&](Handle a, Handle b) { by_matrix.emplace(std::minmax(tree.value(a), tree.value(b))); },
                           LayerMatrix::between(mask, mask));
        EXPECT_EQ(by_matrix, by_mask) << "mask " << mask;
      }
      // The contact tracker goes through the same filter.
      quadrant::ContactTracker<D, int, S> contacts;
      contacts.update(tree, m);
      std::set<std::pair<int, int>> tracked;
      for (const quadrant::Contact& ct : contacts.begun()) tracked.emplace(std::minmax(tree.value(ct.a), tree.value(ct.b)));
      EXPECT_EQ(tracked, want);
    }
  }
}

TEST(PairFilters, MatrixAgreesWithBruteForce2DFloat) { check_against_brute_force<2, float>(1); }
TEST(PairFilters, MatrixAgreesWithBruteForce2DDouble) { check_against_brute_force<2, double>(2); }
TEST(PairFilters, MatrixAgreesWithBruteForce3DFloat) { check_against_brute_force<3, float>(3); }
TEST(PairFilters, MatrixAgreesWithBruteForce3DDouble) { check_against_brute_force<3, double>(4); }

// A 100 x 100 tiled floor whose tiles touch their neighbours (40,403 tile-tile pairs), and 20 players walking on
// it: with the floor colliding only with players, no tile-tile pair is tested, let alone reported.
TEST(PairFilters, AFloorThatIgnoresItselfCostsNoTileTests) {
  constexpr std::uint32_t kFloor = 1u << 0, kPlayers = 1u << 1;
  for (Placement p : kPlacements) {
    SCOPED_TRACE(quadrant::to_string(p));
    Tree<2, int> tree(square(p));
    for (int x = 0; x < 100; ++x)
      for (int y = 0; y < 100; ++y)
        tree.insert({{float(x), float(y)}, {float(x + 1), float(y + 1)}}, 0, kFloor);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> at(0.2f, 98.0f);
    for (int i = 0; i < 20; ++i) {
      const float x = at(rng), y = at(rng);
      tree.insert({{x, y}, {x + 0.6f, y + 0.6f}}, 1, kPlayers);
    }
    std::size_t all = 0;
    const quadrant::PairStats unfiltered = tree.for_each_pair([&](Handle, Handle) { ++all; });
    // 9900 + 9900 side neighbours, 2 x 9801 corner neighbours.
    EXPECT_GE(all, 39402u);
    LayerMatrix m;
    m.set(0, 1).set(1, 1);
    std::size_t tile_tile = 0, player_pairs = 0;
    const quadrant::PairStats st = tree.for_each_pair([&](Handle a, Handle b) {
      if (tree.value(a) == 0 && tree.value(b) == 0) ++tile_tile;
      else ++player_pairs;
    }, m);
    EXPECT_EQ(tile_tile, 0u);
    // Each player overlaps 1 to 4 tiles (closed boxes: up to 9 when on a corner).
    EXPECT_GE(player_pairs, 20u);
    // Box tests: each player against the tiles and players near it, nothing for tile against tile. Parent's count
    // also holds the tests that carry ancestors' entries (tiles on split lines) down its stack, cell by cell: it
    // still walks the floor's nodes, but makes no tile-tile pair test.
    EXPECT_LT(st.box_tests * 10, unfiltered.box_tests);
    if (p != Placement::Parent) {
      EXPECT_LT(st.box_tests, 20u * 400u) << "tile-tile tests were made";
    }
  }
}

}  // namespace

namespace {

// Pair callbacks may take handles, values, or both; each form sees the same pairs, and returning false stops.
TEST(PairCallbacks, HandlesValuesOrBoth) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(quadrant::to_string(p));
    Tree<2, int> tree(square(p));
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> at(0, 95), side(0.5f, 6);
    for (int i = 0; i < 300; ++i) {
      const float x = at(rng), y = at(rng);
      tree.insert({{x, y}, {x + side(rng), y + side(rng)}}, i);
    }
    std::set<std::pair<int, int>> by_handles, by_values, by_both;
    tree.for_each_pair([&](Handle a, Handle b) { by_handles.emplace(std::minmax(tree.value(a), tree.value(b))); });
    tree.for_each_pair([&](const int& a, const int& b) { by_values.emplace(std::minmax(a, b)); });
    tree.for_each_pair([&](Handle ha, const int& a, Handle hb, const int& b) {
      EXPECT_EQ(tree.value(ha), a);
      EXPECT_EQ(tree.value(hb), b);
      by_both.emplace(std::minmax(a, b));
    });
    EXPECT_GT(by_handles.size(), 50u);
    EXPECT_EQ(by_values, by_handles);
    EXPECT_EQ(by_both, by_handles);
    // With a matrix too.
    std::set<std::pair<int, int>> through_matrix;
    tree.for_each_pair([&](const int& a, const int& b) { through_matrix.emplace(std::minmax(a, b)); },
                       LayerMatrix::all());
    EXPECT_EQ(through_matrix, by_handles);
    int calls = 0;
    const quadrant::PairStats st = tree.for_each_pair([&](const int&, const int&) { return ++calls < 3; });
    EXPECT_EQ(calls, 3);
    EXPECT_TRUE(st.stopped);
  }
}

}  // namespace
