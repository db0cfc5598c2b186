// SPDX-License-Identifier: MIT
// Workload aoi: the MMO server's area-of-interest tick. N entities move in a +-1000 square map, bouncing off its
// edge; every entity is both watcher and marker with view radius 100. Two kinds of movement:
//   random walk:     each tick a step of 0 to 5 units in a random direction (entities milling about);
//   steady headings: each entity keeps a heading that wanders by up to +-0.3 rad a tick, at its own speed of 1 to
//                    5 units a tick (players running somewhere: the hard case for candidate lists, see docs/aoi.md).
// Each tick every entity moves, then the contender reports the Enter / Leave events of the tick. Time = moving
// everyone + the tick, median over the timed ticks, which follow the first tick (it creates all pairs) and a
// warm-up: anchors start where the entities start, and the re-anchoring rate takes tens of ticks to reach its
// steady level (AoiWorld's early ticks are up to 30% faster than its later ones). Parity: the whole event stream — (tick, position in the tick, kind, watcher,
// target) — must be identical: every contender orders a tick's events by (watcher, target).
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <quadrant/aoi.hpp>

#include "aoi_peers.hpp"
#include "aoi_walk.hpp"
#include "harness.hpp"

namespace quadrant_bench {
namespace {

using aoi::Pos;
using aoi::kHalfMap;
using aoi::kViewRadius;
using aoi::Walk;

struct Plan {
  std::size_t n;
  int warm_up;  // ticks run before the timed ones: candidate lists reach their working state (anchors spread out)
  int ticks;    // 200 up to 10k, so that the p99 and the maximum see the rare ticks (renumbering, re-anchor waves)
};
// At 100k a tick takes the grid one and a half seconds and the cross-linked list ten: 16 timed ticks, after 48 that
// take AoiWorld to its steady rate of re-anchors, so that the rows show the steady state, not the early ticks. Anchors
// start where the entities start: runners re-anchor first in a wave at tick 6 (2-3 times a later tick) and again at
// 17-19; random walkers drift out of their skin only from tick 10 on, and reach their steady rate (about 850
// re-anchors a tick at 100k) near tick 45. AoiWorld's medians over ticks 13-20 were 16-20% below those over ticks
// 40-89 or 60-159 (timed alone).
// The cross-linked list runs up to 10k.
constexpr std::size_t kLongestCrossList = 10000;

std::vector<Plan> plans(const Options& opt) {
  std::vector<Plan> all = opt.quick ? std::vector<Plan>{{1000, 10, 20}, {10000, 5, 6}}
                                    : std::vector<Plan>{{1000, 100, 200}, {10000, 60, 200}, {100000, 48, 16}};
  std::vector<Plan> out;
  for (const Plan& p : all)
    if (p.n <= opt.max_n) out.push_back(p);
  return out;
}

// One contender's run, a tick at a time: start() builds it and runs tick 0 (untimed), each next() moves everyone
// one step of the walk and runs the next tick, timed. Each contender keeps its own walk (the same walk: same seed),
// so the contenders of a case may advance in rounds (see run_lanes).
class Lane {
 public:
  Lane(std::string name, bool is_quadrant, const Plan& plan, std::uint64_t seed, bool steady)
      : name_(std::move(name)), is_quadrant_(is_quadrant), plan_(plan), walk_(plan.n, seed, steady) {}
  virtual ~Lane() = default;

  void start() {
    const std::size_t heap0 = heap_in_use();
    build(walk_.positions());
    tick_now();
    first_bytes_ = heap_in_use() - heap0;
    first_events_ = events_;
    held_ = static_cast<std::ptrdiff_t>(first_bytes_);
  }
  // Tick k of the warm-up and the timed ticks (k counts from 0 after tick 0, not counting the ticks that open a
  // turn).
  void next(int k) { step(k >= plan_.warm_up); }
  // A tick that opens a contender's turn (see run_lanes): run, its events part of the stream, but not timed.
  void open_turn() { step(false); }
  // Destroys the contender once its case is over (its figures stay).
  virtual void finish() = 0;
  void report_to(Report& report) const {
    // The worst ticks matter to a server as much as the median: the 99th percentile and the maximum.
    std::vector<double> sorted = samples_;
    std::sort(sorted.begin(), sorted.end());
    const double p99 = aoi::p99_of(sorted);
    const double worst = sorted.empty() ? 0 : sorted.back();
    // The memory column is the heap after tick 0; what a server holds once its lists have been rebuilt by moves
    // is the heap after the last tick.
    const double bytes_after = double(held_) / double(plan_.n);
    char note[200];
    std::snprintf(note, sizeof note,
                  "%.0f events/tick, %.0f pairs at tick 0, p99 %.3g ms, max %.3g ms, %.0f B/entity after the last tick",
                  double(timed_events_) / std::max(1, plan_.ticks), double(first_events_), p99, worst, bytes_after);
    report.add(name_, samples_, answer_, double(first_bytes_) / double(plan_.n), is_quadrant_, note);
  }

