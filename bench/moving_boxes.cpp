// SPDX-License-Identifier: MIT
// Workload moving-boxes: N boxes move and bounce; every frame each contender updates its structure and reports
// every overlapping pair. The MMO seed's job, at sizes from 1k to 1M, in three distributions.
#include <cstdlib>
#include <memory>
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
};

std::vector<Plan> plans(const Options& opt) {
  std::vector<Plan> all = opt.quick ? std::vector<Plan>{{1000, 10}, {10000, 5}}
                                    : std::vector<Plan>{{1000, 100}, {10000, 40}, {100000, 10}, {1000000, 3}};
  std::vector<Plan> out;
  for (const Plan& p : all)
    if (p.n <= opt.max_n) out.push_back(p);
  return out;
}

/// Frame 0 builds the structure (untimed); frames 1..F move the scene, then time update + all pairs. The answer
/// is every frame's pairs; memory is the heap's growth from before construction to the end.
template <class Make>
void run(Report& report, MovingScene& scene, int frames, const std::string& name, bool is_quadrant, Make&& make) {
  scene.reset();
  const std::size_t heap0 = heap_in_use();
  auto contender = make();
  Answer answer;
  auto sink = [&](std::uint32_t a, std::uint32_t b) { answer.add_pair(a, b); };
  contender->build(scene.boxes());
  contender->for_each_pair(sink);
  std::vector<double> samples;
  for (int f = 0; f < frames; ++f) {
    scene.step();
    samples.push_back(time_ms([&] {
      contender->update(scene.boxes());
      contender->for_each_pair(sink);
    }));
  }
  const double bytes = double(heap_in_use() - heap0) / double(scene.size());
  report.add(name, samples, answer, bytes, is_quadrant);
}

}  // namespace

void run_moving_boxes(const Options& opt, Report& report) {
  using quadrant::Placement;
  for (Distribution d : {Distribution::Uniform, Distribution::Clustered, Distribution::MixedSizes}) {
    for (const Plan& plan : plans(opt)) {
      MovingScene scene(plan.n, d, opt.seed);
      report.begin_case("moving-boxes", to_string(d), plan.n, "ms/frame");
      const Box2 world = scene.world();
      // Brute force is the reference up to 10k boxes; above, sort-and-sweep (itself checked against brute force
      // at the smaller sizes) takes its place.
      if (plan.n <= 10000)
        run(report, scene, plan.frames, "brute force", false, [] { return std::make_unique<BruteForce>(); });
      run(report, scene, plan.frames, "sort-and-sweep (x)", false, [] { return std::make_unique<SortAndSweep>(); });
      run(report, scene, plan.frames, "uniform grid", false,
          [&] { return std::make_unique<UniformGrid>(world, kGridCell); });
      // Box2D's tree answers a query in 1 us at 10k boxes but 33 us at 100k (1.5 candidates each, Debian's 2.4.1):
      // about 67 s a frame at 1M, which alone would take the full run past its budget.
      if (plan.n <= 100000)
        run(report, scene, plan.frames, "Box2D b2DynamicTree", false, [] { return std::make_unique<Box2dTree>(); });
      run(report, scene, plan.frames, "Boost rtree packed (rebuild)", false,
          [] { return std::make_unique<BoostRtree>(true); });
      run(report, scene, plan.frames, "Boost rtree R* (remove+insert)", false,
          [] { return std::make_unique<BoostRtree>(false); });
      for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves}) {
        for (bool rebuild : {false, true}) {
          const std::string name = std::string("quadrant ") + placement_name(p) + (rebuild ? " rebuild" : " move");
          run(report, scene, plan.frames, name, true,
              [&] { return std::make_unique<QuadrantTree>(world, plan.n, p, rebuild); });
        }
      }
      // The best placement with its pairs found on two threads: by Tree::pairs, in for_each_pair's order (what a
      // game that must replay a frame the same way uses), and by for_each_pair_parallel, each worker keeping the
      // value pairs it finds (in no set order, as most broad phases need them).
      run(report, scene, plan.frames, "quadrant Parent move (2 threads)", true,
          [&] { return std::make_unique<QuadrantTree>(world, plan.n, Placement::Parent, false, 2); });
      run(report, scene, plan.frames, "quadrant Parent move (2 threads, unordered)", true,
          [&] { return std::make_unique<QuadrantTree>(world, plan.n, Placement::Parent, false, 2, true, false); });
    }
  }
}

}  // namespace quadrant_bench
