// SPDX-License-Identifier: MIT
// quadrant — pairs between two trees, quadrant::for_each_pair(a, b, fn, layers_a, layers_b), against brute force:
// every placement of each, different worlds, 2D and 3D, float and double, layer masks, both argument orders, bulk-
// built trees, stops, and mutation from the callback refused. Seeds are fixed.
//
// The oracle's trees hold the same value type and every callback of theirs is one std::function type, so the walk
// is compiled once per scalar type and dimension, not once per lambda and argument order (the sanitizer pass spent
// four and a half minutes on this file before); a separate test pairs trees of different value types.
#include <quadrant/quadrant.hpp>

#include <gtest/gtest.h>

#include "support/placements.hpp"

#include <algorithm>
#include <functional>
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
using quadrant::Placement;
using quadrant::Tree;

using quadrant_test::kPlacements;
using quadrant_test::square;

// The one callback type of the tests below but two (which try the other forms a callback may take).
using Pair = std::function<bool(Handle, const int&, Handle, const int&)>;

}  // namespace

namespace {

// Pairs between two trees against brute force: every placement of each, different worlds (objects outside them
// too), 2D and 3D, float and double, layer masks on either side. The smaller tree's objects walk the other in
// groups of up to 1024 (a subtree's): the small trees are one group, the large ones many, with the nodes above
// the groups walking alone.
template <int D, class S>
void check_two_trees(std::uint32_t seed, int count_a = D == 2 ? 500 : 1200, int count_b = D == 2 ? 300 : 800) {
  std::mt19937 rng(seed);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  for (Placement pa : kPlacements) {
    for (Placement pb : kPlacements) {
      SCOPED_TRACE(std::string(quadrant::to_string(pa)) + " against " + quadrant::to_string(pb));
      Config<D, S> ca, cb;
      for (int i = 0; i < D; ++i) {
        ca.world.min[i] = S(0);
        ca.world.max[i] = S(100);
        cb.world.min[i] = S(-20);
        cb.world.max[i] = S(60);
      }
      ca.placement = pa;
      cb.placement = pb;
      ca.split_threshold = 4;
      cb.split_threshold = 8;
      Tree<D, int, S> a(ca);
      Tree<D, int, S> b(cb);
      struct Obj {
        Box<D, S> box;
        std::uint32_t layers;
      };
      std::vector<Obj> oa, ob;
      auto random_box = [&] {
        Box<D, S> box;
        const double side = real(0, 1) < 0.05 ? real(10, 40) : real(0, 6);
        for (int i = 0; i < D; ++i) {
          box.min[i] = S(real(-30, 110));
          box.max[i] = S(double(box.min[i]) + side);
        }
        return box;
      };
      for (int k = 0; k < count_a; ++k) {
        oa.push_back({random_box(), 1u << (rng() % 2)});
        a.insert(oa.back().box, k, oa.back().layers);
      }
      for (int k = 0; k < count_b; ++k) {
        ob.push_back({random_box(), 1u << (rng() % 2)});
        b.insert(ob.back().box, k, ob.back().layers);
      }
      // Also b bulk-built (its subtrees one run each: an object of a holding a subtree's fit is paired with the
      // run untested) and a bulk-built while b is not.
      Tree<D, int, S> a_built(ca);
      Tree<D, int, S> b_built(cb);
      {
        std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> ia;
        std::vector<std::tuple<Box<D, S>, int, std::uint32_t>> ib;
        for (std::size_t k = 0; k < oa.size(); ++k) ia.emplace_back(oa[k].box, int(k), oa[k].layers);
        for (std::size_t k = 0; k < ob.size(); ++k) ib.emplace_back(ob[k].box, int(k), ob[k].layers);
        std::vector<Handle> handles;
        a_built.assign(ia, handles);
        b_built.assign(ib, handles);
      }
      for (const auto& [la, lb] : {std::pair{~0u, ~0u}, std::pair{1u, ~0u}, std::pair{~0u, 2u}}) {
        std::set<std::pair<int, int>> want, got;
        for (std::size_t i = 0; i < oa.size(); ++i)
          for (std::size_t j = 0; j < ob.size(); ++j) {
            if ((oa[i].layers & la) == 0 || (ob[j].layers & lb) == 0) continue;
            bool touch = true;
            for (int x = 0; x < D && touch; ++x)
              touch = !(oa[i].box.max[x] < ob[j].box.min[x] || ob[j].box.max[x] < oa[i].box.min[x]);
            if (touch) want.emplace(int(i), int(j));
          }
        // One callback type a way round (see the top of the file); it takes both handles and values.
        const Pair record = [&](Handle ha, const int& x, Handle hb, const int& y) {
          EXPECT_EQ(a.value(ha), x);
          EXPECT_EQ(b.value(hb), y);
          EXPECT_TRUE(got.emplace(x, y).second) << "pair reported twice";
          return true;
        };
        const quadrant::PairStats st = quadrant::for_each_pair(a, b, record, la, lb);
        EXPECT_EQ(got, want) << "layers " << la << ", " << lb;
        EXPECT_EQ(st.pairs, want.size());
        // The other way round (the walk goes over the smaller tree either way; fn gets the first tree's object
        // first).
        std::set<std::pair<int, int>> reversed;
        quadrant::for_each_pair(b, a, Pair([&](Handle hb, const int& y, Handle ha, const int& x) {
          EXPECT_EQ(b.value(hb), y);
          EXPECT_EQ(a.value(ha), x);
          reversed.emplace(x, y);
          return true;
        }), lb, la);
        EXPECT_EQ(reversed, want);
        EXPECT_GT(want.size(), 30u);
        for (const int built : {1, 2, 3}) {
          std::set<std::pair<int, int>> got_built;
          const Pair collect = [&](Handle, const int& x, Handle, const int& y) {
            EXPECT_TRUE(got_built.emplace(x, y).second) << "pair reported twice";
            return true;
          };
          if (built == 1) quadrant::for_each_pair(a, b_built, collect, la, lb);
          if (built == 2) quadrant::for_each_pair(a_built, b, collect, la, lb);
          if (built == 3) quadrant::for_each_pair(a_built, b_built, collect, la, lb);
          EXPECT_EQ(got_built, want) << "bulk-built " << built;
        }
        // A callback that stops after n pairs gets exactly n calls, for n on either side of the subtree reports.
        for (const std::size_t n : {std::size_t{1}, want.size() / 3, want.size() - 1}) {
          std::size_t calls = 0;
          const quadrant::PairStats st_stop =
              quadrant::for_each_pair(a, b_built, Pair([&](Handle, const int&, Handle, const int&) {
                return ++calls < n;
              }), la, lb);
          EXPECT_TRUE(st_stop.stopped);
          EXPECT_EQ(calls, n);
        }
      }
    }
  }
}

TEST(TwoTreePairs, AgreeWithBruteForce2DFloat) { check_two_trees<2, float>(31); }
TEST(TwoTreePairs, AgreeWithBruteForce3DDouble) { check_two_trees<3, double>(32); }
TEST(TwoTreePairs, ManyGroupsAgreeWithBruteForce2DDouble) { check_two_trees<2, double>(33, 1500, 1300); }
TEST(TwoTreePairs, ManyGroupsAgreeWithBruteForce3DFloat) { check_two_trees<3, float>(34, 1300, 1100); }

TEST(TwoTreePairs, HandlesStopsSameTreeAndMutationInside) {
  Tree<2, int> a(square(Placement::Loose)), b(square(Placement::Parent));
  const Handle a1 = a.insert({{1, 1}, {3, 3}}, 1);
  a.insert({{10, 10}, {12, 12}}, 2);
  const Handle b1 = b.insert({{2, 2}, {4, 4}}, 10);
  b.insert({{11, 11}, {13, 13}}, 20);
  std::vector<std::pair<Handle, Handle>> seen;
  quadrant::for_each_pair(a, b, [&](Handle x, Handle y) { seen.emplace_back(x, y); });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(a.contains(seen[0].first) && b.contains(seen[0].second));
  EXPECT_TRUE(std::find(seen.begin(), seen.end(), std::pair{a1, b1}) != seen.end());
  int calls = 0;
  EXPECT_TRUE(quadrant::for_each_pair(a, b, Pair([&](Handle, const int&, Handle, const int&) { return ++calls < 1; }))
                  .stopped);
  EXPECT_EQ(calls, 1);
  EXPECT_THROW(quadrant::for_each_pair(a, a, Pair([](Handle, const int&, Handle, const int&) { return true; })),
               std::invalid_argument);
  // The callback may take the two values alone, and the trees may hold values of different types.
  Tree<2, std::string> named(square(Placement::Leaves));
  named.insert({{2, 2}, {3, 3}}, "ten");
  named.insert({{9, 9}, {11, 11}}, "twenty");
  std::vector<std::pair<int, std::string>> values;
  quadrant::for_each_pair(a, named, [&](const int& x, const std::string& y) { values.emplace_back(x, y); });
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<std::pair<int, std::string>>{{1, "ten"}, {2, "twenty"}}));
  // Both trees are walked: neither may change from the callback; other trees may.
  Tree<2, int> other(square(Placement::Loose));
  quadrant::for_each_pair(a, b, Pair([&](Handle x, const int&, Handle y, const int&) {
    EXPECT_THROW(a.erase(x), std::logic_error);
    EXPECT_THROW(b.erase(y), std::logic_error);
    other.insert({{0, 0}, {1, 1}}, 0);
    return true;
  }));
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(other.size(), 2u);
}

}  // namespace
