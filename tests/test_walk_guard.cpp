// SPDX-License-Identifier: MIT
// quadrant — a tree refuses to change from inside its own walks: every mutating member called from a callback of
// every walk throws std::logic_error and leaves the tree exactly as it was, under each placement; nested walks,
// other trees, exceptions leaving a callback and the parallel pair walk's worker threads behave as documented; and
// the collect-then-apply way of doing what a callback may not. Seeds are fixed.
#include <quadrant/quadrant.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "support/placements.hpp"

namespace {

using quadrant::Box;
using quadrant::Config;
using quadrant::Handle;
using quadrant::Placement;
using quadrant::QuadTree;
using Box2 = Box<2, float>;

using quadrant_test::kPlacements;

Config<2, float> config(Placement p) {
  Config<2, float> c;
  c.world = {{0, 0}, {100, 100}};
  c.placement = p;
  c.split_threshold = 4;
  return c;
}

struct Scene {
  QuadTree<int> tree;
  std::vector<Handle> handles;
  std::vector<Box2> boxes;
  explicit Scene(Placement p, int count = 120) : tree(config(p)) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> at(0, 95), side(0.5f, 5);
    for (int i = 0; i < count; ++i) {
      const float x = at(rng), y = at(rng);
      boxes.push_back({{x, y}, {x + side(rng), y + side(rng)}});
      handles.push_back(tree.insert(boxes.back(), i, i % 2 == 0 ? 1u : 2u));
    }
  }
};

// Everything a user can observe of the tree's contents: each object's value, box and layers, and the node layout.
using Snapshot = std::tuple<std::vector<std::tuple<int, std::vector<float>, std::uint32_t>>, std::size_t, int>;
Snapshot snapshot(const QuadTree<int>& tree) {
  std::vector<std::tuple<int, std::vector<float>, std::uint32_t>> objects;
  tree.for_each([&](Handle h, const int& v, const Box2& b) {
    objects.emplace_back(v, std::vector<float>{b.min.x, b.min.y, b.max.x, b.max.y}, tree.layers(h));
  });
  std::sort(objects.begin(), objects.end());
  const quadrant::Stats st = tree.stats();
  return {objects, st.nodes, st.depth};
}

// Every mutating member, as a call on the scene's tree.
std::vector<std::pair<std::string, std::function<void(Scene&)>>> mutations() {
  const Box2 far{{90, 90}, {91, 91}};
  return {
      {"insert", [far](Scene& s) { s.tree.insert(far, 999); }},
      {"assign", [far](Scene& s) { s.tree.assign(std::vector<std::pair<Box2, int>>{{far, 1}}); }},
      {"assign without handles",
       [far](Scene& s) { s.tree.assign(std::vector<std::pair<Box2, int>>{{far, 1}}, quadrant::no_handles); }},
      {"reserve", [](Scene& s) { s.tree.reserve(100000); }},
      {"erase", [](Scene& s) { s.tree.erase(s.handles[3]); }},
      {"move", [far](Scene& s) { s.tree.move(s.handles[4], far); }},
      {"move batch", [far](Scene& s) {
         const std::vector<Handle> hs{s.handles[5]};
         const std::vector<Box2> bs{far};
         s.tree.move(hs, bs);
       }},
      {"set_layers", [](Scene& s) { s.tree.set_layers(s.handles[6], 4u); }},
      {"clear", [](Scene& s) { s.tree.clear(); }},
      {"copy assignment", [](Scene& s) {
         QuadTree<int> other(config(Placement::Loose));
         s.tree = other;
       }},
  };
}

// Every walk that calls user code, each calling `inside` from its callback (and stopping after it where it can).
std::vector<std::pair<std::string, std::function<void(Scene&, const std::function<void()>&)>>> walks() {
  const Box2 window{{0, 0}, {100, 100}};
  using Inside = std::function<void()>;
  return {
      {"query", [window](Scene& s, const Inside& inside) {
         s.tree.query(window, [&](const int&) { inside(); return false; });
       }},
      {"for_each_pair", [](Scene& s, const Inside& inside) {
         s.tree.for_each_pair([&](Handle, Handle) { inside(); return false; });
       }},
      {"for_each_pair_parallel", [](Scene& s, const Inside& inside) {
         s.tree.for_each_pair_parallel([&](unsigned, Handle, Handle) { inside(); }, 1);
       }},
      {"raycast", [](Scene& s, const Inside& inside) {
         s.tree.raycast({{0, 0}, {100, 100}}, [&](Handle, const int&, float) { inside(); return false; });
       }},
      {"for_each_nearest", [](Scene& s, const Inside& inside) {
         s.tree.for_each_nearest({50, 50}, [&](Handle, const int&, float) { inside(); return false; });
       }},
      {"query_nodes", [window](Scene& s, const Inside& inside) {
         s.tree.query_nodes(window, [&](const auto&) { inside(); return false; });
       }},
      {"for_each_node", [](Scene& s, const Inside& inside) {
         s.tree.for_each_node([&](const auto&) { inside(); return false; });
       }},
      {"for_each", [](Scene& s, const Inside& inside) {
         s.tree.for_each([&](Handle, const int&, const Box2&) { inside(); return false; });
       }},
  };
}

