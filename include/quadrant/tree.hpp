// SPDX-License-Identifier: MIT
// quadrant — Tree<D, T, S>: the quadtree (D = 2) and octree (D = 3), one implementation.
//
// Idea: cells halve the world; nodes live in a pool of 32-bit indices with children in contiguous blocks, so every
// walk is stackless (first child, else next sibling, else an ancestor's next sibling) and needs no memory. Each
// object has a record (value, box, generation) addressed by its handle; nodes list the objects they hold as
// (box, handle) entries, and a reference record per entry lets erase and move find them in O(1).
//
// Threads: const members may run concurrently with each other; any mutation (insert, erase, move, clear) needs
// exclusive access to the tree.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config.hpp"
#include "detail/callbacks.hpp"
#include "detail/node_pool.hpp"
#include "geometry.hpp"
#include "handle.hpp"
#include "neighbor.hpp"
#include "node_view.hpp"
#include "stats.hpp"
#include "detail/scratch.hpp"

namespace quadrant {

/// The spatial index: objects of type T with D-dimensional boxes of scalar S. See the file comment for threads.
template <int D, class T, class S = float>
class Tree {
  static_assert(D == 2 || D == 3, "quadrant: Tree supports D = 2 (quadtree) and D = 3 (octree)");
  static_assert(std::is_floating_point_v<S>, "quadrant: the scalar type must be float or double");

 public:
  using box_type = Box<D, S>;         ///< an object's box
  using vec_type = Vec<D, S>;         ///< a point
  using value_type = T;               ///< what each object carries
  using entry_type = Entry<D, S>;     ///< an object as a node lists it (NodeView::items)
  using node_view = NodeView<D, S>;   ///< what for_each_node passes
  /// Children per node: 4 for a quadtree, 8 for an octree.
  static constexpr std::uint32_t fanout = 1u << D;

  /// An empty tree over `config`. Throws std::invalid_argument for a bad Config (see check_config), and for a
  /// split_threshold of 0 whose full tree would need more than 2^24 nodes. O(1), or O(full tree) for threshold 0.
  explicit Tree(const Config<D, S>& config) : config_(config), tag_(detail::next_tree_tag()) {
    check_config(config);
    if (config.split_threshold == 0) check_full_tree_size();
    pool_.reset_to_root(config_.world, everything());
    if (config.split_threshold == 0) build_full_tree();
  }

  /// A deep copy holding the same objects at the same handle indices. It is another tree: it refuses the
  /// original's handles; `handle_at(h.index())` names h's object in the copy. O(size + nodes).
  Tree(const Tree& other)
      : config_(other.config_), tag_(detail::next_tree_tag()), pool_(other.pool_), records_(other.records_),
        free_records_(other.free_records_), refs_(other.refs_), free_ref_(other.free_ref_), size_(other.size_) {
    retag_entries();
  }
  /// Replaces the contents with a deep copy of `other`; this tree's old handles are refused afterwards.
  Tree& operator=(const Tree& other) {
    if (this != &other) {
      Tree copy(other);  // has a fresh tag already
      *this = std::move(copy);
    }
    return *this;
  }
  /// Takes `other`'s objects, memory and handles (they stay valid, now naming objects of this tree). `other` is
  /// left an empty tree with the same Config and new handles. Allocates only the moved-from tree's root.
  Tree(Tree&& other) noexcept
      : config_(other.config_), tag_(other.tag_), pool_(std::move(other.pool_)), records_(std::move(other.records_)),
        free_records_(std::move(other.free_records_)), refs_(std::move(other.refs_)), free_ref_(other.free_ref_),
        size_(other.size_) {
    other.reset_after_move();
  }
  /// Takes `other`'s objects, memory and handles; this tree's old handles are refused afterwards.
  Tree& operator=(Tree&& other) noexcept {
    if (this != &other) {
      config_ = other.config_;
      tag_ = other.tag_;
      pool_ = std::move(other.pool_);
      records_ = std::move(other.records_);
      free_records_ = std::move(other.free_records_);
      refs_ = std::move(other.refs_);
      free_ref_ = other.free_ref_;
      size_ = other.size_;
      other.reset_after_move();
    }
    return *this;
  }
  ~Tree() = default;

  /// The configuration the tree was built with.
  const Config<D, S>& config() const noexcept { return config_; }

  /// Stores `value` with `box` in the layers `layers` (a mask: queries, rays, nearest and pairs given a mask see
  /// the object when the two share a bit); returns its handle. Throws std::invalid_argument (tree unchanged) when
  /// the box has a NaN or infinite coordinate or min > max, or `layers` is 0 (no query could ever see it).
  /// Amortised O(depth), plus a split when a leaf overflows.
  /// Exception safety of every mutation: bad input throws before anything changes; if memory runs out
  /// (std::bad_alloc, std::length_error) the tree may only be destroyed or assigned to.
  Handle insert(const box_type& box, T value, std::uint32_t layers = ~0u) {
    check_box(box, "insert");
    check_layers(layers, "insert");
    // A tree left empty by a move builds its full tree on first use.
    if (config_.split_threshold == 0 && pool_.nodes[0].first_child == kNone) build_full_tree();
    const std::uint32_t id = allocate_record();
    Record& rec = records_[id];
    try {
      rec.value.emplace(std::move(value));
    } catch (...) {
      free_records_.push_back(id);
      throw;
    }
    rec.box = box;
    rec.layers = layers;
    ++size_;
    place(id);
    return Handle(id, rec.generation, tag_);
  }

