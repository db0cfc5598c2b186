// SPDX-License-Identifier: MIT
// Concurrent reads: every const member of Tree, and the read-only members of AoiWorld and Streamer, called from
// several threads at once on one object must give each thread the answers a single thread gets. Run under
// ThreadSanitizer by the `tsan` preset (scripts/test), which also checks for_each_pair_parallel's own threads. The
// batch move on threads has its own file, test_threads_batch.cpp.
#include <quadrant/aoi.hpp>
#include <quadrant/quadrant.hpp>
#include <quadrant/streaming.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numbers>
#include <random>
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

}  // namespace
