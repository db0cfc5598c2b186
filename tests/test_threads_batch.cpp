// SPDX-License-Identifier: MIT
// Tree::move(handles, boxes, threads) on threads, under ThreadSanitizer too (the `tsan` preset of scripts/test): a
// file apart from the concurrent readers' (test_threads.cpp) so the two compile side by side.
#include <quadrant/quadrant.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace quadrant;

// Tree::move(handles, boxes, threads): after each frame of a moving scene (small steps, teleports, boxes growing
// past the world, handles shuffled, listed twice or only some of them), the tree answers pairs and windows as a
// sweep over the boxes it was given says, holds each object's last box, and is valid; under ThreadSanitizer the
// threads that share a frame touch nothing in common. The scene is large enough for the threads to share it.
template <int D, class S>
void check_batch_move_on_threads(Placement placement, unsigned threads, int objects = 70000) {
  using B = Box<D, S>;
  const int kObjects = objects;  // threads share a batch from 32,768 objects each
  const double kSide = (D == 2 ? 1000 : 200) * std::pow(objects / 9000.0, 1.0 / D);  // a few thousand pairs
  Config<D, S> config;
  for (int i = 0; i < D; ++i) {
    config.world.min[i] = 0;
    config.world.max[i] = S(kSide);
  }
  config.placement = placement;
  config.split_threshold = 8;
  Tree<D, int, S> tree(config);
  std::mt19937 rng(41 + D);
  std::uniform_real_distribution<double> at(0, kSide - 10), side(0.5, 8), step(-3, 3);
  auto random_box = [&] {
    B b;
    for (int i = 0; i < D; ++i) {
      b.min[i] = S(at(rng));
      b.max[i] = S(double(b.min[i]) + side(rng));
    }
    return b;
  };
  std::vector<B> boxes;
  std::vector<Handle> handles;
  for (int k = 0; k < kObjects; ++k) {
    boxes.push_back(random_box());
    handles.push_back(tree.insert(boxes.back(), k));
  }
  auto stepped = [&](const B& b) {
    B out = b;
    for (int i = 0; i < D; ++i) {
      const double d = step(rng);
      out.min[i] = S(double(out.min[i]) + d);
      out.max[i] = S(double(out.max[i]) + d);
    }
    return out;
  };
  // Every overlapping pair of `boxes`, by sorting on the first axis and sweeping.
  auto swept_pairs = [&] {
    // The boxes copied in sweep order, so the inner loop reads them front to back.
    std::vector<std::pair<B, int>> sorted;
    for (int k = 0; k < kObjects; ++k) sorted.emplace_back(boxes[std::size_t(k)], k);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.first.min[0] < b.first.min[0]; });
    std::vector<std::pair<int, int>> out;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      const auto& [a, ia] = sorted[i];
      for (std::size_t j = i + 1; j < sorted.size() && sorted[j].first.min[0] <= a.max[0]; ++j)
        if (overlaps(a, sorted[j].first))
          out.emplace_back(std::min(ia, sorted[j].second), std::max(ia, sorted[j].second));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto agrees = [&](const char* frame) {
    SCOPED_TRACE(frame);
    tree.validate();
    for (int k = 0; k < kObjects; ++k) ASSERT_TRUE(tree.bounds(handles[std::size_t(k)]) == boxes[std::size_t(k)]) << k;
    std::vector<std::pair<int, int>> got;
    tree.for_each_pair([&](const int& a, const int& b) { got.emplace_back(std::min(a, b), std::max(a, b)); });
    std::sort(got.begin(), got.end());
    const auto expected = swept_pairs();
    EXPECT_GT(expected.size(), 1000u);
    EXPECT_TRUE(got == expected) << got.size() << " pairs, the sweep finds " << expected.size();
    for (int w = 0; w < 20; ++w) {
      const B window = [&] {
        B b = random_box();
        for (int i = 0; i < D; ++i) b.max[i] = S(double(b.max[i]) + kSide / 25);
        return b;
      }();
      std::vector<int> found, brute;
      tree.query(window, [&](const int& v) { found.push_back(v); });
      for (int k = 0; k < kObjects; ++k)
        if (overlaps(window, boxes[std::size_t(k)])) brute.push_back(k);
      std::sort(found.begin(), found.end());
      EXPECT_TRUE(found == brute);
    }
  };
  std::vector<Handle> batch_handles;
  std::vector<B> batch_boxes;
  auto run = [&](const char* frame) {
    tree.move(batch_handles, batch_boxes, threads);
    agrees(frame);
  };
  auto all_in_order = [&] {
    batch_handles = handles;
    batch_boxes.clear();
  };

  // Small steps, every handle in slot order: most objects stay in their nodes.
  all_in_order();
  for (B& b : boxes) batch_boxes.push_back(b = stepped(b));
  run("small steps");
  // Shuffled, with one object in twenty teleported.
  std::vector<int> order(kObjects);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  batch_handles.clear();
  batch_boxes.clear();
  for (int k : order) {
    B& b = boxes[std::size_t(k)];
    b = k % 20 == 0 ? random_box() : stepped(b);
    batch_handles.push_back(handles[std::size_t(k)]);
    batch_boxes.push_back(b);
  }
  run("shuffled, some teleported");
  // In slot order, then one in ten listed again with another box: each ends with its last one.
  all_in_order();
  for (B& b : boxes) batch_boxes.push_back(b = stepped(b));
  for (int k = 0; k < kObjects; k += 10) {
    batch_handles.push_back(handles[std::size_t(k)]);
    batch_boxes.push_back(boxes[std::size_t(k)] = random_box());
  }
  run("listed twice");
  // Every other object, growing; some reach past the world.
  batch_handles.clear();
  batch_boxes.clear();
  for (int k = 0; k < kObjects; k += 2) {
    B& b = boxes[std::size_t(k)];
    for (int i = 0; i < D; ++i) b.max[i] = S(double(b.max[i]) + (k % 7 == 0 ? 30 : 1));
    batch_handles.push_back(handles[std::size_t(k)]);
    batch_boxes.push_back(b);
  }
  run("half of them, growing");
  // The same boxes again: nothing changes node.
  all_in_order();
  batch_boxes = boxes;
  EXPECT_EQ(tree.move(batch_handles, batch_boxes, threads), 0u);
  agrees("unchanged");
  // Everything teleported.
  all_in_order();
  for (B& b : boxes) batch_boxes.push_back(b = random_box());
  const std::size_t relocated = tree.move(batch_handles, batch_boxes, threads);
  EXPECT_GT(relocated, std::size_t(kObjects / 2));
  EXPECT_LE(relocated, std::size_t(kObjects));
  agrees("teleported");
}

