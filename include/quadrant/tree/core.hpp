// SPDX-License-Identifier: MIT
// quadrant internals: TreeCore, the part of a tree that does not depend on the value type: the configuration,
// the node store, and the algorithms that keep objects in the right nodes (placing, splitting, merging, the full
// tree of split_threshold 0; the bulk build is in build.hpp). Tree<D, T, S> adds the object records and handles on
// top. Not for direct inclusion.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../detail/inline.hpp"
#include "../detail/scratch.hpp"
#include "../geometry/box.hpp"
#include "../geometry/distance.hpp"
#include "build_keys.hpp"
#include "node_store.hpp"
#include "placement.hpp"

namespace quadrant::detail {

template <int D, class S>
class TreeCore {
 public:
  using box_type = Box<D, S>;
  using vec_type = Vec<D, S>;
  using store_type = NodeStore<D, S>;
  using entry_type = StoredEntry<D, S>;
  static constexpr std::uint32_t fanout = store_type::kFanout;

  // An empty tree over a checked config. Throws std::invalid_argument when split_threshold 0 would build more
  // than 2^24 nodes.
  explicit TreeCore(const Config<D, S>& config) : config_(config) {
    if (config_.split_threshold == 0) check_full_tree_size();
    store_.set_several(config_.placement == Placement::Leaves);
    store_.set_merge_size(static_cast<std::uint32_t>(config_.split_threshold / 2));
    store_.reset(config_.world, everything<D, S>());
    if (config_.split_threshold == 0) build_full_tree();
  }

  const Config<D, S>& config() const noexcept { return config_; }
  const store_type& store() const noexcept { return store_; }
  const box_type& world() const noexcept { return config_.world; }
  std::size_t scratch_bytes() const noexcept {
    return (scratch_.capacity() + touched_.capacity() + marks_.capacity()) * sizeof(std::uint32_t);
  }

  // ---- the overhang ----

  // How far an object listed by a node other than the root may reach beyond that node's cell, at most: under
  // Parent nothing (an object lies within its node's cell); under Loose its half-extent (the cell holds its center;
  // the largest half-extent of any object given to the tree since it was last emptied, noted as boxes arrive: an
  // erase leaves it, which only makes it larger than it need be). A nearest search stops climbing where its bound
  // lies within a node's cell by more than this (see Tree::nearest). Not used under Leaves.
  WideScalar<S> overhang() const noexcept {
    return config_.placement == Placement::Loose ? extent_ : WideScalar<S>(0);
  }
  // An upper bound on how far box b reaches beyond its center as the placement computes it: its half-extent, plus
  // a few ulps of its coordinates for the rounding of that center.
  static WideScalar<S> extent_of(const box_type& b) noexcept {
    using W = WideScalar<S>;
    W e = 0;
    for (int i = 0; i < D; ++i) {
      const W lo = W(b.min[i]), hi = W(b.max[i]);
      e = std::max(e, (hi - lo) / 2 + (std::abs(lo) + std::abs(hi)) * (4 * W(std::numeric_limits<S>::epsilon())));
    }
    return e;
  }
  // Notes objects that reach up to e beyond their centers (a bulk build, a batch of moves).
  void note_extent(WideScalar<S> e) noexcept { extent_ = std::max(extent_, e); }

  // ---- mutations ----

  // Room for objects with record index < n.
  void reserve_objects(std::size_t n) { store_.reserve_objects(n); }

  // A tree left empty by a move builds its full tree on first use.
  void prepare_insert() {
    if (config_.split_threshold == 0 && store_.is_leaf(0)) build_full_tree();
  }

  // Lists object e.id (its box and layers in e) where the placement puts it, splitting leaves that overflow.
  void place(const entry_type& e) {
    with_placement(config_.placement, [&](auto p) { place(p, e); });
  }

  // The array a bulk build of n entries reads, for the caller to fill (entry i with the object of record slot i):
  // under a one-node placement with a split threshold, the store's own entry array, which the build sorts into
  // node ranges where it lies (the entries of each node come out at their place in the array, so nothing is
  // copied into a second one); else `scratch`, resized to n. Only on an empty tree.
  Array<entry_type>& build_input(std::size_t n, Array<entry_type>& scratch) {
    if (config_.split_threshold != 0 && config_.placement != Placement::Leaves) return store_.build_arena(n);
    scratch.resize(n);
    return scratch;
  }

