// SPDX-License-Identifier: MIT
// quadrant — AoiWorld, the MMO area of interest: who sees whom, Enter / Leave events per tick, and skill-area
// queries. This header declares the class; its longer members are defined in links.hpp, tick.hpp, layout.hpp and
// validate.hpp beside it. Include <quadrant/aoi.hpp>, which brings them all.
//
// An AoiWorld holds entities (64-bit ids) with a position, a view radius, a mode (watcher, marker or both), a layer
// mask and a body radius. Mutations (add, move, set_view_radius, set_layers, remove) are recorded and take effect at
// the next tick(); tick() computes the new relation and reports its change as events ordered by (watcher, target).
// Between ticks, for_each_visible / for_each_watcher / query report the state of the last tick.
//
// Relation after a tick: W sees T (W != T) iff W is a watcher, T a marker, their layers share a bit, and
// dist(W, T) <= W's view radius — or W saw T at the previous tick and dist(W, T) <= view radius + hysteresis.
// Distances are Euclidean between positions, compared squared in double: (dx^2 + dy^2 <= r^2), rounded as computed
// (squares that underflow count as zero).
//
// Cost: a tick re-tests only the watchers near something that moved or changed, each against a candidate list
// (Verlet list) kept with a skin distance — see aoi/core.hpp and docs/aoi.md. No allocation per tick once
// the lists, trees and the event buffer have grown to their working size.
//
// Threads: const members (for_each_visible, for_each_watcher, query, contains, size...) may run concurrently with
// each other; every mutation and tick() need exclusive access.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../detail/callbacks.hpp"
#include "../detail/inline.hpp"
#include "../detail/scratch.hpp"
#include "../geometry.hpp"
#include "../handle.hpp"
#include "../tree.hpp"
#include "core.hpp"
#include "events.hpp"

namespace quadrant {

/// How an AoiWorld is set up. Checked by the AoiWorld constructor.
template <class S = float>
struct AoiSettings {
  /// The region where entities usually are (the trees' root cell). Entities outside it still work, only slower.
  /// Finite with min < max on both axes.
  Box<2, S> world;
  /// A pair already visible stays visible until its distance exceeds view radius + hysteresis (no flapping at the
  /// edge). Finite, >= 0. See docs/aoi.md for advice (a few ticks of movement).
  S hysteresis = 0;
  /// Verlet skin: an entity re-indexes its neighbourhood after drifting more than skin / 2. Bigger: fewer
  /// re-indexings, more candidates tested per tick (see docs/aoi.md). 0 (the default) picks 0.6 times the median
  /// view radius + hysteresis of the watchers at the first tick that has some. Finite, >= 0.
  S skin = 0;
  /// Depth limit of the internal trees (see Config::max_depth).
  int max_depth = 8;
  /// Split threshold of the internal trees (see Config::split_threshold); must be >= 1. The default, 16, measured
  /// best at 10k entities, in tick time and in memory, against 8 and 32.
  int split_threshold = 16;
};

/// The area-of-interest world. Not copyable (it owns trees and large per-entity lists); movable.
/// Ids are any 64-bit values chosen by the caller. See the file comment for semantics and threads.
template <class S = float>
class AoiWorld {
 public:
  using vec_type = Vec<2, S>;  ///< a position

  /// An empty world. Throws std::invalid_argument for bad settings (empty or non-finite world, negative or
  /// non-finite hysteresis or skin, max_depth < 0, split_threshold < 1).
  explicit AoiWorld(const AoiSettings<S>& settings)
      : settings_(checked(settings)),
        skin_(settings.skin > 0 ? static_cast<double>(settings.skin) : auto_skin(settings.world)),
        bodies_(tree_config(settings)),
        ranges_(tree_config(settings)) {}

  /// Not copyable: a world owns its trees and lists (copy the game state and build another).
  AoiWorld(const AoiWorld&) = delete;
  /// Not copyable.
  AoiWorld& operator=(const AoiWorld&) = delete;
  /// Takes the other world's entities and memory; the other may only be destroyed or assigned to.
  AoiWorld(AoiWorld&&) noexcept = default;
  /// Takes the other world's entities and memory.
  AoiWorld& operator=(AoiWorld&&) noexcept = default;
  /// Frees everything.
  ~AoiWorld() = default;

