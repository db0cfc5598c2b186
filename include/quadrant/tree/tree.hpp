// SPDX-License-Identifier: MIT
// quadrant — the class Tree<D, T, S>: the quadtree (D = 2) and octree (D = 3), one implementation. Not for direct
// inclusion: <quadrant/tree.hpp> brings it with the members defined beside their algorithms.
//
// Idea: cells halve the world; nodes live in a pool of 32-bit indices with children in contiguous blocks, so every
// walk is stackless (first child, else next sibling, else an ancestor's next sibling) and needs no memory. Each
// object has a record (its value) and a generation addressed by its handle; nodes list the objects they hold as
// (box, record index, layers) entries, and a reference per entry lets erase and move find them in O(1).
//
// The layers, from the bottom (docs/architecture.md has the map): node_store.hpp owns the memory layout;
// placement.hpp the three placements as policies; core.hpp places, splits and merges; walks.hpp and
// best_first.hpp answer queries; batch_move.hpp, parallel_pairs.hpp and cross_pairs.hpp hold the batch move, the
// pair walk on threads and the pairs between two trees. This class adds records, handles and the checked public
// API.
//
// Threads: const members may run concurrently with each other; any mutation (insert, erase, move, clear) needs
// exclusive access to the tree.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../detail/callbacks.hpp"
#include "../detail/morton.hpp"
#include "../detail/prefetch.hpp"
#include "../detail/scratch.hpp"
#include "../detail/walk_guard.hpp"
#include "../geometry.hpp"
#include "../geometry/distance.hpp"
#include "../handle.hpp"
#include "../layer_matrix.hpp"
#include "../neighbor.hpp"
#include "../node_view.hpp"
#include "../stats.hpp"
#include "best_first.hpp"
#include "core.hpp"
#include "walks.hpp"

namespace quadrant {

/// What Tree::assign takes an element of its range to be: a (box, value) or (box, value, layer mask) tuple, such
/// as std::pair<Box<D, S>, T> or std::tuple<Box<D, S>, T, std::uint32_t>.
template <class E, class B, class T>
concept TreeItem = requires { std::tuple_size<std::remove_cvref_t<E>>::value; } &&
                   (std::tuple_size_v<std::remove_cvref_t<E>> == 2 || std::tuple_size_v<std::remove_cvref_t<E>> == 3) &&
                   requires(E&& e) {
                     { std::get<0>(e) } -> std::convertible_to<const B&>;
                     T(std::get<1>(std::forward<E>(e)));
                   } &&
                   (std::tuple_size_v<std::remove_cvref_t<E>> == 2 ||
                    requires(E&& e) { { std::get<2>(e) } -> std::convertible_to<std::uint32_t>; });

/// Calls fn once for every pair of an object of `a` in `layers_a` and an object of `b` in `layers_b` whose boxes
/// overlap (touching counts): the pairs between a static level and the moving actors, with neither tree's own
/// pairs. fn takes (Handle of a, Handle of b), (const TA&, const TB&) or (Handle, const TA&, Handle, const TB&),
/// and returns void, or bool where false stops. The trees may have any placements and worlds. The objects of the
/// tree with fewer objects walk the other in groups (a subtree of up to 1024 objects, or under Leaves a node's),
/// each group once, carrying down the objects that reach each node's bounds, so the descent is shared; under Loose
/// and Parent an object whose box holds a node's whole subtree is paired with all of it untested. The order of the
/// calls is unspecified. Allocates nothing once warm; neither tree may change meanwhile (that throws
/// std::logic_error; see Tree::insert). Throws std::invalid_argument when a and b are the same tree (use
/// Tree::for_each_pair).
template <int D, class TA, class TB, class S, class Fn>
PairStats for_each_pair(const Tree<D, TA, S>& a, const Tree<D, TB, S>& b, Fn&& fn, std::uint32_t layers_a = ~0u,
                        std::uint32_t layers_b = ~0u);

/// The spatial index: objects of type T with D-dimensional boxes of scalar S. See the file comment for threads.
template <int D, class T, class S = float>
class Tree {
  static_assert(D == 2 || D == 3, "quadrant: Tree supports D = 2 (quadtree) and D = 3 (octree)");
  static_assert(std::is_floating_point_v<S>, "quadrant: the scalar type must be float or double");

