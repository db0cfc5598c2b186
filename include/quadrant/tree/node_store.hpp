// SPDX-License-Identifier: MIT
// quadrant internals: NodeStore, the one place that knows how a tree's nodes and entries lie in memory. Not for
// direct inclusion.
//
// Everything else (placement, splitting and merging, walks, validation) reads and writes nodes through the
// members below, so another layout (entries of all nodes packed in one array, SoA boxes) is a change to this file.
//
// The layout today: nodes live in one vector addressed by 32-bit indices. The root is node 0; every other node
// belongs to a block of 2^D siblings starting at 1 + k * 2^D, so a node's position among its siblings is
// arithmetic and the children of a node sit side by side. Freed blocks go on a free list and are reused before the
// vector grows.
//
// The entries of all nodes share one array: a node owns the range [first, first + cap) and uses its first `size`
// slots. A bulk build lays the ranges out exactly, in pre-order, so a walk reads the entries front to back. A node
// that outgrows its range moves to a range of twice the room (at the end, or one freed earlier of that size class)
// and leaves its old range to the free list of its class; so steady churn reuses space instead of growing.
//
// A reference records where one entry of an object sits (node, slot within the node), so erase and move find its
// entries in O(1). Where an object has one entry (Loose, Parent) its reference is its record index and an entry's
// reference is its id: 8 bytes an object. Where it may have several (Leaves), references come from a pool, each
// object's form a doubly linked chain from its head, and an array parallel to the entries names each entry's.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <vector>

#include "../detail/inline.hpp"
#include "../detail/pages.hpp"
#include "../detail/prefetch.hpp"
#include "../geometry/box.hpp"
#include "entry.hpp"

namespace quadrant::detail {

inline constexpr std::uint32_t kNone = ~std::uint32_t{0};

// What a walk's visitor tells it after seeing a node.
enum class Step { Descend, Skip, Stop };

// The indices of a node's children, for range-for.
struct ChildRange {
  std::uint32_t first = kNone, last = kNone;  // [first, last); empty for a leaf
  struct iterator {
    std::uint32_t n;
    std::uint32_t operator*() const noexcept { return n; }
    iterator& operator++() noexcept {
      ++n;
      return *this;
    }
    bool operator!=(const iterator& o) const noexcept { return n != o.n; }
  };
  iterator begin() const noexcept { return {first}; }
  iterator end() const noexcept { return {last}; }
};

template <int D, class S>
class NodeStore {
 public:
  using box_type = Box<D, S>;
  using entry_type = StoredEntry<D, S>;
  static constexpr std::uint32_t kFanout = 1u << D;

  NodeStore() = default;

  // ---- reads ----

  // Node slots in storage, free ones included: the size of a per-node side table.
  std::size_t slots() const noexcept { return nodes_.size(); }
  // Free blocks of kFanout slots each, waiting for reuse.
  std::size_t free_blocks() const noexcept { return free_blocks_.size(); }
  bool alive(std::uint32_t n) const noexcept { return nodes_[n].alive; }
  const box_type& cell(std::uint32_t n) const noexcept { return cells_[n]; }
  // Where the placement lets the subtree's objects lie (the root: everything); what routing and splitting read.
  const box_type& bounds(std::uint32_t n) const noexcept { return bounds_[n]; }
  // What walks prune by: a box holding every object stored in the subtree, and the fit of every child. It grows
  // as objects arrive (or move within the node) and does not shrink when they leave, so it lies within the union
  // of every box the subtree has held since its node was made or the tree was built; empty (min > max) for a node
  // that has held none. Under Loose and Parent it lies inside bounds(n) as well, usually well inside: a loose
  // node's bounds allow half a cell around it, the objects in it need only their own half size.
  const box_type& fit(std::uint32_t n) const noexcept { return fits_[n]; }
  std::uint32_t parent(std::uint32_t n) const noexcept { return nodes_[n].parent; }
  std::uint32_t first_child(std::uint32_t n) const noexcept { return nodes_[n].first_child; }
  bool is_leaf(std::uint32_t n) const noexcept { return nodes_[n].first_child == kNone; }
  ChildRange children(std::uint32_t n) const noexcept {
    const std::uint32_t f = nodes_[n].first_child;
    return f == kNone ? ChildRange{} : ChildRange{f, f + kFanout};
  }
  int depth(std::uint32_t n) const noexcept { return nodes_[n].depth; }
  // Entries stored in the subtree.
  std::uint32_t count(std::uint32_t n) const noexcept { return nodes_[n].count; }
  // Union of the layer masks of the subtree's entries, exact.
  std::uint32_t layers(std::uint32_t n) const noexcept { return nodes_[n].layers; }
  // A failed split is retried only once the leaf holds this many entries.
  std::uint32_t retry_at(std::uint32_t n) const noexcept { return nodes_[n].retry_at; }
  // The subtree gate every walk applies: the subtree holds an entry in one of `mask`'s layers.
  bool reaches(std::uint32_t n, std::uint32_t mask) const noexcept {
    const Node& node = nodes_[n];
    return node.count != 0 && (node.layers & mask) != 0;
  }
  // The entries node n itself lists, in storage order.
  std::span<const entry_type> entries(std::uint32_t n) const noexcept {
    return {entries_.data() + nodes_[n].first, nodes_[n].size};
  }
  // True while the entries of every subtree are one run of the array, in pre-order, with no gaps: from a bulk build
  // until the first entry is added, removed or relocated (a move within the node keeps it).
  bool packed() const noexcept { return packed_; }
  // Every entry of n's subtree, in pre-order, as one span. Only while packed().
  std::span<const entry_type> subtree_entries(std::uint32_t n) const noexcept {
    return {entries_.data() + nodes_[n].first, nodes_[n].count};
  }
  std::uint32_t entry_ref(std::uint32_t n, std::uint32_t slot) const noexcept {
    const std::uint32_t at = nodes_[n].first + slot;
    return several_ ? entry_refs_[at] : entries_[at].id;
  }