  /// The settings the world was built with.
  const AoiSettings<S>& settings() const noexcept { return settings_; }
  /// The skin in use (settings().skin, or the automatic value once chosen).
  S skin() const noexcept { return static_cast<S>(skin_); }

  /// Adds entity `id` at `position`; it joins the relation at the next tick. `layers` 0 makes it invisible to
  /// everything (and blind). Re-adding an id removed since the last tick is allowed: it is the same id with new
  /// values (its pairs continue if they still hold). Throws std::invalid_argument, changing nothing, for an id
  /// already present, a position coordinate that is NaN, infinite or beyond 1e150 in magnitude, a radius that is
  /// NaN, negative, infinite or beyond 1e150, or a mode outside AoiMode.
  /// Amortised O(1); allocates when the world grows. May be called from any callback of this world.
  void add(std::uint64_t id, vec_type position, S view_radius, AoiMode mode = AoiMode::Both,
           std::uint32_t layers = ~0u, S body_radius = 0) {
    detail::aoi::check_position(position, "add");
    detail::aoi::check_radius(view_radius, "add", "view_radius");
    detail::aoi::check_radius(body_radius, "add", "body_radius");
    if (mode != AoiMode::Watcher && mode != AoiMode::Marker && mode != AoiMode::Both)
      detail::aoi::fail("add", "mode is not an AoiMode value");
    const auto it = slot_of_.find(id);
    std::uint32_t s;
    if (it != slot_of_.end()) {
      s = it->second;
      if ((cold_[s].flags & detail::aoi::kRemoved) == 0)
        detail::aoi::fail("add", "id " + std::to_string(id) + " is already in the world");
      cold_[s].flags = static_cast<std::uint16_t>(cold_[s].flags & ~detail::aoi::kRemoved);
    } else {
      s = new_slot(id);  // may throw bad_alloc before anything is recorded
      slot_of_.emplace(id, s);
      cold_[s].flags = detail::aoi::kAdded;
    }
    detail::aoi::Cold<S>& c = cold_[s];
    c.next_pos = position;
    c.next_view_radius = view_radius;
    c.next_body_radius = body_radius;
    c.next_mode = mode;
    c.next_layers = layers;
    c.flags |= detail::aoi::kMoved | detail::aoi::kChanged;
    enlist(s);
  }

  /// Moves entity `id` to `position` at the next tick (the last move before a tick wins). Throws
  /// std::invalid_argument, changing nothing, for an unknown or removed id or a position coordinate that is NaN,
  /// infinite or beyond 1e150 in magnitude. O(1).
  void move(std::uint64_t id, vec_type position) {
    detail::aoi::check_position(position, "move");
    const std::uint32_t s = present(id, "move");
    cold_[s].next_pos = position;
    cold_[s].flags |= detail::aoi::kMoved;
    enlist(s);
  }

  /// Gives entity `id` a new view radius at the next tick. A pair seen before stays seen while within the new
  /// radius + hysteresis. Throws std::invalid_argument, changing nothing, for an unknown or removed id or a NaN,
  /// negative or infinite radius, or one beyond 1e150. O(1).
  void set_view_radius(std::uint64_t id, S radius) {
    detail::aoi::check_radius(radius, "set_view_radius", "radius");
    const std::uint32_t s = present(id, "set_view_radius");
    cold_[s].next_view_radius = radius;
    cold_[s].flags |= detail::aoi::kChanged;
    enlist(s);
  }

  /// Gives entity `id` a new layer mask at the next tick. Throws std::invalid_argument, changing nothing, for an
  /// unknown or removed id. O(1).
  void set_layers(std::uint64_t id, std::uint32_t layers) {
    const std::uint32_t s = present(id, "set_layers");
    cold_[s].next_layers = layers;
    cold_[s].flags |= detail::aoi::kChanged;
    enlist(s);
  }