  // Lists the objects of `entries` (build_input's array, filled) in an empty tree, where the placement puts them.
  // Nodes are built top-down: a node splits when more than split_threshold entries reach it and splitting helps,
  // the rule insertion applies, so the result is a tree insertion could have built. `keys` (by `key_of`, this
  // tree's BuildKeys) are the entries' sort keys in their high words, in the entries' order, which is theirs:
  // above depth key_of.levels() a node's entries and its children's are then runs of the array, found by binary
  // search, and listed where they lie. Deeper, each split moves its entries once.
  void build(Array<entry_type>& entries, std::span<const std::uint64_t> keys, const BuildKeys<D, S>& key_of) {
    if (config_.split_threshold == 0) {
      prepare_insert();
      for (const entry_type& e : entries) place(e);
    } else {
      with_placement(config_.placement, [&](auto p) { build(p, entries, keys, key_of); });
    }
    store_.index_homes();
  }

  // Removes every entry of object id and merges the subtrees it left that are now small. The object's references
  // outlive its entries until the merges are done and name the nodes to merge from, so erase keeps no list of
  // them: with the room the store keeps for merges, it allocates nothing.
  void remove(std::uint32_t id) {
    for (std::uint32_t r = store_.first_ref(id); r != kNone; r = store_.next_ref(r)) {
      const std::uint32_t n = store_.ref_node(r);
      store_.drop_entry(n, store_.ref_slot(r));
      left(n);
    }
    if (config_.split_threshold != 0)
      for (std::uint32_t r = store_.first_ref(id); r != kNone; r = store_.next_ref(r)) merge_above(store_.ref_node(r));
    store_.unlink_object(id);
  }

  // Restores the spare capacity erase relies on, after a copy.
  void restore_spare() { store_.restore_spare(); }

  // Gives object id the box `box`. Returns false when it stays in the same node(s) (its entries are updated in
  // place), true when it was relocated.
  bool move(std::uint32_t id, const box_type& box) {
    return with_placement(config_.placement, [&](auto p) { return move(p, id, box); });
  }
  // move(id, box) under placement P (a batch dispatches on the placement once). The object's layers are read only
  // when it is relocated: most moves of a frame stay put.
  template <class P>
  bool move(P p, std::uint32_t id, const box_type& box) {
    if (stays_put(p, id, box)) {
      if constexpr (std::is_same_v<P, LoosePolicy>) note_extent(extent_of(box));
      store_.set_object_box(id, box);
      return false;
    }
    const entry_type e{box, id, store_.object_layers(id)};
    // One-node placements: the walk from the root to the new node passes through the lowest ancestor of the old
    // node that owns the new box's key point and fits it, so it starts there (a small move climbs a level or two
    // instead of descending the whole tree).
    std::uint32_t from = 0;
    if constexpr (!P::kEveryLeaf) from = lowest_holder(p, store_.ref_node(store_.first_ref(e.id)), e.box);
    unplace(e.id);
    place(p, e, from);
    merge_touched();
    return true;
  }

  // move_in_place's answer when the object has its new box and nothing else needs to change (no node reaches
  // this index: the pool ends before kNone - kFanout).
  static constexpr std::uint32_t kMovedInPlace = kNone - 1;

  // Gives object e.id the box e.box if it stays in its node under a one-node placement, leaving the fits alone.
  // Returns kMovedInPlace when that was all; the node, when its fit must then grow to hold the box (grow_fit)
  // before the next walk; kNone, changing nothing, when the object belongs elsewhere (always under Leaves). Reads
  // the structure and writes that object's entry alone, so threads may run it at once on distinct objects.
  std::uint32_t move_in_place(const entry_type& e) noexcept {
    return with_placement(config_.placement, [&](auto p) {
      if constexpr (decltype(p)::kEveryLeaf) {
        return kNone;
      } else {
        const std::uint32_t n = store_.ref_node(store_.first_ref(e.id));
        if (!belongs(p, n, e.box)) return kNone;
        return store_.set_box_leaving_fits(e.id, e.box) ? kMovedInPlace : n;
      }
    });
  }

  // Grows the fit of node n, and of its ancestors, to hold `box`.
  void grow_fit(std::uint32_t n, const box_type& box) noexcept { store_.grow_fit(n, box); }

