// SPDX-License-Identifier: MIT
// Workload streaming: a camera flies over a large map of static objects; every frame the streamer decides what to
// load, unload and cancel (quadrant::Streamer: an octree frustum walk with plane masks, resident objects tested
// against the kept regions) against a scan that tests every object's box with the same predicates and runs the
// same state machine (BruteForceStreamer, support/quadrant_support, which the demo checks against too). Loads finish
// three frames after they are issued. Parity: every decision of every frame (kind, frame, id, and for loads their
// rank), as count and checksum.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <quadrant/streaming.hpp>

#include <quadrant_support/brute_streamer.hpp>
#include <quadrant_support/camera.hpp>  // the demo's camera maths (view_projection, column_major)

#include "harness.hpp"

namespace quadrant_bench {
namespace {

using quadrant::Box3;
using quadrant::Vec3;

constexpr float kPrefetch = 60, kMargin = 40;
constexpr std::size_t kPerUpdate = 64, kInFlight = 256;
constexpr int kLatency = 3;  // frames from issue to completion

struct Plan {
  std::size_t n;
  int frames;
};

/// The map: side grows with N so density stays at 1 object per 64 m^2 (1M objects: 8192 x 8192). Trees and rocks
/// 1-6 wide, houses 6-20 wide, 1% landmarks 40-120 wide.
std::vector<Box3> make_map(std::size_t n, float side, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Box3> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double kind = rng.unit();
    const double x = rng.uniform(0, side), z = rng.uniform(0, side);
    double w, h;
    if (kind < 0.01) w = rng.uniform(40, 120), h = rng.uniform(30, 80);
    else if (kind < 0.3) w = rng.uniform(6, 20), h = rng.uniform(5, 15);
    else w = rng.uniform(1, 6), h = rng.uniform(2, 25);
    out.push_back({{float(x - w / 2), 0, float(z - w / 2)}, {float(x + w / 2), float(h), float(z + w / 2)}});
  }
  return out;
}

/// Frame f of the flight: a loop of radius 0.35 side around the center, 40 high, looking ahead and slightly down.
quadrant::StreamingSource<float> source_at(int f, int frames, float side) {
  const double t = 2 * std::numbers::pi * f / frames, r = 0.35 * side, c = side / 2.0;
  const Vec3 eye{float(c + r * std::cos(t)), 40, float(c + r * std::sin(t))};
  const Vec3 target{float(eye.x - std::sin(t)), eye.y - 0.21f, float(eye.z + std::cos(t))};
  quadrant::StreamingSource<float> s;
  // The demo's lens (quadrant_support::Lens{}: 60 degrees vertical, 16:9, near 0.5, far 400).
  s.frustum = quadrant::Frustum<float>::from_view_projection(
      quadrant_support::column_major(quadrant_support::view_projection({eye, target})));
  s.position = eye;
  s.prefetch_radius = kPrefetch;
  return s;
}

enum Kind : std::uint64_t { kLoad = 1, kUnload = 2, kCancel = 3 };
std::uint64_t event_key(Kind kind, int frame, std::size_t rank, std::uint64_t id) {
  return (std::uint64_t(kind) << 60) | (std::uint64_t(frame) << 44) | (std::uint64_t(rank) << 24) | id;
}

/// Runs one contender over the flight: `update(frame)` returns the frame's tests and fills loads / unloads /
/// cancels; `complete(id)` reports a finished load.
template <class Update, class Complete>
void fly(Report& report, const std::string& name, bool is_quadrant, int frames, float side, std::size_t heap0,
         std::size_t n, Update&& update, Complete&& complete) {
  Answer answer;
  std::vector<double> samples;
  std::vector<std::vector<std::uint32_t>> in_flight(std::size_t(frames) + kLatency + 1);
  double tests = 0;
  std::vector<std::uint32_t> loads, unloads, cancels;
  for (int f = 0; f < frames; ++f) {
    for (std::uint32_t id : in_flight[std::size_t(f)]) complete(id);
    const quadrant::StreamingSource<float> s = source_at(f, frames, side);
    loads.clear(), unloads.clear(), cancels.clear();
    std::size_t t = 0;
    samples.push_back(time_ms([&] { t = update(s, loads, unloads, cancels); }));
    tests += double(t);
    for (std::size_t r = 0; r < loads.size(); ++r) {
      answer.add(event_key(kLoad, f, r, loads[r]));
      in_flight[std::size_t(f + kLatency)].push_back(loads[r]);
    }
    std::sort(unloads.begin(), unloads.end());
    std::sort(cancels.begin(), cancels.end());
    for (std::uint32_t id : unloads) answer.add(event_key(kUnload, f, 0, id));
    for (std::uint32_t id : cancels) answer.add(event_key(kCancel, f, 0, id));
  }
  const double bytes = double(heap_in_use() - heap0) / double(n);
  char note[96];
  std::snprintf(note, sizeof note, "%.0f boxes tested per update", tests / frames);
  report.add(name, samples, answer, bytes, is_quadrant, note);
}

}  // namespace

void run_streaming(const Options& opt, Report& report) {
  const std::vector<Plan> all = opt.quick ? std::vector<Plan>{{100000, 24}} : std::vector<Plan>{{100000, 120}, {1000000, 240}};
  for (const Plan& plan : all) {
    if (plan.n > opt.max_n) continue;
    const float side = float(8 * std::sqrt(double(plan.n)));
    const std::vector<Box3> boxes = make_map(plan.n, side, opt.seed);
    report.begin_case("streaming", "camera loop, 1 object / 64 m^2", plan.n, "ms/update");

    {
      const std::size_t heap0 = heap_in_use();
      quadrant_support::BruteForceStreamer scan(boxes, kMargin, kPerUpdate, kInFlight);
      fly(report, "scan: every object tested", false, plan.frames, side, heap0, plan.n,
          [&](const quadrant::StreamingSource<float>& s, auto& loads, auto& unloads, auto& cancels) {
            scan.update(s);
            loads = scan.loads, unloads = scan.unloads, cancels = scan.cancels;
            return scan.tests;
          },
          [&](std::uint32_t id) { scan.mark_loaded(id); });
    }
    for (quadrant::Placement p : {quadrant::Placement::Loose, quadrant::Placement::Parent}) {
      const std::size_t heap0 = heap_in_use();
      quadrant::StreamerConfig<float> config;
      config.tree.world = {{0, 0, 0}, {side, side, side}};
      config.tree.placement = p;
      config.unload_margin = kMargin;
      config.max_loads_per_update = kPerUpdate;
      config.max_loads_in_flight = kInFlight;
      quadrant::Streamer<float> streamer(config);
      for (std::uint32_t i = 0; i < boxes.size(); ++i) streamer.add(i, boxes[i]);
      fly(report, std::string("quadrant Streamer, ") + quadrant::to_string(p), true, plan.frames, side, heap0, plan.n,
          [&](const quadrant::StreamingSource<float>& s, auto& loads, auto& unloads, auto& cancels) {
            const quadrant::StreamUpdate<float>& u = streamer.update(std::span(&s, 1));
            for (const auto& l : u.loads) loads.push_back(std::uint32_t(l.id));
            for (std::uint64_t id : u.unloads) unloads.push_back(std::uint32_t(id));
            for (std::uint64_t id : u.cancels) cancels.push_back(std::uint32_t(id));
            return u.stats.objects_tested();
          },
          [&](std::uint32_t id) { streamer.mark_loaded(id); });
    }
  }
}

}  // namespace quadrant_bench