  // An object's references: for (r = first_ref(id); r != kNone; r = next_ref(r)) visits every node listing it.
  QUADRANT_INLINE std::uint32_t first_ref(std::uint32_t id) const noexcept {
    if (several_) return id < heads_.size() ? heads_[id] : kNone;
    return id < locs_.size() && locs_[id].node != kNone ? id : kNone;
  }
  std::uint32_t next_ref(std::uint32_t r) const noexcept { return several_ ? links_[r].next : kNone; }
  std::uint32_t prev_ref(std::uint32_t r) const noexcept { return several_ ? links_[r].prev : kNone; }
  QUADRANT_INLINE std::uint32_t ref_node(std::uint32_t r) const noexcept { return locs_[r].node; }
  std::uint32_t ref_slot(std::uint32_t r) const noexcept { return locs_[r].slot; }
  std::size_t ref_slots() const noexcept { return locs_.size(); }
  // The box and layers of a stored object, from its first entry (every entry of an object holds both).
  const box_type& object_box(std::uint32_t id) const noexcept { return entry_at(first_ref(id)).box; }
  QUADRANT_INLINE std::uint32_t object_layers(std::uint32_t id) const noexcept { return entry_at(first_ref(id)).layers; }

  // The node that follows n's subtree in pre-order, staying inside `bound`'s subtree; kNone at the end.
  std::uint32_t next_after_subtree(std::uint32_t n, std::uint32_t bound) const noexcept {
    while (n != bound) {
      if ((n - 1) % kFanout != kFanout - 1) return n + 1;
      n = nodes_[n].parent;
    }
    return kNone;
  }

  // Pre-order walk starting at `start`, continuing to the end of `bound`'s subtree (start must lie in it). No
  // stack: the next node is the first child, else the next sibling, else an ancestor's next sibling.
  template <class Visit>
  void walk(std::uint32_t start, std::uint32_t bound, Visit&& visit) const {
    std::uint32_t n = start;
    while (n != kNone) {
      const Step step = visit(n);
      if (step == Step::Stop) return;
      // A skipped node's record is not read: most nodes a walk meets are siblings it skips by their fits.
      if (step == Step::Descend) {
        if (const std::uint32_t child = nodes_[n].first_child; child != kNone) {
          n = child;
          continue;
        }
      }
      n = next_after_subtree(n, bound);
    }
  }

  // Heap bytes held, capacity included.
  std::size_t bytes() const noexcept {
    std::size_t b = nodes_.capacity() * sizeof(Node) +
                    (cells_.capacity() + bounds_.capacity() + fits_.capacity()) * sizeof(box_type) +
                    (free_blocks_.capacity() + blocks_.capacity() + order_.capacity()) * sizeof(std::uint32_t) +
                    locs_.capacity() * sizeof(Loc) + links_.capacity() * sizeof(Link) +
                    heads_.capacity() * sizeof(std::uint32_t) +
                    entries_.capacity() * sizeof(entry_type) + entry_refs_.capacity() * sizeof(std::uint32_t) +
                    homes_.capacity() * sizeof(Home);
    return b;
  }
  // Bytes of one node, for the full tree's size estimate.
  static constexpr std::size_t node_bytes() noexcept { return sizeof(Node) + 3 * sizeof(box_type); }

  // ---- writes ----

  // One empty root over `cell` with `bounds`; every other node, entry and reference is dropped. Memory is kept
  // for reuse.
  void reset(const box_type& cell, const box_type& bounds) {
    cells_.resize(std::max<std::size_t>(nodes_.size(), 1));
    bounds_.resize(std::max<std::size_t>(nodes_.size(), 1));
    fits_.resize(std::max<std::size_t>(nodes_.size(), 1));
    nodes_.resize(std::max<std::size_t>(nodes_.size(), 1));
    // Every range is free now: the whole array starts over.
    entries_.clear();
    entry_refs_.clear();
    id_order_ = true;
    free_ranges_.fill(kNone);
    for (Node& node : nodes_) node.first = node.size = node.cap = 0;
    free_blocks_.clear();
    for (std::size_t b = nodes_.size(); b > 1;) {
      b -= kFanout;
      free_block(static_cast<std::uint32_t>(b));
    }
    clear_node(0);
    init_node(0, cell, bounds, kNone, 0);
    drop_references();
  }

  // Drops every entry and reference but keeps the nodes (a full tree stays built). Only occupied subtrees are
  // visited.
  void clear_entries() {
    walk(0, 0, [&](std::uint32_t n) {
      Node& node = nodes_[n];
      if (node.count == 0) return Step::Skip;
      node.size = 0;
      node.count = 0;
      node.layers = 0;
      return Step::Descend;
    });
    // Every fit, not only the occupied subtrees': a fit must hold its children's.
    std::fill(fits_.begin(), fits_.end(), empty_box());
    drop_references();
  }

  // Chooses how objects find their entries: `several` when an object may be listed by several nodes
  // (Placement::Leaves), whose references are then pooled and chained; else an object's one reference is its
  // record index. Only while the store holds no object.
  void set_several(bool several) noexcept { several_ = several; }

  // Forgets everything, memory included, leaving one root (what a moved-from tree holds).
  void release(const box_type& cell, const box_type& bounds) {
    const bool several = several_;
    const std::uint32_t merge_room = merge_room_;
    *this = NodeStore{};
    several_ = several;
    merge_room_ = merge_room;
    cells_.resize(1);
    bounds_.resize(1);
    fits_.resize(1);
    nodes_.resize(1);
    init_node(0, cell, bounds, kNone, 0);
  }

  // Room for objects with record index < n.
  void reserve_objects(std::size_t n) {
    if (several_) {
      if (heads_.size() < n) heads_.resize(n, kNone);
    } else if (locs_.size() < n) {
      locs_.resize(n);
    }
  }

