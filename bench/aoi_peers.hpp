// SPDX-License-Identifier: MIT
// The area-of-interest contenders of the `aoi` workload, besides quadrant's AoiWorld: a brute-force AOI, the 9-grid
// AOI that MMO servers use (cell = view radius), the cross-linked list (entities kept sorted along x and along y
// in two linked lists, the other scheme MMO servers use), and a per-watcher Tree re-query (the straightforward use
// of a quadtree, kept to show why AoiWorld uses candidate lists instead).
//
// All share one scene convention: entity i has id i, every entity is both watcher and marker with one view radius,
// and the events of a tick are emitted ordered by (watcher, target) — so every contender's event stream must be
// identical. Each keeps, per watcher, the list of targets it sees; a tick marks the old list with a stamp, scans
// the watcher's candidates, and emits Enter for new targets and Leave for old ones not found (no sets, no sorting
// except each watcher's handful of events).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <quadrant/quadrant.hpp>

namespace quadrant_bench::aoi {

using Pos = quadrant::Vec<2, float>;

/// One event as the contenders report it (kind 0 = Enter, 1 = Leave).
struct Event {
  std::uint32_t kind, watcher, target;
};

/// The stamp-based diff shared by the reference contenders: old targets marked, candidates tested, leavers found.
class VisibleLists {
 public:
  explicit VisibleLists(std::size_t n) : visible_(n), seen_(n, 0) {}

  /// Starts watcher w's evaluation.
  void begin(std::uint32_t w) {
    stamp_ += 2;
    for (std::uint32_t t : visible_[w]) seen_[t] = stamp_;  // stamp: was visible; stamp + 1: was and still is
    next_.clear();
    first_event_ = events_.size();
  }
  /// Whether t was visible to the watcher being evaluated (so the hysteresis radius applies).
  bool was(std::uint32_t t) const { return seen_[t] >= stamp_; }
  /// t is visible now.
  void keep(std::uint32_t w, std::uint32_t t) {
    next_.push_back(t);
    if (seen_[t] == stamp_) {
      seen_[t] = stamp_ + 1;
    } else {
      events_.push_back({0, w, t});
    }
  }
  /// Ends watcher w's evaluation: Leave for old targets not kept; its events sorted by target.
  void end(std::uint32_t w) {
    for (std::uint32_t t : visible_[w])
      if (seen_[t] == stamp_) events_.push_back({1, w, t});
    if (events_.size() - first_event_ > 1)
      std::sort(events_.begin() + std::ptrdiff_t(first_event_), events_.end(),
                [](const Event& a, const Event& b) { return a.target < b.target; });
    visible_[w].assign(next_.begin(), next_.end());
  }
  std::vector<Event>& events() { return events_; }

  /// One tick over watchers 0..n-1: candidates(w, keep) calls keep(t) for every target t that w sees now; then fn
  /// gets the tick's events, ordered by (watcher, target).
  template <class Candidates, class Fn>
  void tick(std::uint32_t n, Candidates&& candidates, Fn&& fn) {
    events_.clear();
    for (std::uint32_t w = 0; w < n; ++w) {
      begin(w);
      candidates(w, [&](std::uint32_t t) { keep(w, t); });
      end(w);
    }
    for (const Event& e : events_) fn(e);
  }

 private:
  std::vector<std::vector<std::uint32_t>> visible_;
  std::vector<std::uint32_t> seen_, next_;
  std::vector<Event> events_;
  std::uint32_t stamp_ = 0;
  std::size_t first_event_ = 0;
};

inline double d2(const Pos& a, const Pos& b) {
  const double dx = double(a.x) - double(b.x), dy = double(a.y) - double(b.y);
  return dx * dx + dy * dy;
}

/// Tests every pair: O(N^2) per tick. The reference.
class BruteAoi {
 public:
  BruteAoi(const std::vector<Pos>& pos, float radius) : pos_(pos), r2_(double(radius) * radius), lists_(pos.size()) {}
  void move(std::uint32_t i, Pos p) { pos_[i] = p; }
  template <class Fn>
  void tick(Fn&& fn) {
    const std::uint32_t n = std::uint32_t(pos_.size());
    lists_.tick(n, [&](std::uint32_t w, auto&& keep) {
      for (std::uint32_t t = 0; t < n; ++t)
        if (t != w && d2(pos_[w], pos_[t]) <= r2_) keep(t);
    }, fn);
  }