  /// Removes the object. Throws std::invalid_argument (tree unchanged) for a stale, null or foreign handle.
  /// O(depth) plus a merge when a subtree empties below the threshold; keeps the freed memory for reuse.
  void erase(Handle h) {
    const std::uint32_t id = checked(h, "erase");
    unplace(id);
    Record& rec = records_[id];
    rec.value.reset();
    ++rec.generation;
    free_records_.push_back(id);
    --size_;
    merge_touched();
  }

  /// Gives the object a new box. O(1) while it stays in its node (Loose, Parent; under Leaves a walk over the
  /// leaves it touches checks they are the same); otherwise it is relocated and emptied
  /// subtrees merge. Returns true when the node(s) holding the object changed. Throws std::invalid_argument (tree
  /// unchanged) for a bad handle or box.
  bool move(Handle h, const box_type& box) {
    const std::uint32_t id = checked(h, "move");
    check_box(box, "move");
    if (stays_put(id, box)) {
      Record& rec = records_[id];
      rec.box = box;
      for (std::uint32_t r = rec.ref; r != detail::kNone; r = refs_[r].next)
        pool_.nodes[refs_[r].node].entries[refs_[r].slot].box = box;
      return false;
    }
    unplace(id);
    records_[id].box = box;
    place(id);
    merge_touched();
    return true;
  }

  /// True when `h` names an object stored in this tree now. Never throws. O(1).
  bool contains(Handle h) const noexcept {
    return h.owner_ == tag_ && h.index_ < records_.size() && records_[h.index_].value.has_value() &&
           records_[h.index_].generation == h.generation_;
  }

  /// The handle of the object in slot `index` (see Handle::index), or a null Handle when the slot is free or out
  /// of range. Maps a handle of the tree this one was copied from to the same object here. O(1).
  Handle handle_at(std::uint32_t index) const noexcept {
    if (index >= records_.size() || !records_[index].value) return Handle{};
    return Handle(index, records_[index].generation, tag_);
  }

  /// The object's box. Throws std::invalid_argument for a bad handle. The reference lives until the next mutation.
  const box_type& bounds(Handle h) const { return records_[checked(h, "bounds")].box; }

  /// The object's value, to read or change in place. Throws std::invalid_argument for a bad handle. The reference
  /// lives until the next insert, erase or clear.
  T& value(Handle h) { return *records_[checked(h, "value")].value; }
  /// The object's value, read only.
  const T& value(Handle h) const { return *records_[checked(h, "value")].value; }

  /// The object's layer mask. Throws std::invalid_argument for a bad handle. O(1).
  std::uint32_t layers(Handle h) const { return records_[checked(h, "layers")].layers; }

  /// Gives the object a new layer mask (non-zero). Throws std::invalid_argument (tree unchanged) for a bad handle
  /// or a zero mask. O(depth) per node listing the object; allocates nothing.
  void set_layers(Handle h, std::uint32_t layers) {
    const std::uint32_t id = checked(h, "set_layers");
    check_layers(layers, "set_layers");
    Record& rec = records_[id];
    rec.layers = layers;
    for (std::uint32_t r = rec.ref; r != kNone; r = refs_[r].next) {
      pool_.nodes[refs_[r].node].entries[refs_[r].slot].layers = layers;
      add_layers(refs_[r].node, layers);
      refresh_layers(refs_[r].node);
    }
  }

  /// Objects stored.
  std::size_t size() const noexcept { return size_; }
  /// True when no object is stored.
  bool empty() const noexcept { return size_ == 0; }

  /// Removes every object; all handles go stale. Keeps every pool's memory (nodes, entries, records) so that a
  /// tree rebuilt each frame allocates nothing after the first. A full tree (split_threshold 0) keeps its nodes.
  void clear() {
    for (std::uint32_t id = 0; id < records_.size(); ++id) {
      Record& rec = records_[id];
      if (!rec.value) continue;
      rec.value.reset();
      ++rec.generation;
      rec.ref = detail::kNone;
    }
    free_records_.clear();
    for (std::uint32_t id = static_cast<std::uint32_t>(records_.size()); id-- > 0;) free_records_.push_back(id);
    refs_.clear();
    free_ref_ = detail::kNone;
    size_ = 0;
    if (config_.split_threshold == 0) {
      // The full tree stays; only occupied subtrees need emptying.
      pool_.walk(0, 0, [&](std::uint32_t i) {
        Node& n = pool_.nodes[i];
        if (n.count == 0) return Step::Skip;
        n.entries.clear();
        n.entry_refs.clear();
        n.count = 0;
        n.layers = 0;
        return Step::Descend;
      });
      return;
    }
    pool_.clear_free_list();
    for (std::size_t b = pool_.nodes.size(); b > 1;) {
      b -= fanout;
      pool_.free_block(static_cast<std::uint32_t>(b));
    }
    Node& root = pool_.nodes[0];
    root.entries.clear();
    root.entry_refs.clear();
    pool_.reset_to_root(config_.world, everything());
  }