  /// Removes entity `id` at the next tick: that tick reports a Leave for each of its pairs. Throws
  /// std::invalid_argument, changing nothing, for an unknown or already removed id. O(1).
  void remove(std::uint64_t id) {
    const std::uint32_t s = present(id, "remove");
    cold_[s].flags |= detail::aoi::kRemoved;
    enlist(s);
  }

  /// Applies every recorded mutation, computes the relation and calls on_event(const AoiEvent&) for each change,
  /// ordered by (watcher id, target id), each pair at most once. During the callbacks the world already holds the
  /// new relation (for_each_* report it); mutations made from a callback are recorded for the next tick. If a
  /// callback throws, the tick is still complete; the remaining events are not reported. Cost: the watchers near
  /// something that moved or changed, times their candidates, plus O(events log events per watcher); allocates
  /// nothing once warm, except after a burst: when the event buffers hold room for more than 8 events an entity
  /// and 4 times the tick before's, or for more than 4 times this tick's, they are given back once delivered, and
  /// the next such tick makes them again (a world that makes many events at every tick keeps them). Throws
  /// std::logic_error when called from inside one of its own callbacks.
  template <class Fn>
  void tick(Fn&& on_event) {
    if (in_tick_) throw std::logic_error("quadrant: aoi: tick called from inside a tick callback");
    in_tick_ = true;
    struct Finish {
      AoiWorld& world;
      ~Finish() {
        world.in_tick_ = false;
        world.release_burst();
      }
    } finish{*this};
    run_tick();
    // By index: callbacks may grow other buffers, never events_ or event_order_ (a nested tick is refused).
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const AoiEvent e = events_[event_order_.empty() ? i : event_order_[i]];
      on_event(e);
    }
  }

  /// Calls fn(std::uint64_t target) for each entity `watcher` saw at the last tick, in ascending id order. An id
  /// added since the last tick sees nothing yet; an id removed since still reports its last relation. Throws
  /// std::invalid_argument for an id that is neither. fn may mutate the world (recorded for the next tick).
  /// O(c + k log k) for c candidates and k targets; uses a per-thread buffer.
  template <class Fn>
  void for_each_visible(std::uint64_t watcher, Fn&& fn) const {
    const std::uint32_t s = known(watcher, "for_each_visible");
    Buffer buf;
    for (const std::uint32_t* e = cand_.begin(s); e != cand_.end(s); ++e)
      if ((*e & kSeenBit) != 0) buf.get().push_back(ids_[*e & kSlotMask]);
    deliver(buf, fn);
  }

  /// Calls fn(std::uint64_t watcher) for each entity that saw `target` at the last tick, in ascending id order.
  /// Same rules for ids as for_each_visible. O(c * l): each of its c candidate watchers' lists (l entries) is
  /// searched for it.
  template <class Fn>
  void for_each_watcher(std::uint64_t target, Fn&& fn) const {
    const std::uint32_t s = known(target, "for_each_watcher");
    Buffer buf;
    for_each_named(s, [&](std::uint32_t w) {
      const std::size_t i = detail::aoi::find_masked(cand_.begin(w), cand_.size(w), s, kSlotMask);
      if (i != cand_.size(w) && (cand_.begin(w)[i] & (kSeenBit | kStaleBit)) == kSeenBit) buf.get().push_back(ids_[w]);
    });
    deliver(buf, fn);  // sorts and drops the duplicates
  }