TEST(WalkGuard, EveryMutationInsideEveryWalkThrowsAndChangesNothing) {
  for (Placement p : kPlacements) {
    for (const auto& w : walks()) {
      for (const auto& m : mutations()) {
        // (Named copies: clang 14 cannot capture structured bindings in lambdas.)
        const std::string& walk_name = w.first;
        const std::string& mutation_name = m.first;
        const auto& walk = w.second;
        const auto& mutate = m.second;
        SCOPED_TRACE(std::string(quadrant::to_string(p)) + ": " + mutation_name + " inside " + walk_name);
        Scene scene(p);
        const Snapshot before = snapshot(scene.tree);
        int calls = 0;
        std::string message;
        walk(scene, [&] {
          // for_each_pair_parallel cannot be stopped: its later calls do nothing.
          if (++calls > 1) return;
          try {
            mutate(scene);
          } catch (const std::logic_error& e) {
            message = e.what();
          }
        });
        ASSERT_GE(calls, 1);
        EXPECT_NE(message.find(mutation_name.substr(0, mutation_name.find(' '))), std::string::npos) << message;
        EXPECT_NE(message.find("inside a walk"), std::string::npos) << message;
        scene.tree.validate();
        EXPECT_EQ(snapshot(scene.tree), before);
        // Once the walk has returned, the same change goes through.
        EXPECT_NO_THROW(mutate(scene));
        scene.tree.validate();
      }
    }
  }
}

TEST(WalkGuard, NestedWalksOtherTreesAndExceptionsFromCallbacks) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(quadrant::to_string(p));
    Scene scene(p), other(p);
    const Box2 window{{0, 0}, {50, 50}};
    // A walk inside a walk of the same tree is fine; the outer one still guards after the inner one returns.
    int inner = 0;
    bool refused_after_inner = false;
    scene.tree.query(window, [&](const int&) {
      scene.tree.query(window, [&](const int&) { ++inner; });
      try {
        scene.tree.erase(scene.handles[0]);
      } catch (const std::logic_error&) {
        refused_after_inner = true;
      }
      return false;
    });
    EXPECT_GT(inner, 0);
    EXPECT_TRUE(refused_after_inner);
    // Another tree may change inside this one's walk, and this one inside the other's.
    std::size_t moved = 0;
    scene.tree.query(window, [&](Handle, const int& v) {
      other.tree.move(other.handles[static_cast<std::size_t>(v)], {{1, 1}, {2, 2}});
      ++moved;
    });
    EXPECT_GT(moved, 0u);
    other.tree.validate();
    other.tree.for_each_pair([&](Handle, Handle) {
      EXPECT_THROW(other.tree.clear(), std::logic_error);
      scene.tree.set_layers(scene.handles[1], 8u);
      return false;
    });
    EXPECT_EQ(scene.tree.layers(scene.handles[1]), 8u);
    // An exception leaving a callback ends the walk: the tree may change again.
    EXPECT_THROW(scene.tree.query(window, [](const int&) { throw std::runtime_error("stop"); }), std::runtime_error);
    EXPECT_NO_THROW(scene.tree.erase(scene.handles[2]));
    scene.tree.validate();
  }
}

TEST(WalkGuard, ParallelPairWorkersAreGuardedOnTheirOwnThreads) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(quadrant::to_string(p));
    Scene scene(p, 3000);
    const Snapshot before = snapshot(scene.tree);
    // Every call, from this thread (worker 0) or a worker thread, tries to erase; each refusal is counted.
    std::atomic<int> calls{0}, refused{0}, on_worker_threads{0};
    scene.tree.for_each_pair_parallel(
        [&](unsigned worker, Handle a, Handle) {
          ++calls;
          if (worker != 0) ++on_worker_threads;
          try {
            scene.tree.erase(a);
          } catch (const std::logic_error&) {
            ++refused;
          }
        },
        2);
    EXPECT_GT(calls.load(), 0);
    EXPECT_GT(on_worker_threads.load(), 0) << "the scene is too small to be split over two threads";
    EXPECT_EQ(refused.load(), calls.load());
    scene.tree.validate();
    EXPECT_EQ(snapshot(scene.tree), before);
    // A refusal that leaves the callback comes back to the caller as the walk's exception.
    EXPECT_THROW(scene.tree.for_each_pair_parallel([&](unsigned, Handle a, Handle) { scene.tree.erase(a); }, 2),
                 std::logic_error);
    EXPECT_EQ(snapshot(scene.tree), before);
    // The threads' marks are gone with the walk.
    EXPECT_NO_THROW(scene.tree.erase(scene.handles[0]));
  }
}

// What a game does instead of erasing or moving from a callback: collect, then apply after the walk.
TEST(WalkGuard, CollectThenApply) {
  for (Placement p : kPlacements) {
    SCOPED_TRACE(quadrant::to_string(p));
    Scene scene(p);
    std::vector<Handle> doomed;
    std::set<int> want;
    scene.tree.for_each_pair([&](Handle a, Handle b) {
      doomed.push_back(a);
      doomed.push_back(b);
    });
    std::sort(doomed.begin(), doomed.end(), [](Handle x, Handle y) { return x.index() < y.index(); });
    doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
    ASSERT_FALSE(doomed.empty());
    for (Handle h : doomed) scene.tree.erase(h);
    scene.tree.validate();
    // Nothing that touched anything is left, so no pair is.
    std::size_t pairs = 0;
    scene.tree.for_each_pair([&](Handle, Handle) { ++pairs; });
    EXPECT_EQ(pairs, 0u);
    EXPECT_EQ(scene.tree.size(), scene.handles.size() - doomed.size());
  }
}

}  // namespace
