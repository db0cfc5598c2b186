// SPDX-License-Identifier: MIT
// quadrant internals: the bulk build's sort keys. Not for direct inclusion.
//
// Under the one-node placements (Loose, Parent) an object's node in a tree that has split far enough is a function
// of its box alone: walk down from the root through the child owning its key point while that child fits it. The
// key of an object says that node: the child indices of the path (2 bits a level in 2D, 3 in 3D, for the first
// levels() levels, zeros below the object's level) and then the level itself. Sorted by key, objects come in the
// pre-order of their nodes, each node's own objects ahead of its children's, so a top-down build finds every
// node's objects as one run and its children's by binary search, without a pass over the objects per level.
//
// The key must agree exactly with the routing a walk does (std::midpoint cells, the placement's fit rule, which
// cells may split), or a built object would sit in the wrong node. So nothing is approximated: the cuts of every
// cell down to levels() are computed once per axis by the same std::midpoint the tree uses (cells split all axes
// at once and each axis independently, so a table of 2^levels() + 1 cuts an axis describes every cell), an
// object's cell on an axis is found among the cuts (a quantised guess, checked against the two cuts around it),
// and the fit rule reads the cells' (Loose: their bounds') table entries. Deeper than levels() the build decides
// as before, per node, from the geometry.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../config.hpp"
#include "../detail/morton.hpp"
#include "../detail/scratch.hpp"
#include "../geometry/box.hpp"
#include "placement.hpp"

namespace quadrant::detail {

template <int D, class S>
class BuildKeys {
 public:
  using box_type = Box<D, S>;
  static constexpr std::uint32_t kFanout = 1u << D;
  static constexpr int kLevelBits = 4;
  // Levels whose child indices fit a 32-bit key beside the level: 14 in 2D, 9 in 3D.
  static constexpr int kMaxLevels = (32 - kLevelBits) / D;

  // Keys for a tree of `config` to be built over about `objects` objects (0: not known). Under Leaves, or with a
  // split threshold of 0, levels() is 0 and the key is the Morton code of the box's center (spatial order only).
  BuildKeys(const Config<D, S>& config, std::size_t objects) : world_(config.world) {
    if (config.placement == Placement::Leaves || config.split_threshold == 0) return;
    // Past about log_fanout(objects / split_threshold) + 3 levels a build rarely splits: deeper nodes are decided
    // per node, and the tables and the Loose fit search stay small for small trees.
    int wanted = kMaxLevels;
    if (objects != 0) {
      const std::size_t leaves = objects / static_cast<std::size_t>(config.split_threshold);
      wanted = std::min(wanted, static_cast<int>(std::bit_width(leaves)) / D + 3);
    }
    levels_ = std::clamp(std::min(wanted, config.max_depth), 0, kMaxLevels);
    if (levels_ == 0) return;
    const std::size_t cells = std::size_t{1} << levels_;
    cuts_lease_.get().resize(D * (cells + 1));
    caps_lease_.get().assign(D * cells, static_cast<std::uint8_t>(levels_));
    cuts_ = cuts_lease_.get().data();
    caps_ = caps_lease_.get().data();
    if (config.placement == Placement::Loose) {
      loose_lease_.get().resize(D * 4 * cells);
      loose_ = loose_lease_.get().data();
    }
    for (int i = 0; i < D; ++i) fill_axis(config, i);
  }

  // The depth down to which keys decide the nodes: a node of smaller depth is built from its objects' keys.
  int levels() const noexcept { return levels_; }
  // The level a key places its object at (at most levels()).
  static int level(std::uint32_t key) noexcept { return static_cast<int>(key & ((1u << kLevelBits) - 1)); }
  // The child of a node at depth d (< levels()) that an object whose key has a level > d goes to.
  std::uint32_t child(std::uint32_t key, int d) const noexcept {
    return key >> (kLevelBits + D * (levels_ - d - 1)) & (kFanout - 1);
  }

