// SPDX-License-Identifier: MIT
// Workload static-ranges: 1M boxes built once, then 1000 window queries covering 0.01% and 1% of the world.
// Build time and bytes per object are reported as their own case, so memory is compared on the same data.
#include <malloc.h>

#include <memory>
#include <string>
#include <vector>

#include "contenders.hpp"
#include "harness.hpp"
#include "reference.hpp"
#include "scene.hpp"

namespace quadrant_bench {
namespace {

/// The grid's cell for window queries: measured on 1M boxes (cells 4, 8, 16, 32): 8 was fastest over both window
/// sizes (a 1% window spans about 200 x 200 units); see docs/benchmarks.md.
constexpr float kGridCell = 8.0f;

struct Built {
  std::string name;
  bool is_quadrant;
  std::vector<double> build_ms;
  double bytes_per_object;
};

/// Builds per contender; the median is reported.
constexpr int kBuilds = 3;

}  // namespace

void run_static_ranges(const Options& opt, Report& report) {
  using quadrant::Placement;
  const std::size_t n = std::min<std::size_t>(opt.quick ? 100000 : 1000000, opt.max_n);
  const std::size_t queries = 1000;
  const int repeats = opt.quick ? 3 : 5;
  MovingScene scene(n, Distribution::Uniform, opt.seed);
  const std::span<const Box2> boxes = scene.boxes();
  const Box2 world = scene.world();
  const std::vector<Box2> small = make_windows(world, queries, 0.0001, opt.seed + 1);
  const std::vector<Box2> large = make_windows(world, queries, 0.01, opt.seed + 2);

  // Every contender is built, then answers both window sets; build and memory rows come last (they have no
  // answer of their own, so their parity is the windows').
  std::vector<Built> built;
  struct Case {
    const char* label;
    const std::vector<Box2>* windows;
  };
  const Case cases[] = {{"windows of 0.01%", &small}, {"windows of 1%", &large}};
  // Rows are grouped by case, so each contender's answers are kept and reported after all have run.
  struct Result {
    std::string name;
    bool is_quadrant;
    std::string note;
    std::vector<double> samples[2];
    Answer answers[2];
  };
  std::vector<Result> results;

  auto run = [&](const std::string& name, bool is_quadrant, auto make) {
    // Every build starts from the same state of memory: no scratch left with this thread by an earlier workload or
    // build, and the heap's free pages handed back to the system (malloc_trim), so that no contender builds in
    // pages an earlier one freed. On a VM where a page fault costs about 12 us, that alone moved a 1M build by up
    // to 4x, depending on which contender ran before (docs/benchmarks.md). Each contender is built kBuilds times,
    // the tree before each build destroyed first; the last one answers the windows.
    std::vector<double> build_ms;
    double bytes = 0;
    decltype(make()) contender;
    for (int b = 0; b < kBuilds; ++b) {
      contender.reset();
      quadrant::release_scratch();
      malloc_trim(0);
      const std::size_t heap0 = heap_in_use();
      contender = make();
      // quadrant's build keeps its scratch for the thread's next build; a static tree hands it back, as
      // docs/core.md advises (the peers free their temporaries too).
      build_ms.push_back(time_ms([&] {
        contender->build(boxes);
        if (is_quadrant) quadrant::release_scratch();
      }));
      bytes = double(heap_in_use() - heap0) / double(n);
    }
    built.push_back({name, is_quadrant, build_ms, bytes});
    Result r{name, is_quadrant, name == "brute force" ? "no index: every query scans" : "", {}, {}};
    for (int c = 0; c < 2; ++c) {
      for (int rep = 0; rep < repeats; ++rep) {
        Answer answer;
        r.samples[c].push_back(time_ms([&] {
          for (std::size_t q = 0; q < queries; ++q)
            contender->query((*cases[c].windows)[q], [&](std::uint32_t id) { answer.add((std::uint64_t(q) << 32) | id); });
        }));
        r.answers[c] = answer;
      }
    }
    results.push_back(std::move(r));
  };

  run("brute force", false, [] { return std::make_unique<BruteForce>(); });
  run("uniform grid", false, [&] { return std::make_unique<UniformGrid>(world, kGridCell); });
  run("Box2D b2DynamicTree", false, [] { return std::make_unique<Box2dTree>(); });
  run("Boost rtree packed", false, [] { return std::make_unique<BoostRtree>(true); });
  run("Boost rtree R*", false, [] { return std::make_unique<BoostRtree>(false); });
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves})
    run(std::string("quadrant ") + placement_name(p), true,
        [&] { return std::make_unique<QuadrantTree>(world, n, p, false, 1, false); });

  for (int c = 0; c < 2; ++c) {
    report.begin_case("static-ranges", cases[c].label, n, "ms/1000 queries");
    for (const Result& r : results) report.add(r.name, r.samples[c], r.answers[c], NAN, r.is_quadrant, r.note);
  }
  // Build: the median of kBuilds; the answer is the windows' so a contender that answered wrongly is refused here
  // too.
  report.begin_case("static-ranges", "build", n, "ms build");
  for (std::size_t i = 0; i < built.size(); ++i) {
    Answer both = results[i].answers[0];
    both.add(results[i].answers[1]);
    report.add(built[i].name, built[i].build_ms, both, built[i].bytes_per_object, built[i].is_quadrant,
               results[i].note);
  }
}

}  // namespace quadrant_bench