  /// Calls fn(std::uint64_t id) for each entity in `layers` (sharing a bit with the mask) whose body — the box of
  /// half-side body_radius around its position at the last tick — overlaps `shape`, in ascending id order. `shape`
  /// is any 2D query shape: Circle, Sector, Ring, OrientedBox, Ellipse, ConvexPolygon, Segment<2>, Box<2>, Vec<2>.
  /// Closed: touching counts. Throws std::invalid_argument for an invalid shape. fn may mutate the world (recorded
  /// for the next tick). Cost: one tree query over the shape's bounding box grown by skin / 2, an exact test of each
  /// body met, and O(h log h) for h hits; uses a per-thread buffer.
  template <class Shape, class Fn>
  void query(const Shape& shape, Fn&& fn, std::uint32_t layers = ~0u) const {
    check_shape(shape);
    Buffer buf;
    if (layers != 0) {
      decltype(auto) prepared = detail::prepare(shape);
      // The tree holds the body boxes around the anchors; a body is within skin / 2 of its anchor's box.
      const Box<2, S> bb = bounding_box(shape);
      const double mag = std::max(detail::aoi::max_abs(bb.min), detail::aoi::max_abs(bb.max));
      const double grow = skin_ / 2 * (1 + detail::aoi::kTol) + detail::aoi::kBodyTol * mag;
      bodies_.query(
          detail::round_out_box(bb, grow),
          [&](Handle, const std::uint32_t& s) {
            const S b = cold_[s].body_radius;
            const vec_type p = hot_[s].pos;
            if ((cold_[s].layers & layers) != 0 && overlaps(prepared, Box<2, S>{{p.x - b, p.y - b}, {p.x + b, p.y + b}}))
              buf.get().push_back(ids_[s]);
          },
          layers);
    }
    deliver(buf, fn);
  }

