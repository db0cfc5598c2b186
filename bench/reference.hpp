// SPDX-License-Identifier: MIT
// quadrant benchmarks — the reference structures written here: brute force, sort-and-sweep on x and a uniform
// grid. Each is the straightforward, well-tuned version a game programmer would write; brute force is also the
// oracle the others are checked against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "scene.hpp"

namespace quadrant_bench {

/// Every pair tested: O(N^2) per frame.
class BruteForce {
 public:
  void build(std::span<const Box2> boxes) { boxes_.assign(boxes.begin(), boxes.end()); }
  void update(std::span<const Box2> boxes) { std::copy(boxes.begin(), boxes.end(), boxes_.begin()); }

  template <class Fn>
  void for_each_pair(Fn&& fn) const {
    const std::size_t n = boxes_.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Box2 a = boxes_[i];
      for (std::size_t j = i + 1; j < n; ++j)
        if (overlaps(a, boxes_[j])) fn(std::uint32_t(i), std::uint32_t(j));
    }
  }

  template <class Fn>
  void query(const Box2& window, Fn&& fn) const {
    for (std::size_t i = 0; i < boxes_.size(); ++i)
      if (overlaps(window, boxes_[i])) fn(std::uint32_t(i));
  }

 private:
  std::vector<Box2> boxes_;
};

/// Sort-and-sweep on x: the boxes kept sorted by min x (insertion sort from last frame's order, nearly sorted
/// when things move a little), then each box is tested against the following ones until their min x passes its
/// max x.
class SortAndSweep {
 public:
  void build(std::span<const Box2> boxes) {
    entries_.resize(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) entries_[i] = {boxes[i], std::uint32_t(i)};
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.box.min.x < b.box.min.x; });
  }

  void update(std::span<const Box2> boxes) {
    for (Entry& e : entries_) e.box = boxes[e.id];
    // Insertion sort: linear when the order barely changed.
    for (std::size_t i = 1; i < entries_.size(); ++i) {
      const Entry e = entries_[i];
      std::size_t j = i;
      while (j > 0 && entries_[j - 1].box.min.x > e.box.min.x) {
        entries_[j] = entries_[j - 1];
        --j;
      }
      entries_[j] = e;
    }
  }

  template <class Fn>
  void for_each_pair(Fn&& fn) const {
    const std::size_t n = entries_.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Box2 a = entries_[i].box;
      for (std::size_t j = i + 1; j < n && entries_[j].box.min.x <= a.max.x; ++j) {
        const Box2& b = entries_[j].box;
        if (a.min.y <= b.max.y && b.min.y <= a.max.y) fn(entries_[i].id, entries_[j].id);
      }
    }
  }

 private:
  struct Entry {
    Box2 box;
    std::uint32_t id;
  };
  std::vector<Entry> entries_;
};

/// The cells of a uniform grid over the world, shared by the grids here and in churn.cpp: nx by ny cells of side
/// `cell`; coordinates outside the world clamp to the border cells.
class GridLayout {
 protected:
  GridLayout(const Box2& world, float cell) : world_(world), cell_(cell), inv_(1 / cell) {
    nx_ = std::max(1, int(std::ceil((world.max.x - world.min.x) * inv_)));
    ny_ = std::max(1, int(std::ceil((world.max.y - world.min.y) * inv_)));
  }

  int cell_x(float x) const noexcept { return std::clamp(int(std::floor((x - world_.min.x) * inv_)), 0, nx_ - 1); }
  int cell_y(float y) const noexcept { return std::clamp(int(std::floor((y - world_.min.y) * inv_)), 0, ny_ - 1); }
  std::size_t index(int cx, int cy) const noexcept { return std::size_t(cy) * std::size_t(nx_) + std::size_t(cx); }
  std::size_t cell_count() const noexcept { return std::size_t(nx_) * std::size_t(ny_); }

  Box2 world_;
  float cell_, inv_;
  int nx_ = 1, ny_ = 1;
};

/// A uniform grid over the world, rebuilt from scratch (counting sort into one array of cell lists) whenever the
/// boxes change. A box is listed in every cell it overlaps; boxes outside the world are clamped to the border
/// cells. A pair is reported only in the cell holding the lower corner of the pair's intersection, and a window
/// query reports a box only in the first cell the box and the window share, so nothing is reported twice.
class UniformGrid : private GridLayout {
 public:
  /// `cell` is the side of a cell (see the workloads for the sizes chosen and why).
  UniformGrid(const Box2& world, float cell) : GridLayout(world, cell) {}

  void build(std::span<const Box2> boxes) {
    boxes_.assign(boxes.begin(), boxes.end());
    rebuild();
  }
  void update(std::span<const Box2> boxes) { build(boxes); }

