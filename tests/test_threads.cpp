// SPDX-License-Identifier: MIT
// Concurrent reads: every const member of Tree, and the read-only members of AoiWorld and Streamer, called from
// several threads at once on one object must give each thread the answers a single thread gets. Run under
// ThreadSanitizer by the `tsan` preset (scripts/test), which also checks for_each_pair_parallel's own threads.
#include <quadrant/aoi.hpp>
#include <quadrant/quadrant.hpp>
#include <quadrant/streaming.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace quadrant;

// Runs `work(thread)` on `threads` threads at once (a fresh std::thread each) and on none else.
void on_threads(unsigned threads, const std::function<void(unsigned)>& work) {
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (std::thread& t : pool) t.join();
}

// A fingerprint of everything a reader can ask a tree: query hits by shape, pairs, ray hits, neighbours, nodes,
// stats and per-object accessors, each folded into one number per call.
std::vector<std::uint64_t> read_everything(const Tree<2, int, float>& tree, const std::vector<Handle>& handles,
                                           unsigned seed) {
  std::vector<std::uint64_t> out;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 100);
  auto fold = [](std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x100000001b3ull; };
  for (int round = 0; round < 20; ++round) {
    const float x = u(rng), y = u(rng);
    std::uint64_t h = 0;
    tree.query(Box<2, float>{{x, y}, {x + 15, y + 10}}, [&](const int& v) { h = fold(h, std::uint64_t(v)); });
    tree.query(Circle<float>{{x, y}, 12}, [&](Handle hd, const int&) { h = fold(h, hd.index()); });
    tree.query(Sector<float>{{x, y}, {1, 0.5f}, 20, std::numbers::pi_v<float> / 5},
               [&](const int& v) { h = fold(h, std::uint64_t(v)); });
    tree.query(Vec<2, float>{x, y}, [&](const int& v) { h = fold(h, std::uint64_t(v)); });
    tree.raycast(Segment<2, float>{{x, y}, {100 - x, 100 - y}},
                 [&](Handle hd, const int&, float) { h = fold(h, hd.index()); });
    for (const Neighbor<float>& nb : tree.nearest(Vec<2, float>{x, y}, 5)) h = fold(h, nb.handle.index());
    tree.query_nodes(Box<2, float>{{x, y}, {x + 20, y + 20}},
                     [&](const NodeView<2, float>& nv) { h = fold(h, std::uint64_t(nv.depth) * 977u + nv.id); });
    out.push_back(h);
  }
  std::uint64_t pairs = 0;
  tree.for_each_pair([&](Handle a, Handle b) { pairs = fold(pairs, a.index() * 131u + b.index()); });
  out.push_back(pairs);
  std::vector<std::pair<Handle, Handle>> in_order;
  tree.pairs(in_order, 2);
  std::uint64_t ordered = 0;
  for (const auto& [a, b] : in_order) ordered = fold(ordered, a.index() * 131u + b.index());
  out.push_back(ordered);
  const Stats st = tree.stats();
  out.push_back(st.nodes * 1000003u + st.objects);
  tree.validate();
  std::uint64_t nodes = 0;
  tree.for_each_node([&](const NodeView<2, float>& nv) { nodes = fold(nodes, nv.items.size() + nv.count); });
  out.push_back(nodes);
  std::uint64_t objects = 0;
  for (Handle hd : handles) {
    objects = fold(objects, tree.contains(hd) ? std::uint64_t(tree.value(hd)) : 7u);
    // Through int64: the coordinate may be negative, and a negative float converted to unsigned is undefined.
    objects = fold(objects, std::uint64_t(std::int64_t(tree.bounds(hd).min.x * 16)) + tree.layers(hd));
  }
  out.push_back(objects);
  return out;
}