  /// True when `id` is present (added and not removed, counting mutations not yet ticked). O(1).
  bool contains(std::uint64_t id) const noexcept {
    const auto it = slot_of_.find(id);
    return it != slot_of_.end() && (cold_[it->second].flags & detail::aoi::kRemoved) == 0;
  }
  /// Entities in the relation as of the last tick. O(1).
  std::size_t size() const noexcept { return live_count_; }
  /// The position of `id` as of the last tick. Throws std::invalid_argument for an id not live at the last tick.
  vec_type position(std::uint64_t id) const {
    const std::uint32_t s = known(id, "position");
    if ((cold_[s].flags & detail::aoi::kLive) == 0) detail::aoi::fail("position", "id was added after the last tick");
    return hot_[s].pos;
  }
  /// Pairs (W sees T) as of the last tick. O(1).
  std::size_t pair_count() const noexcept { return pair_count_; }
  /// Heap bytes the world holds, spare capacity included: its two trees, candidate lists, records and buffers
  /// (the id map's nodes estimated at their key, value and two pointers each). O(N + nodes of the trees).
  std::size_t bytes() const {
    auto cap = [](const auto& v) { return v.capacity() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
    std::size_t b = bodies_.stats().bytes + ranges_.stats().bytes + cand_.bytes() + rcand_.bytes();
    b += slot_of_.bucket_count() * sizeof(void*) +
         slot_of_.size() * (sizeof(std::pair<const std::uint64_t, std::uint32_t>) + 2 * sizeof(void*));
    b += cap(hot_) + cap(cold_) + cap(ids_) + cap(anchors_) + cap(free_) + cap(pending_) + cap(order_) + cap(merge_) +
         cap(added_) + cap(dying_) + cap(dirty_) + cap(scratch_) + cap(old_watchers_) + cap(left_) + cap(events_) +
         cap(event_ranks_) + cap(event_order_) + cap(rank_) + cap(counts_) + cap(new_of_) + cap(keys_) +
         cap(reaches_);
    return b;
  }
  /// Checks the internal invariants (exact candidate lists, reverse lists, counts, trees) by brute force; throws
  /// std::logic_error naming the first broken one. O(N^2): for tests and debugging. Call it between ticks.
  void validate() const;

 private:
  using Cold = detail::aoi::Cold<S>;
  using Hot = detail::aoi::Hot<S>;
  using TreeType = Tree<2, std::uint32_t, S>;
  // A candidate entry: the target's slot, the seen bit (the pair held at the last tick) and the stale bit (the
  // target is out of reach or no longer eligible: the entry waits for evaluate() to report a Leave and drop it).
  static constexpr std::uint32_t kSeenBit = 0x80000000u;
  static constexpr std::uint32_t kStaleBit = 0x40000000u;
  static constexpr std::uint32_t kSlotMask = 0x3fffffffu;
  // Where a slot is anchored, dense for the re-anchoring queries. reach: reach(s), grown by kTol.
  // watching: layers while a live watcher (is_watcher), else 0 (also once removed: a dying entity watches
  // nothing); a watcher whose reach is above big_reach_ is big (see place_range). stamp and target_stamp: scratch
  // of relink, marking the entity as a watcher and as a target met (an entity may be both);
  // anchor_tick: the tick that last re-anchored it. What a re-anchor reads of the other entities it meets lies
  // here, not in their cold records: at 100k entities, where the records are far from the cache, reading the cold
  // record of each watcher met was a large part of a tick with runners.
  struct Anchor {
    Vec<2, S> at{};
    double reach = 0;
    std::uint32_t watching = 0, stamp = 0, target_stamp = 0, anchor_tick = 0;
  };

  // The ids a const call reports, collected first (so fn may mutate the world) and sorted (so the order is
  // deterministic), in a per-thread vector borrowed for the call (detail/scratch.hpp: it keeps its capacity, and a
  // nested call from fn borrows another).
  using Buffer = detail::ScratchLease<std::uint64_t>;
  template <class Fn>
  static void deliver(Buffer& buf, Fn& fn) {
    detail::Array<std::uint64_t>& ids = buf.get();
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (std::uint64_t id : ids)
      if (!detail::call_and_continue(fn, id)) return;
  }

  static const AoiSettings<S>& checked(const AoiSettings<S>& s) {
    if (!is_valid(s.world)) detail::aoi::fail("AoiSettings", "world is not a finite box with min <= max");
    if (!(s.world.min.x < s.world.max.x) || !(s.world.min.y < s.world.max.y))
      detail::aoi::fail("AoiSettings", "world is empty (min must be < max on both axes)");
    if (!std::isfinite(s.hysteresis) || s.hysteresis < 0)
      detail::aoi::fail("AoiSettings", "hysteresis must be finite and >= 0");
    if (!std::isfinite(s.skin) || s.skin < 0) detail::aoi::fail("AoiSettings", "skin must be finite and >= 0");
    if (s.max_depth < 0) detail::aoi::fail("AoiSettings", "max_depth must be >= 0");
    if (s.split_threshold < 1) detail::aoi::fail("AoiSettings", "split_threshold must be >= 1");
    return s;
  }
  // Until the automatic skin is chosen (see choose_skin), 1% of the world's longer side.
  static double auto_skin(const Box<2, S>& w) {
    return 0.01 * std::max(static_cast<double>(w.max.x) - w.min.x, static_cast<double>(w.max.y) - w.min.y);
  }
  static Config<2, S> tree_config(const AoiSettings<S>& s) {
    Config<2, S> c;
    c.world = s.world;
    c.max_depth = s.max_depth;
    c.split_threshold = s.split_threshold;
    c.placement = Placement::Loose;
    return c;
  }

  // The slot of a present id (not removed), or throws naming `what`.
  std::uint32_t present(std::uint64_t id, const char* what) const {
    const auto it = slot_of_.find(id);
    if (it == slot_of_.end() || (cold_[it->second].flags & detail::aoi::kRemoved) != 0)
      detail::aoi::fail(what, "unknown id " + std::to_string(id));
    return it->second;
  }
  // The slot of an id live at the last tick or added since, or throws.
  std::uint32_t known(std::uint64_t id, const char* what) const {
    const auto it = slot_of_.find(id);
    if (it == slot_of_.end()) detail::aoi::fail(what, "unknown id " + std::to_string(id));
    const std::uint16_t f = cold_[it->second].flags;
    if ((f & detail::aoi::kLive) == 0 && (f & detail::aoi::kRemoved) != 0)
      detail::aoi::fail(what, "unknown id " + std::to_string(id));
    return it->second;
  }

  std::uint32_t new_slot(std::uint64_t id) {
    // Reserve the map entry's room first so that nothing below can fail after a slot is taken.
    slot_of_.reserve(slot_of_.size() + 1);
    std::uint32_t s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      s = static_cast<std::uint32_t>(cold_.size());
      if (s > kSlotMask) throw std::length_error("quadrant: aoi: more than 2^30 entities");
      if (cold_.size() == cold_.capacity()) {
        // Every per-slot array grows by half (doubling left a third of them spare on average, about 60 bytes an
        // entity), all before any of them takes the slot: a failed allocation leaves them in step. cold_ goes last,
        // so that after a failure the next call grows them again.
        const std::size_t cap = cold_.size() + cold_.size() / 2 + 16;
        hot_.reserve(cap);
        ids_.reserve(cap);
        anchors_.reserve(cap);
        cand_.reserve_slots(cap);
        rcand_.reserve_slots(cap);
        pending_.reserve(cap);
        cold_.reserve(cap);
      }
      hot_.emplace_back();
      cold_.emplace_back();
      ids_.emplace_back();
      anchors_.emplace_back();
      cand_.add_slot();
      rcand_.add_slot();
    }
    cold_[s] = Cold{};
    ids_[s] = id;
    anchors_[s] = Anchor{};
    hot_[s] = Hot{};
    return s;
  }
  void enlist(std::uint32_t s) {
    if ((cold_[s].flags & detail::aoi::kPending) != 0) return;
    cold_[s].flags |= detail::aoi::kPending;
    pending_.push_back(s);  // capacity reserved in new_slot: never throws
  }