  // Room for the entries of `n` objects in all, across nodes (a bulk build's total), so the array does not grow
  // while they are listed.
  void reserve_entries(std::size_t n) { reserve_entry_room(n); }

  // The most entries one merge gathers (half the split threshold): what erase keeps room for, see spare().
  void set_merge_size(std::uint32_t n) noexcept { merge_room_ = std::bit_ceil(std::max<std::uint32_t>(n, 4)); }

  // Restores the spare capacity erase relies on (see spare()) after a copy, whose vectors hold only their sizes.
  void restore_spare() {
    reserve_entry_room(entries_.size());
    reserve_block_room(nodes_.size());
  }

  // A bulk build visits nodes in pre-order: a node that lists no entry of its own gets an empty range at the end of
  // the array, so that its subtree's entries start at its `first` (see subtree_entries).
  void start_range_here(std::uint32_t n) noexcept {
    if (nodes_[n].cap == 0) nodes_[n].first = static_cast<std::uint32_t>(entries_.size());
  }

  // The entry array itself, emptied and sized for `n` entries, with the spare room erase relies on: the input of a
  // bulk build that lists every entry where it lies (list_at), so that the build's input becomes the tree's array
  // and no second array of entries is made (at 1M objects, 24 MB of fresh memory less). Only on an empty store.
  Array<entry_type>& build_arena(std::size_t n) {
    entries_.clear();
    reserve_entry_room(n);
    entries_.resize(n);
    return entries_;
  }

  // Gives node n, which has no range yet, the range [at, at + run.size()) of the entry array and lists `run` there
  // (as add_entries): for a bulk build in place (build_arena), whose run lies at those indices already, or at the
  // same indices of a second buffer. With an empty run, n's range starts where its subtree's entries will.
  void list_at(std::uint32_t n, std::uint32_t at, std::span<const entry_type> run) {
    nodes_[n].first = at;
    nodes_[n].cap = static_cast<std::uint32_t>(run.size());
    add_entries(n, run);
  }

  // The home table: a grid of (2^level)^D cells over the root's cell, each naming the node that holds it at depth
  // `level`, or the leaf above that depth that does. A k-nearest search starts its descent there instead of at
  // the root (see best_first): the levels above are the ones every search reads, and stay in the cache; the
  // chain of misses it saves is the descent's. Any live node is a valid start (the search then walks up from the
  // leaf it reaches), so the table only has to be fast, and it goes as soon as a node is freed (clear_node), which
  // could leave it naming a node that is no longer there. Made after a bulk build: about a cell per node, at most
  // 2^18 cells (2 MB); none for trees of a few nodes. Never throws: without memory for it there is no table.
  //
  // A cell also holds where the entries of a leaf under it began when the table was made (the leaf holding the most
  // of the cell's node's entries), so home_of can ask for them without first reading the node's record: one link
  // fewer in the chain of misses a search starts with. It is only a hint: a range that moved since leaves it stale,
  // which costs a wasted prefetch, never a wrong answer.
  void index_homes() noexcept {
    homes_.clear();
    std::size_t live = 0;
    int deepest = 0;
    for (const Node& node : nodes_)
      if (node.alive) {
        ++live;
        deepest = std::max(deepest, node.depth);
      }
    int level = 0;
    while (level < deepest && level < kMaxHomeLevel && (std::size_t{1} << (D * level)) < live) ++level;
    if (level < 2) return;
    const std::uint32_t side = 1u << level;
    const box_type& world = cells_[0];
    for (int i = 0; i < D; ++i) {
      const double width = static_cast<double>(world.max[i]) - static_cast<double>(world.min[i]);
      if (!(width > 0) || !std::isfinite(width)) return;
      home_scale_[i] = side / width;
    }
    try {
      homes_.resize(std::size_t{1} << (D * level));
    } catch (const std::bad_alloc&) {
      return;  // homes_ is still empty: searches start at the root
    }
    home_level_ = level;
    // The nodes at depth `level` and the leaves above it tile the root's cell: each fills its own block.
    walk(0, 0, [&](std::uint32_t n) {
      const Node& node = nodes_[n];
      if (node.depth < level && node.first_child != kNone) return Step::Descend;
      std::uint32_t lo[D], hi[D];
      for (int i = 0; i < D; ++i) {
        lo[i] = home_coordinate(cells_[n].min[i], i, true);
        hi[i] = std::max(home_coordinate(cells_[n].max[i], i, true), lo[i] + 1);
        hi[i] = std::min(hi[i], side);
      }
      std::uint32_t leaf = n;
      while (nodes_[leaf].first_child != kNone) {
        const std::uint32_t f = nodes_[leaf].first_child;
        leaf = f;
        for (std::uint32_t k = 1; k < kFanout; ++k)
          if (nodes_[f + k].count > nodes_[leaf].count) leaf = f + k;
      }
      fill_homes(lo, hi, {n, nodes_[leaf].first});
      return Step::Skip;
    });
  }
  // The node to start a search near p from: the home table's cell holding p (clamped into the root's cell), or
  // the root when there is no table. Asks for the entries the cell names (see index_homes).
  std::uint32_t home_of(const Vec<D, S>& p) const noexcept {
    if (homes_.empty()) return 0;
    std::size_t at = 0;
    for (int i = D; i-- > 0;) {
      const std::uint32_t side = 1u << home_level_;
      const std::uint32_t c = std::min(home_coordinate(p[i], i, false), side - 1);
      at = at * side + c;
    }
    const Home home = homes_[at];
    // The first 64 bytes of entries, clipped to the array (a stale hint may point anywhere in it).
    const std::size_t first = opaque(home.first);
    if (first < entries_.size())
      prefetch_range(entries_.data() + first,
                     entries_.data() + std::min(entries_.size(), first + 64 / sizeof(entry_type) + 1));
    return home.node;
  }

