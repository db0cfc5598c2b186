// SPDX-License-Identifier: MIT
// Workload moving-boxes: N boxes move and bounce; every frame each contender updates its structure and reports
// every overlapping pair. The MMO seed's job, at sizes from 1k to 1M, in three distributions.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <utility>
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

/// A contender of the case: its answer is every frame's pairs.
template <class Make>
void add_lane(std::vector<FrameLane>& lanes, const MovingScene& scene, const std::string& name, bool is_quadrant,
              Make&& make) {
  add_frame_lane(lanes, scene, name, is_quadrant, std::forward<Make>(make), [](auto& contender, int, Answer& answer) {
    contender.for_each_pair([&](std::uint32_t a, std::uint32_t b) { answer.add_pair(a, b); });
  });
}

}  // namespace

void run_moving_boxes(const Options& opt, Report& report) {
  using quadrant::Placement;
  for (Distribution d : {Distribution::Uniform, Distribution::Clustered, Distribution::MixedSizes}) {
    for (const Plan& plan : plans(opt)) {
      MovingScene scene(plan.n, d, opt.seed);
      report.begin_case("moving-boxes", to_string(d), plan.n, "ms/frame");
      const Box2 world = scene.world();
      std::vector<FrameLane> lanes;
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
      run_frame_rounds(report, scene, plan.frames, plan.per_round, lanes);
    }
  }
}

}  // namespace quadrant_bench