 public:
  using box_type = Box<D, S>;         ///< an object's box
  using vec_type = Vec<D, S>;         ///< a point
  using value_type = T;               ///< what each object carries
  using entry_type = Entry<D, S>;     ///< an object as a node lists it (an element of NodeView::items)
  using node_view = NodeView<D, S>;   ///< what for_each_node passes
  /// Children per node: 4 for a quadtree, 8 for an octree.
  static constexpr std::uint32_t fanout = 1u << D;

  /// An empty tree over `config`. Throws std::invalid_argument for a bad Config (see check_config), and for a
  /// split_threshold of 0 whose full tree would need more than 2^24 nodes. O(1), or O(full tree) for threshold 0.
  explicit Tree(const Config<D, S>& config) : tag_(detail::next_tree_tag()), core_(checked_config(config)) {}

  /// A deep copy holding the same objects at the same handle indices. It is another tree: it refuses the
  /// original's handles; `handle_at(h.index())` names h's object in the copy. O(size + nodes).
  Tree(const Tree& other)
      : tag_(detail::next_tree_tag()), core_(other.core_), records_(other.records_),
        generations_(other.generations_), free_records_(other.free_records_), size_(other.size_) {
    // Copies hold only their sizes: give back the spare capacity erase relies on to allocate nothing.
    free_records_.reserve(records_.size());
    core_.restore_spare();
  }
  /// Replaces the contents with a deep copy of `other`; this tree's old handles are refused afterwards.
  Tree& operator=(const Tree& other) {
    detail::refuse_inside_walk(this, "copy assignment");
    if (this != &other) {
      Tree copy(other);  // has a fresh tag already
      *this = std::move(copy);
    }
    return *this;
  }
  /// Takes `other`'s objects, memory and handles (they stay valid, now naming objects of this tree). `other` is
  /// left an empty tree with the same Config and new handles. Allocates only the moved-from tree's root.
  Tree(Tree&& other) noexcept
      : tag_(other.tag_), core_(std::move(other.core_)), records_(std::move(other.records_)),
        generations_(std::move(other.generations_)), free_records_(std::move(other.free_records_)),
        size_(other.size_) {
    other.reset_after_move();
  }
  /// Takes `other`'s objects, memory and handles; this tree's old handles are refused afterwards. Being noexcept,
  /// it cannot refuse to run inside a walk of either tree (see insert): do not move a tree a callback is walking.
  Tree& operator=(Tree&& other) noexcept {
    if (this != &other) {
      tag_ = other.tag_;
      core_ = std::move(other.core_);
      records_ = std::move(other.records_);
      generations_ = std::move(other.generations_);
      free_records_ = std::move(other.free_records_);
      size_ = other.size_;
      other.reset_after_move();
    }
    return *this;
  }
  ~Tree() = default;

  /// The configuration the tree was built with.
  const Config<D, S>& config() const noexcept { return core_.config(); }

  /// Stores `value` with `box` in the layers `layers` (a mask: queries, rays, nearest and pairs given a mask see
  /// the object when the two share a bit); returns its handle. Throws std::invalid_argument (tree unchanged) when
  /// the box has a NaN or infinite coordinate or min > max, or `layers` is 0 (no query could ever see it).
  /// Amortised O(depth), plus a split when a leaf overflows.
  /// Exception safety of every mutation: bad input throws before anything changes; if memory runs out
  /// (std::bad_alloc, std::length_error) the tree may only be destroyed or assigned to. Every mutating member
  /// (insert, assign, reserve, rebuild, erase, move, set_layers, clear, copy assignment) called from a callback of
  /// one of this tree's walks (query, for_each_pair, for_each_pair_parallel, raycast, for_each_nearest,
  /// query_nodes, for_each_node, for_each) throws std::logic_error and changes nothing: collect the changes, apply
  /// them after.
  Handle insert(const box_type& box, T value, std::uint32_t layers = ~0u) {
    detail::refuse_inside_walk(this, "insert");
    check_box(box, "insert");
    check_layers(layers, "insert");
    core_.prepare_insert();
    const std::uint32_t id = allocate_record();
    Record& rec = records_[id];
    try {
      rec.value.emplace(std::move(value));
    } catch (...) {
      free_records_.push_back(id);
      throw;
    }
    ++size_;
    core_.place({box, id, layers});
    return Handle(id, generations_[id], tag_);
  }