  // For validate: the first home table cell naming a node that is not live, or whose cell does not hold the
  // table cell's center, as its index; kNone when there is none (or no table).
  std::uint32_t bad_home() const {
    const std::uint32_t side = 1u << home_level_;
    for (std::size_t at = 0; at < homes_.size(); ++at) {
      const std::uint32_t n = homes_[at].node;
      if (n >= nodes_.size() || !nodes_[n].alive) return static_cast<std::uint32_t>(at);
      std::size_t rest = at;
      for (int i = 0; i < D; ++i) {
        const double center = static_cast<double>(cells_[0].min[i]) + (static_cast<double>(rest % side) + 0.5) /
                                                                          home_scale_[i];
        rest /= side;
        if (center < static_cast<double>(cells_[n].min[i]) || center > static_cast<double>(cells_[n].max[i]))
          return static_cast<std::uint32_t>(at);
      }
    }
    return kNone;
  }

  // Declares the store packed (see packed()); a bulk build calls it when it has listed every entry in pre-order,
  // each node starting its range with start_range_here or make_room.
  void mark_packed() noexcept {
    packed_ = true;
    id_order_ = id_order_ && !several_;
  }
  // True while packed() and every entry lies at the index of its id (one entry an object): the objects of a
  // subtree are then the ids first_index(n) .. + count(n), in order, and a walk can name them without reading
  // their entries.
  bool entries_in_id_order() const noexcept { return packed_ && id_order_; }
  // The index in the entry array of n's first entry; while packed(), also of its subtree's first.
  std::uint32_t first_index(std::uint32_t n) const noexcept { return nodes_[n].first; }
  // Every layer an entry of n's subtree is in, and perhaps more (the union kept for the walks' gate).
  std::uint32_t subtree_layers(std::uint32_t n) const noexcept { return nodes_[n].layers; }

  // Makes node n's range hold at least `extra` more entries; when it must move, its new range is exactly that
  // big and at the end of the array (a bulk build lists each node once, so its ranges come out in build order).
  void make_room(std::uint32_t n, std::uint32_t extra) {
    const Node& node = nodes_[n];
    if (node.size + extra > node.cap) relocate(n, node.size + extra, false);
  }

  // Appends `e` to node n's entries with a new reference, linked first in the chain of object e.id. Counts and
  // layers are the caller's (see add_count, add_layers).
  void add_entry(std::uint32_t n, const entry_type& e) { append(n, e, link_ref(e.id)); }

  // add_entry for each of `run` in order, whose room make_room has made: one copy of the run, one growth of the
  // fits for their union, one reference each.
  void add_entries(std::uint32_t n, std::span<const entry_type> run) {
    if (run.empty()) return;
    packed_ = false;
    Node& node = nodes_[n];
    box_type all = run[0].box;
    for (const entry_type& e : run) {
      all = merge(all, e.box);
      id_order_ &= e.id == node.first + node.size;
      const std::uint32_t r = link_ref(e.id);
      locs_[r] = Loc{n, node.size};
      entries_[node.first + node.size] = e;
      if (several_) entry_refs_[node.first + node.size] = r;
      ++node.size;
    }
    grow_fit(n, all);
  }

  // Swap-removes entry `slot` of node n and frees its reference.
  void remove_entry(std::uint32_t n, std::uint32_t slot) {
    const std::uint32_t at = nodes_[n].first + slot;
    unlink_ref(entries_[at].id, entry_ref(n, slot));
    erase_slot(n, slot);
  }

  // Removes every entry of object `id`, following its chain from the head; calls left(n) for each node it left,
  // after the entry is gone.
  template <class Left>
  void remove_object(std::uint32_t id, Left&& left) {
    for (std::uint32_t r = first_ref(id); r != kNone; r = first_ref(id)) {
      const std::uint32_t n = locs_[r].node;
      erase_slot(n, locs_[r].slot);
      unlink_ref(id, r);
      left(n);
    }
  }

  // Asks for node n's cell (a hint).
  void prefetch_cell(std::uint32_t n) const noexcept { prefetch(cells_.data() + n); }
  // Asks for the first two cache lines of the entries node n lists (a hint; nothing is read when it lists none).
  void prefetch_entries(std::uint32_t n) const noexcept {
    const Node& node = nodes_[n];
    if (node.size == 0) return;
    const entry_type* first = entries_.data() + node.first;
    prefetch(first);
    if (node.size * sizeof(entry_type) > 64) prefetch(reinterpret_cast<const char*>(first) + 64);
  }

  // Software prefetch for a batch of updates, one stage per call, each stage reading what the one before fetched
  // (the references chain (heads_ ->) locs_ -> nodes_ -> entries_): stage 0 the object's first reference, 1 the
  // reference, 2 its node and cell (and bounds when `Bounds`), 3 its entry. Only hints: a stale address is
  // harmless.
  template <int Stage, bool Bounds = true>
  void prefetch_object(std::uint32_t id) const noexcept {
    if constexpr (Stage == 0) {
      if (several_) prefetch(&heads_[id]);
      else prefetch(&locs_[id]);
    } else {
      const std::uint32_t r = several_ ? opaque(heads_[id]) : id;
      if (r == kNone) return;
      if constexpr (Stage == 1) {
        if (several_) prefetch(&locs_[r]);
      } else if constexpr (Stage == 2) {
        const std::uint32_t n = opaque(locs_[r].node);
        prefetch(&nodes_[n]);
        prefetch(&cells_[n]);
        prefetch(&fits_[n]);
        if constexpr (Bounds) prefetch(&bounds_[n]);
      } else {
        const std::uint32_t first = opaque(nodes_[opaque(locs_[r].node)].first);
        prefetch(&entries_[first + locs_[r].slot]);
      }
    }
  }