  /// Calls fn for every object in `layers` (sharing a bit with the mask) whose box overlaps `shape`, each once.
  /// `shape` is any query shape of geometry.hpp of this dimension: a Box, a point Vec, Circle, Ring, Ellipse,
  /// Sector, OrientedBox, ConvexPolygon, Segment (2D); Sphere, Frustum, Segment (3D). Closed: touching counts.
  /// Exact: never reports a mere candidate (a Frustum is as exact as its plane test; see Frustum). fn takes
  /// (Handle, const T&) or (const T&) and returns void, or bool where false stops the query. Subtrees outside the
  /// shape or without the layers are skipped; under Loose and Parent a subtree wholly inside the shape is reported
  /// without testing its objects. Under Leaves the walk covers the leaves under the shape's bounding box.
  /// Allocates nothing. fn must not mutate the tree. Throws std::invalid_argument for an invalid shape.
  template <class Shape, class Fn>
  QueryStats query(const Shape& shape, Fn&& fn, std::uint32_t layers = ~0u) const {
    static_assert(std::is_same_v<decltype(bounding_box(shape)), box_type>,
                  "quadrant: the query shape's dimension or scalar type differs from the tree's");
    check_shape(shape);
    QueryStats st;
    if (config_.placement == Placement::Leaves) {
      query_leaves(shape, fn, layers, st);
    } else {
      query_nested(shape, fn, layers, st);
    }
    return st;
  }

  /// Calls fn(Handle a, Handle b) once for every unordered pair of distinct objects in `layers` whose boxes overlap
  /// (touching counts); objects outside the mask take no part. fn returns void, or bool where false stops.
  /// Allocates nothing; fn must not mutate the tree.
  template <class Fn>
  PairStats for_each_pair(Fn&& fn, std::uint32_t layers = ~0u) const {
    PairStats st;
    if (config_.placement == Placement::Leaves) {
      pairs_in_leaves(fn, layers, st);
    } else {
      pairs_nested(fn, layers, st);
    }
    return st;
  }

  /// Walks `segment` from a to b and calls fn(Handle, const T&, S t) for every object in `layers` whose box it
  /// crosses, nearest first: t in [0, 1] is the fraction where the segment enters the box (0 when a is inside).
  /// Equal fractions come in handle-index order. fn returns void, or bool where false stops — the nearest hit alone
  /// costs one call and visits only the nodes in front of it. Best-first over nodes and objects; allocates nothing
  /// once warm (a per-thread heap reused by later casts). fn must not mutate the tree. Throws
  /// std::invalid_argument for a segment with a NaN or infinite coordinate, or whose b - a overflows.
  template <class Fn>
  QueryStats raycast(const Segment<D, S>& segment, Fn&& fn, std::uint32_t layers = ~0u) const;

  /// The k objects in `layers` nearest to `point` within `max_distance` (inclusive), nearest first; distance is
  /// from the point to the box, 0 inside it; equal distances in handle-index order. Distances are compared in a
  /// wider type than S (double for float, long double for double), so far-apart coordinates do not overflow them.
  /// Best-first: visits the nodes nearer than the k-th answer, not every object. Throws std::invalid_argument for a non-finite point or a
  /// negative or NaN max_distance. Allocates the returned vector; see the overload that fills one you keep.
  std::vector<Neighbor<S>> nearest(const vec_type& point, std::size_t k,
                                   S max_distance = std::numeric_limits<S>::infinity(),
                                   std::uint32_t layers = ~0u) const {
    std::vector<Neighbor<S>> out;
    nearest(point, k, out, max_distance, layers);
    return out;
  }
  /// As above, into `out` (cleared first): allocates nothing once `out` and the per-thread heaps are warm. A
  /// k-bounded search: nodes farther than the k-th best so far are never opened.
  void nearest(const vec_type& point, std::size_t k, std::vector<Neighbor<S>>& out,
               S max_distance = std::numeric_limits<S>::infinity(), std::uint32_t layers = ~0u) const;
  /// Calls fn(Handle, const T&, S distance) for the objects in `layers` within `max_distance` of `point`, nearest
  /// first. fn returns void (go on to the last), or bool where false stops: an incremental nearest-neighbour
  /// search, ask for more as you need them. Costs and errors as `nearest`.
  template <class Fn>
  QueryStats for_each_nearest(const vec_type& point, Fn&& fn, S max_distance = std::numeric_limits<S>::infinity(),
                              std::uint32_t layers = ~0u) const;

  /// Calls fn(const NodeView&) for every leaf whose cell overlaps `shape` (closed; any query shape), in pre-order:
  /// the TypeScript seed's findNodesIn*. With skip_empty, subtrees holding no object are skipped. Cells wholly
  /// inside the shape are reported without a test. fn returns void, or bool where false stops. Allocates nothing.
  /// Throws std::invalid_argument for an invalid shape.
  template <class Shape, class Fn>
  void query_nodes(const Shape& shape, Fn&& fn, bool skip_empty = true) const;

  /// The leaf whose cell holds `point` (a point on a face shared by two cells belongs to the upper one, except on
  /// the world's upper faces). O(depth). Throws std::invalid_argument for a non-finite point or one outside the
  /// world (no cell holds it).
  node_view locate(const vec_type& point) const {
    check_point(point, "locate");
    if (!overlaps(config_.world, point)) throw std::invalid_argument("quadrant: locate: point outside the world");
    std::uint32_t n = 0;
    while (pool_.nodes[n].first_child != kNone) n = child_owning(n, point);
    return view(n);
  }

  /// Calls fn(const NodeView&) for every node in pre-order (a parent before its children, children in order).
  /// fn returns void, or bool where false stops. Allocates nothing.
  template <class Fn>
  void for_each_node(Fn&& fn) const {
    pool_.walk(0, 0, [&](std::uint32_t n) {
      return detail::call_and_continue(fn, view(n)) ? detail::Step::Descend : detail::Step::Stop;
    });
  }

