// SPDX-License-Identifier: MIT
// Workload moving-boxes: N boxes move and bounce; every frame each contender updates its structure and reports
// every overlapping pair. The MMO seed's job, at sizes from 1k to 1M, in three distributions.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "contenders.hpp"
#include "harness.hpp"
#include "reference.hpp"
#include "scene.hpp"

namespace quadrant_bench {
namespace {

/// The grid's cell: twice the mean side of the small boxes. Measured on uniform 100k (cells 2, 3, 4, 6, 8): 4 was
/// fastest; see docs/benchmarks.md.
constexpr float kGridCell = 4.0f;

struct Plan {
  std::size_t n;
  int frames;
  int per_round;  // frames each contender runs in a row before the next one's turn
};

std::vector<Plan> plans(const Options& opt) {
  std::vector<Plan> all = opt.quick ? std::vector<Plan>{{1000, 10, 5}, {10000, 5, 5}}
                                    : std::vector<Plan>{{1000, 100, 20}, {10000, 40, 10}, {100000, 10, 2},
                                                        {1000000, 3, 1}};
  std::vector<Plan> out;
  for (const Plan& p : all)
    if (p.n <= opt.max_n) out.push_back(p);
  return out;
}

/// One contender of a case, built at frame 0 and kept while the case's frames run in rounds.
struct Lane {
  std::string name;
  bool is_quadrant = false;
  std::function<void(std::span<const Box2>, Answer&)> frame;  // update + all pairs
  std::vector<double> samples;
  Answer answer;
  std::size_t heap_growth = 0;  // over its construction, build and frames: its structure's memory
};

/// Builds a contender on the scene's first frame (untimed) and finds its pairs there; the answer is every frame's
/// pairs.
template <class Make>
void add_lane(std::vector<Lane>& lanes, const MovingScene& scene, const std::string& name, bool is_quadrant,
              Make&& make) {
  Lane lane;
  lane.name = name;
  lane.is_quadrant = is_quadrant;
  const std::size_t heap0 = heap_in_use();
  std::shared_ptr<typename decltype(make())::element_type> contender(make());
  contender->build(scene.boxes());
  contender->for_each_pair([&](std::uint32_t a, std::uint32_t b) { lane.answer.add_pair(a, b); });
  lane.frame = [contender](std::span<const Box2> boxes, Answer& answer) {
    contender->update(boxes);
    contender->for_each_pair([&](std::uint32_t a, std::uint32_t b) { answer.add_pair(a, b); });
  };
  lane.heap_growth = heap_in_use() - heap0;
  lanes.push_back(std::move(lane));
}

/// Frames 1..F in rounds: each round moves the scene per_round frames ahead (kept), then every contender runs
/// those frames in a row, timing update + all pairs of each, in for_each_in_round's order. All contenders thus see
/// the same frames, and a slow spell of the machine, or of the virtual CPU the process runs on, falls on each of
/// them alike: run one after another, one contender's 1k rows moved from 0.034 to 0.050 ms between runs while
/// the others' stayed. Only the first frame of a contender's turn finds its data gone from the caches.
void run_rounds(Report& report, MovingScene& scene, const Plan& plan, std::vector<Lane>& lanes) {
  for (Lane& lane : lanes) lane.samples.reserve(static_cast<std::size_t>(plan.frames));  // not in its memory
  std::vector<std::vector<Box2>> frames;
  for (int done = 0, round = 0; done < plan.frames; done += plan.per_round, ++round) {
    const int count = std::min(plan.per_round, plan.frames - done);
    frames.resize(static_cast<std::size_t>(count));
    for (auto& f : frames) {
      scene.step();
      f.assign(scene.boxes().begin(), scene.boxes().end());
    }
    for_each_in_round(lanes.size(), static_cast<std::size_t>(round), [&](std::size_t i) {
      Lane& lane = lanes[i];
      const std::size_t heap0 = heap_in_use();
      for (const auto& f : frames) lane.samples.push_back(time_ms([&] { lane.frame(f, lane.answer); }));
      lane.heap_growth += heap_in_use() - heap0;
    });
  }
  for (const Lane& lane : lanes)
    report.add(lane.name, lane.samples, lane.answer, double(lane.heap_growth) / double(scene.size()),
               lane.is_quadrant);
}

}  // namespace

void run_moving_boxes(const Options& opt, Report& report) {
  using quadrant::Placement;
  for (Distribution d : {Distribution::Uniform, Distribution::Clustered, Distribution::MixedSizes}) {
    for (const Plan& plan : plans(opt)) {
      MovingScene scene(plan.n, d, opt.seed);
      report.begin_case("moving-boxes", to_string(d), plan.n, "ms/frame");
      const Box2 world = scene.world();
      std::vector<Lane> lanes;
      // Brute force is the reference up to 10k boxes; above, sort-and-sweep (itself checked against brute force
      // at the smaller sizes) takes its place.
      if (plan.n <= 10000)
        add_lane(lanes, scene, "brute force", false, [] { return std::make_unique<BruteForce>(); });
      add_lane(lanes, scene, "sort-and-sweep (x)", false, [] { return std::make_unique<SortAndSweep>(); });
      add_lane(lanes, scene, "uniform grid", false,
          [&] { return std::make_unique<UniformGrid>(world, kGridCell); });
      // Box2D's tree answers a query in 1 us at 10k boxes but 33 us at 100k (1.5 candidates each, Debian's 2.4.1):
      // about 67 s a frame at 1M, which alone would take the full run past its budget.
      if (plan.n <= 100000)
        add_lane(lanes, scene, "Box2D b2DynamicTree", false, [] { return std::make_unique<Box2dTree>(); });
      add_lane(lanes, scene, "Boost rtree packed (rebuild)", false,
          [] { return std::make_unique<BoostRtree>(true); });
      add_lane(lanes, scene, "Boost rtree R* (remove+insert)", false,
          [] { return std::make_unique<BoostRtree>(false); });
      for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
        for (bool rebuild : {false, true}) {
          const std::string name = std::string("quadrant ") + placement_name(p) + (rebuild ? " rebuild" : " move");
          add_lane(lanes, scene, name, true,
              [&] { return std::make_unique<QuadrantTree>(world, plan.n, p, rebuild); });
        }
      }
      // The best placement with its pairs found on two threads: by Tree::pairs, in for_each_pair's order (what a
      // game that must replay a frame the same way uses), and by for_each_pair_parallel, each worker keeping the
      // value pairs it finds (in no set order, as most broad phases need them).
      add_lane(lanes, scene, "quadrant Parent move (2 threads)", true,
          [&] { return std::make_unique<QuadrantTree>(world, plan.n, Placement::Parent, false, 2); });
      add_lane(lanes, scene, "quadrant Parent move (2 threads, unordered)", true,
          [&] { return std::make_unique<QuadrantTree>(world, plan.n, Placement::Parent, false, 2, true, false); });
      run_rounds(report, scene, plan, lanes);
    }
  }
}

}  // namespace quadrant_bench