// One case per scene, so ctest runs them side by side: under ThreadSanitizer the 3D one alone takes over a minute.
TEST(Threads, BatchMoveOnThreadsAgreesWithASweep2DFloatLoose) {
  check_batch_move_on_threads<2, float>(Placement::Loose, 2);
}
TEST(Threads, BatchMoveOnThreadsAgreesWithASweep2DFloatParent) {
  check_batch_move_on_threads<2, float>(Placement::Parent, 2);
}
TEST(Threads, BatchMoveOnThreadsAgreesWithASweep2DDoubleParent) {
  check_batch_move_on_threads<2, double>(Placement::Parent, 3, 100000);
}
TEST(Threads, BatchMoveOnThreadsAgreesWithASweep3DDoubleLoose) {
  check_batch_move_on_threads<3, double>(Placement::Loose, 0);
}
// On this thread alone: Leaves, and a batch too small to share; last, a tree too small for a batch to fetch each
// object's memory ahead of its turn (below 8192 slots).
TEST(Threads, BatchMoveOnThreadsAgreesWithASweepSmallBatches) {
  check_batch_move_on_threads<2, float>(Placement::Leaves, 2, 9000);
  check_batch_move_on_threads<3, float>(Placement::Parent, 2, 9000);
  check_batch_move_on_threads<2, double>(Placement::Loose, 1, 4000);
  check_batch_move_on_threads<3, float>(Placement::Parent, 1, 4000);
}

// A bad item anywhere in a batch on threads is found before anything moves: the error names the first one, even
// when a later thread's range holds another, and the tree is as it was.
TEST(Threads, BatchMoveOnThreadsChecksEverythingFirst) {
  for (Placement p : {Placement::Loose, Placement::Parent}) {
    SCOPED_TRACE(to_string(p));
    constexpr int kObjects = 70000;  // two ranges of 35,000
    Tree<2, int, float> tree({.world = {{0, 0}, {1000, 1000}}, .split_threshold = 8, .placement = p});
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> u(0, 998);
    std::vector<Handle> handles;
    std::vector<Box<2, float>> boxes;
    for (int k = 0; k < kObjects; ++k) {
      const float x = u(rng), y = u(rng);
      boxes.push_back({{x, y}, {x + 1, y + 1}});
      handles.push_back(tree.insert(boxes.back(), k));
    }
    Tree<2, int, float> other({.world = {{0, 0}, {100, 100}}});
    const Handle foreign = other.insert({{1, 1}, {2, 2}}, 0);
    std::vector<Box<2, float>> moved = boxes;
    for (auto& b : moved) b = {{b.min.x + 0.5f, b.min.y}, {b.max.x + 0.5f, b.max.y}};
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto expect_item = [&](const std::vector<Handle>& hs, const std::vector<Box<2, float>>& bs, const char* item) {
      try {
        tree.move(hs, bs, 2);
        ADD_FAILURE() << "a bad batch was accepted";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(item), std::string::npos) << e.what();
      }
      for (int k = 0; k < kObjects; ++k) ASSERT_TRUE(tree.bounds(handles[std::size_t(k)]) == boxes[std::size_t(k)]);
      tree.validate();
    };
    std::vector<Box<2, float>> bad_box = moved;
    bad_box[63000].min.x = nan;
    expect_item(handles, bad_box, "(item 63000)");
    bad_box[42000] = {{5, 5}, {4, 6}};
    expect_item(handles, bad_box, "(item 42000)");
    std::vector<Handle> bad_handle = handles;
    bad_handle[52500] = foreign;
    expect_item(bad_handle, moved, "(item 52500)");
    bad_handle[kObjects - 1] = Handle{};
    bad_handle[100] = Handle{};
    expect_item(bad_handle, moved, "(item 100)");
    EXPECT_THROW(tree.move(handles, std::span(moved).first(kObjects - 1), 2), std::invalid_argument);
    tree.move(handles, moved, 2);
    EXPECT_EQ(tree.move(handles, moved, 2), 0u);  // the second finds every object in place
    for (int k = 0; k < kObjects; ++k) ASSERT_TRUE(tree.bounds(handles[std::size_t(k)]) == moved[std::size_t(k)]);
  }
}

}  // namespace