  /// Replaces the contents with `items` (a forward range of TreeItem: (box, value) or (box, value, layers)
  /// tuples), built at once from the top down: a tree inserting them could have built (the same
  /// answers), several times faster than inserting them one by one, with objects near in space stored near in
  /// memory, which speeds up the queries that follow. Sets handles[i] to the handle of the i-th item; handle
  /// indices follow the objects' places in space, not the items' order. Every handle of the old contents goes
  /// stale. Throws std::invalid_argument naming the first bad item (a NaN or infinite coordinate, min > max, layer
  /// mask 0) with the tree unchanged; if memory runs out before the old contents go, unchanged too; if a value's
  /// constructor throws or memory runs out after, the tree is left empty.
  /// O(N + entries × depth). Its scratch (about 8 bytes an object under Loose and Parent, 60 under Leaves) stays
  /// with the calling thread for the next build, so a tree rebuilt every frame allocates nothing once warm (given
  /// handles' capacity); quadrant::release_scratch() hands it back after building a large tree that stays.
  template <std::ranges::forward_range R>
    requires TreeItem<std::ranges::range_reference_t<R>, box_type, T>
  void assign(R&& items, std::vector<Handle>& handles) {
    assign_items(std::forward<R>(items), &handles);
  }
  /// assign(items, handles) without the handles, for a tree that is only queried: the same tree, about a tenth
  /// faster to build at 1M objects. A query's handle forms, for_each and handle_at still name its objects.
  template <std::ranges::forward_range R>
    requires TreeItem<std::ranges::range_reference_t<R>, box_type, T>
  void assign(R&& items, NoHandles) {
    assign_items(std::forward<R>(items), static_cast<std::vector<Handle>*>(nullptr));
  }
  /// assign(items, handles), returning the handles.
  template <std::ranges::forward_range R>
    requires TreeItem<std::ranges::range_reference_t<R>, box_type, T>
  std::vector<Handle> assign(R&& items) {
    std::vector<Handle> handles;
    assign(std::forward<R>(items), handles);
    return handles;
  }

  /// Room for `n` objects in the records, so that inserting up to n objects does not grow them. O(n).
  void reserve(std::size_t n) {
    detail::refuse_inside_walk(this, "reserve");
    if (n >= std::size_t{detail::kNone} - 1) throw std::length_error("quadrant: reserve: more than 2^32 objects");
    core_.reserve_objects(n);
    records_.reserve(n);
    generations_.reserve(n);
  }

  /// Re-roots the tree over a new `world` (Config::world; the other settings stay), keeping every object with its
  /// handle, value, box and layers: objects that lay outside the old world, which piled into the root (see
  /// Stats::outside_world), spread over the new one's nodes. Built at once, as assign builds (O(N log N + entries ×
  /// depth)). Throws std::invalid_argument for a bad world and std::logic_error from inside a walk of this tree,
  /// with the tree unchanged; if memory runs out the tree is unchanged too.
  void rebuild(const box_type& world);

  /// Removes the object. Throws std::invalid_argument (tree unchanged) for a stale, null or foreign handle.
  /// O(depth) plus a merge when a subtree empties below the threshold; keeps the freed memory for reuse. Allocates
  /// nothing: inserts keep room for erase's free lists and merges (now and then a merge compacts the entry array
  /// in place, O(entries); see docs/core.md).
  void erase(Handle h) {
    detail::refuse_inside_walk(this, "erase");
    const std::uint32_t id = checked(h, "erase");
    core_.remove(id);
    Record& rec = records_[id];
    rec.value.reset();
    ++generations_[id];
    free_records_.push_back(id);
    --size_;
  }

  /// Gives the object a new box. O(1) while it stays in its node (Loose, Parent), plus a climb up the ancestors
  /// while the box leaves their fits; under Leaves a walk over the leaves it touches checks they are the same.
  /// Otherwise it is relocated and emptied subtrees merge. Returns true when the node(s) holding the object changed. Throws std::invalid_argument (tree
  /// unchanged) for a bad handle or box.
  bool move(Handle h, const box_type& box) {
    detail::refuse_inside_walk(this, "move");
    const std::uint32_t id = checked(h, "move");
    check_box(box, "move");
    return core_.move(id, box);
  }