  // Gives object id the layer mask `layers` in every node listing it.
  void set_layers(std::uint32_t id, std::uint32_t layers) {
    store_.set_object_layers(id, layers, [&](std::uint32_t n) {
      store_.add_layers(n, layers);
      store_.refresh_layers(n);
    });
  }

  // Removes every object, keeping memory; a full tree keeps its nodes.
  void clear() {
    extent_ = 0;
    if (config_.split_threshold == 0) {
      store_.clear_entries();
      return;
    }
    store_.reset(config_.world, everything<D, S>());
  }

  // The state of a moved-from tree: one empty root, no memory beyond it.
  void release() {
    extent_ = 0;
    store_.release(config_.world, everything<D, S>());
    scratch_.clear();
    touched_.clear();
    marks_.clear();
    mark_stamp_ = 0;
  }

  // ---- what walks and validation ask ----

  box_type clamped(const box_type& b) const noexcept { return clamp(b, config_.world); }

  // Splitting stops at max_depth, at min_node_size, and where floating point can no longer halve the cell.
  bool can_split(const box_type& cell, int depth) const noexcept {
    if (depth >= config_.max_depth) return false;
    for (int i = 0; i < D; ++i) {
      const S mid = std::midpoint(cell.min[i], cell.max[i]);
      if (!axis_halves(cell.min[i], mid, cell.max[i], config_.min_node_size)) return false;
    }
    return true;
  }

  // The child of n whose cell owns p (children must exist; p must lie in n's cell).
  std::uint32_t child_owning(std::uint32_t n, const vec_type& p) const noexcept {
    const std::uint32_t first = store_.first_child(n);
    return first + child_index(store_.cell(first), p);
  }

  // Calls fn(leaf) for every leaf whose cell overlaps the clamped box, in pre-order.
  template <class Fn>
  void for_each_leaf_overlapping(const box_type& clamped_box, Fn&& fn) const {
    store_.walk(0, 0, [&](std::uint32_t n) {
      if (!overlaps(store_.cell(n), clamped_box)) return Step::Skip;
      if (store_.is_leaf(n)) fn(n);
      return Step::Descend;
    });
  }

  // True when an object with box b belongs exactly in node n as the tree stands (one-node placements).
  template <class P>
  QUADRANT_INLINE bool belongs(P p, std::uint32_t n, const box_type& b) const noexcept {
    if (n != 0 && !(owns(store_.cell(n), P::key_point(b), config_.world) && P::fits(store_.cell(n), store_.bounds(n), b)))
      return false;
    return store_.is_leaf(n) || route(p, n, b) == kNone;
  }

 private:
  // ---- one-node placements (Loose, Parent) ----

  // The child of n (which has children) that the object belongs to, or kNone if it stays in n.
  template <class P>
  QUADRANT_INLINE std::uint32_t route(P, std::uint32_t n, const box_type& b) const noexcept {
    const vec_type key = P::key_point(b);
    if (n == 0 && !overlaps(config_.world, key)) return kNone;
    const std::uint32_t c = child_owning(n, key);
    return P::fits(store_.cell(c), store_.bounds(c), b) ? c : kNone;
  }

  // The lowest of n and its ancestors that a walk from the root to b's node passes through: the root, or one that
  // owns b's key point and fits b (each ancestor's child on the way then does too).
  template <class P>
  std::uint32_t lowest_holder(P, std::uint32_t n, const box_type& b) const noexcept {
    while (n != 0 && !(owns(store_.cell(n), P::key_point(b), config_.world) && P::fits(store_.cell(n), store_.bounds(n), b)))
      n = store_.parent(n);
    return n;
  }

  // The node an object with box b belongs in, walking down from `from` (the root, or a node the walk from the root
  // passes through).
  template <class P>
  std::uint32_t target(P p, const box_type& b, std::uint32_t from = 0) const noexcept {
    std::uint32_t n = from;
    while (!store_.is_leaf(n)) {
      const std::uint32_t c = route(p, n, b);
      if (c == kNone) break;
      n = c;
    }
    return n;
  }

  // ---- placing and removing one object ----