  // The key of an object with box b (checked: finite, min <= max) under placement P.
  template <class P>
  QUADRANT_INLINE std::uint32_t operator()(P, const box_type& b) const noexcept {
    if constexpr (P::kEveryLeaf) {
      Vec<D, S> center;
      for (int a = 0; a < D; ++a) center[a] = std::midpoint(b.min[a], b.max[a]);
      return morton_key(center, world_);
    } else {
      if (levels_ == 0) return 0;
      const Vec<D, S> p = P::key_point(b);
      // A key point outside the world keeps its object in the root (as routing does).
      if (!overlaps(world_, p)) return 0;
      std::uint32_t cell[D];
      int level = levels_;
      for (int i = 0; i < D; ++i) {
        cell[i] = cell_owning(i, p[i]);
        level = std::min<int>(level, caps_[i * cells() + cell[i]]);
      }
      if constexpr (P::kind == Placement::Parent) {
        // The deepest level whose cell (on every axis) closes at or above the box's max corner. The cell of the
        // max corner, counted so that a corner on a cut belongs to the cell below it, shares the key point's
        // cell down to that level.
        for (int i = 0; i < D; ++i) {
          const std::uint32_t top = cell_closing(i, b.max[i]);
          if (top > cell[i]) level = std::min(level, levels_ - static_cast<int>(std::bit_width(top ^ cell[i])));
        }
        level = std::max(level, 0);
      } else {
        // Loose: the bounds nest, so the deepest level whose bounds hold the box is found going up, from the
        // deepest allowed whose widest bounds are as wide as the box (nearly always the answer).
        for (int i = 0; i < D; ++i)
          while (level > 0 && b.max[i] - b.min[i] > widest_[i][static_cast<std::size_t>(level)]) --level;
        while (level > 0 && !loose_fits(level, cell, b)) --level;
      }
      // The path to the object's node: its cells' indices at that level, interleaved (axis 0 in each child
      // index's lowest bit, as child_index numbers children), then zeros for the levels below.
      const int below = levels_ - level;
      std::uint32_t path;
      if constexpr (D == 2) path = interleave(cell[0] >> below, cell[1] >> below);
      else path = interleave(cell[0] >> below, cell[1] >> below, cell[2] >> below);
      return path << (D * below) << kLevelBits | static_cast<std::uint32_t>(level);
    }
  }

 private:
  std::size_t cells() const noexcept { return std::size_t{1} << levels_; }
  const S* cuts(int i) const noexcept { return cuts_ + i * (cells() + 1); }
  // Loose bounds of the cells at `level` (1 to levels()) on axis i: 2^level lows, then as many highs.
  S* loose(int i, int level) const noexcept { return loose_ + i * 4 * cells() + 2 * ((std::size_t{1} << level) - 1); }

  // The cell at depth levels() owning coordinate v (inside the world) on axis i: the cuts at or below v, the
  // first excepted; the last cell for v on the world's upper face.
  std::uint32_t cell_owning(int i, S v) const noexcept {
    const S* c = cuts(i);
    const std::size_t n = cells();
    std::size_t g = guess(i, v);
    if (!((g == 0 || c[g] <= v) && (g + 1 == n || v < c[g + 1])))
      g = static_cast<std::size_t>(std::upper_bound(c + 1, c + n, v) - (c + 1));
    return static_cast<std::uint32_t>(g);
  }
  // The cuts strictly below v on axis i, the first excepted: the cell whose closed upper face holds v; cells()
  // when v lies above the world.
  std::uint32_t cell_closing(int i, S v) const noexcept {
    const S* c = cuts(i);
    const std::size_t n = cells();
    if (v > c[n]) return static_cast<std::uint32_t>(n);
    std::size_t g = guess(i, v);
    if (!((g == 0 || c[g] < v) && (g + 1 == n || v <= c[g + 1])))
      g = static_cast<std::size_t>(std::lower_bound(c + 1, c + n, v) - (c + 1));
    return static_cast<std::uint32_t>(g);
  }
  // Where v would be if the cuts were evenly spaced (they are, up to rounding): the answer nearly always.
  std::size_t guess(int i, S v) const noexcept {
    const double f = (static_cast<double>(v) - origin_[i]) * scale_[i];
    return f > 0 ? static_cast<std::size_t>(std::min(f, static_cast<double>(cells() - 1))) : 0u;
  }