  // Gives every entry of object `id` the box `box` (the object stays in the same nodes).
  QUADRANT_INLINE void set_object_box(std::uint32_t id, const box_type& box) noexcept {
    for (std::uint32_t r = first_ref(id); r != kNone; r = next_ref(r)) {
      entry_at(r).box = box;
      grow_fit(locs_[r].node, box);
    }
  }

  // Gives the entry of a one-entry object (Loose, Parent) the box `box`, leaving the fits as they are; says whether
  // its node's fit holds the box already (if not, grow_fit(node, box) must follow before the next walk). Writes
  // that entry alone, so threads may run it at once on distinct objects.
  bool set_box_leaving_fits(std::uint32_t id, const box_type& box) noexcept {
    const std::uint32_t r = first_ref(id);
    entry_at(r).box = box;
    return contains(fits_[locs_[r].node], box);
  }

  // Grows the fit of n, and of its ancestors, to hold `box`. The climb ends at the first fit that holds it already:
  // that fit's ancestors hold it too.
  void grow_fit(std::uint32_t n, const box_type& box) noexcept {
    for (; n != kNone && !contains(fits_[n], box); n = nodes_[n].parent) fits_[n] = merge(fits_[n], box);
  }
  // Gives every entry of object `id` the mask `layers`; calls changed(n) for each node listing it.
  template <class Changed>
  void set_object_layers(std::uint32_t id, std::uint32_t layers, Changed&& changed) {
    for (std::uint32_t r = first_ref(id); r != kNone; r = next_ref(r)) {
      entry_at(r).layers = layers;
      changed(locs_[r].node);
    }
  }

  // Gives leaf n a block of kFanout children: child k's cell is cell_of(k), its bounds bounds_of(k, cell). Then
  // hands out n's entries: targets(entry) is a bit mask of the children that list it (0: it stays in n). An entry
  // bound for several children (Placement::Leaves) keeps its reference in the first and gets new ones in the
  // others. Child counts and layers are set; n's subtree count changes by the copies made, up to the root.
  // Returns the first child. Throws std::length_error when the node index space is exhausted.
  template <class CellOf, class BoundsOf, class Targets>
  std::uint32_t split(std::uint32_t n, CellOf&& cell_of, BoundsOf&& bounds_of, Targets&& targets) {
    const std::uint32_t first = allocate_block();
    const int depth = nodes_[n].depth + 1;
    for (std::uint32_t k = 0; k < kFanout; ++k) {
      const box_type c = cell_of(k);
      init_node(first + k, c, bounds_of(k, c), n, depth);
    }
    nodes_[n].first_child = first;
    // In storage order; entries that stay are compacted to the front, keeping their order. Appending to a child
    // may grow the array, so n's entries are addressed by index, never held by reference.
    std::int64_t added = 0, removed = 0;
    std::uint32_t kept = 0;
    const std::uint32_t size = nodes_[n].size;
    for (std::uint32_t i = 0; i < size; ++i) {
      const entry_type e = entries_[nodes_[n].first + i];
      const std::uint32_t r = entry_ref(n, i);
      const std::uint32_t mask = targets(e);
      if (mask == 0) {
        entries_[nodes_[n].first + kept] = e;
        if (several_) entry_refs_[nodes_[n].first + kept] = r;
        locs_[r].slot = kept++;
        continue;
      }
      ++removed;
      bool reused = false;
      for (std::uint32_t k = 0; k < kFanout; ++k) {
        if ((mask >> k & 1u) == 0) continue;
        append(first + k, e, reused ? link_ref(e.id) : r);
        reused = true;
        ++nodes_[first + k].count;
        nodes_[first + k].layers |= e.layers;
        ++added;
      }
    }
    nodes_[n].size = kept;
    shrink(n);
    if (added != removed) add_count(n, added - removed);
    return first;
  }

  // Makes inner node a a leaf again: the entries of its descendants move into it in pre-order, except those for
  // which keep(entry, node) is false, which are removed (a duplicate under Placement::Leaves); the blocks below a
  // are freed. a's count drops by the removed entries, up to the root.
  template <class Keep>
  void collapse(std::uint32_t a, Keep&& keep) {
    // A merge gathers at most merge_room_ entries into a, so the room kept beyond the array suffices (see spare()).
    struct Merging {
      bool& flag;
      explicit Merging(bool& f) : flag(f) { flag = true; }
      ~Merging() { flag = false; }
    } merging(merging_);
    blocks_.clear();
    const std::uint32_t first = nodes_[a].first_child;
    std::int64_t dropped = 0;
    walk(first, a, [&](std::uint32_t m) {
      if (nodes_[m].first_child != kNone) blocks_.push_back(nodes_[m].first_child);
      // Appending to a may grow the array: m's entries are addressed by index.
      for (std::uint32_t i = 0; i < nodes_[m].size; ++i) {
        const entry_type e = entries_[nodes_[m].first + i];
        const std::uint32_t r = entry_ref(m, i);
        if (!keep(e, m)) {
          unlink_ref(e.id, r);
          ++dropped;
          continue;
        }
        append(a, e, r);
      }
      return Step::Descend;
    });
    blocks_.push_back(first);
    for (std::uint32_t b : blocks_) free_block(b);
    nodes_[a].first_child = kNone;
    nodes_[a].retry_at = 0;
    if (dropped != 0) add_count(a, -dropped);
    if (entries_.capacity() < entries_.size() + spare(entries_.size())) compact();
  }

  // Unlists entry `slot` of node n but keeps its reference (see unlink_object): erase removes every entry of an
  // object first, merges the nodes its references name, then drops the references.
  void drop_entry(std::uint32_t n, std::uint32_t slot) noexcept { erase_slot(n, slot); }

  // Frees every reference of object id, whose entries drop_entry has removed.
  void unlink_object(std::uint32_t id) noexcept {
    for (std::uint32_t r = first_ref(id); r != kNone; r = first_ref(id)) unlink_ref(id, r);
  }