  template <class P>
  void place(P p, const entry_type& e, std::uint32_t from = 0) {
    if constexpr (std::is_same_v<P, LoosePolicy>) note_extent(extent_of(e.box));
    if constexpr (!P::kEveryLeaf) {
      const std::uint32_t n = target(p, e.box, from);
      store_.add_entry(n, e);
      store_.add_count(n, 1);
      store_.add_layers(n, e.layers);
      maybe_split(p, n);
    } else {
      scratch_.clear();
      for_each_leaf_overlapping(clamped(e.box), [&](std::uint32_t leaf) { scratch_.push_back(leaf); });
      for (std::uint32_t leaf : scratch_) {
        store_.add_entry(leaf, e);
        store_.add_count(leaf, 1);
        store_.add_layers(leaf, e.layers);
      }
      for (std::uint32_t leaf : scratch_) maybe_split(p, leaf);
    }
  }

  // Removes every entry of the object; the nodes it left are kept in touched_ for merge_touched().
  void unplace(std::uint32_t id) {
    touched_.clear();
    store_.remove_object(id, [&](std::uint32_t n) {
      left(n);
      touched_.push_back(n);
    });
  }

  // Bookkeeping for node n after one entry left it.
  void left(std::uint32_t n) noexcept {
    // A leaf back under the threshold may split again as soon as it overflows.
    if (store_.entries(n).size() <= static_cast<std::size_t>(config_.split_threshold)) store_.set_retry_at(n, 0);
    store_.add_count(n, -1);
    store_.refresh_layers(n);
  }

  template <class P>
  bool stays_put(P p, std::uint32_t id, const box_type& b) {
    if constexpr (!P::kEveryLeaf) {
      return belongs(p, store_.ref_node(store_.first_ref(id)), b);
    } else {
      // Same set of leaves: count the leaves the new box overlaps that already list the object.
      if (marks_.size() < store_.slots()) marks_.resize(store_.slots(), 0);
      if (++mark_stamp_ == 0) {
        std::fill(marks_.begin(), marks_.end(), 0);
        mark_stamp_ = 1;
      }
      std::size_t listed = 0;
      for (std::uint32_t r = store_.first_ref(id); r != kNone; r = store_.next_ref(r), ++listed)
        marks_[store_.ref_node(r)] = mark_stamp_;
      std::size_t overlapped = 0;
      bool same = true;
      for_each_leaf_overlapping(clamped(b), [&](std::uint32_t leaf) {
        ++overlapped;
        if (marks_[leaf] != mark_stamp_) same = false;
      });
      return same && overlapped == listed;
    }
  }

  // ---- split ----

  // Whether a clamped box occupies part of a cell rather than merely touching it: on each axis where the box has
  // extent it overlaps the cell's interior; on each axis where it is flat, the cell owns its coordinate. Under
  // Leaves a box is listed by every leaf it touches (boxes are closed), but only the leaves it occupies count
  // towards splitting: a split can never separate boxes from a face they touch, and counting them would refine the
  // tree along that face down to max_depth.
  bool occupies(const box_type& cb, const box_type& cell) const noexcept {
    for (int i = 0; i < D; ++i) {
      const S lo = cell.min[i], hi = cell.max[i];
      if (cb.min[i] < cb.max[i]) {
        if (!(cb.min[i] < hi && cb.max[i] > lo)) return false;
      } else if (!(lo <= cb.min[i] && (cb.min[i] < hi || (cb.min[i] == hi && hi == config_.world.max[i])))) {
        return false;
      }
    }
    return true;
  }

  // Whether splitting leaf n is worth it. Parent, Loose: some object would move into a child (otherwise the split
  // only adds empty nodes). Leaves: more than split_threshold objects occupy the leaf, and the split separates them
  // at a bounded price:
  //  * the children are occupied at most fanout / 2 times as often as the leaf (the average child holds at most
  //    half): objects that cover the leaf are not copied into every child at every level;
  //  * no two children are occupied by every object: boxes that share an edge or a face stay together in every
  //    child along it, and splitting there would refine that edge down to max_depth — for flat boxes in 3D
  //    (floors, walls, or objects clamped onto the world's face) the cells along a shared edge double with each
  //    level, which the halving rule above does not catch because a flat box occupies few children. (All in one
  //    child is allowed: a cluster separates deeper down, at one node per level.)
  template <class P>
  bool split_helps(P, std::uint32_t n, std::span<const entry_type> entries) const {
    const box_type& cell = store_.cell(n);
    box_type cells[fanout];
    for (std::uint32_t k = 0; k < fanout; ++k) cells[k] = child_cell(cell, k);
    if constexpr (P::kEveryLeaf) {
      std::size_t occupying = 0, in_children = 0;
      std::uint32_t common = ~0u;  // the children every occupying object occupies
      for (const entry_type& e : entries) {
        const box_type cb = clamped(e.box);
        if (!occupies(cb, cell)) continue;
        std::uint32_t mask = 0;
        for (std::uint32_t k = 0; k < fanout; ++k)
          if (occupies(cb, cells[k])) mask |= 1u << k;
        in_children += static_cast<std::size_t>(std::popcount(mask));
        common &= mask;
        ++occupying;
      }
      if (occupying <= static_cast<std::size_t>(config_.split_threshold)) return false;
      if (in_children > occupying * (fanout / 2)) return false;
      return std::popcount(common) < 2;
    } else {
      box_type bounds[fanout];
      for (std::uint32_t k = 0; k < fanout; ++k) bounds[k] = P::child_bounds(cells[k], store_.bounds(n), config_.world);
      for (const entry_type& e : entries) {
        const vec_type key = P::key_point(e.box);
        if (n == 0 && !overlaps(config_.world, key)) continue;
        const std::uint32_t k = child_index(cells[0], key);
        if (P::fits(cells[k], bounds[k], e.box)) return true;
      }
      return false;
    }
  }