  bool loose_fits(int level, const std::uint32_t (&cell)[D], const box_type& b) const noexcept {
    for (int i = 0; i < D; ++i) {
      const std::size_t c = cell[i] >> (levels_ - level);
      const S* t = loose(i, level);
      if (!(t[c] <= b.min[i] && b.max[i] <= t[(std::size_t{1} << level) + c])) return false;
    }
    return true;
  }

  // Axis i's cuts (by halving, as child_cell does), the deepest level each cell may reach (as can_split decides)
  // and, under Loose, each level's bounds (as LoosePolicy::child_bounds grows them).
  void fill_axis(const Config<D, S>& config, int i) {
    S* c = cuts_ + i * (cells() + 1);
    std::uint8_t* cap = caps_ + i * cells();
    const std::size_t n = cells();
    origin_[i] = static_cast<double>(config.world.min[i]);
    scale_[i] = static_cast<double>(n) / (static_cast<double>(config.world.max[i]) - origin_[i]);
    c[0] = config.world.min[i];
    c[n] = config.world.max[i];
    for (int level = 0; level < levels_; ++level) {
      const std::size_t step = n >> level;
      for (std::size_t at = 0; at < n; at += step) {
        const S lo = c[at], hi = c[at + step];
        const S mid = std::midpoint(lo, hi);
        c[at + step / 2] = mid;
        // can_split's test on this axis; a cell that may not split caps the cells below it.
        if (!axis_halves(lo, mid, hi, config.min_node_size))
          for (std::size_t k = at; k < at + step; ++k) cap[k] = std::min<std::uint8_t>(cap[k], static_cast<std::uint8_t>(level));
      }
    }
    if (config.placement != Placement::Loose) return;
    box_type parent = everything<D, S>();
    for (int level = 1; level <= levels_; ++level) {
      S widest = 0;
      S* lows = loose(i, level);
      S* highs = lows + (std::size_t{1} << level);
      const S* up = level == 1 ? nullptr : loose(i, level - 1);
      const std::size_t step = n >> level;
      for (std::size_t k = 0; k < (std::size_t{1} << level); ++k) {
        box_type cell, bounds = parent;
        for (int a = 0; a < D; ++a) {
          cell.min[a] = c[k * step];
          cell.max[a] = c[(k + 1) * step];
          if (up) {
            bounds.min[a] = up[k >> 1];
            bounds.max[a] = up[(std::size_t{1} << (level - 1)) + (k >> 1)];
          }
        }
        const box_type grown = LoosePolicy::child_bounds(cell, bounds, config.world);
        lows[k] = grown.min[i];
        highs[k] = grown.max[i];
        widest = std::max(widest, grown.max[i] - grown.min[i]);
      }
      widest_[i][static_cast<std::size_t>(level)] = widest;
    }
  }

  box_type world_;
  int levels_ = 0;
  ScratchLease<S> cuts_lease_, loose_lease_;
  ScratchLease<std::uint8_t> caps_lease_;
  S* cuts_ = nullptr;           // per axis, 2^levels() + 1 cuts
  std::uint8_t* caps_ = nullptr;  // per axis, 2^levels() cells: the deepest level the cell's ancestors allow
  S* loose_ = nullptr;          // Loose: per axis, the bounds of every cell of levels 1 to levels()
  std::array<double, D> origin_{}, scale_{};  // per axis: cells a unit of length, from the world's min corner
  // Loose: per axis and level, the widest bounds of a cell (an object wider fits none of the level's cells).
  std::array<std::array<S, kMaxLevels + 1>, D> widest_{};
};

}  // namespace quadrant::detail