  // Adds delta to the subtree counts of n and its ancestors.
  void add_count(std::uint32_t n, std::int64_t delta) noexcept {
    for (; n != kNone; n = nodes_[n].parent) nodes_[n].count = static_cast<std::uint32_t>(nodes_[n].count + delta);
  }

  // Adds layer bits to n and its ancestors; an ancestor that has them already has them all the way up.
  void add_layers(std::uint32_t n, std::uint32_t bits) noexcept {
    for (; n != kNone && (nodes_[n].layers & bits) != bits; n = nodes_[n].parent) nodes_[n].layers |= bits;
  }

  // Recomputes the layer unions from n upwards after an entry left n or changed its mask. A node whose union comes
  // out unchanged ends the climb; the scan of a node stops as soon as it has found every bit it had (the common
  // case: one entry).
  void refresh_layers(std::uint32_t n) noexcept {
    for (; n != kNone; n = nodes_[n].parent) {
      Node& node = nodes_[n];
      std::uint32_t u = 0;
      if (node.first_child != kNone)
        for (std::uint32_t k = 0; k < kFanout && u != node.layers; ++k) u |= nodes_[node.first_child + k].layers;
      for (std::uint32_t i = 0; i < node.size && u != node.layers; ++i) u |= entries_[node.first + i].layers;
      if (u == node.layers) return;
      node.layers = u;
    }
  }

  void set_retry_at(std::uint32_t n, std::uint32_t at) noexcept { nodes_[n].retry_at = at; }

 private:
  // A node: 40 bytes (pinned below), whatever D and S. Its cell (children halve it) and its bounds (see bounds())
  // live in arrays of their own, so the bounds of 2^D siblings, which a walk tests one after another, share one
  // or two cache lines.
  struct Node {
    std::uint32_t parent = kNone;
    std::uint32_t first_child = kNone;
    std::uint32_t count = 0;
    std::uint32_t retry_at = 0;
    std::uint32_t layers = 0;
    int depth = 0;
    std::uint32_t first = 0, size = 0, cap = 0;  // entries_[first, first + size) in use, cap reserved
    bool alive = false;
  };
  // Where one entry of an object sits.
  struct Loc {
    std::uint32_t node = kNone, slot = 0;
  };
  // A home table cell: the node holding it, and where a leaf's entries began (a hint; see index_homes).
  struct Home {
    std::uint32_t node, first;
  };
  // The chain of one object's references (several_ only); a freed reference waits on the free list by `next`.
  struct Link {
    std::uint32_t prev = kNone, next = kNone;
  };

  static_assert(sizeof(StoredEntry<2, float>) == 24 && sizeof(StoredEntry<3, float>) == 32 &&
                    sizeof(StoredEntry<2, double>) == 40 && sizeof(StoredEntry<3, double>) == 56,
                "quadrant: a stored entry is its box and two 32-bit words");
  static_assert(sizeof(Node) == 40, "quadrant: a node is 40 bytes");

  // The deepest home table: (2^9)^2 or (2^6)^3 cells, 2^18 either way.
  static constexpr int kMaxHomeLevel = D == 2 ? 9 : 6;
  // Coordinate x on axis i in home table cells from the root's lower face, clamped to [0, 2^level]: rounded to
  // the nearest for a cell's bounds (they land on whole numbers: the cells halve the root's), else down (the
  // cell holding a point).
  std::uint32_t home_coordinate(S x, int i, bool nearest) const noexcept {
    const double c = (static_cast<double>(x) - static_cast<double>(cells_[0].min[i])) * home_scale_[i];
    const double side = static_cast<double>(1u << home_level_);
    return static_cast<std::uint32_t>(std::clamp(std::floor(nearest ? c + 0.5 : c), 0.0, side));
  }
  // Writes `home` into the home table cells [lo, hi) on every axis.
  void fill_homes(const std::uint32_t (&lo)[D], const std::uint32_t (&hi)[D], Home home) noexcept {
    const std::size_t side = std::size_t{1} << home_level_;
    if constexpr (D == 2) {
      for (std::uint32_t y = lo[1]; y < hi[1]; ++y)
        std::fill(homes_.begin() + static_cast<std::ptrdiff_t>(y * side + lo[0]),
                  homes_.begin() + static_cast<std::ptrdiff_t>(y * side + hi[0]), home);
    } else {
      for (std::uint32_t z = lo[2]; z < hi[2]; ++z)
        for (std::uint32_t y = lo[1]; y < hi[1]; ++y)
          std::fill(homes_.begin() + static_cast<std::ptrdiff_t>((z * side + y) * side + lo[0]),
                    homes_.begin() + static_cast<std::ptrdiff_t>((z * side + y) * side + hi[0]), home);
    }
  }
  // The fit of a node that holds nothing: min > max on every axis, so any box merged into it is the result.
  static constexpr box_type empty_box() noexcept {
    box_type b;
    for (int i = 0; i < D; ++i) {
      b.min[i] = std::numeric_limits<S>::max();
      b.max[i] = std::numeric_limits<S>::lowest();
    }
    return b;
  }

  void init_node(std::uint32_t n, const box_type& cell, const box_type& bounds, std::uint32_t parent, int depth) {
    cells_[n] = cell;
    bounds_[n] = bounds;
    fits_[n] = empty_box();
    Node& node = nodes_[n];
    node.parent = parent;
    node.first_child = kNone;
    node.count = 0;
    node.retry_at = 0;
    node.layers = 0;
    node.depth = depth;
    node.alive = true;
  }

  // The one place a node is returned to the free state; its range goes to the free list of its size class.
  void clear_node(std::uint32_t n) {
    homes_.clear();  // the table could name n
    Node& node = nodes_[n];
    node.alive = false;
    node.parent = kNone;
    node.first_child = kNone;
    node.count = 0;
    node.retry_at = 0;
    node.layers = 0;
    release_range(n);
  }

