// SPDX-License-Identifier: MIT
// quadrant — ContactTracker against a brute-force set difference: random scenes in 2D and 3D, float and double,
// every placement, with objects moving, entering, leaving, being erased (their slots reused) and changing layers;
// the sorted order; the first step and clear(); another tree refused; no allocation once warm. Seeds are fixed.
#include <quadrant/quadrant.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "counting_new.hpp"
#include "support/placements.hpp"

namespace {

using quadrant::Box;
using quadrant::Config;
using quadrant::Contact;
using quadrant::ContactTracker;
using quadrant::Handle;
using quadrant::Placement;
using quadrant::Tree;

using quadrant_test::kPlacements;

// A pair as the oracle keeps it: (lower index, its generation, higher index, its generation).
using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
Key key(Handle a, Handle b) {
  if (b.index() < a.index()) std::swap(a, b);
  return {a.index(), a.generation(), b.index(), b.generation()};
}
std::vector<Key> keys(std::span<const Contact> list) {
  std::vector<Key> out;
  for (const Contact& c : list) {
    EXPECT_LT(c.a.index(), c.b.index());
    out.push_back(key(c.a, c.b));
  }
  return out;
}

template <int D, class S>
struct World {
  struct Object {
    Handle h;
    Box<D, S> box;
    std::uint32_t layers;
  };
  std::mt19937 rng;
  Tree<D, int, S> tree;
  std::vector<Object> live;
  int next_value = 0;