  /// Moves many objects: handles[i] gets boxes[i], with the same result as move(handles[i], boxes[i]) for each i in
  /// order (a handle listed twice ends with its last box). Every handle and box is checked before anything changes:
  /// std::invalid_argument names the first bad one ("(item i)") and the tree is unchanged; so it is for spans of
  /// different sizes. While one object moves, the memory of the objects a few places ahead is fetched, so a frame
  /// of moves over a tree larger than the cache costs a fraction of one call per object. Returns how many objects
  /// changed node(s). Should memory run out half-way (std::bad_alloc), the objects before the failing one have
  /// moved and the tree is valid.
  std::size_t move(std::span<const Handle> handles, std::span<const box_type> boxes) {
    return move(handles, boxes, 1);
  }

  /// move(handles, boxes) shared by `threads` threads: this one and threads - 1 started for the call (0: one per
  /// hardware thread). The threads check the items, then give every object that stays in its node and within
  /// the node's fit (most of a frame of small moves under Loose and Parent) its new box, all at once; this thread
  /// then moves the others in order. Queries afterwards answer as after moving one by one; each object's first
  /// decision is taken against the tree as it stood before the call, so the nodes, and the count returned, can
  /// differ where a split or merge during the call changed an object's node. The batch runs on this thread alone
  /// under Leaves, when a handle is listed twice, and below 32,768 objects a thread. Checks and errors as
  /// move(handles, boxes); should memory run out, the objects moved so far keep their new boxes and the tree is
  /// valid. Allocates per call (the threads, 4 bytes an object of scratch kept by the calling thread; a batch not
  /// in increasing handle order, 1 bit a slot more).
  std::size_t move(std::span<const Handle> handles, std::span<const box_type> boxes, unsigned threads);

  /// True when `h` names an object stored in this tree now. Never throws. O(1).
  bool contains(Handle h) const noexcept {
    return h.owner_ == tag_ && h.index_ < records_.size() && records_[h.index_].value.has_value() &&
           generations_[h.index_] == h.generation_;
  }

  /// The handle of the object in slot `index` (see Handle::index), or a null Handle when the slot is free or out
  /// of range. Maps a handle of the tree this one was copied from to the same object here. O(1).
  Handle handle_at(std::uint32_t index) const noexcept {
    if (index >= records_.size() || !records_[index].value) return Handle{};
    return Handle(index, generations_[index], tag_);
  }

  /// The object's box. Throws std::invalid_argument for a bad handle. The reference lives until the next mutation.
  const box_type& bounds(Handle h) const { return core_.store().object_box(checked(h, "bounds")); }

  /// The object's value, to read or change in place. Throws std::invalid_argument for a bad handle. The reference
  /// lives until the next insert, erase or clear.
  T& value(Handle h) { return *records_[checked(h, "value")].value; }
  /// The object's value, read only.
  const T& value(Handle h) const { return *records_[checked(h, "value")].value; }

  /// The object's layer mask. Throws std::invalid_argument for a bad handle. O(1).
  std::uint32_t layers(Handle h) const { return core_.store().object_layers(checked(h, "layers")); }

  /// Gives the object a new layer mask (non-zero). Throws std::invalid_argument (tree unchanged) for a bad handle
  /// or a zero mask. O(depth) per node listing the object; allocates nothing.
  void set_layers(Handle h, std::uint32_t layers) {
    detail::refuse_inside_walk(this, "set_layers");
    const std::uint32_t id = checked(h, "set_layers");
    check_layers(layers, "set_layers");
    core_.set_layers(id, layers);
  }

  /// Objects stored.
  std::size_t size() const noexcept { return size_; }
  /// True when no object is stored.
  bool empty() const noexcept { return size_ == 0; }

  /// Removes every object; all handles go stale. Keeps every pool's memory (nodes, entries, records) so that a
  /// tree rebuilt each frame allocates nothing after the first. A full tree (split_threshold 0) keeps its nodes.
  void clear() {
    detail::refuse_inside_walk(this, "clear");
    empty_slots_from(0);
  }

