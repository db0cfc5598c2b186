// SPDX-License-Identifier: MIT
// bench_aoi_alone: AoiWorld timed alone on the aoi workload's walk (aoi_walk.hpp), no other contender in the process.
// bench_peers times the contenders in rounds, so that a slow spell of the machine falls on all of them; this program
// times one AoiWorld tick after another, to see its own tails (which ticks are slow, and whether they stay slow from
// one run to the next), its early ticks against its steady state, and to profile it (`perf record` over it).
//
//   bench_aoi_alone [-n N] [--movement walk|runners] [--warm-up W] [--ticks T] [--seed S] [--skin K] [--trace]
//
// It walks the same walk as `bench_peers --only aoi --seed S` for N entities. Prints the median, 99th percentile and
// worst of the timed ticks (each: everyone's move + the tick), the events a tick, AoiWorld::bytes() an entity after
// the last tick, and a checksum of the event stream (equal between two builds that agree); --trace prints each tick.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <quadrant/aoi.hpp>

#include "aoi_walk.hpp"
#include "harness.hpp"

int main(int argc, char** argv) {
  using namespace quadrant_bench;
  std::size_t n = 10000;
  std::string movement = "walk";
  int warm_up = 60, ticks = 200;
  std::uint64_t seed = 1;
  double skin = 0;
  bool trace = false;
  CLI::App app{"AoiWorld timed alone on the aoi workload's walk"};
  app.add_option("-n", n, "entities (default 10000)")->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
  app.add_option("--movement", movement, "walk (a random walk) or runners (steady headings); default walk")
      ->check(CLI::IsMember({"walk", "runners"}));
  app.add_option("--warm-up", warm_up, "ticks run before the timed ones, after the first (default 60)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--ticks", ticks, "timed ticks (default 200)")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "seed, as bench_peers --seed (default 1)");
  app.add_option("--skin", skin, "AoiSettings::skin (default 0: automatic)")->check(CLI::NonNegativeNumber);
  app.add_flag("--trace", trace, "print each tick's time and events");
  CLI11_PARSE(app, argc, argv);

  aoi::Walk walk(n, aoi::walk_seed(seed, n), movement == "runners");
  quadrant::AoiSettings<float> settings{{{-aoi::kHalfMap, -aoi::kHalfMap}, {aoi::kHalfMap, aoi::kHalfMap}}};
  settings.skin = static_cast<float>(skin);
  quadrant::AoiWorld<float> world(settings);
  for (std::uint32_t i = 0; i < n; ++i) world.add(i, walk.positions()[i], aoi::kViewRadius);

  Answer answer;
  std::uint64_t events = 0, in_tick = 0, tick_no = 0;
  auto sink = [&](const quadrant::AoiEvent& e) {
    const std::uint64_t kind = e.kind == quadrant::AoiEvent::Kind::Enter ? 0 : 1;
    answer.add(aoi::event_key(tick_no, in_tick++, kind, e.watcher, e.target));
    ++events;
  };
  const double first = time_ms([&] { world.tick(sink); });
  std::printf("bench_aoi_alone: %zu entities, %s, seed %llu, skin %.3g; tick 0 (every pair made): %.3f ms, "
              "%llu events\n",
              n, movement.c_str(), static_cast<unsigned long long>(seed), static_cast<double>(world.skin()), first,
              static_cast<unsigned long long>(events));
  std::vector<double> timed;
  std::uint64_t timed_events = 0;
  for (int k = 0; k < warm_up + ticks; ++k) {
    walk.step();
    ++tick_no;
    in_tick = 0;
    const std::uint64_t before = events;
    const double ms = time_ms([&] {
      for (std::uint32_t i = 0; i < n; ++i) world.move(i, walk.positions()[i]);
      world.tick(sink);
    });
    if (trace)
      std::printf("tick %d%s: %.3f ms, %llu events\n", k + 1, k < warm_up ? " (warm-up)" : "", ms,
                  static_cast<unsigned long long>(events - before));
    if (k >= warm_up) {
      timed.push_back(ms);
      timed_events += events - before;
    }
  }
  std::sort(timed.begin(), timed.end());
  const double median = timed[timed.size() / 2];
  const double p99 = aoi::p99_of(timed);
  std::printf("%d ticks after %d: median %.3f ms, p99 %.3f ms (%.2fx), worst %.3f ms (%.2fx); %.0f events a tick; "
              "%.0f bytes an entity; checksum %016llx\n",
              ticks, warm_up, median, p99, p99 / median, timed.back(), timed.back() / median,
              static_cast<double>(timed_events) / ticks, static_cast<double>(world.bytes()) / static_cast<double>(n),
              static_cast<unsigned long long>(answer.checksum));
}
