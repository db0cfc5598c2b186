// SPDX-License-Identifier: MIT
// Workload static-ranges: 1M boxes built once, then 1000 window queries covering 0.01% and 1% of the world.
// Build time and bytes per object are reported as their own case, so memory is compared on the same data.
#include <malloc.h>

#include <functional>
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
  // answer of their own, so their parity is the windows'). Each set is timed twice in a row: a first pass, which
  // finds in the caches whatever the contender before it left (a program that does other work between its
  // queries), and the same windows again at once, which find the paths of those windows in cache (what the median
  // of back-to-back repetitions measured before the rounds; the row without "first pass").
  struct Case {
    const char* label;
    const std::vector<Box2>* windows;
  };
  const Case cases[] = {{"windows of 0.01%", &small},
                        {"windows of 0.01%, first pass", &small},
                        {"windows of 1%", &large},
                        {"windows of 1%, first pass", &large}};
  constexpr int kCases = 4;
  std::vector<Built> built;
  // Rows are grouped by case, so each contender's answers are kept and reported after all have run.
  struct Result {
    std::string name;
    bool is_quadrant;
    std::string note;
    std::vector<double> samples[kCases];
    Answer answers[kCases];
    // Answers every window of a set, handing each hit to the answer.
    std::function<void(const std::vector<Box2>&, Answer&)> query_all;
  };
  std::vector<Result> results;

  auto build = [&](const std::string& name, bool is_quadrant, auto make) {
    // Every build starts from the same state of memory: no scratch left with this thread by an earlier workload or
    // build, and the heap's free pages handed back to the system (malloc_trim), so that no contender builds in
    // pages an earlier one freed. On a VM where a page fault costs about 12 us, that alone moved a 1M build by up
    // to 4x, depending on which contender ran before (docs/benchmarks.md). Each contender is built kBuilds times,
    // the tree before each build destroyed first; the last one stays, to answer the windows below.
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
    std::shared_ptr<typename decltype(contender)::element_type> kept(std::move(contender));
    results.push_back({name, is_quadrant, name == "brute force" ? "no index: every query scans" : "", {}, {},
                       [kept](const std::vector<Box2>& windows, Answer& answer) {
                         for (std::size_t q = 0; q < windows.size(); ++q)
                           kept->query(windows[q], [&](std::uint32_t id) { answer.add((std::uint64_t(q) << 32) | id); });
                       }});
  };

  build("brute force", false, [] { return std::make_unique<BruteForce>(); });
  build("uniform grid", false, [&] { return std::make_unique<UniformGrid>(world, kGridCell); });
  build("Box2D b2DynamicTree", false, [] { return std::make_unique<Box2dTree>(); });
  build("Boost rtree packed", false, [] { return std::make_unique<BoostRtree>(true); });
  build("Boost rtree R*", false, [] { return std::make_unique<BoostRtree>(false); });
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves})
    build(std::string("quadrant ") + placement_name(p), true,
          [&] { return std::make_unique<QuadrantTree>(world, n, p, false, 1, false); });

  // The windows, in rounds: each round runs every contender's 1000 windows of each size, twice (see
  // for_each_in_round).
  for (int rep = 0; rep < repeats; ++rep) {
    for (int c : {1, 3}) {
      for_each_in_round(results.size(), static_cast<std::size_t>(rep), [&](std::size_t i) {
        Result& r = results[i];
        for (int pass : {c, c - 1}) {
          Answer answer;
          r.samples[pass].push_back(time_ms([&] { r.query_all(*cases[pass].windows, answer); }));
          r.answers[pass] = answer;
        }
      });
    }
  }

  for (int c = 0; c < kCases; ++c) {
    report.begin_case("static-ranges", cases[c].label, n, "ms/1000 queries");
    for (const Result& r : results) report.add(r.name, r.samples[c], r.answers[c], NAN, r.is_quadrant, r.note);
  }
  // Build: the median of kBuilds; the answer is the windows' so a contender that answered wrongly is refused here
  // too.
  report.begin_case("static-ranges", "build", n, "ms build");
  for (std::size_t i = 0; i < built.size(); ++i) {
    Answer both = results[i].answers[0];
    both.add(results[i].answers[2]);
    report.add(built[i].name, built[i].build_ms, both, built[i].bytes_per_object, built[i].is_quadrant,
               results[i].note);
  }
}

}  // namespace quadrant_bench
