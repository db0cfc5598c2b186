// SPDX-License-Identifier: MIT
// quadrant benchmarks — the data every contender is given: boxes in a 3:2 world at the MMO seed's density, moving
// and bouncing, in three distributions; query windows and points. Everything derives from a seed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <quadrant/geometry.hpp>

#include "harness.hpp"

namespace quadrant_bench {

using Box2 = quadrant::Box<2, float>;
using Vec2 = quadrant::Vec<2, float>;

/// Closed boxes overlap when they touch: the one overlap test every reference structure uses.
inline bool overlaps(const Box2& a, const Box2& b) noexcept {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y;
}

/// How the boxes of a scene are spread.
enum class Distribution { Uniform, Clustered, MixedSizes };

inline const char* to_string(Distribution d) {
  switch (d) {
    case Distribution::Uniform: return "uniform";
    case Distribution::Clustered: return "clustered";
    case Distribution::MixedSizes: return "mixed sizes";
  }
  return "?";
}

/// A 3:2 world whose area is eight times the expected area of `n` boxes of side 1 to 3 (E[side^2] = 13/3): the
/// boxes cover about 1/8 of it, the MMO seed's density.
inline Box2 world_for(std::size_t n) {
  const double area = 8.0 * double(n) * 13.0 / 3.0;
  const double h = std::sqrt(area / 1.5);
  return {{0, 0}, {float(1.5 * h), float(h)}};
}

/// N boxes that move in straight lines at 0.05 to 0.2 per frame and bounce off the world's walls.
class MovingScene {
 public:
  MovingScene(std::size_t n, Distribution d, std::uint64_t seed) : world_(world_for(n)) {
    Rng rng(seed * 0x9e3779b97f4a7c15ULL + 17 + std::uint64_t(d));
    const double w = world_.max.x, h = world_.max.y;
    // Clustered: 90% of the boxes in 8 Gaussian clusters of sigma h/16 (about 3x the uniform density).
    struct Cluster { double x, y; };
    std::vector<Cluster> clusters;
    for (int c = 0; c < 8; ++c) clusters.push_back({rng.uniform(0.15 * w, 0.85 * w), rng.uniform(0.15 * h, 0.85 * h)});
    const double sigma = h / 16;
    centers_.resize(n);
    halves_.resize(n);
    velocities_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      double side = rng.uniform(1, 3);
      if (d == Distribution::MixedSizes && rng.unit() < 0.01) side *= 50;
      const double half = std::min(side / 2, 0.45 * h);
      double x = rng.uniform(half, w - half), y = rng.uniform(half, h - half);
      if (d == Distribution::Clustered && rng.unit() < 0.9) {
        const Cluster& c = clusters[rng.next() % clusters.size()];
        x = std::clamp(c.x + sigma * gaussian(rng), half, w - half);
        y = std::clamp(c.y + sigma * gaussian(rng), half, h - half);
      }
      const double speed = rng.uniform(0.05, 0.2), angle = rng.uniform(0, 2 * M_PI);
      centers_[i] = {float(x), float(y)};
      halves_[i] = float(half);
      velocities_[i] = {float(speed * std::cos(angle)), float(speed * std::sin(angle))};
    }
    initial_centers_ = centers_;
    initial_velocities_ = velocities_;
    boxes_.resize(n);
    refresh();
  }

  /// Back to frame 0, so the next contender sees the same frames.
  void reset() {
    centers_ = initial_centers_;
    velocities_ = initial_velocities_;
    refresh();
  }

  /// Moves every box one frame, bouncing off the walls.
  void step() {
    for (std::size_t i = 0; i < centers_.size(); ++i) {
      for (int a = 0; a < 2; ++a) {
        float c = centers_[i][a] + velocities_[i][a];
        const float lo = world_.min[a] + halves_[i], hi = world_.max[a] - halves_[i];
        if (c < lo || c > hi) {
          velocities_[i][a] = -velocities_[i][a];
          c = std::clamp(c, lo, hi);
        }
        centers_[i][a] = c;
      }
    }
    refresh();
  }

  std::span<const Box2> boxes() const noexcept { return boxes_; }
  const Box2& world() const noexcept { return world_; }
  std::size_t size() const noexcept { return boxes_.size(); }

 private:
  // Box-Muller; portable because it only uses the generator's bits and libm.
  static double gaussian(Rng& rng) {
    const double u = std::max(rng.unit(), 1e-300), v = rng.unit();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  }