  // ---- entry ranges ----

  // Gives back the room a node no longer needs after a split: all of it when no entry stayed, else all but the
  // power of two that holds what stayed (inner nodes keep few entries; their leaf-sized ranges would be waste).
  void shrink(std::uint32_t n) {
    const Node& node = nodes_[n];
    if (node.size == 0) {
      release_range(n);
    } else if (std::bit_ceil(std::max<std::uint32_t>(node.size, 4)) < node.cap) {
      relocate(n, node.size, true);
    }
  }

  QUADRANT_INLINE entry_type& entry_at(std::uint32_t r) noexcept { return entries_[nodes_[locs_[r].node].first + locs_[r].slot]; }
  QUADRANT_INLINE const entry_type& entry_at(std::uint32_t r) const noexcept {
    return entries_[nodes_[locs_[r].node].first + locs_[r].slot];
  }

  // A freed range of cap c waits in class floor(log2 c) and serves requests of up to 2^class entries. The lists
  // are threaded through the free ranges themselves (the id of a free range's first entry names the next range
  // of its class), so freeing a range never allocates.
  void release_range(std::uint32_t n) noexcept {
    packed_ = false;
    Node& node = nodes_[n];
    if (node.cap != 0) {
      const unsigned c = static_cast<unsigned>(std::bit_width(node.cap) - 1);
      entries_[node.first].id = free_ranges_[c];
      free_ranges_[c] = node.first;
    }
    node.first = node.size = node.cap = 0;
  }

  // Spare capacity the entry array keeps beyond its size, restored whenever the size grows: room for one merge
  // (merge_room_) plus a 32nd. A merge that would leave less compacts the array instead (see compact), which
  // frees at least what the erases removed; with the 32nd, compactions are at least size / (32 merge_room_)
  // merges apart. So erase never grows the array, and a compaction's cost spreads over many merges (the 32nd
  // costs about one byte an object).
  std::size_t spare(std::size_t size) const noexcept { return merge_room_ + size / 32; }

  // Makes the entry arrays' capacity hold `size` entries plus the spare (growing geometrically). Not during a
  // merge: it has the room it needs.
  void reserve_entry_room(std::size_t size) {
    if (merging_) return;
    const std::size_t want = size + spare(size);
    grow_capacity(entries_, want);
    if (several_) grow_capacity(entry_refs_, want);
  }
  // The lists a merge fills (freed blocks, the blocks it frees, the ranges compact() sorts) get room for every
  // block of `slots` node slots, so erase never grows them.
  void reserve_block_room(std::size_t slots) {
    const std::size_t blocks = slots / kFanout + 1;
    grow_capacity(free_blocks_, blocks);
    grow_capacity(blocks_, blocks);
    grow_capacity(order_, slots);
  }
  // Grows by half at least (geometric, so appends stay amortised O(1)): doubling left a tree of moving objects
  // with half its entry array spare after the first relocation past the built size (1M boxes, Loose and Parent,
  // four frames of moves: 2.06M entries of capacity for 1.31M used, 49.5 bytes an object; by half: 37).
  template <class V>
  static void grow_capacity(V& v, std::size_t want) {
    if (v.capacity() < want) v.reserve(std::max(want, v.capacity() + v.capacity() / 2));
  }

  // Packs every range to the front of the array in array order, each exactly as big as its entries, and empties
  // the free lists. O(nodes + entries), plus sorting the ranges; entries keep their slots, so references stay.
  void compact() {
    order_.clear();
    for (std::uint32_t n = 0; n < nodes_.size(); ++n)
      if (nodes_[n].alive && nodes_[n].cap != 0) order_.push_back(n);  // within the room reserve_block_room keeps
    std::sort(order_.begin(), order_.end(),
              [&](std::uint32_t x, std::uint32_t y) { return nodes_[x].first < nodes_[y].first; });
    std::uint32_t at = 0;
    for (const std::uint32_t n : order_) {
      Node& node = nodes_[n];
      // Each range moves down (at <= first), in array order, so none overwrites one not yet moved.
      if (node.first != at) {
        std::copy_n(entries_.begin() + node.first, node.size, entries_.begin() + at);
        if (several_) std::copy_n(entry_refs_.begin() + node.first, node.size, entry_refs_.begin() + at);
      }
      node.first = node.size == 0 ? 0 : at;
      node.cap = node.size;
      at += node.size;
    }
    entries_.resize(at);
    if (several_) entry_refs_.resize(at);
    free_ranges_.fill(kNone);
    packed_ = false;
  }

  // Moves node n's entries to a range of at least `need` slots. A growing node (pow2) gets a power of two, from
  // the free list of that class when it has one, else at the end; make_room gets exactly `need` at the end. The
  // range at the end of the array grows in place.
  void relocate(std::uint32_t n, std::uint32_t need, bool pow2) {
    packed_ = false;
    if (need > kNone / 2) throw std::length_error("quadrant: more than 2^31 entries in one node");
    const std::uint32_t cap = pow2 ? std::bit_ceil(std::max<std::uint32_t>(need, 4)) : need;
    const std::size_t end = entries_.size();
    const Node& node = nodes_[n];
    const bool last = node.cap != 0 && node.first + node.cap == end;
    const unsigned c = static_cast<unsigned>(std::bit_width(cap) - 1);
    const bool reuse = !last && pow2 && free_ranges_[c] != kNone;
    // The last range grows or shrinks in place; otherwise a freed range of the class, or new room at the end.
    const std::size_t first = last ? node.first : reuse ? free_ranges_[c] : end;
    const std::size_t top = last ? first + cap : std::max(end, first + cap);
    if (top >= std::size_t{kNone}) throw std::length_error("quadrant: more than 2^32 node entries");
    if (top > end) reserve_entry_room(top);
    if (top != end) {
      entries_.resize(top);
      if (several_) entry_refs_.resize(top);
    }
    if (reuse) free_ranges_[c] = entries_[first].id;  // unlinked before the copy below overwrites the link
    if (!last) {
      std::copy_n(entries_.begin() + node.first, node.size, entries_.begin() + first);
      if (several_) std::copy_n(entry_refs_.begin() + node.first, node.size, entry_refs_.begin() + first);
      const std::uint32_t size = node.size;
      release_range(n);
      nodes_[n].size = size;
    }
    nodes_[n].first = static_cast<std::uint32_t>(first);
    nodes_[n].cap = cap;
  }