  template <class P>
  void maybe_split(P p, std::uint32_t start) {
    const std::size_t threshold = static_cast<std::size_t>(config_.split_threshold);
    if (config_.split_threshold == 0) return;
    // New children may overflow in turn; the walk visits them right after their parent splits.
    store_.walk(start, start, [&](std::uint32_t n) {
      if (!store_.is_leaf(n)) return n == start ? Step::Skip : Step::Descend;
      const std::size_t size = store_.entries(n).size();
      if (size <= threshold || size < store_.retry_at(n)) return Step::Skip;
      if (!can_split(store_.cell(n), store_.depth(n))) return Step::Skip;
      if (!split_helps(p, n, store_.entries(n))) {
        store_.set_retry_at(n, static_cast<std::uint32_t>(std::min<std::size_t>(2 * size, kNone)));
        return Step::Skip;
      }
      split(p, n);
      return Step::Descend;
    });
  }

  // Splits leaf n, handing its entries to the children they belong to.
  template <class P>
  void split(P p, std::uint32_t n) {
    const box_type bounds = store_.bounds(n);
    box_type cells[fanout];
    for (std::uint32_t k = 0; k < fanout; ++k) cells[k] = child_cell(store_.cell(n), k);
    auto cell_of = [&](std::uint32_t k) { return cells[k]; };
    auto bounds_of = [&](std::uint32_t, const box_type& c) { return P::child_bounds(c, bounds, config_.world); };
    store_.split(n, cell_of, bounds_of, [&](const entry_type& e) { return child_mask(p, n, cells, e.box); });
  }

  // The children of n (which has children with cells `cells`) that list an object with box b, as a bit mask; 0
  // when it stays in n. Leaves: every child its clamped box overlaps. Loose, Parent: the child it routes to.
  template <class P>
  std::uint32_t child_mask(P p, std::uint32_t n, const box_type (&cells)[fanout], const box_type& b) const noexcept {
    if constexpr (P::kEveryLeaf) {
      const box_type cb = clamped(b);
      std::uint32_t mask = 0;
      for (std::uint32_t k = 0; k < fanout; ++k)
        if (overlaps(cells[k], cb)) mask |= 1u << k;
      return mask;
    } else {
      const std::uint32_t c = route(p, n, b);
      return c == kNone ? 0u : 1u << (c - store_.first_child(n));
    }
  }

  // ---- bulk build ----

  // One node still to build and its entries, [lo, hi) of the arena, or of the second buffer when `other`.
  struct BuildJob {
    std::uint32_t node, lo, hi;
    bool other;
  };

  static std::uint32_t key_high(std::uint64_t k) noexcept { return static_cast<std::uint32_t>(k >> 32); }

  // The bulk build under placement P, top-down from the entries sorted by key (build.hpp).
  template <class P>
  void build(P p, Array<entry_type>& arena, std::span<const std::uint64_t> keys, const BuildKeys<D, S>& key_of);

  // build()'s step for node n at depth d < key_of.levels(), whose entries `here` are keys[job.lo, job.hi) of the
  // arena, in key order: n's own entries (their level is d) come first, then each child's, child by child.
  template <class P>
  void build_from_keys(P p, std::uint32_t n, int d, const BuildJob& job, std::span<const entry_type> here,
                       std::span<const std::uint64_t> keys, const BuildKeys<D, S>& key_of, Array<BuildJob>& jobs);

