// SPDX-License-Identifier: MIT
// Workload nearest: 1M points; 100k 1-NN and 10k 10-NN queries. Box2D's tree has no nearest-neighbour query, so
// it does not take part. Brute force checks every contender on a sample of queries first.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "contenders.hpp"
#include "harness.hpp"
#include "reference.hpp"
#include "scene.hpp"

namespace quadrant_bench {
namespace {

/// The grid's cell for points: about two points per cell at this density (1/0.0288 units^2 per point), so a
/// 1-NN search usually ends after the first ring.
constexpr float kGridCell = 8.0f;

/// The k nearest by scanning every point; ties by id, as the others are expected to break them (the checksum
/// compares sets, and ties at the k-th place are vanishingly rare with random float coordinates).
void brute_nearest(std::span<const Box2> boxes, Vec2 p, std::size_t k, std::vector<std::pair<float, std::uint32_t>>& out) {
  out.clear();
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const float dx = boxes[i].min.x - p.x, dy = boxes[i].min.y - p.y;
    out.emplace_back(dx * dx + dy * dy, std::uint32_t(i));
  }
  std::partial_sort(out.begin(), out.begin() + std::ptrdiff_t(k), out.end());
  out.resize(k);
}

/// The grid's ring search behind the contender interface.
struct GridNearest {
  UniformGrid grid;
  std::vector<std::pair<float, std::uint32_t>> out;
  void build(std::span<const Box2> b) { grid.build(b); }
  template <class Fn>
  void nearest(Vec2 p, std::size_t k, Fn&& fn) {
    grid.nearest(p, k, out);
    for (const auto& [d, id] : out) fn(id);
  }
};

}  // namespace

void run_nearest(const Options& opt, Report& report) {
  using quadrant::Placement;
  const std::size_t n = std::min<std::size_t>(opt.quick ? 100000 : 1000000, opt.max_n);
  const Box2 world = world_for(n);
  std::vector<Box2> points;
  for (Vec2 p : make_points(world, n, opt.seed + 3)) points.push_back({p, p});
  const std::size_t q1 = opt.quick ? 10000 : 100000, q10 = opt.quick ? 1000 : 10000, check = 200;
  const std::vector<Vec2> queries1 = make_points(world, q1, opt.seed + 4);
  const std::vector<Vec2> queries10 = make_points(world, q10, opt.seed + 5);
  const int repeats = opt.quick ? 3 : 5;

  struct Result {
    std::string name;
    bool is_quadrant;
    std::string note;
    std::vector<double> samples[3];
    Answer answers[3];
  };
  std::vector<Result> results;

  // Brute force: the check sample only.
  {
    Result r{"brute force", false, "no index: scans every point", {}, {}};
    std::vector<std::pair<float, std::uint32_t>> out;
    r.samples[2].push_back(time_ms([&] {
      for (std::size_t q = 0; q < check; ++q) {
        brute_nearest(points, queries10[q], 10, out);
        for (const auto& [d, id] : out) r.answers[2].add((std::uint64_t(q) << 32) | id);
      }
    }));
    results.push_back(std::move(r));
  }

  auto run = [&](const std::string& name, bool is_quadrant, auto make) {
    auto contender = make();
    contender->build(points);
    Result r{name, is_quadrant, "", {}, {}};
    const std::vector<Vec2>* sets[3] = {&queries1, &queries10, &queries10};
    const std::size_t ks[3] = {1, 10, 10}, counts[3] = {q1, q10, check};
    for (int c = 0; c < 3; ++c) {
      for (int rep = 0; rep < (c == 2 ? 1 : repeats); ++rep) {
        Answer answer;
        r.samples[c].push_back(time_ms([&] {
          for (std::size_t q = 0; q < counts[c]; ++q)
            contender->nearest((*sets[c])[q], ks[c], [&](std::uint32_t id) { answer.add((std::uint64_t(q) << 32) | id); });
        }));
        r.answers[c] = answer;
      }
    }
    results.push_back(std::move(r));
  };

  run("Boost rtree packed", false, [] { return std::make_unique<BoostRtree>(true); });
  run("Boost rtree R*", false, [] { return std::make_unique<BoostRtree>(false); });
  run("uniform grid", false, [&] { return std::make_unique<GridNearest>(GridNearest{UniformGrid(world, kGridCell), {}}); });
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves})
    run(std::string("quadrant ") + placement_name(p), true,
        [&] { return std::make_unique<QuadrantTree>(world, n, p, false, 1, false); });

  const char* labels[3] = {"1-NN", "10-NN", "10-NN check vs brute force"};
  const char* units[3] = {"ms/100k queries", "ms/10k queries", "ms/200 queries"};
  for (int c : {2, 0, 1}) {
    // The check case is the only one brute force answers; it goes first so a wrong contender is caught against
    // brute force, not just against Boost.
    std::string unit = units[c];
    if (opt.quick && c == 0) unit = "ms/10k queries";
    if (opt.quick && c == 1) unit = "ms/1k queries";
    report.begin_case("nearest", labels[c], n, unit);
    for (const Result& r : results)
      if (!r.samples[c].empty()) report.add(r.name, r.samples[c], r.answers[c], NAN, r.is_quadrant, r.note);
  }
}

}  // namespace quadrant_bench