  /// Calls fn for every object in `layers` (sharing a bit with the mask) whose box overlaps `shape`, each once.
  /// `shape` is any query shape of geometry.hpp of this dimension: a Box, a point Vec, Circle, Ring, Ellipse,
  /// Sector, OrientedBox, ConvexPolygon, Segment (2D); Sphere, Frustum, Segment (3D). Closed: touching counts.
  /// Exact: never reports a mere candidate (a Frustum is as exact as its plane test; see Frustum). fn takes
  /// (Handle, const T&) or (const T&) and returns void, or bool where false stops the query. Subtrees outside the
  /// shape or without the layers are skipped; under Loose and Parent a subtree wholly inside the shape is reported
  /// without testing its objects. Under Leaves the walk covers the leaves under the shape's bounding box.
  /// Allocates nothing. fn must not mutate the tree (that throws std::logic_error; see insert). Throws
  /// std::invalid_argument for an invalid shape.
  template <class Shape, class Fn>
  QueryStats query(const Shape& shape, Fn&& fn, std::uint32_t layers = ~0u) const {
    static_assert(std::is_same_v<decltype(bounding_box(shape)), box_type>,
                  "quadrant: the query shape's dimension or scalar type differs from the tree's");
    check_shape(shape);
    const detail::WalkScope walking(this);
    QueryStats st;
    auto by_id = [&](std::uint32_t id) { return detail::report_hit(fn, handle_of(id), *records_[id].value); };
    auto fetch = [&](std::uint32_t first, std::uint32_t last) {
      detail::prefetch_range(records_.data() + first, records_.data() + last);
    };
    auto hit = detail::EntryOrIdHit{[&](const stored_entry& e) { return by_id(e.id); }, by_id, fetch};
    detail::with_placement(core_.config().placement,
                           [&](auto p) { detail::query_walk(p, core_, shape, layers, st, hit); });
    return st;
  }

  /// Calls fn(Handle a, Handle b) once for every unordered pair of distinct objects in `layers` whose boxes overlap
  /// (touching counts); objects outside the mask take no part. fn may instead take the values, (const T& a, const T&
  /// b), or both, (Handle a, const T& a, Handle b, const T& b); it returns void, or bool where false stops.
  /// Allocates nothing once warm (Parent keeps a per-thread stack of the entries above the node it visits, reused
  /// by later calls); fn must not mutate the tree (that throws std::logic_error; see insert).
  template <class Fn>
  PairStats for_each_pair(Fn&& fn, std::uint32_t layers = ~0u) const {
    return pairs_with(std::forward<Fn>(fn), detail::MaskPairs{layers});
  }

  /// for_each_pair through a layer collision matrix: the pairs whose objects have a layer each that `matrix` says
  /// collide (LayerMatrix::between(players, ~0u): players against anything; a floor layer that does not collide
  /// with itself: no tile-tile pairs). Subtrees holding no layer the current object collides with are skipped, so a
  /// filtered-out pair costs no box test. Costs, order and rules otherwise as for_each_pair.
  template <class Fn>
  PairStats for_each_pair(Fn&& fn, const LayerMatrix& matrix) const {
    return pairs_with(std::forward<Fn>(fn), detail::MatrixPairs{matrix, matrix.active()});
  }

  /// for_each_pair split over `threads` threads: this one and threads - 1 started for the call (0: one per
  /// hardware thread). fn(unsigned worker, Handle a, Handle b) is called once for every pair, by workers 0 ..
  /// threads - 1 at the same time, so it must be safe to call concurrently — append to a buffer of its own per
  /// worker, say; it returns void. fn may instead take the values, (unsigned worker, const T& a, const T& b), or
  /// both, (unsigned worker, Handle a, const T& a, Handle b, const T& b): the values are then read by the workers,
  /// where a caller looking them up afterwards would read every pair's records on one thread. The order is
  /// unspecified (pairs() gives for_each_pair's order). The walk is cut
  /// into pieces at the shallowest depth with 8 nodes per thread, and idle workers take the next piece, so the
  /// split follows the work; a tree with fewer nodes runs on this thread alone. If fn throws, the workers stop and
  /// the first exception is rethrown. The tree must not change meanwhile; allocates per call (the threads, the
  /// piece list). Returns the counts summed over the workers.
  template <class Fn>
  PairStats for_each_pair_parallel(Fn&& fn, unsigned threads, std::uint32_t layers = ~0u) const;

