// SPDX-License-Identifier: MIT
// Workload churn: 100k live objects under a stream of inserts, erases and moves (small steps and teleports), as
// a game world's objects spawn, die and move. Timed per 100k operations; parity is the answer of window queries
// over the final contents.
#include <memory>
#include <string>
#include <vector>

#include "contenders.hpp"
#include "harness.hpp"
#include "reference.hpp"
#include "scene.hpp"

namespace quadrant_bench {
namespace {

/// A uniform grid whose cells keep their own lists, so objects come and go one at a time (the grid of
/// reference.hpp rebuilds everything). Cell 4: twice the mean box side, as for moving boxes.
class DynamicGrid : private GridLayout {
 public:
  DynamicGrid(const Box2& world, float cell) : GridLayout(world, cell) { cells_.resize(cell_count()); }

  void insert(std::uint32_t id, const Box2& box) {
    if (id >= boxes_.size()) boxes_.resize(id + 1);
    boxes_[id] = box;
    for_cells(box, [&](std::vector<std::uint32_t>& cell) { cell.push_back(id); });
  }
  void erase(std::uint32_t id) {
    for_cells(boxes_[id], [&](std::vector<std::uint32_t>& cell) {
      for (std::uint32_t& x : cell)
        if (x == id) {
          x = cell.back();
          cell.pop_back();
          break;
        }
    });
  }
  void move(std::uint32_t id, const Box2& box) {
    const Box2 old = boxes_[id];
    if (cell_x(old.min.x) == cell_x(box.min.x) && cell_x(old.max.x) == cell_x(box.max.x) &&
        cell_y(old.min.y) == cell_y(box.min.y) && cell_y(old.max.y) == cell_y(box.max.y)) {
      boxes_[id] = box;
      return;
    }
    erase(id);
    insert(id, box);
  }

  template <class Fn>
  void query(const Box2& window, Fn&& fn) const {
    const int x0 = cell_x(window.min.x), x1 = cell_x(window.max.x);
    const int y0 = cell_y(window.min.y), y1 = cell_y(window.max.y);
    for (int cy = y0; cy <= y1; ++cy)
      for (int cx = x0; cx <= x1; ++cx)
        for (std::uint32_t id : cells_[index(cx, cy)]) {
          const Box2& b = boxes_[id];
          // Reported in the first cell the box and the window share.
          if (overlaps(window, b) && std::max(cell_x(b.min.x), x0) == cx && std::max(cell_y(b.min.y), y0) == cy)
            fn(id);
        }
  }

 private:
  template <class Fn>
  void for_cells(const Box2& b, Fn&& fn) {
    for (int cy = cell_y(b.min.y); cy <= cell_y(b.max.y); ++cy)
      for (int cx = cell_x(b.min.x); cx <= cell_x(b.max.x); ++cx)
        fn(cells_[index(cx, cy)]);
  }
  std::vector<Box2> boxes_;
  std::vector<std::vector<std::uint32_t>> cells_;
};

/// A flat array of live boxes: churn costs nothing, every query scans. The reference for the final answer.
class FlatArray {
 public:
  void insert(std::uint32_t id, const Box2& box) {
    if (id >= boxes_.size()) {
      boxes_.resize(id + 1);
      live_.resize(id + 1);
    }
    boxes_[id] = box;
    live_[id] = 1;
  }
  void erase(std::uint32_t id) { live_[id] = 0; }
  void move(std::uint32_t id, const Box2& box) { boxes_[id] = box; }
  template <class Fn>
  void query(const Box2& window, Fn&& fn) const {
    for (std::size_t i = 0; i < boxes_.size(); ++i)
      if (live_[i] && overlaps(window, boxes_[i])) fn(std::uint32_t(i));
  }