  /// Calls fn(Handle, const T&, const Box&) for every object, in handle-index order. fn returns void, or bool where
  /// false stops. O(records ever live).
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (std::uint32_t id = 0; id < records_.size(); ++id) {
      const Record& rec = records_[id];
      if (!rec.value) continue;
      if (!detail::call_and_continue(fn, Handle(id, rec.generation, tag_), *rec.value, rec.box)) return;
    }
  }

  /// Nodes, leaves, depth, objects, entries and heap bytes. O(nodes).
  Stats stats() const {
    Stats s;
    s.objects = size_;
    s.bytes = pool_.nodes.capacity() * sizeof(Node) + pool_.free_list_bytes() +
              records_.capacity() * sizeof(Record) + free_records_.capacity() * sizeof(std::uint32_t) +
              refs_.capacity() * sizeof(Ref) + scratch_.capacity() * sizeof(std::uint32_t) +
              marks_.capacity() * sizeof(std::uint32_t);
    for (const Node& n : pool_.nodes)
      s.bytes += n.entries.capacity() * sizeof(entry_type) + n.entry_refs.capacity() * sizeof(std::uint32_t);
    pool_.walk(0, 0, [&](std::uint32_t i) {
      const Node& n = pool_.nodes[i];
      ++s.nodes;
      if (n.first_child == detail::kNone) ++s.leaves;
      s.depth = std::max(s.depth, n.depth);
      s.references += n.entries.size();
      return detail::Step::Descend;
    });
    return s;
  }

  /// Checks every invariant of the tree and throws std::logic_error naming the first one broken. A debugging aid
  /// (the tests call it after every mutation): O(nodes + objects × depth), more under Leaves; it allocates.
  void validate() const;

 private:
  using Node = detail::Node<D, S>;
  using Step = detail::Step;
  static constexpr std::uint32_t kNone = detail::kNone;

  struct Record {
    std::optional<T> value;  // empty while the slot is free
    box_type box{};
    std::uint32_t generation = 0;
    std::uint32_t layers = ~0u;
    std::uint32_t ref = kNone;  // first reference; Placement::Leaves chains one per leaf
  };
  // Where one entry of an object sits; doubly linked per object so a leaf's entry can be dropped in O(1).
  struct Ref {
    std::uint32_t node = kNone, slot = 0, prev = kNone, next = kNone;
  };

  static box_type everything() {
    constexpr S inf = std::numeric_limits<S>::infinity();
    box_type b;
    for (int i = 0; i < D; ++i) {
      b.min[i] = -inf;
      b.max[i] = inf;
    }
    return b;
  }

  // Entries carry full handles; a tree with a new tag rewrites them.
  void retag_entries() {
    for (Node& n : pool_.nodes)
      for (entry_type& e : n.entries) e.handle.owner_ = tag_;
  }

  // The state a moved-from tree is left in: empty, valid, with its own tag. A full tree (threshold 0) is rebuilt
  // on the next insert.
  void reset_after_move() noexcept {
    tag_ = detail::next_tree_tag();
    pool_ = detail::NodePool<D, S>{};
    pool_.reset_to_root(config_.world, everything());
    records_.clear();
    free_records_.clear();
    refs_.clear();
    free_ref_ = kNone;
    size_ = 0;
  }

  node_view view(std::uint32_t n) const {
    const Node& node = pool_.nodes[n];
    return node_view{node.cell,   node.bounds, node.depth, node.first_child == kNone,
                     n,           node.parent, std::span<const entry_type>(node.entries),
                     node.count,  node.layers};
  }

  static void check_layers(std::uint32_t layers, const char* what) {
    if (layers == 0)
      throw std::invalid_argument(std::string("quadrant: ") + what + ": layer mask is 0 (no query could see the object)");
  }

  // ---- handles and records ----

  std::uint32_t checked(Handle h, const char* what) const {
    if (h.is_null()) throw std::invalid_argument(std::string("quadrant: ") + what + ": null handle");
    if (h.owner_ != tag_)
      throw std::invalid_argument(std::string("quadrant: ") + what + ": handle belongs to another tree");
    if (!contains(h))
      throw std::invalid_argument(std::string("quadrant: ") + what + ": stale handle (object erased or tree cleared)");
    return h.index_;
  }

  std::uint32_t allocate_record() {
    if (!free_records_.empty()) {
      std::uint32_t id = free_records_.back();
      free_records_.pop_back();
      return id;
    }
    if (records_.size() >= std::size_t{kNone} - 1) throw std::length_error("quadrant: more than 2^32 objects");
    records_.emplace_back();
    return static_cast<std::uint32_t>(records_.size() - 1);
  }

  std::uint32_t allocate_ref() {
    if (free_ref_ != kNone) {
      std::uint32_t r = free_ref_;
      free_ref_ = refs_[r].next;
      refs_[r] = Ref{};
      return r;
    }
    if (refs_.size() >= std::size_t{kNone} - 1) throw std::length_error("quadrant: more than 2^32 node entries");
    refs_.emplace_back();
    return static_cast<std::uint32_t>(refs_.size() - 1);
  }

  void free_ref(std::uint32_t r) {
    refs_[r].node = kNone;
    refs_[r].next = free_ref_;
    free_ref_ = r;
  }

  // Adds a reference for object `id`, linked first in its chain.
  std::uint32_t link_ref(std::uint32_t id) {
    const std::uint32_t r = allocate_ref();
    Record& rec = records_[id];
    refs_[r].next = rec.ref;
    if (rec.ref != kNone) refs_[rec.ref].prev = r;
    rec.ref = r;
    return r;
  }