  /// Every overlapping pair in `layers` into `out` (cleared first), in the order for_each_pair reports them,
  /// found by `threads` threads as in for_each_pair_parallel (1: this thread alone; 0: one per hardware thread).
  /// Each piece of the walk fills its own buffer; the buffers are joined in walk order, so the result does not
  /// depend on the number of threads or their timing. The tree must not change meanwhile.
  PairStats pairs(std::vector<std::pair<Handle, Handle>>& out, unsigned threads = 1, std::uint32_t layers = ~0u) const;

  /// Walks `segment` from a to b and calls fn(Handle, const T&, S t) for every object in `layers` whose box it
  /// crosses, nearest first: t in [0, 1] is the fraction where the segment enters the box (0 when a is inside).
  /// Equal fractions come in handle-index order. fn returns void, or bool where false stops — the nearest hit alone
  /// costs one call and visits only the nodes in front of it. Best-first over nodes and objects; allocates nothing
  /// once warm (a per-thread heap reused by later casts). fn must not mutate the tree (that throws
  /// std::logic_error; see insert). Throws std::invalid_argument for a segment with a NaN or infinite coordinate,
  /// or whose b - a overflows.
  template <class Fn>
  QueryStats raycast(const Segment<D, S>& segment, Fn&& fn, std::uint32_t layers = ~0u) const;

  /// The k objects in `layers` nearest to `point` within `max_distance` (inclusive), nearest first; distance is
  /// from the point to the box, 0 inside it; equal distances in handle-index order. Distances are compared in a
  /// double on every platform; double coordinates too large to square are scaled by a power of two first, so
  /// far-apart coordinates do not overflow them.
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
  /// a grid's "which cells does this shape touch". With skip_empty, subtrees holding no object are skipped. Cells wholly
  /// inside the shape are reported without a test. fn returns void, or bool where false stops. Allocates nothing.
  /// Throws std::invalid_argument for an invalid shape.
  template <class Shape, class Fn>
  void query_nodes(const Shape& shape, Fn&& fn, bool skip_empty = true) const;

  /// The leaf whose cell holds `point` (a point on a face shared by two cells belongs to the upper one, except on
  /// the world's upper faces). O(depth). Throws std::invalid_argument for a non-finite point or one outside the
  /// world (no cell holds it).
  node_view locate(const vec_type& point) const;

  /// Calls fn(const NodeView&) for every node in pre-order (a parent before its children, children in order).
  /// fn returns void, or bool where false stops. Allocates nothing.
  template <class Fn>
  void for_each_node(Fn&& fn) const;

  /// Calls fn(Handle, const T&, const Box&) for every object, in handle-index order. fn returns void, or bool where
  /// false stops. O(records ever live).
  template <class Fn>
  void for_each(Fn&& fn) const {
    const detail::WalkScope walking(this);
    for (std::uint32_t id = 0; id < records_.size(); ++id) {
      const Record& rec = records_[id];
      if (!rec.value) continue;
      if (!detail::call_and_continue(fn, Handle(id, generations_[id], tag_), *rec.value, core_.store().object_box(id)))
        return;
    }
  }

  /// Nodes, leaves, depth, objects, entries, heap bytes, objects outside the world and the root's own entries.
  /// O(nodes + records ever live).
  Stats stats() const;

  /// Checks every invariant of the tree and throws std::logic_error naming the first one broken. A debugging aid
  /// (the tests call it after every mutation): O(nodes + objects × depth), more under Leaves; it allocates.
  void validate() const;

 private:
  template <int D2, class TA, class TB, class S2, class Fn>
  friend PairStats for_each_pair(const Tree<D2, TA, S2>&, const Tree<D2, TB, S2>&, Fn&&, std::uint32_t, std::uint32_t);
  using stored_entry = detail::StoredEntry<D, S>;
  static constexpr std::uint32_t kNone = detail::kNone;

  // An object's box and layers live in its entries (see NodeStore::object_box), not here.
  struct Record {
    std::optional<T> value;  // empty while the slot is free
  };

  // assign's work (build.hpp); `handles` null: none are made (assign(items, no_handles)).
  template <class R>
  void assign_items(R&& items, std::vector<Handle>* handles);

  static const Config<D, S>& checked_config(const Config<D, S>& config) {
    check_config(config);
    return config;
  }

