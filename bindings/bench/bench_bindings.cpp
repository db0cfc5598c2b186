// SPDX-License-Identifier: MIT
// What a query costs through the C API, against the C++ call on the same scene (the Lua and C# halves are bench.lua
// and Bench.cs beside this file; scripts/bench_bindings runs all and prints the table of docs/bindings.md).
// Scene: 10,000 boxes in [0, 1000]^2 and 2,000 circles of radius 15, from one 64-bit LCG that every language
// reimplements, so each side answers the same queries; the total of hits is printed for the parity check.
// Output: one line per way, "<way> <median ns per query> <hits>", medians over 9 repetitions.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <quadrant/quadrant.hpp>

#include "quadrant/c/quadrant.h"

namespace {

struct Lcg {
  std::uint64_t state = 12345;
  std::uint64_t operator()(std::uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  }
};
constexpr int kBoxes = 10000, kQueries = 2000, kReps = 9;
constexpr double kRadius = 15;

template <class Run>
void measure(const char* way, Run&& run) {
  std::vector<double> ns;
  std::size_t hits = 0;
  for (int r = 0; r < kReps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    hits = run();
    const auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kQueries);
  }
  std::sort(ns.begin(), ns.end());
  std::printf("%s %.1f %zu\n", way, ns[ns.size() / 2], hits);
}

}  // namespace

int main() {
  Lcg rnd;
  std::vector<quadrant::Box<2, double>> boxes(kBoxes);
  for (auto& b : boxes) {
    const double x = static_cast<double>(rnd(100000)) / 100, y = static_cast<double>(rnd(100000)) / 100;
    const double w = 1 + static_cast<double>(rnd(500)) / 100, h = 1 + static_cast<double>(rnd(500)) / 100;
    b = {{x, y}, {x + w, y + h}};
  }
  std::vector<quadrant::Vec<2, double>> centers(kQueries);
  for (auto& c : centers) {
    const double x = static_cast<double>(rnd(100000)) / 100;
    c = {x, static_cast<double>(rnd(100000)) / 100};
  }

  quadrant::Config<2, double> config;
  config.world = {{0, 0}, {1000, 1000}};
  quadrant::Tree<2, std::uint64_t, double> tree(config);
  for (int i = 0; i < kBoxes; ++i) tree.insert(boxes[static_cast<std::size_t>(i)], static_cast<std::uint64_t>(i));
  measure("cpp", [&] {
    std::size_t hits = 0;
    for (const auto& c : centers)
      tree.query(quadrant::Circle<double>{c, kRadius}, [&](quadrant::Handle, const std::uint64_t&) { ++hits; });
    return hits;
  });

  quadrant_config cc;
  quadrant_config_init(&cc, 2, QUADRANT_DOUBLE);
  cc.world_max[0] = cc.world_max[1] = 1000;
  quadrant_tree* ct = nullptr;
  if (quadrant_tree_create(&cc, &ct) != QUADRANT_OK) return 1;
  for (int i = 0; i < kBoxes; ++i) {
    const auto& b = boxes[static_cast<std::size_t>(i)];
    const double lo[2] = {b.min.x, b.min.y}, hi[2] = {b.max.x, b.max.y};
    if (quadrant_tree_insert(ct, lo, hi, static_cast<std::uint64_t>(i), ~0u, nullptr) != QUADRANT_OK) return 1;
  }
  std::vector<std::uint64_t> values(4096);
  measure("c_into", [&] {
    std::size_t hits = 0;
    for (const auto& c : centers) {
      const double p[2] = {c.x, c.y};
      const quadrant_shape s = quadrant_shape_ball(2, p, kRadius);
      std::size_t n = 0;
      quadrant_tree_query_into(ct, &s, ~0u, nullptr, values.data(), values.size(), &n);
      hits += n;
    }
    return hits;
  });
  measure("c_callback", [&] {
    std::size_t hits = 0;
    for (const auto& c : centers) {
      const double p[2] = {c.x, c.y};
      const quadrant_shape s = quadrant_shape_ball(2, p, kRadius);
      quadrant_tree_query(
          ct, &s, ~0u,
          [](void* user, quadrant_handle, std::uint64_t) {
            ++*static_cast<std::size_t*>(user);
            return 1;
          },
          &hits, nullptr);
    }
    return hits;
  });
  quadrant_tree_destroy(ct);
  return 0;
}
