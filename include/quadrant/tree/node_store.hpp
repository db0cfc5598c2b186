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
// vector grows. Each node keeps its entries in a vector of its own, with a parallel vector naming each entry's
// reference. A reference records where one entry of an object sits (node, slot); the references of one object
// form a doubly linked chain (several under Placement::Leaves), so erase and move find its entries in O(1).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

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
  const box_type& cell(std::uint32_t n) const noexcept { return nodes_[n].cell; }
  // What queries prune by: every object stored in the subtree lies inside (the root: everything).
  const box_type& bounds(std::uint32_t n) const noexcept { return nodes_[n].bounds; }
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
  std::span<const entry_type> entries(std::uint32_t n) const noexcept { return nodes_[n].entries; }
  std::uint32_t entry_ref(std::uint32_t n, std::uint32_t slot) const noexcept { return nodes_[n].refs[slot]; }

  // An object's references: for (r = first_ref(id); r != kNone; r = next_ref(r)) visits every node listing it.
  std::uint32_t first_ref(std::uint32_t id) const noexcept { return id < heads_.size() ? heads_[id] : kNone; }
  std::uint32_t next_ref(std::uint32_t r) const noexcept { return refs_[r].next; }
  std::uint32_t prev_ref(std::uint32_t r) const noexcept { return refs_[r].prev; }
  std::uint32_t ref_node(std::uint32_t r) const noexcept { return refs_[r].node; }
  std::uint32_t ref_slot(std::uint32_t r) const noexcept { return refs_[r].slot; }
  std::size_t ref_slots() const noexcept { return refs_.size(); }

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
      const std::uint32_t child = nodes_[n].first_child;
      n = step == Step::Descend && child != kNone ? child : next_after_subtree(n, bound);
    }
  }

  // Heap bytes held, capacity included.
  std::size_t bytes() const noexcept {
    std::size_t b = nodes_.capacity() * sizeof(Node) + free_blocks_.capacity() * sizeof(std::uint32_t) +
                    refs_.capacity() * sizeof(Ref) + heads_.capacity() * sizeof(std::uint32_t);
    for (const Node& n : nodes_) b += n.entries.capacity() * sizeof(entry_type) + n.refs.capacity() * sizeof(std::uint32_t);
    return b;
  }
  // Bytes of one node, for the full tree's size estimate.
  static constexpr std::size_t node_bytes() noexcept { return sizeof(Node); }

  // ---- writes ----

  // One empty root over `cell` with `bounds`; every other node, entry and reference is dropped. Memory is kept:
  // entry vectors keep their capacity for reuse.
  void reset(const box_type& cell, const box_type& bounds) {
    nodes_.resize(std::max<std::size_t>(nodes_.size(), 1));
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
      node.entries.clear();
      node.refs.clear();
      node.count = 0;
      node.layers = 0;
      return Step::Descend;
    });
    drop_references();
  }

  // Forgets everything, memory included, leaving one root (what a moved-from tree holds).
  void release(const box_type& cell, const box_type& bounds) {
    *this = NodeStore{};
    nodes_.resize(1);
    init_node(0, cell, bounds, kNone, 0);
  }

  // Room for objects with record index < n.
  void reserve_objects(std::size_t n) {
    if (heads_.size() < n) heads_.resize(n, kNone);
  }

  // Appends `e` to node n's entries with a new reference, linked first in the chain of object e.id. Counts and
  // layers are the caller's (see add_count, add_layers).
  void add_entry(std::uint32_t n, const entry_type& e) { append(n, e, link_ref(e.id)); }

  // Swap-removes entry `slot` of node n and frees its reference.
  void remove_entry(std::uint32_t n, std::uint32_t slot) {
    const std::uint32_t r = nodes_[n].refs[slot];
    unlink_ref(nodes_[n].entries[slot].id, r);
    erase_slot(n, slot);
  }

  // Removes every entry of object `id`, following its chain from the head; calls left(n) for each node it left,
  // after the entry is gone.
  template <class Left>
  void remove_object(std::uint32_t id, Left&& left) {
    while (heads_[id] != kNone) {
      const std::uint32_t r = heads_[id];
      const std::uint32_t n = refs_[r].node;
      erase_slot(n, refs_[r].slot);
      unlink_ref(id, r);
      left(n);
    }
  }

  // Gives every entry of object `id` the box `box` (the object stays in the same nodes).
  void set_object_box(std::uint32_t id, const box_type& box) noexcept {
    for (std::uint32_t r = heads_[id]; r != kNone; r = refs_[r].next) nodes_[refs_[r].node].entries[refs_[r].slot].box = box;
  }
  // Gives every entry of object `id` the mask `layers`; calls changed(n) for each node listing it.
  template <class Changed>
  void set_object_layers(std::uint32_t id, std::uint32_t layers, Changed&& changed) {
    for (std::uint32_t r = heads_[id]; r != kNone; r = refs_[r].next) {
      nodes_[refs_[r].node].entries[refs_[r].slot].layers = layers;
      changed(refs_[r].node);
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
    // In storage order; entries that stay are compacted to the front, keeping their order.
    std::int64_t added = 0, removed = 0;
    std::uint32_t kept = 0;
    const std::uint32_t size = static_cast<std::uint32_t>(nodes_[n].entries.size());
    for (std::uint32_t i = 0; i < size; ++i) {
      const entry_type e = nodes_[n].entries[i];
      const std::uint32_t r = nodes_[n].refs[i];
      const std::uint32_t mask = targets(e);
      if (mask == 0) {
        nodes_[n].entries[kept] = e;
        nodes_[n].refs[kept] = r;
        refs_[r].slot = kept++;
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
    nodes_[n].entries.resize(kept);
    nodes_[n].refs.resize(kept);
    if (added != removed) add_count(n, added - removed);
    return first;
  }

  // Makes inner node a a leaf again: the entries of its descendants move into it in pre-order, except those for
  // which keep(entry, node) is false, which are removed (a duplicate under Placement::Leaves); the blocks below a
  // are freed. a's count drops by the removed entries, up to the root.
  template <class Keep>
  void collapse(std::uint32_t a, Keep&& keep) {
    blocks_.clear();
    const std::uint32_t first = nodes_[a].first_child;
    std::int64_t dropped = 0;
    walk(first, a, [&](std::uint32_t m) {
      Node& node = nodes_[m];
      if (node.first_child != kNone) blocks_.push_back(node.first_child);
      for (std::uint32_t i = 0; i < node.entries.size(); ++i) {
        const entry_type e = node.entries[i];
        const std::uint32_t r = node.refs[i];
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
      for (std::size_t i = 0; i < node.entries.size() && u != node.layers; ++i) u |= node.entries[i].layers;
      if (u == node.layers) return;
      node.layers = u;
    }
  }

  void set_retry_at(std::uint32_t n, std::uint32_t at) noexcept { nodes_[n].retry_at = at; }

 private:
  // A node: 112 bytes in 2D float (pinned below). Entry storage is per node today; a packed store replaces the
  // two vectors by a range into one array.
  struct Node {
    box_type cell;    // the exact cell; children halve it
    box_type bounds;  // see bounds()
    std::uint32_t parent = kNone;
    std::uint32_t first_child = kNone;
    std::uint32_t count = 0;
    std::uint32_t retry_at = 0;
    std::uint32_t layers = 0;
    int depth = 0;
    bool alive = false;
    std::vector<entry_type> entries;
    std::vector<std::uint32_t> refs;  // parallel to entries: each entry's reference
  };
  // Where one entry of an object sits; doubly linked per object.
  struct Ref {
    std::uint32_t node = kNone, slot = 0, prev = kNone, next = kNone;
  };

  static_assert(sizeof(StoredEntry<2, float>) == 24 && sizeof(StoredEntry<3, float>) == 32 &&
                    sizeof(StoredEntry<2, double>) == 40 && sizeof(StoredEntry<3, double>) == 56,
                "quadrant: a stored entry is its box and two 32-bit words");
  static_assert(sizeof(void*) != 8 || sizeof(std::vector<int>) != 24 || D != 2 || !std::is_same_v<S, float> ||
                    sizeof(Node) == 112,
                "quadrant: a 2D float node is 112 bytes on 64-bit targets");

  void init_node(std::uint32_t n, const box_type& cell, const box_type& bounds, std::uint32_t parent, int depth) {
    Node& node = nodes_[n];
    node.cell = cell;
    node.bounds = bounds;
    node.parent = parent;
    node.first_child = kNone;
    node.count = 0;
    node.retry_at = 0;
    node.layers = 0;
    node.depth = depth;
    node.alive = true;
  }

  // The one place a node is returned to the free state. Entry vectors keep their capacity so reuse after churn
  // does not allocate.
  void clear_node(std::uint32_t n) noexcept {
    Node& node = nodes_[n];
    node.alive = false;
    node.parent = kNone;
    node.first_child = kNone;
    node.count = 0;
    node.retry_at = 0;
    node.layers = 0;
    node.entries.clear();
    node.refs.clear();
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
    nodes_.resize(first + kFanout);
    return static_cast<std::uint32_t>(first);
  }

  void free_block(std::uint32_t first) {
    for (std::uint32_t k = 0; k < kFanout; ++k) clear_node(first + k);
    free_blocks_.push_back(first);
  }

  void drop_references() noexcept {
    refs_.clear();
    free_ref_ = kNone;
    std::fill(heads_.begin(), heads_.end(), kNone);
  }

  void append(std::uint32_t n, const entry_type& e, std::uint32_t r) {
    Node& node = nodes_[n];
    refs_[r].node = n;
    refs_[r].slot = static_cast<std::uint32_t>(node.entries.size());
    node.entries.push_back(e);
    node.refs.push_back(r);
  }

  // Swap-removes slot `slot` of node n; its reference is left to the caller.
  void erase_slot(std::uint32_t n, std::uint32_t slot) noexcept {
    Node& node = nodes_[n];
    const std::uint32_t last = static_cast<std::uint32_t>(node.entries.size() - 1);
    if (slot != last) {
      node.entries[slot] = node.entries[last];
      node.refs[slot] = node.refs[last];
      refs_[node.refs[slot]].slot = slot;
    }
    node.entries.pop_back();
    node.refs.pop_back();
  }

  std::uint32_t allocate_ref() {
    if (free_ref_ != kNone) {
      const std::uint32_t r = free_ref_;
      free_ref_ = refs_[r].next;
      refs_[r] = Ref{};
      return r;
    }
    if (refs_.size() >= std::size_t{kNone} - 1) throw std::length_error("quadrant: more than 2^32 node entries");
    refs_.emplace_back();
    return static_cast<std::uint32_t>(refs_.size() - 1);
  }

  // Adds a reference for object `id`, linked first in its chain.
  std::uint32_t link_ref(std::uint32_t id) {
    const std::uint32_t r = allocate_ref();
    refs_[r].next = heads_[id];
    if (heads_[id] != kNone) refs_[heads_[id]].prev = r;
    heads_[id] = r;
    return r;
  }

  void unlink_ref(std::uint32_t id, std::uint32_t r) noexcept {
    Ref& ref = refs_[r];
    if (ref.prev != kNone) refs_[ref.prev].next = ref.next;
    else heads_[id] = ref.next;
    if (ref.next != kNone) refs_[ref.next].prev = ref.prev;
    ref.node = kNone;
    ref.next = free_ref_;
    free_ref_ = r;
  }

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> free_blocks_;
  std::vector<Ref> refs_;
  std::uint32_t free_ref_ = kNone;
  std::vector<std::uint32_t> heads_;  // per object record: its first reference
  std::vector<std::uint32_t> blocks_;  // collapse's scratch
};

}  // namespace quadrant::detail