  // ---- the tick (tick.hpp; re-anchoring and relinking: links.hpp) ----
  void run_tick();
  void choose_skin();
  void apply(std::uint32_t s, bool all_dirty);
  void reanchor(std::uint32_t s, bool drift_only, bool added);
  void relink_drift(std::uint32_t s, const Anchor& old);
  Vec<2, S> lead_anchor(std::uint32_t s) const;
  void place_range(std::uint32_t s);
  void relink(std::uint32_t s, bool added);
  void unlink_targets(std::uint32_t w);
  bool set_stale(std::uint32_t w, std::uint32_t t, bool stale);
  void link_watcher(std::uint32_t t, std::uint32_t w);
  void give_entry(std::uint32_t w, std::uint32_t s, bool may_revive);
  void leave_behind(std::uint32_t w, std::uint32_t t);
  void relink_kept_target(std::uint32_t s, const Anchor& old, std::uint32_t t);
  void mark_dirty(std::uint32_t w);
  void index_left_behind();
  void mark_watchers_of(std::uint32_t t);
  void evaluate(std::uint32_t w);
  void add_event(AoiEvent::Kind kind, std::uint32_t w, std::uint32_t t) {
    events_.push_back(AoiEvent{kind, ids_[w], ids_[t]});
    if (all_dirty_) event_ranks_.push_back(rank_[w]);
  }
  // The tree boxes of a slot around its anchor: its body (with room for the body box's rounding in S), and its
  // reach (with room for in_range's tolerance). The body box is not grown by the skin: query() grows its region
  // instead. Boxes grown by skin / 2 (60 units wide for the default skin at radius 100) sat in large loose nodes
  // whose entries every re-anchor's crescent query tested, which slowed the ticks of runners.
  Box<2, S> body_box(std::uint32_t s) const {
    const double body = static_cast<double>(cold_[s].body_radius);
    const double mag = detail::aoi::max_abs(anchors_[s].at);
    return detail::round_out_box(anchors_[s].at, body + detail::aoi::kBodyTol * (mag + body));
  }
  Box<2, S> range_box(std::uint32_t s) const {
    const double r = reach(s), mag = detail::aoi::max_abs(anchors_[s].at);
    return detail::round_out_box(anchors_[s].at, r + 3 * detail::aoi::kTol * (r + mag));
  }
  // ---- layout (layout.hpp) ----
  std::uint32_t morton(const Vec<2, S>& p) const noexcept;
  void renumber();
  void update_ranks();
  void order_events();
  std::uint32_t next_stamp();
  std::uint32_t next_drop_mark();
  double reach(std::uint32_t w) const {
    return static_cast<double>(cold_[w].view_radius) + static_cast<double>(settings_.hysteresis) + skin_ +
           detail::aoi::kUnderflowReach;
  }
  // Whether the anchors of w and t lie within reach(w), with room for rounding: the invariant's test. Below 1e-150
  // the squares would be subnormal and round by more than the relative margins of the re-anchoring queries allow:
  // there the differences are scaled by 2^600 first (exact), so the test has the same relative precision at every
  // magnitude.
  QUADRANT_INLINE bool in_range(std::uint32_t w, std::uint32_t t) const { return in_range(anchors_[w], anchors_[t]); }
  // The rounding room of an anchor in in_range: kTol times its largest coordinate (computed, not kept: 8 bytes an
  // entity).
  static double tol(const Anchor& a) { return detail::aoi::kTol * detail::aoi::max_abs(a.at); }
  QUADRANT_INLINE static bool in_range(const Anchor& a, const Anchor& b) {
    double r = a.reach + tol(a) + tol(b);
    double dx = static_cast<double>(a.at.x) - static_cast<double>(b.at.x);
    double dy = static_cast<double>(a.at.y) - static_cast<double>(b.at.y);
    if (r < 1e-150) {
      constexpr double kUp = 0x1p600;
      r *= kUp, dx *= kUp, dy *= kUp;  // a difference beyond 1e30 becomes infinite: out of reach, as it is
    }
    return dx * dx + dy * dy <= r * r;
  }
  // Live, not dying, in a watching mode, with layers: kept in the anchor by apply() (see Anchor).
  bool is_watcher(std::uint32_t s) const { return anchors_[s].watching != 0; }
  // Whether the watcher anchored at `a` is met through the bodies tree by a marker in `marker_layers`: it watches
  // one of those layers and is not big (big watchers are met through the ranges tree; see place_range).
  QUADRANT_INLINE bool watches_small(const Anchor& a, std::uint32_t marker_layers) const {
    return (a.watching & marker_layers) != 0 && a.reach <= big_reach_;
  }
  // Whether watcher w holding an entry of t implies that t holds one of w, so that t's own list names w and
  // rcand[t] need not: w also marks and t also watches (t marks, as w holds it; the layer test is then the same both
  // ways), and w's reach is no longer than t's (in_range(w, t) then implies in_range(t, w): the test is symmetric in
  // the anchors and their tolerances). A world of equal radii, every entity Both, keeps no reverse lists.
  bool implied(std::uint32_t w, std::uint32_t t) const {
    return hot_[w].marker_layers != 0 && is_watcher(w) && is_watcher(t) && anchors_[w].reach <= anchors_[t].reach;
  }
  // Calls fn(w) for every watcher named for t: the entries of t's own list (a superset of the watchers w with
  // implied(w, t) that hold t) and rcand[t]; some may be named twice, some may not hold t.
  template <class Fn>
  void for_each_named(std::uint32_t t, Fn&& fn) const {
    for (const std::uint32_t* e = cand_.begin(t); e != cand_.end(t); ++e) fn(*e & kSlotMask);
    for (const std::uint32_t* w = rcand_.begin(t); w != rcand_.end(t); ++w) fn(*w);
  }