  template <class Fn>
  void for_each_pair(Fn&& fn) const {
    for (int cy = 0; cy < ny_; ++cy) {
      for (int cx = 0; cx < nx_; ++cx) {
        const std::size_t c = index(cx, cy);
        const std::uint32_t begin = starts_[c], end = starts_[c + 1];
        for (std::uint32_t i = begin; i < end; ++i) {
          const Box2& a = boxes_[ids_[i]];
          for (std::uint32_t j = i + 1; j < end; ++j) {
            const Box2& b = boxes_[ids_[j]];
            if (!overlaps(a, b)) continue;
            if (cell_x(std::max(a.min.x, b.min.x)) != cx || cell_y(std::max(a.min.y, b.min.y)) != cy) continue;
            fn(ids_[i], ids_[j]);
          }
        }
      }
    }
  }

  template <class Fn>
  void query(const Box2& window, Fn&& fn) const {
    const int x0 = cell_x(window.min.x), x1 = cell_x(window.max.x);
    const int y0 = cell_y(window.min.y), y1 = cell_y(window.max.y);
    for (int cy = y0; cy <= y1; ++cy) {
      for (int cx = x0; cx <= x1; ++cx) {
        const std::size_t c = index(cx, cy);
        for (std::uint32_t i = starts_[c]; i < starts_[c + 1]; ++i) {
          const Box2& b = boxes_[ids_[i]];
          if (!overlaps(window, b)) continue;
          if (std::max(cell_x(b.min.x), x0) != cx || std::max(cell_y(b.min.y), y0) != cy) continue;
          fn(ids_[i]);
        }
      }
    }
  }

  /// The k points nearest to p, nearest first (ties by id), by searching rings of cells outwards until the k-th
  /// distance is no farther than any unvisited cell. `out` holds (squared distance, id). For point sets: a box
  /// listed in several cells would be counted once per cell.
  void nearest(Vec2 p, std::size_t k, std::vector<std::pair<float, std::uint32_t>>& out) const {
    out.clear();
    if (k == 0 || boxes_.empty()) return;
    const int qx = cell_x(p.x), qy = cell_y(p.y);
    // `out` is kept as a max-heap on distance while searching.
    auto consider = [&](std::uint32_t id) {
      const Box2& b = boxes_[id];
      const float d = quadrant::distance_squared(p, b);
      if (out.size() < k) {
        out.emplace_back(d, id);
        std::push_heap(out.begin(), out.end());
      } else if (std::make_pair(d, id) < out.front()) {
        std::pop_heap(out.begin(), out.end());
        out.back() = {d, id};
        std::push_heap(out.begin(), out.end());
      }
    };
    const int max_ring = std::max({qx, nx_ - 1 - qx, qy, ny_ - 1 - qy});
    for (int r = 0; r <= max_ring; ++r) {
      for (int cy = qy - r; cy <= qy + r; ++cy) {
        if (cy < 0 || cy >= ny_) continue;
        const bool edge_row = cy == qy - r || cy == qy + r;
        for (int cx = qx - r; cx <= qx + r; cx += (edge_row || r == 0) ? 1 : 2 * r) {
          if (cx < 0 || cx >= nx_) continue;
          const std::size_t c = index(cx, cy);
          for (std::uint32_t i = starts_[c]; i < starts_[c + 1]; ++i) consider(ids_[i]);
        }
      }
      if (out.size() == k) {
        // Every cell outside the square of rings 0..r is at least this far from p.
        const float x_lo = world_.min.x + float(qx - r) * cell_, x_hi = world_.min.x + float(qx + r + 1) * cell_;
        const float y_lo = world_.min.y + float(qy - r) * cell_, y_hi = world_.min.y + float(qy + r + 1) * cell_;
        const float reach = std::min({p.x - x_lo, x_hi - p.x, p.y - y_lo, y_hi - p.y});
        if (reach > 0 && reach * reach >= out.front().first) break;
      }
    }
    std::sort_heap(out.begin(), out.end());
  }

  /// Bytes held: the boxes, the cell starts and the cell lists.
  std::size_t bytes() const noexcept {
    return boxes_.capacity() * sizeof(Box2) + starts_.capacity() * 4 + ids_.capacity() * 4;
  }

 private:
  void rebuild() {
    const std::size_t cells = cell_count();
    starts_.assign(cells + 1, 0);
    for (const Box2& b : boxes_) {
      const int x0 = cell_x(b.min.x), x1 = cell_x(b.max.x), y0 = cell_y(b.min.y), y1 = cell_y(b.max.y);
      for (int cy = y0; cy <= y1; ++cy)
        for (int cx = x0; cx <= x1; ++cx) ++starts_[index(cx, cy) + 1];
    }
    for (std::size_t c = 0; c < cells; ++c) starts_[c + 1] += starts_[c];
    ids_.resize(starts_[cells]);
    fill_.assign(starts_.begin(), starts_.end() - 1);
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
      const Box2& b = boxes_[i];
      const int x0 = cell_x(b.min.x), x1 = cell_x(b.max.x), y0 = cell_y(b.min.y), y1 = cell_y(b.max.y);
      for (int cy = y0; cy <= y1; ++cy)
        for (int cx = x0; cx <= x1; ++cx) ids_[fill_[index(cx, cy)]++] = std::uint32_t(i);
    }
  }

  std::vector<Box2> boxes_;
  std::vector<std::uint32_t> starts_, fill_, ids_;
};

}  // namespace quadrant_bench
