// SPDX-License-Identifier: MIT
// Workload nearest: 1M points; 100k 1-NN and 10k 10-NN queries. Box2D's tree has no nearest-neighbour query, so
// it does not take part. Brute force checks every contender on a sample of queries first.
#include <algorithm>
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
    std::vector<double> samples[5];
    Answer answers[5];
    // Answers every point of a set with its k nearest, handing each to the answer.
    std::function<void(const std::vector<Vec2>&, std::size_t count, std::size_t k, Answer&)> query_all;
  };
  std::vector<Result> results;

  // Brute force: the check sample only.
  {
    Result r{"brute force", false, "no index: scans every point", {}, {}, {}};
    std::vector<std::pair<float, std::uint32_t>> out;
    r.samples[4].push_back(time_ms([&] {
      for (std::size_t q = 0; q < check; ++q) {
        brute_nearest(points, queries10[q], 10, out);
        for (const auto& [d, id] : out) r.answers[4].add((std::uint64_t(q) << 32) | id);
      }
    }));
    results.push_back(std::move(r));
  }

  auto build = [&](const std::string& name, bool is_quadrant, auto make) {
    std::shared_ptr<typename decltype(make())::element_type> contender(make());
    contender->build(points);
    results.push_back({name, is_quadrant, "", {}, {},
                       [contender](const std::vector<Vec2>& set, std::size_t count, std::size_t k, Answer& answer) {
                         for (std::size_t q = 0; q < count; ++q)
                           contender->nearest(set[q], k, [&](std::uint32_t id) { answer.add((std::uint64_t(q) << 32) | id); });
                       }});
  };
  build("Boost rtree packed", false, [] { return std::make_unique<BoostRtree>(true); });
  build("Boost rtree R*", false, [] { return std::make_unique<BoostRtree>(false); });
  build("uniform grid", false, [&] { return std::make_unique<GridNearest>(GridNearest{UniformGrid(world, kGridCell), {}}); });
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves})
    build(std::string("quadrant ") + placement_name(p), true,
          [&] { return std::make_unique<QuadrantTree>(world, n, p, false, 1, false); });

  // The check once each; then the timed cases in rounds, each round running every contender once (see
  // for_each_in_round). Each query set is timed twice in a row: a first pass, which finds in the caches whatever the
  // contender before it left, and the same queries again at once (the rows without "first pass", what the median
  // of back-to-back repetitions measured before the rounds). Brute force, first in `results`, answers the check
  // only.
  const std::vector<Vec2>* sets[5] = {&queries1, &queries1, &queries10, &queries10, &queries10};
  const std::size_t ks[5] = {1, 1, 10, 10, 10}, counts[5] = {q1, q1, q10, q10, check};
  auto run = [&](Result& r, int c) {
    Answer answer;
    r.samples[c].push_back(time_ms([&] { r.query_all(*sets[c], counts[c], ks[c], answer); }));
    r.answers[c] = answer;
  };
  for (std::size_t i = 1; i < results.size(); ++i) run(results[i], 4);
  for (int rep = 0; rep < repeats; ++rep)
    for (int c : {1, 3})
      for_each_in_round(results.size() - 1, static_cast<std::size_t>(rep), [&](std::size_t i) {
        run(results[i + 1], c);
        run(results[i + 1], c - 1);
      });

  const char* labels[5] = {"1-NN", "1-NN, first pass", "10-NN", "10-NN, first pass", "10-NN check vs brute force"};
  const char* units[5] = {"ms/100k queries", "ms/100k queries", "ms/10k queries", "ms/10k queries", "ms/200 queries"};
  for (int c : {4, 0, 1, 2, 3}) {
    // The check case is the only one brute force answers; it goes first so a wrong contender is caught against
    // brute force, not just against Boost.
    std::string unit = units[c];
    if (opt.quick && c <= 1) unit = "ms/10k queries";
    if (opt.quick && (c == 2 || c == 3)) unit = "ms/1k queries";
    report.begin_case("nearest", labels[c], n, unit);
    for (const Result& r : results)
      if (!r.samples[c].empty()) report.add(r.name, r.samples[c], r.answers[c], NAN, r.is_quadrant, r.note);
  }
}

}  // namespace quadrant_bench