 protected:
  virtual void build(const std::vector<Pos>& positions) = 0;
  virtual void move_all(const std::vector<Pos>& positions) = 0;
  virtual void tick_now() = 0;
  // Where the contender's events go: the key depends on the event's place in the stream, so parity checks the
  // order too.
  void sink(std::uint32_t kind, std::uint64_t w, std::uint64_t t) {
    answer_.add(aoi::event_key(tick_no_, in_tick_++, kind, w, t));
    ++events_;
  }

 private:
  void step(bool timed) {
    walk_.step();
    ++tick_no_;
    in_tick_ = 0;
    const std::uint64_t before = events_;
    // The heap this contender's own tick takes or gives back: the others' ticks run between its own.
    const std::size_t heap0 = heap_in_use();
    const double ms = time_ms([&] {
      move_all(walk_.positions());
      tick_now();
    });
    held_ += static_cast<std::ptrdiff_t>(heap_in_use()) - static_cast<std::ptrdiff_t>(heap0);
    if (timed) {
      samples_.push_back(ms);
      timed_events_ += events_ - before;
    }
  }

  std::string name_;
  bool is_quadrant_;
  Plan plan_;
  Walk walk_;
  Answer answer_;
  std::uint64_t events_ = 0, tick_no_ = 0, in_tick_ = 0, first_events_ = 0, timed_events_ = 0;
  std::size_t first_bytes_ = 0;
  std::ptrdiff_t held_ = 0;
  std::vector<double> samples_;
};

// A Lane over one contender: make(initial positions) builds it; move(c, i, p) and tick(c, sink) adapt its
// interface.
template <class Make, class MoveFn, class TickFn>
class LaneOf final : public Lane {
 public:
  LaneOf(std::string name, bool is_quadrant, const Plan& plan, std::uint64_t seed, bool steady, Make make,
         MoveFn move, TickFn tick)
      : Lane(std::move(name), is_quadrant, plan, seed, steady), make_(std::move(make)), move_(std::move(move)),
        tick_(std::move(tick)) {}