  void unlink_ref(std::uint32_t id, std::uint32_t r) {
    Ref& ref = refs_[r];
    if (ref.prev != kNone) refs_[ref.prev].next = ref.next;
    else records_[id].ref = ref.next;
    if (ref.next != kNone) refs_[ref.next].prev = ref.prev;
    free_ref(r);
  }

  // ---- entries ----

  void add_entry(std::uint32_t n, const entry_type& e, std::uint32_t r) {
    Node& node = pool_.nodes[n];
    refs_[r].node = n;
    refs_[r].slot = static_cast<std::uint32_t>(node.entries.size());
    node.entries.push_back(e);
    node.entry_refs.push_back(r);
  }

  // Swap-removes entry `slot` of node n (its reference is left to the caller).
  void remove_entry(std::uint32_t n, std::uint32_t slot) {
    Node& node = pool_.nodes[n];
    const std::uint32_t last = static_cast<std::uint32_t>(node.entries.size() - 1);
    if (slot != last) {
      node.entries[slot] = node.entries[last];
      node.entry_refs[slot] = node.entry_refs[last];
      refs_[node.entry_refs[slot]].slot = slot;
    }
    node.entries.pop_back();
    node.entry_refs.pop_back();
    // A leaf back under the threshold may split again as soon as it overflows.
    if (node.entries.size() <= static_cast<std::size_t>(config_.split_threshold)) node.retry_at = 0;
  }

  void add_count(std::uint32_t n, std::int64_t delta) {
    for (; n != kNone; n = pool_.nodes[n].parent)
      pool_.nodes[n].count = static_cast<std::uint32_t>(pool_.nodes[n].count + delta);
  }

  // Adds layer bits to n and its ancestors; an ancestor that has them already has them all the way up.
  void add_layers(std::uint32_t n, std::uint32_t bits) {
    for (; n != kNone && (pool_.nodes[n].layers & bits) != bits; n = pool_.nodes[n].parent)
      pool_.nodes[n].layers |= bits;
  }

  // Recomputes the layer unions from n upwards after an entry left n. A node whose union comes out unchanged ends
  // the climb; the scan of a node stops as soon as it has found every bit it had (the common case: one entry).
  void refresh_layers(std::uint32_t n) {
    for (; n != kNone; n = pool_.nodes[n].parent) {
      Node& node = pool_.nodes[n];
      std::uint32_t u = 0;
      if (node.first_child != kNone)
        for (std::uint32_t k = 0; k < fanout && u != node.layers; ++k) u |= pool_.nodes[node.first_child + k].layers;
      for (std::size_t i = 0; i < node.entries.size() && u != node.layers; ++i) u |= node.entries[i].layers;
      if (u == node.layers) return;
      node.layers = u;
    }
  }

  // ---- geometry of cells ----

  // Half-open ownership: a point on a shared cell face belongs to the upper cell, except on `outer`'s upper faces,
  // which close it. Every point of `outer` is owned by exactly one cell of any partition of it.
  static bool owns(const box_type& cell, const vec_type& p, const box_type& outer) {
    for (int i = 0; i < D; ++i) {
      if (p[i] < cell.min[i] || p[i] > cell.max[i]) return false;
      if (p[i] == cell.max[i] && cell.max[i] != outer.max[i]) return false;
    }
    return true;
  }

  static box_type child_cell(const box_type& cell, std::uint32_t k) {
    box_type c;
    for (int i = 0; i < D; ++i) {
      const S mid = std::midpoint(cell.min[i], cell.max[i]);
      const bool upper = (k >> i) & 1u;
      c.min[i] = upper ? mid : cell.min[i];
      c.max[i] = upper ? cell.max[i] : mid;
    }
    return c;
  }

  // A node's bounds (see NodeView::bounds). Loose: the cell grown by half its side, kept inside the parent's so
  // bounds nest exactly. Leaves: faces on the world's boundary open to infinity, since an object outside the world
  // is listed by the boundary leaves its clamped box touches, and each of its points then lies in one of them.
  box_type child_bounds(const box_type& cell, const box_type& parent_bounds) const {
    if (config_.placement == Placement::Parent) return cell;
    if (config_.placement == Placement::Leaves) {
      constexpr S inf = std::numeric_limits<S>::infinity();
      box_type b = cell;
      for (int i = 0; i < D; ++i) {
        if (cell.min[i] == config_.world.min[i]) b.min[i] = -inf;
        if (cell.max[i] == config_.world.max[i]) b.max[i] = inf;
      }
      return b;
    }
    box_type b;
    for (int i = 0; i < D; ++i) {
      const S half = (cell.max[i] - cell.min[i]) / 2;
      b.min[i] = std::max(cell.min[i] - half, parent_bounds.min[i]);
      b.max[i] = std::min(cell.max[i] + half, parent_bounds.max[i]);
    }
    return b;
  }

  // Splitting stops at max_depth, at min_node_size, and where floating point can no longer halve the cell.
  bool can_split(const box_type& cell, int depth) const {
    if (depth >= config_.max_depth) return false;
    for (int i = 0; i < D; ++i) {
      const S mid = std::midpoint(cell.min[i], cell.max[i]);
      if (!(cell.min[i] < mid && mid < cell.max[i])) return false;
      if (mid - cell.min[i] < config_.min_node_size || cell.max[i] - mid < config_.min_node_size) return false;
    }
    return true;
  }

  // Which child of a cell owns p: bit i is set when p is at or beyond the split on axis i. `lower` is child 0's
  // cell, whose max corner is the split point.
  static std::uint32_t child_index(const box_type& lower, const vec_type& p) {
    std::uint32_t k = 0;
    for (int i = 0; i < D; ++i)
      if (p[i] >= lower.max[i]) k |= 1u << i;
    return k;
  }

