// SPDX-License-Identifier: MIT
// Workloads of a game's broad phase beyond "every pair":
//   contacts   N moving boxes; every frame the pairs that began and ended overlapping (OnTriggerEnter / Exit).
//              quadrant's ContactTracker against what a user writes by hand: this frame's pairs from a
//              structure, diffed with last frame's in a std::set, or in sorted vectors.
//   two-trees  a static level (4 boxes per actor) and moving actors; every frame every actor-level overlap.
//              quadrant::for_each_pair over the level's tree and the actors' tree against querying a static
//              structure with each actor's box (what Box2D's broad phase and most engines do).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <quadrant/contacts.hpp>
#include <quadrant/tree.hpp>

#include "contenders.hpp"
#include "harness.hpp"
#include "reference.hpp"
#include "scene.hpp"

namespace quadrant_bench {
namespace {

struct Plan {
  std::size_t n;
  int frames;
  int per_round = 1;  // frames each contender runs in a row before the next one's turn (contacts)
};

std::vector<Plan> plans(const Options& opt, std::vector<Plan> full, std::vector<Plan> quick) {
  std::vector<Plan> out;
  for (const Plan& p : opt.quick ? quick : full)
    if (p.n <= opt.max_n) out.push_back(p);
  return out;
}

// An event's key: the pair, the frame and whether it began (0) or ended (1).
std::uint64_t event_key(std::uint32_t a, std::uint32_t b, int frame, int ended) {
  return Answer::mix(quadrant_support::pair_key(a, b)) + std::uint64_t(frame) * 2 + std::uint64_t(ended);
}

/// quadrant's Tree (Parent, built as QuadrantTree builds, moved in one batch a frame) and its ContactTracker.
class TrackedTree {
 public:
  TrackedTree(const Box2& world, std::size_t n) : q_(world, n, quadrant::Placement::Parent, false) {}
  void build(std::span<const Box2> boxes) { q_.build(boxes); }
  void update(std::span<const Box2> boxes) { q_.update(boxes); }
  template <class Fn>
  void events(Fn&& fn) {
    tracker_.update(q_.tree());
    for (const quadrant::Contact& c : tracker_.begun()) fn(q_.id(c.a), q_.id(c.b), 0);
    for (const quadrant::Contact& c : tracker_.ended()) fn(q_.id(c.a), q_.id(c.b), 1);
  }

 private:
  QuadrantTree q_;
  quadrant::ContactTracker<2, std::uint32_t> tracker_;
};

/// Any structure's pairs, diffed with last frame's by hand: in a std::set (the first thing a user writes) or in
/// sorted vectors (the tuned version).
template <class Structure, bool Sorted>
class DiffedPairs {
 public:
  explicit DiffedPairs(std::unique_ptr<Structure> s) : s_(std::move(s)) {}
  void build(std::span<const Box2> boxes) { s_->build(boxes); }
  void update(std::span<const Box2> boxes) { s_->update(boxes); }
  template <class Fn>
  void events(Fn&& fn) {
    auto report = [&](std::uint64_t key, int ended) { fn(std::uint32_t(key >> 32), std::uint32_t(key), ended); };
    if constexpr (Sorted) {
      now_.clear();
      s_->for_each_pair([&](std::uint32_t a, std::uint32_t b) { now_.push_back(quadrant_support::pair_key(a, b)); });
      std::sort(now_.begin(), now_.end());
      // One merge of the two sorted lists: in now only, began; in before only, ended.
      std::size_t i = 0, j = 0;
      while (i < now_.size() || j < before_.size()) {
        if (j == before_.size() || (i < now_.size() && now_[i] < before_[j])) report(now_[i++], 0);
        else if (i == now_.size() || before_[j] < now_[i]) report(before_[j++], 1);
        else ++i, ++j;
      }
      std::swap(now_, before_);
    } else {
      std::set<std::uint64_t> now;
      s_->for_each_pair([&](std::uint32_t a, std::uint32_t b) { now.insert(quadrant_support::pair_key(a, b)); });
      for (std::uint64_t k : now)
        if (!set_.count(k)) report(k, 0);
      for (std::uint64_t k : set_)
        if (!now.count(k)) report(k, 1);
      set_ = std::move(now);
    }
  }