 private:
  std::vector<Pos> pos_;
  double r2_;
  VisibleLists lists_;
};

/// The 9-grid AOI: square cells of side `radius` over the world, each listing its entities (index and a copy of
/// the position, contiguous, so a scan reads memory in order); an entity moves between cells only when it crosses
/// a cell border (swap-remove, O(1)). A watcher tests the entities of the 3 x 3 cells around its own.
class GridAoi {
 public:
  GridAoi(const std::vector<Pos>& pos, float radius, quadrant::Box<2, float> world)
      : pos_(pos), r2_(double(radius) * radius), lists_(pos.size()), world_(world), cell_(radius) {
    cols_ = std::max(1, int(std::ceil((world.max.x - world.min.x) / cell_)));
    rows_ = std::max(1, int(std::ceil((world.max.y - world.min.y) / cell_)));
    cells_.resize(std::size_t(cols_) * std::size_t(rows_));
    where_.resize(pos.size());
    for (std::uint32_t i = 0; i < pos.size(); ++i) insert(i, cell_of(pos[i]));
  }
  void move(std::uint32_t i, Pos p) {
    pos_[i] = p;
    const std::uint32_t c = cell_of(p);
    if (c == where_[i].cell) {
      cells_[c][where_[i].slot].pos = p;
      return;
    }
    erase(i);
    insert(i, c);
  }
  template <class Fn>
  void tick(Fn&& fn) {
    lists_.tick(std::uint32_t(pos_.size()), [&](std::uint32_t w, auto&& keep) {
      const Pos p = pos_[w];
      const int cx = int(where_[w].cell % std::uint32_t(cols_)), cy = int(where_[w].cell / std::uint32_t(cols_));
      for (int y = std::max(0, cy - 1); y <= std::min(rows_ - 1, cy + 1); ++y)
        for (int x = std::max(0, cx - 1); x <= std::min(cols_ - 1, cx + 1); ++x)
          for (const Item& it : cells_[std::size_t(y) * std::size_t(cols_) + std::size_t(x)])
            if (it.index != w && d2(p, it.pos) <= r2_) keep(it.index);
    }, fn);
  }

 private:
  struct Item {
    Pos pos;
    std::uint32_t index;
  };
  struct Where {
    std::uint32_t cell, slot;
  };
  // Entities outside the world count in the nearest border cell (the scene keeps them inside anyway).
  std::uint32_t cell_of(Pos p) const {
    const int x = std::clamp(int((p.x - world_.min.x) / cell_), 0, cols_ - 1);
    const int y = std::clamp(int((p.y - world_.min.y) / cell_), 0, rows_ - 1);
    return std::uint32_t(y * cols_ + x);
  }
  void insert(std::uint32_t i, std::uint32_t c) {
    where_[i] = {c, std::uint32_t(cells_[c].size())};
    cells_[c].push_back({pos_[i], i});
  }
  void erase(std::uint32_t i) {
    std::vector<Item>& cell = cells_[where_[i].cell];
    const std::uint32_t slot = where_[i].slot;
    cell[slot] = cell.back();
    where_[cell[slot].index].slot = slot;
    cell.pop_back();
  }

