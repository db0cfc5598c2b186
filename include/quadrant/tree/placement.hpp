// SPDX-License-Identifier: MIT
// quadrant internals: the three placements as policy types, and the cell geometry they share. Not for direct
// inclusion.
//
// `Config::placement` is a runtime value for users; each Tree call turns it into one of these types once
// (with_placement), so the loops inside are compiled per placement. A policy says where an object goes, how a
// child's bounds grow from its cell, whether a split helps, and (Leaves) which of the leaves listing an object
// reports it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

#include "../detail/inline.hpp"
#include "../config.hpp"
#include "../geometry/box.hpp"

namespace quadrant::detail {

// ---- the geometry of cells, the same under every placement ----

// Half-open ownership: a point on a shared cell face belongs to the upper cell, except on `outer`'s upper faces,
// which close it. Every point of `outer` is owned by exactly one cell of any partition of it.
template <int D, class S>
QUADRANT_INLINE bool owns(const Box<D, S>& cell, const Vec<D, S>& p, const Box<D, S>& outer) noexcept {
  for (int i = 0; i < D; ++i) {
    if (p[i] < cell.min[i] || p[i] > cell.max[i]) return false;
    if (p[i] == cell.max[i] && cell.max[i] != outer.max[i]) return false;
  }
  return true;
}

// Child k of a cell: bit i of k picks the upper half on axis i.
template <int D, class S>
Box<D, S> child_cell(const Box<D, S>& cell, std::uint32_t k) noexcept {
  Box<D, S> c;
  for (int i = 0; i < D; ++i) {
    const S mid = std::midpoint(cell.min[i], cell.max[i]);
    const bool upper = (k >> i) & 1u;
    c.min[i] = upper ? mid : cell.min[i];
    c.max[i] = upper ? cell.max[i] : mid;
  }
  return c;
}

// Whether a cell's extent [lo, hi] on one axis may be halved at mid (its std::midpoint): both halves are
// non-empty and at least min_size wide. A cell may split when every axis may (and it is above max_depth).
template <class S>
QUADRANT_INLINE bool axis_halves(S lo, S mid, S hi, S min_size) noexcept {
  return lo < mid && mid < hi && !(mid - lo < min_size) && !(hi - mid < min_size);
}

// Which child of a cell owns p: bit i is set when p is at or beyond the split on axis i. `lower` is child 0's
// cell, whose max corner is the split point.
template <int D, class S>
QUADRANT_INLINE std::uint32_t child_index(const Box<D, S>& lower, const Vec<D, S>& p) noexcept {
  std::uint32_t k = 0;
  for (int i = 0; i < D; ++i)
    if (p[i] >= lower.max[i]) k |= 1u << i;
  return k;
}

// The box every point lies in: the root's bounds.
template <int D, class S>
Box<D, S> everything() noexcept {
  constexpr S inf = std::numeric_limits<S>::infinity();
  Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    b.min[i] = -inf;
    b.max[i] = inf;
  }
  return b;
}

// ---- the policies ----

// One node per object: the deepest whose cell owns the object's center and whose bounds (the cell grown by half
// its side) contain it.
struct LoosePolicy {
  static constexpr Placement kind = Placement::Loose;
  static constexpr bool kEveryLeaf = false;
  // The point that picks the child.
  template <int D, class S>
  static Vec<D, S> key_point(const Box<D, S>& b) noexcept {
    return center(b);
  }
  // Whether an object whose key point the cell owns fits the node.
  template <int D, class S>
  static bool fits(const Box<D, S>&, const Box<D, S>& bounds, const Box<D, S>& b) noexcept {
    return quadrant::contains(bounds, b);
  }
  // The cell grown by half its side, kept inside the parent's bounds so bounds nest exactly.
  template <int D, class S>
  static Box<D, S> child_bounds(const Box<D, S>& cell, const Box<D, S>& parent_bounds, const Box<D, S>&) noexcept {
    Box<D, S> b;
    for (int i = 0; i < D; ++i) {
      const S half = (cell.max[i] - cell.min[i]) / 2;
      b.min[i] = std::max(cell.min[i] - half, parent_bounds.min[i]);
      b.max[i] = std::min(cell.max[i] + half, parent_bounds.max[i]);
    }
    return b;
  }
};

// One node per object: the deepest whose cell contains it (keyed by its min corner); straddlers stay above.
struct ParentPolicy {
  static constexpr Placement kind = Placement::Parent;
  static constexpr bool kEveryLeaf = false;
  template <int D, class S>
  static Vec<D, S> key_point(const Box<D, S>& b) noexcept {
    return b.min;
  }
  template <int D, class S>
  static bool fits(const Box<D, S>& cell, const Box<D, S>&, const Box<D, S>& b) noexcept {
    for (int i = 0; i < D; ++i)
      if (b.max[i] > cell.max[i]) return false;
    return true;
  }
  template <int D, class S>
  static Box<D, S> child_bounds(const Box<D, S>& cell, const Box<D, S>&, const Box<D, S>&) noexcept {
    return cell;
  }
};

// Every leaf whose cell the object's box (clamped into the world) overlaps lists it; walks report it once.
struct LeavesPolicy {
  static constexpr Placement kind = Placement::Leaves;
  static constexpr bool kEveryLeaf = true;
  // The cell, open to infinity on the world's faces: an object outside the world is listed by the boundary
  // leaves its clamped box touches, and each of its points then lies in one of their bounds.
  template <int D, class S>
  static Box<D, S> child_bounds(const Box<D, S>& cell, const Box<D, S>&, const Box<D, S>& world) noexcept {
    constexpr S inf = std::numeric_limits<S>::infinity();
    Box<D, S> b = cell;
    for (int i = 0; i < D; ++i) {
      if (cell.min[i] == world.min[i]) b.min[i] = -inf;
      if (cell.max[i] == world.max[i]) b.max[i] = inf;
    }
    return b;
  }
  // The duplicate rule of pre-order walks (queries, pairs, merges): among the leaves listing an object, the one
  // whose cell owns the report point reports it — a point the object's box shares with what the walk looks for
  // (the query's box, the other box of a pair), its minimum corner, clamped into the world. Exactly one leaf owns
  // it, and that leaf lists the object, since the point lies in the object's clamped box.
  template <int D, class S>
  static Vec<D, S> report_point(const Box<D, S>& a, const Box<D, S>& b, const Box<D, S>& world) noexcept {
    Vec<D, S> p;
    for (int i = 0; i < D; ++i) p[i] = std::max(a.min[i], b.min[i]);
    return clamp(p, world);
  }
  template <int D, class S>
  static bool reports(const Box<D, S>& leaf_cell, const Box<D, S>& a, const Box<D, S>& b,
                      const Box<D, S>& world) noexcept {
    return owns(leaf_cell, report_point(a, b, world), world);
  }
};

// Calls f with the policy object of `placement` and returns what it returns.
template <class F>
decltype(auto) with_placement(Placement placement, F&& f) {
  switch (placement) {
    case Placement::Parent: return f(ParentPolicy{});
    case Placement::Leaves: return f(LeavesPolicy{});
    case Placement::Loose: break;
  }
  return f(LoosePolicy{});
}

}  // namespace quadrant::detail