 private:
  std::unique_ptr<Structure> s_;
  std::vector<std::uint64_t> now_, before_;
  std::set<std::uint64_t> set_;
};

/// A contender of the contacts case: its answer is every frame's events.
template <class Make>
void add_event_lane(std::vector<FrameLane>& lanes, const MovingScene& scene, const std::string& name,
                    bool is_quadrant, Make&& make) {
  add_frame_lane(lanes, scene, name, is_quadrant, std::forward<Make>(make),
                 [](auto& contender, int frame, Answer& answer) {
                   contender.events([&](std::uint32_t a, std::uint32_t b, int ended) {
                     answer.add(event_key(a, b, frame, ended));
                   });
                 });
}

}  // namespace

void run_contacts(const Options& opt, Report& report) {
  for (const Plan& plan : plans(opt, {{1000, 100, 20}, {10000, 40, 10}, {100000, 10, 2}}, {{1000, 10, 5}, {10000, 5, 5}})) {
    MovingScene scene(plan.n, Distribution::Uniform, opt.seed);
    const Box2 world = scene.world();
    report.begin_case("contacts", "begin / end events, uniform", plan.n, "ms/frame");
    using Q = QuadrantTree;
    auto quadrant_parent = [&] { return std::make_unique<Q>(world, plan.n, quadrant::Placement::Parent, false); };
    std::vector<FrameLane> lanes;
    add_event_lane(lanes, scene, "quadrant pairs + std::set diff", false,
                   [&] { return std::make_unique<DiffedPairs<Q, false>>(quadrant_parent()); });
    add_event_lane(lanes, scene, "quadrant pairs + sorted diff", false,
                   [&] { return std::make_unique<DiffedPairs<Q, true>>(quadrant_parent()); });
    add_event_lane(lanes, scene, "uniform grid + sorted diff", false, [&] {
      return std::make_unique<DiffedPairs<UniformGrid, true>>(std::make_unique<UniformGrid>(world, 4.0f));
    });
    add_event_lane(lanes, scene, "sort-and-sweep + sorted diff", false, [&] {
      return std::make_unique<DiffedPairs<SortAndSweep, true>>(std::make_unique<SortAndSweep>());
    });
    add_event_lane(lanes, scene, "quadrant ContactTracker, Parent", true,
                   [&] { return std::make_unique<TrackedTree>(world, plan.n); });
    run_frame_rounds(report, scene, plan.frames, plan.per_round, lanes);
  }
}

void run_two_trees(const Options& opt, Report& report) {
  for (const Plan& plan : plans(opt, {{1000, 60}, {10000, 20}, {100000, 5}}, {{1000, 10}, {10000, 3}})) {
    // The actors move through a level of 4x as many static boxes, in the actors' world (a dense level).
    MovingScene actors(plan.n, Distribution::Uniform, opt.seed);
    const Box2 world = actors.world();
    std::vector<Box2> level;
    {
      MovingScene walls(4 * plan.n, Distribution::Uniform, opt.seed + 99);
      const float sx = world.max.x / walls.world().max.x, sy = world.max.y / walls.world().max.y;
      for (const Box2& b : walls.boxes())  // squeezed into the actors' world, keeping their sizes
        level.push_back({{b.min.x * sx, b.min.y * sy}, {b.min.x * sx + (b.max.x - b.min.x), b.min.y * sy + (b.max.y - b.min.y)}});
    }
    report.begin_case("two-trees", "static level (4 per actor) x moving actors", plan.n, "ms/frame");
    // Query-per-actor contenders: the level is built once (untimed); each frame every actor's box queries it.
    auto per_actor = [&](const std::string& name, bool is_quadrant, auto level_structure) {
      actors.reset();
      const std::size_t heap0 = heap_in_use();
      auto s = level_structure();
      s->build(level);
      Answer answer;
      std::vector<double> samples;
      for (int f = 0; f <= plan.frames; ++f) {
        if (f > 0) actors.step();
        const double ms = time_ms([&] {
          const std::span<const Box2> boxes = actors.boxes();
          for (std::size_t i = 0; i < boxes.size(); ++i)
            s->query(boxes[i], [&](std::uint32_t w) { answer.add(std::uint64_t(i) << 32 | w); });
        });
        if (f > 0) samples.push_back(ms);
      }
      report.add(name, samples, answer, double(heap_in_use() - heap0) / double(plan.n), is_quadrant);
    };
    per_actor("Boost rtree packed: query per actor", false, [] { return std::make_unique<BoostRtree>(true); });
    per_actor("uniform grid: query per actor", false, [&] { return std::make_unique<UniformGrid>(world, 4.0f); });
    if (plan.n <= 10000)
      per_actor("Box2D b2DynamicTree: query per actor", false, [] { return std::make_unique<Box2dTree>(); });
    per_actor("quadrant Loose: query per actor", true, [&] {
      return std::make_unique<QuadrantTree>(world, level.size(), quadrant::Placement::Loose, false, 1, false);
    });
    // Two trees: the level built once, the actors' tree moved in one batch a frame (timed), then the pairs.
    for (quadrant::Placement p : {quadrant::Placement::Loose, quadrant::Placement::Parent}) {
      actors.reset();
      const std::size_t heap0 = heap_in_use();
      quadrant::Tree<2, std::uint32_t> static_tree(QuadrantTree::config(world, level.size(), quadrant::Placement::Loose));
      std::vector<quadrant::Handle> level_handles;
      static_tree.assign(quadrant_support::Generated(static_cast<std::uint32_t>(level.size()),
                                                     [&](std::uint32_t i) { return std::pair{level[i], i}; }),
                         level_handles);
      quadrant::Tree<2, std::uint32_t> moving(QuadrantTree::config(world, plan.n, p));
      std::vector<quadrant::Handle> handles;
      for (std::size_t i = 0; i < plan.n; ++i) handles.push_back(moving.insert(actors.boxes()[i], std::uint32_t(i)));
      Answer answer;
      std::vector<double> samples, pairs_samples;
      for (int f = 0; f <= plan.frames; ++f) {
        if (f > 0) actors.step();
        const double move_ms = time_ms([&] {
          if (f > 0) moving.move(handles, actors.boxes());
        });
        const double pairs_ms = time_ms([&] {
          // The values-only callback: a game reads its own ids, as the per-actor queries' callbacks do.
          quadrant::for_each_pair(moving, static_tree, [&](const std::uint32_t& a, const std::uint32_t& w) {
            answer.add(std::uint64_t(a) << 32 | w);
          });
        });
        if (f > 0) {
          samples.push_back(move_ms + pairs_ms);
          pairs_samples.push_back(pairs_ms);
        }
      }
      const double bytes = double(heap_in_use() - heap0) / double(plan.n);
      const std::string name = std::string("quadrant ") + placement_name(p) + " actors x Loose level: two-tree pairs";
      report.add(name, samples, answer, bytes, true, "the actors' batch move included");
      // The pairs alone: what a game that keeps the actors' tree anyway (for actor-actor pairs) pays on top.
      report.add(name + " (pairs only)", pairs_samples, answer, bytes, true, "the actors' move not timed");
    }
  }
}

}  // namespace quadrant_bench