  // The child of n whose cell owns p (children must exist; p must lie in n's cell).
  std::uint32_t child_owning(std::uint32_t n, const vec_type& p) const {
    const std::uint32_t first = pool_.nodes[n].first_child;
    return first + child_index(pool_.nodes[first].cell, p);
  }

  // ---- placement: Parent and Loose (one node per object) ----

  // The point that picks the child: the min corner under Parent, the centre under Loose.
  vec_type key_point(const box_type& b) const {
    return config_.placement == Placement::Parent ? b.min : center(b);
  }

  // Whether an object whose key point the cell owns fits the node (Parent: inside the cell; Loose: inside bounds).
  bool fits(const box_type& cell, const box_type& bounds, const box_type& b) const {
    if (config_.placement == Placement::Loose) return quadrant::contains(bounds, b);
    for (int i = 0; i < D; ++i)
      if (b.max[i] > cell.max[i]) return false;
    return true;
  }

  // The child of n (which has children) that the object belongs to, or kNone if it stays in n.
  std::uint32_t route(std::uint32_t n, const box_type& b) const {
    const vec_type key = key_point(b);
    if (n == 0 && !overlaps(config_.world, key)) return kNone;
    const std::uint32_t c = child_owning(n, key);
    const Node& child = pool_.nodes[c];
    return fits(child.cell, child.bounds, b) ? c : kNone;
  }

  // True when the object belongs exactly in node n as the tree stands.
  bool belongs(std::uint32_t n, const box_type& b) const {
    const Node& node = pool_.nodes[n];
    if (n != 0 && !(owns(node.cell, key_point(b), config_.world) && fits(node.cell, node.bounds, b))) return false;
    return node.first_child == kNone || route(n, b) == kNone;
  }

  std::uint32_t target(const box_type& b) const {
    std::uint32_t n = 0;
    while (pool_.nodes[n].first_child != kNone) {
      const std::uint32_t c = route(n, b);
      if (c == kNone) break;
      n = c;
    }
    return n;
  }

  // ---- placement: Leaves (every overlapped leaf) ----

  box_type clamped(const box_type& b) const { return clamp(b, config_.world); }

  // The point that decides which single leaf reports an overlap of a and b: the min corner of their intersection,
  // clamped into the world. Both boxes are listed by the leaf that owns it.
  vec_type report_point(const box_type& a, const box_type& b) const {
    vec_type p;
    for (int i = 0; i < D; ++i) p[i] = std::max(a.min[i], b.min[i]);
    return clamp(p, config_.world);
  }

  // Calls fn(leaf) for every leaf whose cell overlaps the clamped box.
  template <class Fn>
  void for_each_leaf_overlapping(const box_type& clamped_box, Fn&& fn) const {
    pool_.walk(0, 0, [&](std::uint32_t n) {
      const Node& node = pool_.nodes[n];
      if (!overlaps(node.cell, clamped_box)) return Step::Skip;
      if (node.first_child == kNone) fn(n);
      return Step::Descend;
    });
  }

  // ---- insert / remove the entries of one object ----

  void place(std::uint32_t id) {
    const entry_type e{records_[id].box, Handle(id, records_[id].generation, tag_), records_[id].layers};
    if (config_.placement != Placement::Leaves) {
      const std::uint32_t n = target(e.box);
      add_entry(n, e, link_ref(id));
      add_count(n, 1);
      add_layers(n, e.layers);
      maybe_split(n);
      return;
    }
    scratch_.clear();
    for_each_leaf_overlapping(clamped(e.box), [&](std::uint32_t leaf) { scratch_.push_back(leaf); });
    for (std::uint32_t leaf : scratch_) {
      add_entry(leaf, e, link_ref(id));
      add_count(leaf, 1);
      add_layers(leaf, e.layers);
    }
    for (std::uint32_t leaf : scratch_) maybe_split(leaf);
  }

  // Removes every entry of the object; the nodes it left are kept in touched_ for merge_touched().
  void unplace(std::uint32_t id) {
    touched_.clear();
    Record& rec = records_[id];
    while (rec.ref != kNone) {
      const std::uint32_t r = rec.ref;
      const std::uint32_t n = refs_[r].node;
      remove_entry(n, refs_[r].slot);
      add_count(n, -1);
      refresh_layers(n);
      touched_.push_back(n);
      unlink_ref(id, r);
    }
  }

  bool stays_put(std::uint32_t id, const box_type& b) {
    const Record& rec = records_[id];
    if (config_.placement != Placement::Leaves) return belongs(refs_[rec.ref].node, b);
    // Same set of leaves: count the leaves the new box overlaps that already list the object.
    if (marks_.size() < pool_.nodes.size()) marks_.resize(pool_.nodes.size(), 0);
    if (++mark_stamp_ == 0) {
      std::fill(marks_.begin(), marks_.end(), 0);
      mark_stamp_ = 1;
    }
    std::size_t listed = 0;
    for (std::uint32_t r = rec.ref; r != kNone; r = refs_[r].next, ++listed) marks_[refs_[r].node] = mark_stamp_;
    std::size_t overlapped = 0;
    bool same = true;
    for_each_leaf_overlapping(clamped(b), [&](std::uint32_t leaf) {
      ++overlapped;
      if (marks_[leaf] != mark_stamp_) same = false;
    });
    return same && overlapped == listed;
  }

  // ---- split ----