  // Removes every object (their generations move on, so their handles go stale) and the tree's entries; the free
  // list gets the slots from `first` on, lowest on top, for a bulk build that fills the slots below `first`.
  void empty_slots_from(std::uint32_t first) {
    for (std::uint32_t id = 0; id < records_.size(); ++id) {
      Record& rec = records_[id];
      if (!rec.value) continue;
      rec.value.reset();
      ++generations_[id];
    }
    free_records_.clear();
    for (std::uint32_t id = static_cast<std::uint32_t>(records_.size()); id-- > first;) free_records_.push_back(id);
    size_ = 0;
    core_.clear();
  }

  // The first item in [begin, end) of a batch move with a bad handle or box, or `end`; sets `increasing` to
  // whether the handles' slots increase up to there (batch_move.hpp).
  std::size_t first_bad_item(std::span<const Handle> handles, std::span<const box_type> boxes, std::size_t begin,
                             std::size_t end, bool& increasing) const noexcept;

  // Whether `b` passes check_box, without throwing.
  static bool valid_box(const box_type& b) noexcept {
    for (int i = 0; i < D; ++i)
      if (!std::isfinite(b.min[i]) || !std::isfinite(b.max[i]) || b.min[i] > b.max[i]) return false;
    return true;
  }

  // The handle of the live object in record `id`.
  Handle handle_of(std::uint32_t id) const noexcept { return Handle(id, generations_[id], tag_); }

  static Handle handle_of_erased(const void* tree, std::uint32_t id) noexcept {
    return static_cast<const Tree*>(tree)->handle_of(id);
  }

  // The state a moved-from tree is left in: empty, valid, with its own tag. A full tree (threshold 0) is rebuilt
  // on the next insert.
  void reset_after_move() noexcept {
    tag_ = detail::next_tree_tag();
    core_.release();
    records_.clear();
    generations_.clear();
    free_records_.clear();
    size_ = 0;
  }

  node_view view(std::uint32_t n) const;

  static void check_layers(std::uint32_t layers, const char* what) {
    if (layers == 0)
      throw std::invalid_argument(std::string("quadrant: ") + what + ": layer mask is 0 (no query could see the object)");
  }

  void check_nearest_args(const vec_type& point, S max_distance) const {
    check_point(point, "nearest");
    if (std::isnan(max_distance)) throw std::invalid_argument("quadrant: nearest: max_distance is NaN");
    if (max_distance < 0) throw std::invalid_argument("quadrant: nearest: max_distance is negative");
  }

  template <class Fn, class Filter>
  PairStats pairs_with(Fn&& fn, const Filter& filter) const {
    const detail::WalkScope walking(this);
    PairStats st;
    auto pair = [&](const stored_entry& a, const stored_entry& b) {
      return detail::report_pair(fn, handle_of(a.id), *records_[a.id].value, handle_of(b.id), *records_[b.id].value);
    };
    detail::with_placement(core_.config().placement, [&](auto p) {
      detail::pairs_walk(p, core_, filter, st, pair, 0, detail::PairSplit{}, [](std::uint32_t) {});
    });
    return st;
  }

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
      const std::uint32_t id = free_records_.back();
      free_records_.pop_back();
      return id;
    }
    if (records_.size() >= std::size_t{kNone} - 1) throw std::length_error("quadrant: more than 2^32 objects");
    // Room on the free list for every record, so erase never grows it.
    if (free_records_.capacity() < records_.size() + 1)
      free_records_.reserve(std::max(records_.size() + 1, 2 * free_records_.capacity()));
    core_.reserve_objects(records_.size() + 1);
    generations_.push_back(0);
    try {
      records_.emplace_back();
    } catch (...) {
      generations_.pop_back();
      throw;
    }
    return static_cast<std::uint32_t>(records_.size() - 1);
  }

  std::uint32_t tag_;
  detail::TreeCore<D, S> core_;
  detail::Array<Record> records_;
  // Generations apart from the records: reports rebuild a handle from its slot's generation, and this array
  // (4 bytes a slot) stays in cache where the records would not.
  detail::Array<std::uint32_t> generations_;
  detail::Array<std::uint32_t> free_records_;
  std::size_t size_ = 0;
};

/// A quadtree of T over scalar S.
template <class T, class S = float>
using QuadTree = Tree<2, T, S>;
/// An octree of T over scalar S.
template <class T, class S = float>
using Octree = Tree<3, T, S>;

}  // namespace quadrant