  std::vector<Pos> pos_;
  double r2_;
  VisibleLists lists_;
  quadrant::Box<2, float> world_;
  float cell_;
  int cols_ = 1, rows_ = 1;
  std::vector<std::vector<Item>> cells_;
  std::vector<Where> where_;
};

/// The cross-linked list AOI: every entity is a node of two doubly-linked lists, one sorted by x and one by y. A
/// move slides the node along each list to its new place (a few steps for a small move; the lists stay sorted), and
/// a watcher's candidates are the nodes within its view radius along x, walked outwards from its own node; each is
/// tested by distance. Memory: four links per entity beside the position.
class CrossListAoi {
 public:
  CrossListAoi(const std::vector<Pos>& pos, float radius)
      : pos_(pos), radius_(radius), r2_(double(radius) * radius), lists_(pos.size()) {
    const std::uint32_t n = std::uint32_t(pos.size());
    for (int a = 0; a < 2; ++a) {
      // Sentinels: node n is the head (before everything), n + 1 the tail.
      prev_[a].assign(n + 2, kNone);
      next_[a].assign(n + 2, kNone);
      std::vector<std::uint32_t> order(n);
      for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return key(a, x) < key(a, y); });
      std::uint32_t last = n;
      for (std::uint32_t i : order) link_after(a, last, i), last = i;
      link_after(a, last, n + 1);
    }
  }
  void move(std::uint32_t i, Pos p) {
    pos_[i] = p;
    for (int a = 0; a < 2; ++a) slide(a, i);
  }
  template <class Fn>
  void tick(Fn&& fn) {
    const std::uint32_t n = std::uint32_t(pos_.size());
    lists_.tick(n, [&](std::uint32_t w, auto&& keep) {
      const Pos p = pos_[w];
      // Along x both ways until the gap exceeds the radius (in double, as the distance test).
      for (std::uint32_t t = prev_[0][w]; t < n && double(p.x) - double(pos_[t].x) <= radius_; t = prev_[0][t])
        if (d2(p, pos_[t]) <= r2_) keep(t);
      for (std::uint32_t t = next_[0][w]; t < n && double(pos_[t].x) - double(p.x) <= radius_; t = next_[0][t])
        if (d2(p, pos_[t]) <= r2_) keep(t);
    }, fn);
  }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  float key(int a, std::uint32_t i) const { return a == 0 ? pos_[i].x : pos_[i].y; }
  void link_after(int a, std::uint32_t at, std::uint32_t i) {
    const std::uint32_t after = next_[a][at];
    prev_[a][i] = at;
    next_[a][i] = after;
    next_[a][at] = i;
    if (after != kNone) prev_[a][after] = i;
  }
  void unlink(int a, std::uint32_t i) {
    next_[a][prev_[a][i]] = next_[a][i];
    prev_[a][next_[a][i]] = prev_[a][i];
  }
  // Slides node i along list a until its neighbours' keys bound its own.
  void slide(int a, std::uint32_t i) {
    const std::uint32_t n = std::uint32_t(pos_.size());
    std::uint32_t at = prev_[a][i];
    if (at < n && key(a, at) > key(a, i)) {
      unlink(a, i);
      while (at < n && key(a, at) > key(a, i)) at = prev_[a][at];
      link_after(a, at, i);
      return;
    }
    std::uint32_t to = next_[a][i];
    if (to < n && key(a, to) < key(a, i)) {
      unlink(a, i);
      while (to < n && key(a, to) < key(a, i)) to = next_[a][to];
      link_after(a, prev_[a][to], i);
    }
  }

  std::vector<Pos> pos_;
  float radius_;
  double r2_;
  VisibleLists lists_;
  std::vector<std::uint32_t> prev_[2], next_[2];
};

/// Each watcher re-queries a quadrant Tree (Loose) of points with its view circle every tick.
class TreeRequeryAoi {
 public:
  TreeRequeryAoi(const std::vector<Pos>& pos, float radius, quadrant::Box<2, float> world)
      : pos_(pos), radius_(radius), r2_(double(radius) * radius), lists_(pos.size()), tree_(config(world)) {
    for (std::uint32_t i = 0; i < pos.size(); ++i) handles_.push_back(tree_.insert({pos[i], pos[i]}, i));
  }
  void move(std::uint32_t i, Pos p) {
    pos_[i] = p;
    tree_.move(handles_[i], {p, p});
  }
  template <class Fn>
  void tick(Fn&& fn) {
    // The tree's circle test is in float; a slightly larger circle finds every candidate of the double test.
    const float query_radius = radius_ * (1 + 1e-5f);
    lists_.tick(std::uint32_t(pos_.size()), [&](std::uint32_t w, auto&& keep) {
      const Pos p = pos_[w];
      tree_.query(quadrant::Circle<float>{p, query_radius}, [&](const std::uint32_t& t) {
        if (t != w && d2(p, pos_[t]) <= r2_) keep(t);
      });
    }, fn);
  }

 private:
  static quadrant::Config<2, float> config(quadrant::Box<2, float> world) {
    quadrant::Config<2, float> c;
    c.world = world;
    c.max_depth = 10;
    c.split_threshold = 8;
    return c;
  }
  std::vector<Pos> pos_;
  float radius_;
  double r2_;
  VisibleLists lists_;
  quadrant::Tree<2, std::uint32_t, float> tree_;
  std::vector<quadrant::Handle> handles_;
};

}  // namespace quadrant_bench::aoi