  AoiSettings<S> settings_;
  double skin_;
  TreeType bodies_;  // every live entity with layers != 0: its body box around the anchor
  // Gives back the event buffers after a burst (the first tick's enter events, a wave of teleports) has been
  // delivered: when they have room for more than 8 events an entity and 4 times the events of the tick before, or
  // for more than 4 times this tick's. The test against the tick before keeps the buffers of a world that makes
  // many events an entity at every tick (a rule of events an entity alone would give them back and regrow them at
  // every tick); std::vector alone would keep a burst's size for good (after a first tick, a large part of the
  // world's memory). The entries left behind (left_, and their grouping in scratch_) likewise, beyond 4 an
  // entity and 4 times the tick before's: a wave of re-anchors (runners all starting at once) leaves several an
  // entity behind, a steady tick fewer. Frees only, so it cannot throw.
  void release_burst() noexcept {
    auto beyond = [&](std::size_t held, std::size_t before, std::size_t per_entity) {
      return held > per_entity * live_count_ + 1024 && held > 4 * before + 1024;
    };
    const std::size_t left = left_.size();
    if (beyond(left_.capacity(), last_left_, 4)) std::vector<Left>().swap(left_);
    if (beyond(scratch_.capacity(), last_left_, 4)) std::vector<std::uint32_t>().swap(scratch_);
    last_left_ = left;
    const std::size_t held = events_.capacity(), used = events_.size();
    const bool burst = held > 4 * used + 1024 || beyond(held, last_events_, 8);
    last_events_ = used;
    if (!burst) return;
    std::vector<AoiEvent>().swap(events_);
    std::vector<std::uint32_t>().swap(event_ranks_);
    std::vector<std::uint32_t>().swap(event_order_);
  }
  std::size_t last_events_ = 0, last_left_ = 0;  // the last tick's events and entries left behind (release_burst)