 private:
  std::vector<Box2> boxes_;
  std::vector<std::uint8_t> live_;
};

/// One operation of the stream.
struct Op {
  enum Kind : std::uint8_t { Insert, Erase, Move } kind;
  std::uint32_t id;
  Box2 box;
};

/// The stream: inserts, erases and moves in equal shares (the live count stays near its start); 80% of moves are
/// steps of up to one unit, 20% teleports anywhere.
std::vector<Op> make_ops(const Box2& world, std::size_t live, std::size_t count, std::uint64_t seed,
                         std::vector<Box2>& initial) {
  Rng rng(seed ^ 0xc0ffee);
  auto random_box = [&] {
    const double side = rng.uniform(1, 3);
    const double x = rng.uniform(world.min.x, world.max.x - side), y = rng.uniform(world.min.y, world.max.y - side);
    return Box2{{float(x), float(y)}, {float(x + side), float(y + side)}};
  };
  initial.clear();
  std::vector<std::uint32_t> alive;
  std::vector<Box2> boxes;
  for (std::size_t i = 0; i < live; ++i) {
    initial.push_back(random_box());
    boxes.push_back(initial.back());
    alive.push_back(std::uint32_t(i));
  }
  std::vector<Op> ops;
  std::uint32_t next_id = std::uint32_t(live);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = rng.next() % 3;
    if (r == 0 || alive.empty()) {
      const Box2 b = random_box();
      ops.push_back({Op::Insert, next_id, b});
      boxes.push_back(b);
      alive.push_back(next_id++);
    } else if (r == 1) {
      const std::size_t k = rng.next() % alive.size();
      ops.push_back({Op::Erase, alive[k], {}});
      alive[k] = alive.back();
      alive.pop_back();
    } else {
      const std::uint32_t id = alive[rng.next() % alive.size()];
      Box2 b = boxes[id];
      if (rng.unit() < 0.8) {
        const float dx = float(rng.uniform(-1, 1)), dy = float(rng.uniform(-1, 1));
        b = {{b.min.x + dx, b.min.y + dy}, {b.max.x + dx, b.max.y + dy}};
      } else {
        const Box2 t = random_box();
        b = {t.min, {t.min.x + (b.max.x - b.min.x), t.min.y + (b.max.y - b.min.y)}};
      }
      boxes[id] = b;
      ops.push_back({Op::Move, id, b});
    }
  }
  return ops;
}

}  // namespace

void run_churn(const Options& opt, Report& report) {
  using quadrant::Placement;
  const std::size_t live = std::min<std::size_t>(100000, opt.max_n);
  const std::size_t batch = 100000, batches = opt.quick ? 2 : 5;
  const Box2 world = world_for(live);
  std::vector<Box2> initial;
  const std::vector<Op> ops = make_ops(world, live, batch * batches, opt.seed, initial);
  const std::vector<Box2> windows = make_windows(world, 200, 0.01, opt.seed + 6);

  report.begin_case("churn", "insert / erase / move", live, "ms/100k ops");
  auto run = [&](const std::string& name, bool is_quadrant, auto make, const char* note = "") {
    const std::size_t heap0 = heap_in_use();
    auto c = make();
    for (std::size_t i = 0; i < initial.size(); ++i) c->insert(std::uint32_t(i), initial[i]);
    std::vector<double> samples;
    for (std::size_t b = 0; b < batches; ++b) {
      samples.push_back(time_ms([&] {
        for (std::size_t i = b * batch; i < (b + 1) * batch; ++i) {
          const Op& op = ops[i];
          switch (op.kind) {
            case Op::Insert: c->insert(op.id, op.box); break;
            case Op::Erase: c->erase(op.id); break;
            case Op::Move: c->move(op.id, op.box); break;
          }
        }
      }));
    }
    Answer answer;
    for (std::size_t q = 0; q < windows.size(); ++q)
      c->query(windows[q], [&](std::uint32_t id) { answer.add((std::uint64_t(q) << 32) | id); });
    report.add(name, samples, answer, double(heap_in_use() - heap0) / double(live), is_quadrant, note);
  };
  run("flat array", false, [] { return std::make_unique<FlatArray>(); }, "no index: every query scans");
  run("uniform grid (cell lists)", false, [&] { return std::make_unique<DynamicGrid>(world, 4.0f); });
  run("Box2D b2DynamicTree", false, [] { return std::make_unique<Box2dTree>(); });
  run("Boost rtree R*", false, [] { return std::make_unique<BoostRtree>(false); });
  for (Placement p : {Placement::Loose, Placement::Parent, Placement::Leaves})
    run(std::string("quadrant ") + placement_name(p), true,
        [&] { return std::make_unique<QuadrantTree>(world, live, p, false); });
}

}  // namespace quadrant_bench