 private:
  void build(const std::vector<Pos>& positions) override { contender_ = make_(positions); }
  void finish() override { contender_.reset(); }
  void move_all(const std::vector<Pos>& p) override {
    for (std::uint32_t i = 0; i < p.size(); ++i) move_(*contender_, i, p[i]);
  }
  void tick_now() override {
    auto to_sink = [this](std::uint32_t kind, std::uint64_t w, std::uint64_t t) { sink(kind, w, t); };
    tick_(*contender_, to_sink);
  }
  Make make_;
  MoveFn move_;
  TickFn tick_;
  decltype(std::declval<Make&>()(std::declval<const std::vector<Pos>&>())) contender_;
};

template <class Make, class MoveFn, class TickFn>
std::unique_ptr<Lane> lane(std::string name, bool is_quadrant, const Plan& plan, std::uint64_t seed, bool steady,
                           Make make, MoveFn move, TickFn tick) {
  return std::make_unique<LaneOf<Make, MoveFn, TickFn>>(std::move(name), is_quadrant, plan, seed, steady,
                                                        std::move(make), std::move(move), std::move(tick));
}

// The contenders of a case advance in rounds (see for_each_in_round), so that a slow spell of the VM (seconds to
// minutes) falls on every contender alike: run one after another, a spell had moved a 10k row from 1.13x to 1.44x the
// grid and put a 1k row's p99 at ten times its median. From kRoundsFrom entities a turn is one tick: their state (over
// a gigabyte at 100k) is far beyond the caches, so a tick finds nothing of its own there whatever ran before it. Below,
// a turn is kTurn ticks in a row, opened by one more tick that is run but not timed: the first tick after another
// contender's turn pays for the misses that one left, and timing it would put a cold tick in every turn into the
// worst-tick figures, which measure a contender's own tails. Every contender runs the same ticks, timed or not.
constexpr std::size_t kRoundsFrom = 100000;
constexpr int kTurn = 20;

// Runs a case, the rows reported in the order given (the first is the case's reference).
void run_lanes(Report& report, const Plan& plan, std::vector<std::unique_ptr<Lane>>& lanes) {
  const int ticks = plan.warm_up + plan.ticks;
  for (auto& l : lanes) l->start();
  const bool large = plan.n >= kRoundsFrom;
  const int turn = large ? 1 : kTurn;
  for (int first = 0, round = 0; first < ticks; first += turn, ++round) {
    const int last = std::min(ticks, first + turn);
    for_each_in_round(lanes.size(), static_cast<std::size_t>(round), [&](std::size_t i) {
      if (!large) lanes[i]->open_turn();
      for (int k = first; k < last; ++k) lanes[i]->next(k);
    });
  }
  for (auto& l : lanes) l->finish();
  for (const auto& l : lanes) l->report_to(report);
}

}  // namespace

void run_aoi(const Options& opt, Report& report) {
  const quadrant::Box<2, float> world{{-kHalfMap, -kHalfMap}, {kHalfMap, kHalfMap}};
  for (const bool steady : {false, true}) {
    for (const Plan& plan : plans(opt)) {
      report.begin_case("aoi", steady ? "steady headings, radius 100" : "random walk, radius 100", plan.n, "ms/tick");
      const std::uint64_t seed = aoi::walk_seed(opt.seed, plan.n);
      auto reference_move = [](auto& c, std::uint32_t i, Pos p) { c.move(i, p); };
      auto reference_tick = [](auto& c, auto& sink) {
        c.tick([&](const aoi::Event& e) { sink(e.kind, e.watcher, e.target); });
      };
      std::vector<std::unique_ptr<Lane>> lanes;
      // Brute force is the reference up to 10k entities; above, the 9-grid (checked against it below) is.
      if (plan.n <= 10000)
        lanes.push_back(lane("brute force", false, plan, seed, steady,
                             [](const std::vector<Pos>& p) { return std::make_unique<aoi::BruteAoi>(p, kViewRadius); },
                             reference_move, reference_tick));
      lanes.push_back(lane("9-grid (cell = view radius)", false, plan, seed, steady,
                           [&](const std::vector<Pos>& p) { return std::make_unique<aoi::GridAoi>(p, kViewRadius, world); },
                           reference_move, reference_tick));
      if (plan.n <= kLongestCrossList)
        lanes.push_back(lane("cross-linked list (x and y)", false, plan, seed, steady,
                             [](const std::vector<Pos>& p) { return std::make_unique<aoi::CrossListAoi>(p, kViewRadius); },
                             reference_move, reference_tick));
      // The straightforward use of the tree, shown to explain AoiWorld's design (docs/aoi.md); too slow above 10k.
      if (plan.n <= 10000)
        lanes.push_back(lane("quadrant Tree circle per watcher", true, plan, seed, steady,
                             [&](const std::vector<Pos>& p) {
                               return std::make_unique<aoi::TreeRequeryAoi>(p, kViewRadius, world);
                             },
                             reference_move, reference_tick));
      lanes.push_back(lane(
          "quadrant AoiWorld", true, plan, seed, steady,
          [&](const std::vector<Pos>& p) {
            auto w = std::make_unique<quadrant::AoiWorld<float>>(quadrant::AoiSettings<float>{world});
            for (std::uint32_t i = 0; i < p.size(); ++i) w->add(i, p[i], kViewRadius);
            return w;
          },
          [](quadrant::AoiWorld<float>& w, std::uint32_t i, Pos p) { w.move(i, p); },
          [](quadrant::AoiWorld<float>& w, auto& sink) {
            w.tick([&](const quadrant::AoiEvent& e) {
              sink(e.kind == quadrant::AoiEvent::Kind::Enter ? 0u : 1u, e.watcher, e.target);
            });
          }));
      run_lanes(report, plan, lanes);
    }
  }
}

}  // namespace quadrant_bench