TEST(Threads, TreeReadersAgreeWithOneThread) {
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
    SCOPED_TRACE(static_cast<int>(p));
    Config<2, float> c;
    c.world = {{0, 0}, {100, 100}};
    c.placement = p;
    Tree<2, int, float> tree(c);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-2, 102), side(0.2f, 3);
    std::vector<Handle> handles;
    for (int i = 0; i < 3000; ++i) {
      const float x = u(rng), y = u(rng);
      handles.push_back(tree.insert({{x, y}, {x + side(rng), y + side(rng)}}, i, 1u << (i % 3)));
    }
    std::vector<std::vector<std::uint64_t>> expected;
    for (unsigned t = 0; t < 4; ++t) expected.push_back(read_everything(tree, handles, t));
    std::vector<std::vector<std::uint64_t>> got(4);
    on_threads(4, [&](unsigned t) { got[t] = read_everything(tree, handles, t); });
    for (unsigned t = 0; t < 4; ++t) EXPECT_TRUE(got[t] == expected[t]) << "thread " << t;
    // Two parallel pair walks at once, each with its own workers; the second reads the values in its workers.
    std::vector<std::size_t> counts(2);
    std::vector<long long> sums(2);
    on_threads(2, [&](unsigned t) {
      std::vector<std::size_t> per(3);
      std::vector<long long> sum(3);
      if (t == 0)
        tree.for_each_pair_parallel([&](unsigned w, Handle, Handle) { ++per[w]; }, 3);
      else
        tree.for_each_pair_parallel([&](unsigned w, const int& a, const int& b) {
          ++per[w];
          sum[w] += std::min(a, b) * 3001LL + std::max(a, b);
        }, 3);
      for (std::size_t n : per) counts[t] += n;
      for (long long v : sum) sums[t] += v;
    });
    std::size_t one = 0;
    long long one_sum = 0;
    tree.for_each_pair([&](const int& a, const int& b) {
      ++one;
      one_sum += std::min(a, b) * 3001LL + std::max(a, b);
    });
    EXPECT_EQ(counts[0], one);
    EXPECT_EQ(counts[1], one);
    EXPECT_EQ(sums[1], one_sum);
  }
}

TEST(Threads, AoiAndStreamerReadersAgreeWithOneThread) {
  AoiWorld<float> aoi({.world = {{0, 0}, {1000, 1000}}});
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0, 1000);
  for (std::uint64_t id = 0; id < 600; ++id)
    aoi.add(id, {u(rng), u(rng)}, 60, id % 4 == 0 ? AoiMode::Marker : AoiMode::Both);
  std::size_t events = 0;
  aoi.tick([&](const AoiEvent&) { ++events; });
  ASSERT_GT(events, 0u);

  StreamerConfig<float> sc;
  sc.tree.world = {{0, 0, 0}, {500, 500, 500}};
  Streamer<float> streamer(sc);
  std::uniform_real_distribution<float> v(0, 500);
  for (std::uint64_t id = 0; id < 2000; ++id) {
    const float x = v(rng), y = v(rng), z = v(rng);
    streamer.add(id, {{x, y, z}, {x + 2, y + 2, z + 2}});
  }
  StreamingSource<float> source;
  source.position = {250, 250, 250};
  source.prefetch_radius = 120;
  streamer.update(std::span<const StreamingSource<float>>(&source, 1));

  auto read = [&](unsigned t) {
    std::uint64_t h = t;
    for (std::uint64_t id = t; id < 600; id += 7) {
      aoi.for_each_visible(id, [&](std::uint64_t other) { h = h * 31 + other; });
      aoi.for_each_watcher(id, [&](std::uint64_t other) { h = h * 37 + other; });
      h = h * 41 + static_cast<std::uint64_t>(aoi.position(id).x);
    }
    aoi.query(Circle<float>{{500, 500}, 200}, [&](std::uint64_t id) { h = h * 43 + id; });
    aoi.validate();
    h = h * 47 + aoi.pair_count() + aoi.size();
    for (std::uint64_t id = t; id < 2000; id += 5)
      h = h * 53 + static_cast<std::uint64_t>(streamer.state(id)) + static_cast<std::uint64_t>(streamer.bounds(id).min.y);
    streamer.for_each([&](std::uint64_t id, const Box<3, float>&, StreamState s) { h = h * 59 + id + static_cast<std::uint64_t>(s); });
    h = h * 61 + streamer.loading() + streamer.loaded() + streamer.queued() + streamer.last_update().loads.size();
    streamer.validate();
    return h;
  };
  std::vector<std::uint64_t> expected, got(4);
  for (unsigned t = 0; t < 4; ++t) expected.push_back(read(t));
  on_threads(4, [&](unsigned t) { got[t] = read(t); });
  EXPECT_TRUE(got == expected);
}

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
    std::vector<int> order(kObjects);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return boxes[std::size_t(a)].min[0] < boxes[std::size_t(b)].min[0]; });
    std::vector<std::pair<int, int>> out;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const B& a = boxes[std::size_t(order[i])];
      for (std::size_t j = i + 1; j < order.size() && boxes[std::size_t(order[j])].min[0] <= a.max[0]; ++j)
        if (overlaps(a, boxes[std::size_t(order[j])]))
          out.emplace_back(std::min(order[i], order[j]), std::max(order[i], order[j]));
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

TEST(Threads, BatchMoveOnThreadsAgreesWithASweep) {
  check_batch_move_on_threads<2, float>(Placement::Loose, 2);
  check_batch_move_on_threads<2, float>(Placement::Parent, 2);
  check_batch_move_on_threads<2, double>(Placement::Parent, 3, 100000);
  check_batch_move_on_threads<3, double>(Placement::Loose, 0);
  // On this thread alone: Leaves, and a batch too small to share; last, a tree too small for a batch to fetch
  // each object's memory ahead of its turn (below 8192 slots).
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
