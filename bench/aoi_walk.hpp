// SPDX-License-Identifier: MIT
// The aoi workload's world and walk, shared by bench_peers (aoi.cpp) and bench_aoi_alone: N entities in a +-1000
// square map, view radius 100, moving every tick by a random walk or on steady headings (see aoi.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <quadrant_support/rng.hpp>

#include "aoi_peers.hpp"
#include "harness.hpp"

namespace quadrant_bench::aoi {

using quadrant_support::Rng;

constexpr float kHalfMap = 1000;
constexpr float kViewRadius = 100;

/// The entities' walk, the same for every contender (rebuilt from the seed for each).
class Walk {
 public:
  Walk(std::size_t n, std::uint64_t seed, bool steady) : rng_(seed), steady_(steady) {
    for (std::size_t i = 0; i < n; ++i) {
      pos_.push_back({float(rng_.uniform(-kHalfMap, kHalfMap)), float(rng_.uniform(-kHalfMap, kHalfMap))});
      heading_.push_back(rng_.uniform(0, 6.283185307179586));
      speed_.push_back(rng_.uniform(1, 5));
    }
  }
  const std::vector<Pos>& positions() const { return pos_; }
  void step() {
    for (std::size_t i = 0; i < pos_.size(); ++i) {
      double step = speed_[i];
      if (steady_) {
        heading_[i] += rng_.uniform(-0.3, 0.3);
      } else {
        heading_[i] = rng_.uniform(0, 6.283185307179586);
        step = rng_.uniform(0, 5);
      }
      double x = pos_[i].x + step * std::cos(heading_[i]);
      double y = pos_[i].y + step * std::sin(heading_[i]);
      // Bounce: reflect the position and the heading at the edge.
      if (x < -kHalfMap || x > kHalfMap) {
        x = std::clamp(x, double(-kHalfMap), double(kHalfMap));
        heading_[i] = 3.141592653589793 - heading_[i];
      }
      if (y < -kHalfMap || y > kHalfMap) {
        y = std::clamp(y, double(-kHalfMap), double(kHalfMap));
        heading_[i] = -heading_[i];
      }
      pos_[i] = {float(x), float(y)};
    }
  }

 private:
  Rng rng_;
  bool steady_;
  std::vector<Pos> pos_;
  std::vector<double> heading_, speed_;
};

/// The 99th percentile of ascending tick times (0 for none): the rank ceil(0.99 n), as both programs report it.
inline double p99_of(const std::vector<double>& sorted) {
  return sorted.empty() ? 0 : sorted[std::min(sorted.size() - 1, (sorted.size() * 99 + 99) / 100 - 1)];
}

/// The key of an event in a parity checksum: it depends on the event's place in the stream (tick, place in the tick),
/// so a checksum of the keys checks the order too. kind 0 = Enter, 1 = Leave.
inline std::uint64_t event_key(std::uint64_t tick, std::uint64_t place, std::uint64_t kind, std::uint64_t watcher,
                               std::uint64_t target) {
  return quadrant_bench::Answer::mix((tick << 40) ^ (place << 2) ^ kind) ^ (watcher << 32 | target);
}

/// The seed of the walk of n entities in bench_peers run with --seed `seed` (both programs walk the same walk).
inline std::uint64_t walk_seed(std::uint64_t seed, std::size_t n) { return seed * 7919 + n; }

}  // namespace quadrant_bench::aoi