  TreeType ranges_;  // every live watcher: the box of half-side reach around its anchor
  std::unordered_map<std::uint64_t, std::uint32_t> slot_of_;
  std::vector<Hot> hot_;
  std::vector<Cold> cold_;
  std::vector<std::uint64_t> ids_;  // the id of each slot (dense: events read it)
  std::vector<Anchor> anchors_;
  // Per watcher: candidate targets (exact between ticks, see core.hpp), each a slot with kSeenBit set when the
  // watcher saw it at the last tick — the relation itself lives here.
  detail::aoi::ListArena cand_;
  // Per marker t: the watchers w holding an entry of t without implied(w, t) (a superset: see links.hpp); those with
  // it are in t's own list.
  detail::aoi::ListArena rcand_;
  std::vector<std::uint32_t> free_;                // slots to reuse
  std::vector<std::uint32_t> pending_;             // slots with recorded mutations
  std::vector<std::uint32_t> order_;               // live slots in ascending id order (events are in id order)
  std::vector<std::uint32_t> merge_;               // scratch for merging new slots into order_
  std::vector<std::uint32_t> added_, dying_, dirty_, scratch_, old_watchers_;
  // The entries left behind at this tick (see links.hpp), as (watcher, target) pairs; grouped by watcher before the
  // evaluations (index_left_behind).
  struct Left {
    std::uint32_t watcher, target;
  };
  std::vector<Left> left_;
  std::uint32_t drop_mark_ = 0;  // the last Hot::drop_mark handed out by evaluate()
  std::vector<AoiEvent> events_;
  // Event order and renumbering scratch. event_order_: the events' indices in id order when they were made in slot
  // order (see order_events), else empty (they were made in id order).
  std::vector<std::uint32_t> event_ranks_, event_order_, rank_, counts_, new_of_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> keys_;
  std::vector<double> reaches_;
  std::size_t reanchors_since_renumber_ = 0, adds_since_renumber_ = 0;
  bool ranks_stale_ = true;
  bool skin_chosen_ = settings_.skin > 0;  // settings().skin > 0, or the automatic skin was chosen
  // Watchers with a larger anchor reach are "big" (see place_range); 0 until the first renumber.
  double big_reach_ = 0;
  // No watcher's anchor reach is below this (lowered by every re-anchor, recomputed by renumber): relink_drift
  // prunes by it.
  double min_reach_ = std::numeric_limits<double>::infinity();
  std::uint32_t stamp_ = 0;      // the last scratch stamp handed out by next_stamp (relinks take a few each)
  std::uint32_t tick_no_ = 0;    // marks dirty watchers (Cold::dirty_tick)
  std::size_t live_count_ = 0;
  std::size_t pair_count_ = 0;
  bool in_tick_ = false;
  bool all_dirty_ = false;       // this tick evaluates every watcher (many changes)
};

}  // namespace quadrant