  void make_children(std::uint32_t n) {
    const std::uint32_t first = pool_.allocate_block();
    const box_type cell = pool_.nodes[n].cell;
    const box_type bounds = pool_.nodes[n].bounds;
    const int depth = pool_.nodes[n].depth + 1;
    for (std::uint32_t k = 0; k < fanout; ++k) {
      Node& c = pool_.nodes[first + k];
      c.cell = child_cell(cell, k);
      c.bounds = child_bounds(c.cell, bounds);
      c.parent = n;
      c.first_child = kNone;
      c.count = 0;
      c.retry_at = 0;
      c.layers = 0;
      c.depth = depth;
      c.alive = true;
    }
    pool_.nodes[n].first_child = first;
  }

  // Whether a clamped box occupies part of a cell rather than merely touching it: on each axis where the box has
  // extent it overlaps the cell's interior; on each axis where it is flat, the cell owns its coordinate. Under
  // Leaves a box is listed by every leaf it touches (boxes are closed), but only the leaves it occupies count
  // towards splitting: a split can never separate boxes from a face they touch, and counting them would refine the
  // tree along that face down to max_depth.
  bool occupies(const box_type& cb, const box_type& cell) const {
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
  //  * the objects do not all occupy the same two or more children: boxes sharing an edge or a face stay together
  //    in every child along it, and splitting there would refine that edge down to max_depth. (All in the same one
  //    child is allowed: a cluster separates deeper down.)
  bool split_helps(std::uint32_t n) const {
    const Node& node = pool_.nodes[n];
    box_type cells[fanout], bounds[fanout];
    for (std::uint32_t k = 0; k < fanout; ++k) {
      cells[k] = child_cell(node.cell, k);
      bounds[k] = child_bounds(cells[k], node.bounds);
    }
    if (config_.placement == Placement::Leaves) {
      std::size_t occupying = 0, in_children = 0;
      std::uint32_t first_mask = 0;
      bool all_same = true;
      for (const entry_type& e : node.entries) {
        const box_type cb = clamped(e.box);
        if (!occupies(cb, node.cell)) continue;
        std::uint32_t mask = 0;
        for (std::uint32_t k = 0; k < fanout; ++k)
          if (occupies(cb, cells[k])) mask |= 1u << k;
        in_children += static_cast<std::size_t>(std::popcount(mask));
        if (occupying++ == 0) first_mask = mask;
        else all_same = all_same && mask == first_mask;
      }
      if (occupying <= static_cast<std::size_t>(config_.split_threshold)) return false;
      if (in_children > occupying * (fanout / 2)) return false;
      return !all_same || std::popcount(first_mask) == 1;
    }
    for (const entry_type& e : node.entries) {
      const vec_type key = key_point(e.box);
      if (n == 0 && !overlaps(config_.world, key)) continue;
      const std::uint32_t k = child_index(cells[0], key);
      if (fits(cells[k], bounds[k], e.box)) return true;
    }
    return false;
  }

  void maybe_split(std::uint32_t start) {
    const std::size_t threshold = static_cast<std::size_t>(config_.split_threshold);
    if (config_.split_threshold == 0) return;
    // New children may overflow in turn; the walk visits them right after their parent splits.
    pool_.walk(start, start, [&](std::uint32_t n) {
      Node& node = pool_.nodes[n];
      if (node.first_child != kNone) return n == start ? Step::Skip : Step::Descend;
      if (node.entries.size() <= threshold || node.entries.size() < node.retry_at) return Step::Skip;
      if (!can_split(node.cell, node.depth)) return Step::Skip;
      if (!split_helps(n)) {
        node.retry_at = static_cast<std::uint32_t>(std::min<std::size_t>(2 * node.entries.size(), kNone));
        return Step::Skip;
      }
      split(n);
      return Step::Descend;
    });
  }

  void split(std::uint32_t n) {
    make_children(n);
    if (config_.placement != Placement::Leaves) {
      for (std::uint32_t i = 0; i < pool_.nodes[n].entries.size();) {
        const entry_type e = pool_.nodes[n].entries[i];
        const std::uint32_t c = route(n, e.box);
        if (c == kNone) {
          ++i;
          continue;
        }
        const std::uint32_t r = pool_.nodes[n].entry_refs[i];
        remove_entry(n, i);
        add_entry(c, e, r);
        ++pool_.nodes[c].count;
        pool_.nodes[c].layers |= e.layers;
      }
      return;
    }
    // Leaves: each entry goes to every child it overlaps; its reference is reused for the first.
    Node& node = pool_.nodes[n];
    const std::uint32_t first = node.first_child;
    std::int64_t added = 0;
    for (std::uint32_t i = 0; i < node.entries.size(); ++i) {
      const entry_type e = node.entries[i];
      const box_type cb = clamped(e.box);
      std::uint32_t r = node.entry_refs[i];
      bool reused = false;
      for (std::uint32_t k = 0; k < fanout; ++k) {
        if (!overlaps(pool_.nodes[first + k].cell, cb)) continue;
        add_entry(first + k, e, reused ? link_ref(e.handle.index_) : r);
        reused = true;
        ++pool_.nodes[first + k].count;
        pool_.nodes[first + k].layers |= e.layers;
        ++added;
      }
    }
    const std::int64_t removed = static_cast<std::int64_t>(node.entries.size());
    node.entries.clear();
    node.entry_refs.clear();
    add_count(n, added - removed);
  }

  // ---- merge ----

  // Collapses, for each node an object just left, the highest ancestor whose subtree holds at most half the split
  // threshold, so churn does not leave dead nodes behind. A full tree (threshold 0) never merges.
  void merge_touched() {
    if (config_.split_threshold == 0) return;
    const std::uint32_t limit = static_cast<std::uint32_t>(config_.split_threshold / 2);
    for (std::size_t t = 0; t < touched_.size(); ++t) {
      std::uint32_t n = touched_[t];
      while (n != kNone && pool_.nodes[n].alive) {
        std::uint32_t highest = kNone;
        for (std::uint32_t a = n; a != kNone; a = pool_.nodes[a].parent)
          if (pool_.nodes[a].first_child != kNone && pool_.nodes[a].count <= limit) highest = a;
        if (highest == kNone) break;
        collapse(highest);
        // Dropping duplicates (Placement::Leaves) lowers the counts above, which may allow a higher merge.
        n = highest;
      }
    }
  }

  void collapse(std::uint32_t a) {
    blocks_.clear();
    const std::uint32_t first = pool_.nodes[a].first_child;
    const box_type outer = pool_.nodes[a].cell;
    const bool leaves = config_.placement == Placement::Leaves;
    pool_.walk(first, a, [&](std::uint32_t m) {
      Node& node = pool_.nodes[m];
      if (node.first_child != kNone) blocks_.push_back(node.first_child);
      for (std::uint32_t i = 0; i < node.entries.size(); ++i) {
        const entry_type& e = node.entries[i];
        const std::uint32_t r = node.entry_refs[i];
        // Under Leaves an object listed by several leaves is kept once: from the leaf owning its clamped min corner.
        if (leaves && !owns(node.cell, clamp(clamp(e.box.min, config_.world), outer), outer)) {
          unlink_ref(e.handle.index_, r);
          continue;
        }
        add_entry(a, e, r);
      }
      return Step::Descend;
    });
    blocks_.push_back(first);
    for (std::uint32_t b : blocks_) pool_.free_block(b);
    Node& node = pool_.nodes[a];
    node.first_child = kNone;
    node.retry_at = 0;
    const std::int64_t dropped = static_cast<std::int64_t>(node.count) - static_cast<std::int64_t>(node.entries.size());
    if (dropped != 0) add_count(a, -dropped);
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
    // 2^24 nodes is already about 2 GB for an octree; beyond that a full tree is a mistake, not a grid.
    if (nodes > double{1u << 24})
      throw std::invalid_argument("quadrant: split_threshold 0 builds the full tree down to depth " +
                                  std::to_string(levels) + ": " + std::to_string(static_cast<long long>(nodes)) +
                                  " nodes, about " + std::to_string(static_cast<long long>(nodes * sizeof(Node) / 1e6)) +
                                  " MB (the limit is 2^24 nodes); lower max_depth or raise min_node_size");
  }

  void build_full_tree() {
    pool_.walk(0, 0, [&](std::uint32_t n) {
      if (can_split(pool_.nodes[n].cell, pool_.nodes[n].depth)) make_children(n);
      return Step::Descend;
    });
  }

  // ---- queries and pairs (defined in detail/walks.hpp) ----

  template <class Shape, class Fn>
  void query_nested(const Shape& shape, Fn& fn, std::uint32_t layers, QueryStats& st) const;

  template <class Fn>
  bool report_subtree(std::uint32_t top, Fn& fn, std::uint32_t layers, QueryStats& st) const;

  template <class Fn>
  bool hit(const entry_type& e, Fn& fn, QueryStats& st) const;

  template <class Shape, class Fn>
  void query_leaves(const Shape& shape, Fn& fn, std::uint32_t layers, QueryStats& st) const;

  void check_nearest_args(const vec_type& point, S max_distance) const {
    check_point(point, "nearest");
    if (std::isnan(max_distance)) throw std::invalid_argument("quadrant: nearest: max_distance is NaN");
    if (max_distance < 0) throw std::invalid_argument("quadrant: nearest: max_distance is negative");
  }

  // Under Leaves an object is listed by several leaves; a best-first walk reports it from the one leaf that is
  // first by (key, index) among those the walk reaches, so each object is met once with no per-query set.
  template <class K, class Key>
  bool first_leaf_of(std::uint32_t id, std::uint32_t n, K key_n, Key&& key) const;

  template <class K, class NodeKey, class EntryKey, class Report>
  QueryStats best_first(std::uint32_t layers, NodeKey&& node_key, EntryKey&& entry_key, Report&& report) const;

  template <class Fn>
  bool report_pair(const entry_type& a, const entry_type& b, Fn& fn, PairStats& st) const;

  template <class Fn>
  void pairs_nested(Fn& fn, std::uint32_t layers, PairStats& st) const;

  template <class Fn>
  void pairs_in_leaves(Fn& fn, std::uint32_t layers, PairStats& st) const;

  Config<D, S> config_;
  std::uint32_t tag_;
  detail::NodePool<D, S> pool_;
  std::vector<Record> records_;
  std::vector<std::uint32_t> free_records_;
  std::vector<Ref> refs_;
  std::uint32_t free_ref_ = kNone;
  std::size_t size_ = 0;
  // Scratch for mutations (which have exclusive access), kept so that steady-state updates do not allocate.
  std::vector<std::uint32_t> scratch_, touched_, blocks_, marks_;
  std::uint32_t mark_stamp_ = 0;
};

/// A quadtree of T over scalar S.
template <class T, class S = float>
using QuadTree = Tree<2, T, S>;
/// An octree of T over scalar S.
template <class T, class S = float>
using Octree = Tree<3, T, S>;

}  // namespace quadrant

#include "detail/walks.hpp"
#include "detail/validate.hpp"