  World(std::uint32_t seed, Placement p) : rng(seed), tree(config(p)) {}
  static Config<D, S> config(Placement p) {
    Config<D, S> c;
    for (int i = 0; i < D; ++i) {
      c.world.min[i] = S(0);
      c.world.max[i] = S(100);
    }
    c.placement = p;
    c.split_threshold = 6;
    return c;
  }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
  Box<D, S> random_box() {
    Box<D, S> b;
    const double side = real(0, 1) < 0.1 ? 0 : real(1, 12);
    for (int i = 0; i < D; ++i) {
      b.min[i] = S(real(-5, 100));
      b.max[i] = S(double(b.min[i]) + side);
    }
    return b;
  }
  void add() {
    const Box<D, S> b = random_box();
    const std::uint32_t layers = 1u << (rng() % 3);
    live.push_back({tree.insert(b, next_value++, layers), b, layers});
  }
  // One step of changes: most objects drift, a few are erased, inserted or change layers.
  void step() {
    for (Object& o : live) {
      if (real(0, 1) < 0.3) continue;
      for (int i = 0; i < D; ++i) {
        const S d = S(real(-2, 2));
        o.box.min[i] += d;
        o.box.max[i] += d;
      }
      tree.move(o.h, o.box);
    }
    for (int k = 0; k < 3 && !live.empty(); ++k) {
      const std::size_t i = rng() % live.size();
      tree.erase(live[i].h);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    for (int k = 0; k < 3; ++k) add();
    if (!live.empty()) {
      Object& o = live[rng() % live.size()];
      o.layers = 1u << (rng() % 3);
      tree.set_layers(o.h, o.layers);
    }
  }
  std::set<Key> brute_pairs(std::uint32_t mask) const {
    std::set<Key> out;
    for (std::size_t i = 0; i < live.size(); ++i)
      for (std::size_t j = i + 1; j < live.size(); ++j) {
        if ((live[i].layers & mask) == 0 || (live[j].layers & mask) == 0) continue;
        bool touch = true;
        for (int a = 0; a < D; ++a)
          touch = touch && !(live[i].box.max[a] < live[j].box.min[a] || live[j].box.max[a] < live[i].box.min[a]);
        if (touch) out.insert(key(live[i].h, live[j].h));
      }
    return out;
  }
};

template <int D, class S>
void check_against_set_difference(std::uint32_t seed) {
  for (Placement p : kPlacements) {
    for (std::uint32_t mask : {~0u, 3u}) {
      SCOPED_TRACE(std::string(quadrant::to_string(p)) + ", mask " + std::to_string(mask) + ", seed " +
                   std::to_string(seed));
      World<D, S> w(seed, p);
      for (int i = 0; i < (D == 2 ? 150 : 400); ++i) w.add();  // a 3D world needs more objects for as many pairs
      ContactTracker<D, int, S> tracker;
      std::set<Key> before;
      std::size_t begun = 0, ended = 0, replaced = 0;
      for (int step = 0; step < 60; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        tracker.update(w.tree, mask);
        const std::set<Key> now = w.brute_pairs(mask);
        std::vector<Key> want_begun, want_ended;
        std::set_difference(now.begin(), now.end(), before.begin(), before.end(), std::back_inserter(want_begun));
        std::set_difference(before.begin(), before.end(), now.begin(), now.end(), std::back_inserter(want_ended));
        // The tracker sorts by index alone; with one pair per index pair at a time, that is the oracle's order.
        ASSERT_EQ(keys(tracker.begun()), want_begun);
        ASSERT_EQ(keys(tracker.ended()), want_ended);
        ASSERT_EQ(keys(tracker.contacts()), std::vector<Key>(now.begin(), now.end()));
        for (const Contact& c : tracker.ended()) replaced += !w.tree.contains(c.a) || !w.tree.contains(c.b);
        begun += want_begun.size();
        ended += want_ended.size();
        before = now;
        w.step();
      }
      // The scenes exercise what they claim: pairs begin and end, and erased objects end pairs.
      EXPECT_GT(begun, 100u);
      EXPECT_GT(ended, 100u);
      EXPECT_GT(replaced, 0u);
    }
  }
}

TEST(ContactTracker, AgreesWithSetDifference2DFloat) { check_against_set_difference<2, float>(1); }
TEST(ContactTracker, AgreesWithSetDifference2DDouble) { check_against_set_difference<2, double>(2); }
TEST(ContactTracker, AgreesWithSetDifference3DFloat) { check_against_set_difference<3, float>(3); }
TEST(ContactTracker, AgreesWithSetDifference3DDouble) { check_against_set_difference<3, double>(4); }

// An object erased and another inserted into its slot, touching the same partner: the old pair ends and the new
// one begins in the same step, though their indices are equal.
TEST(ContactTracker, ASlotReusedEndsTheOldPairAndBeginsTheNew) {
  Config<2, float> c;
  c.world = {{0, 0}, {10, 10}};
  Tree<2, int> tree(c);
  const Handle a = tree.insert({{1, 1}, {3, 3}}, 1);
  const Handle b = tree.insert({{2, 2}, {4, 4}}, 2);
  ContactTracker<2, int> tracker;
  tracker.update(tree);
  ASSERT_EQ(tracker.begun().size(), 1u);
  EXPECT_EQ(tracker.begun()[0], (Contact{a, b}));
  tree.erase(b);
  const Handle b2 = tree.insert({{2, 2}, {4, 4}}, 3);
  ASSERT_EQ(b2.index(), b.index());
  tracker.update(tree);
  ASSERT_EQ(tracker.ended().size(), 1u);
  EXPECT_EQ(tracker.ended()[0], (Contact{a, b}));
  EXPECT_FALSE(tree.contains(tracker.ended()[0].b));
  ASSERT_EQ(tracker.begun().size(), 1u);
  EXPECT_EQ(tracker.begun()[0], (Contact{a, b2}));
  ASSERT_EQ(tracker.contacts().size(), 1u);
  // Nothing changes: no events, the contact stays.
  tracker.update(tree);
  EXPECT_TRUE(tracker.begun().empty());
  EXPECT_TRUE(tracker.ended().empty());
  EXPECT_EQ(tracker.contacts().size(), 1u);
}

TEST(ContactTracker, AnotherTreeIsRefusedUntilClear) {
  Config<2, float> c;
  c.world = {{0, 0}, {10, 10}};
  Tree<2, int> one(c), two(c);
  one.insert({{1, 1}, {3, 3}}, 1);
  one.insert({{2, 2}, {4, 4}}, 2);
  two.insert({{5, 5}, {6, 6}}, 3);
  ContactTracker<2, int> tracker;
  tracker.update(one);
  const std::vector<Key> contacts = keys(tracker.contacts()), begun = keys(tracker.begun());
  EXPECT_THROW(tracker.update(two), std::invalid_argument);
  EXPECT_EQ(keys(tracker.contacts()), contacts);
  EXPECT_EQ(keys(tracker.begun()), begun);
  tracker.clear();
  EXPECT_TRUE(tracker.contacts().empty());
  tracker.update(two);
  EXPECT_TRUE(tracker.begun().empty());
  // After clear(), every pair of the first tree is new again.
  tracker.clear();
  tracker.update(one);
  EXPECT_EQ(keys(tracker.begun()), contacts);
}

TEST(ContactTracker, AllocatesNothingOnceWarm) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(quadrant::to_string(p));
    World<2, float> w(9, p);
    for (int i = 0; i < 400; ++i) w.add();
    ContactTracker<2, int> tracker;
    std::vector<Handle> handles;
    std::vector<Box<2, float>> boxes;
    // Warm: the largest step comes first (every box grown: every list reaches its largest), then smaller ones.
    for (auto& o : w.live) {
      handles.push_back(o.h);
      boxes.push_back({{o.box.min.x - 3, o.box.min.y - 3}, {o.box.max.x + 3, o.box.max.y + 3}});
    }
    w.tree.move(handles, boxes);
    tracker.update(w.tree);       // every pair begins
    tracker.update(w.tree, 0u);   // no object in the mask: every pair ends
    tracker.update(w.tree);
    const std::size_t most = tracker.contacts().size();
    ASSERT_GT(most, 400u);
    for (std::size_t i = 0; i < boxes.size(); ++i) boxes[i] = w.live[i].box;
    w.tree.move(handles, boxes);
    long during = 0;
    std::size_t events = 0;
    // Boxes shift right and back, so the layouts repeat every two steps: the first two warm the tree's own walk
    // scratch (Parent keeps a per-thread stack of ancestors' entries) for them; the rest are measured.
    for (int step = 0; step < 8; ++step) {
      for (std::size_t i = 0; i < boxes.size(); ++i) {
        const float d = float(step % 2 == 0 ? 1 : -1);
        boxes[i].min.x += d;
        boxes[i].max.x += d;
      }
      w.tree.move(handles, boxes);
      const long before = g_allocations.load();
      tracker.update(w.tree);
      if (step >= 2) during += g_allocations.load() - before;
      events += tracker.begun().size() + tracker.ended().size();
      EXPECT_LE(tracker.contacts().size(), most);
    }
    EXPECT_GT(events, 0u);
    EXPECT_EQ(during, 0);
  }
}

}  // namespace