  void refresh() {
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
      const Vec2 c = centers_[i];
      const float r = halves_[i];
      boxes_[i] = {{c.x - r, c.y - r}, {c.x + r, c.y + r}};
    }
  }

  Box2 world_;
  std::vector<Vec2> centers_, velocities_, initial_centers_, initial_velocities_;
  std::vector<float> halves_;
  std::vector<Box2> boxes_;
};

/// One contender of a moving-scene case, built on the scene's first frame and kept while the case's frames run in
/// rounds (run_frame_rounds).
struct FrameLane {
  std::string name;
  bool is_quadrant = false;
  std::function<void(std::span<const Box2> boxes, int frame, Answer& answer)> frame;  // one timed frame
  std::vector<double> samples;
  Answer answer;
  std::size_t heap_growth = 0;  // over its construction, build and frames: its structure's memory
};

/// Builds a contender on the scene's first frame (untimed) and adds it as a lane. record(contender, frame, answer)
/// puts a frame's results in the answer: frame 0's after the build, then each timed frame's after the update.
template <class Make, class Record>
void add_frame_lane(std::vector<FrameLane>& lanes, const MovingScene& scene, const std::string& name,
                    bool is_quadrant, Make&& make, Record record) {
  FrameLane lane;
  lane.name = name;
  lane.is_quadrant = is_quadrant;
  const std::size_t heap0 = heap_in_use();
  std::shared_ptr<typename decltype(make())::element_type> contender(make());
  contender->build(scene.boxes());
  record(*contender, 0, lane.answer);
  lane.frame = [contender, record](std::span<const Box2> boxes, int frame, Answer& answer) {
    contender->update(boxes);
    record(*contender, frame, answer);
  };
  lane.heap_growth = heap_in_use() - heap0;
  lanes.push_back(std::move(lane));
}

/// Frames 1..frames in rounds: each round moves the scene per_round frames ahead (kept), then every contender runs
/// those frames in a row, each timed, in for_each_in_round's order, and reports its median. All contenders thus
/// see the same frames, and a slow spell of the machine, or of the virtual CPU the process runs on, falls on each
/// of them alike: run one after another, one contender's 1k rows moved from 0.034 to 0.050 ms between runs while
/// the others' stayed. Only the first frame of a contender's turn finds its data gone from the caches.
inline void run_frame_rounds(Report& report, MovingScene& scene, int frames, int per_round,
                             std::vector<FrameLane>& lanes) {
  for (FrameLane& lane : lanes) lane.samples.reserve(static_cast<std::size_t>(frames));  // not in its memory
  std::vector<std::vector<Box2>> batch;
  for (int done = 0, round = 0; done < frames; done += per_round, ++round) {
    const int count = std::min(per_round, frames - done);
    batch.resize(static_cast<std::size_t>(count));
    for (auto& f : batch) {
      scene.step();
      f.assign(scene.boxes().begin(), scene.boxes().end());
    }
    for_each_in_round(lanes.size(), static_cast<std::size_t>(round), [&](std::size_t i) {
      FrameLane& lane = lanes[i];
      const std::size_t heap0 = heap_in_use();
      for (int k = 0; k < count; ++k)
        lane.samples.push_back(time_ms([&] { lane.frame(batch[std::size_t(k)], done + k + 1, lane.answer); }));
      lane.heap_growth += heap_in_use() - heap0;
    });
  }
  for (const FrameLane& lane : lanes)
    report.add(lane.name, lane.samples, lane.answer, double(lane.heap_growth) / double(scene.size()),
               lane.is_quadrant);
}

/// `count` square windows, each covering `fraction` of the world's area, uniformly placed inside it.
inline std::vector<Box2> make_windows(const Box2& world, std::size_t count, double fraction, std::uint64_t seed) {
  Rng rng(seed ^ 0x5bd1e995u);
  const double w = world.max.x - world.min.x, h = world.max.y - world.min.y;
  const double side = std::sqrt(fraction * w * h);
  std::vector<Box2> out(count);
  for (Box2& b : out) {
    const double x = rng.uniform(world.min.x, world.max.x - side), y = rng.uniform(world.min.y, world.max.y - side);
    b = {{float(x), float(y)}, {float(x + side), float(y + side)}};
  }
  return out;
}

/// `count` points uniformly spread over the world.
inline std::vector<Vec2> make_points(const Box2& world, std::size_t count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Vec2> out(count);
  for (Vec2& p : out)
    p = {float(rng.uniform(world.min.x, world.max.x)), float(rng.uniform(world.min.y, world.max.y))};
  return out;
}

}  // namespace quadrant_bench