  // Gives node n, which lists no entry yet, its children, leaving their cells and bounds in `cells` and
  // `child_bounds` for the caller's routing. Returns the first child.
  template <class P>
  std::uint32_t split_empty(P, std::uint32_t n, box_type (&cells)[fanout], box_type (&child_bounds)[fanout]);

  // Lists `own`, the entries node n keeps, in n, which has no entries yet; n's subtree starts at `lo` of the
  // arena. Under a one-node placement the build is in place (see build_input): n's range is made at `lo`, where
  // `own` lies already or at the same indices of the second buffer. Under Leaves it is appended to the array.
  template <class P>
  void list_own(P, std::uint32_t n, std::uint32_t lo, std::span<const entry_type> own);

  // ---- merge ----

  // Collapses, for each node an object just left, the highest ancestor whose subtree holds at most half the split
  // threshold, so churn does not leave dead nodes behind. A full tree (threshold 0) never merges.
  void merge_touched() {
    if (config_.split_threshold == 0) return;
    for (std::size_t t = 0; t < touched_.size(); ++t) merge_above(touched_[t]);
  }

  // The merges above node n (nothing when a merge already freed it).
  void merge_above(std::uint32_t n) {
    const std::uint32_t limit = static_cast<std::uint32_t>(config_.split_threshold / 2);
    const bool every_leaf = config_.placement == Placement::Leaves;
    while (n != kNone && store_.alive(n)) {
      std::uint32_t highest = kNone;
      for (std::uint32_t a = n; a != kNone; a = store_.parent(a))
        if (!store_.is_leaf(a) && store_.count(a) <= limit) highest = a;
      if (highest == kNone) break;
      const box_type outer = store_.cell(highest);
      // Under Leaves an object listed by several leaves is kept once: by the leaf owning its report point
      // against the merged cell.
      store_.collapse(highest, [&](const entry_type& e, std::uint32_t m) {
        return !every_leaf || LeavesPolicy::reports(store_.cell(m), e.box, outer, outer);
      });
      // Dropping duplicates (Placement::Leaves) lowers the counts above, which may allow a higher merge.
      n = highest;
    }
  }

  // ---- full tree (split_threshold 0) ----

  void check_full_tree_size() const {
    // Cells at one depth have the same size, so min_node_size cuts every branch at the same depth.
    int levels = 0;
    box_type cell = config_.world;
    while (can_split(cell, levels)) {
      cell = child_cell(cell, 0);
      ++levels;
    }
    double nodes = 0, level_nodes = 1;
    for (int d = 0; d <= levels; ++d, level_nodes *= fanout) nodes += level_nodes;
    // 2^24 nodes is already about 1.9 GB for an octree of floats (112 bytes a node: its 40-byte Node and three
    // 24-byte boxes, cell, bounds and fit); beyond that a full tree is a mistake, not a grid.
    if (nodes > double{1u << 24}) {
      // Printed from double: the counts can exceed any integer type (an octree of depth 30 has ~1.4e27 nodes).
      auto number = [](double x) {
        char text[32];
        std::snprintf(text, sizeof text, x < 1e15 ? "%.0f" : "%.3g", x);
        return std::string(text);
      };
      throw std::invalid_argument("quadrant: split_threshold 0 builds the full tree down to depth " +
                                  std::to_string(levels) + ": " + number(nodes) + " nodes, about " +
                                  number(nodes * double(store_type::node_bytes()) / 1e6) +
                                  " MB (the limit is 2^24 nodes); lower max_depth or raise min_node_size");
    }
  }

  void build_full_tree() {
    // The tree is empty, so each split only makes children.
    with_placement(config_.placement, [&](auto p) {
      store_.walk(0, 0, [&](std::uint32_t n) {
        if (can_split(store_.cell(n), store_.depth(n))) split(p, n);
        return Step::Descend;
      });
    });
  }

  Config<D, S> config_;
  store_type store_;
  // Scratch for mutations (which have exclusive access), kept so that steady-state updates do not allocate.
  std::vector<std::uint32_t> scratch_, touched_, marks_;
  std::uint32_t mark_stamp_ = 0;
  WideScalar<S> extent_ = 0;  // see overhang
};

}  // namespace quadrant::detail