  // The index of the first node of a fresh block of kFanout children, reusing a freed block if there is one.
  std::uint32_t allocate_block() {
    if (!free_blocks_.empty()) {
      const std::uint32_t b = free_blocks_.back();
      free_blocks_.pop_back();
      return b;
    }
    const std::size_t first = nodes_.size();
    if (first + kFanout >= std::size_t{kNone}) throw std::length_error("quadrant: the node pool exceeds 2^32 nodes");
    // The box arrays first: slots() is nodes_.size(), so spare room in them is harmless if a later one throws.
    reserve_block_room(first + kFanout);
    cells_.resize(first + kFanout);
    bounds_.resize(first + kFanout);
    fits_.resize(first + kFanout);
    nodes_.resize(first + kFanout);
    return static_cast<std::uint32_t>(first);
  }

  void free_block(std::uint32_t first) {
    for (std::uint32_t k = 0; k < kFanout; ++k) clear_node(first + k);
    free_blocks_.push_back(first);
  }

  void drop_references() noexcept {
    if (several_) {
      locs_.clear();
      links_.clear();
      free_ref_ = kNone;
      std::fill(heads_.begin(), heads_.end(), kNone);
    } else {
      std::fill(locs_.begin(), locs_.end(), Loc{});
    }
  }

  void append(std::uint32_t n, const entry_type& e, std::uint32_t r) {
    packed_ = false;
    if (nodes_[n].size == nodes_[n].cap) relocate(n, nodes_[n].size + 1, true);
    Node& node = nodes_[n];
    locs_[r] = Loc{n, node.size};
    grow_fit(n, e.box);
    id_order_ &= e.id == node.first + node.size;
    entries_[node.first + node.size] = e;
    if (several_) entry_refs_[node.first + node.size] = r;
    ++node.size;
  }

  // Swap-removes slot `slot` of node n; its reference is left to the caller.
  void erase_slot(std::uint32_t n, std::uint32_t slot) noexcept {
    packed_ = false;
    Node& node = nodes_[n];
    const std::uint32_t last = node.size - 1;
    if (slot != last) {
      entries_[node.first + slot] = entries_[node.first + last];
      if (several_) entry_refs_[node.first + slot] = entry_refs_[node.first + last];
      locs_[entry_ref(n, slot)].slot = slot;
    }
    --node.size;
  }

  std::uint32_t allocate_ref() {
    if (free_ref_ != kNone) {
      const std::uint32_t r = free_ref_;
      free_ref_ = links_[r].next;
      locs_[r] = Loc{};
      links_[r] = Link{};
      return r;
    }
    if (locs_.size() >= std::size_t{kNone} - 1) throw std::length_error("quadrant: more than 2^32 node entries");
    // links_ first: if the second push throws, the pool's size (locs_) is unchanged and the spare link is harmless.
    links_.emplace_back();
    locs_.emplace_back();
    return static_cast<std::uint32_t>(locs_.size() - 1);
  }

  // Adds a reference for object `id`, linked first in its chain.
  std::uint32_t link_ref(std::uint32_t id) {
    if (!several_) return id;  // the record index; append records where the entry sits
    const std::uint32_t r = allocate_ref();
    links_[r].next = heads_[id];
    if (heads_[id] != kNone) links_[heads_[id]].prev = r;
    heads_[id] = r;
    return r;
  }

  void unlink_ref(std::uint32_t id, std::uint32_t r) noexcept {
    locs_[r].node = kNone;
    if (!several_) return;
    Link& link = links_[r];
    if (link.prev != kNone) links_[link.prev].next = link.next;
    else heads_[id] = link.next;
    if (link.next != kNone) links_[link.next].prev = link.prev;
    link.next = free_ref_;
    free_ref_ = r;
  }

  Array<Node> nodes_;
  Array<box_type> cells_, bounds_, fits_;  // by node index, beside nodes_
  Array<std::uint32_t> free_blocks_;
  Array<Loc> locs_;    // by reference: by object record index unless several_
  Array<Link> links_;  // by reference, several_ only
  std::uint32_t free_ref_ = kNone;
  Array<std::uint32_t> heads_;  // several_ only, per object record: its first reference
  Array<entry_type> entries_;        // every node's entries, in ranges
  Array<std::uint32_t> entry_refs_;  // several_ only, parallel to entries_: each entry's reference
  std::array<std::uint32_t, 32> free_ranges_ = free_lists();  // the first freed range of each size class
  Array<Home> homes_;            // see index_homes()
  int home_level_ = 0;
  double home_scale_[D] = {};          // home table cells per unit, by axis
  Array<std::uint32_t> blocks_;  // collapse's scratch
  Array<std::uint32_t> order_;   // compact's scratch
  std::uint32_t merge_room_ = 4;       // see set_merge_size()
  bool packed_ = false;                // see packed()
  bool id_order_ = false;              // every entry listed since reset() went to the index of its id
  bool several_ = false;               // see set_several()
  bool merging_ = false;               // inside collapse(): the array does not grow (see spare())

  static constexpr std::array<std::uint32_t, 32> free_lists() noexcept {
    std::array<std::uint32_t, 32> heads{};
    heads.fill(kNone);
    return heads;
  }
};

}  // namespace quadrant::detail
