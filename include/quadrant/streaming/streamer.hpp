// SPDX-License-Identifier: MIT
// quadrant — Streamer: camera-driven streaming. Objects with 3D bounds are loaded as they come into view of one or
// more streaming sources and unloaded once they have left it, with an unload margin against flicker, priority by
// distance and caps on loads, with asynchronous loads as game engines do them. This header declares
// the class; update() and validate() are in update.hpp beside it. Include <quadrant/streaming.hpp>, which brings
// them all.
//
// Idea: an Octree holds the objects. Each update() asks it, per source, for the objects in the view frustum (a walk
// with plane masks that reports subtrees wholly inside without testing their objects) and within the prefetch
// radius; that is the wanted set. The resident objects (loading or loaded) are few, so each one that is not wanted
// is tested directly against the sources' kept regions (frustum planes pushed out by the margin, radius grown by
// it). The wanted objects not yet resident are issued nearest first within the caps; the rest wait as Queued.
//
// States (StreamState), and what update() does with each object, in this order:
//   * resident (Loading or Loaded) and not kept: Loading -> Unloaded, reported in `cancels` (abandon the load);
//     Loaded -> Unloaded, reported in `unloads` (release it);
//   * Queued: goes back to Unloaded first (the queue is rebuilt from this update's wanted set, so an object that is
//     no longer wanted simply leaves it: it was never issued, nothing is reported; counted in stats.dequeued);
//   * wanted and Unloaded: a candidate. The candidates are ordered by (distance, id), distance being the smallest
//     point-to-box distance from any source's position; the first min(max_loads_per_update, max_loads_in_flight -
//     loading) become Loading and are reported in `loads`, nearest first; the others become Queued.
// Wanted: the box meets a source's frustum (overlaps(Frustum, Box)) or lies within its prefetch radius (point-to-box
// distance <= radius; a radius of 0 wants the boxes holding the position). Kept: wanted, or in a source's frustum
// with every plane pushed out by unload_margin (and its corners' box grown by it), or within prefetch radius +
// unload_margin of its position. docs/streaming.md gives the exact arithmetic.
// The caller reports a finished load with mark_loaded (Loading -> Loaded) or a failed one with mark_failed
// (Loading -> Unloaded, asked for again by a later update while wanted).
//
// Threads: const members may run concurrently with each other; add, remove, move, mark_loaded, mark_failed,
// set_limits and update need exclusive access.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "../geometry.hpp"
#include "../handle.hpp"
#include "../tree.hpp"
#include "regions.hpp"
#include "types.hpp"

namespace quadrant {

/// The streamer: objects by caller id, their states, and the octree that finds what the sources want.
template <class S = float>
class Streamer {
 public:
  using box_type = Box<3, S>;                  ///< an object's bounds
  using source_type = StreamingSource<S>;      ///< what update() takes
  using tree_type = Octree<std::uint32_t, S>;  ///< the index (values: internal slots)

  /// An empty streamer. Throws std::invalid_argument ("quadrant: streaming: ..." or the tree's Config message) for
  /// a NaN, infinite or negative unload_margin or a bad tree Config. Caps of 0 are allowed: loading pauses.
  explicit Streamer(const StreamerConfig<S>& config) : config_(checked_config(config)), tree_(config.tree) {}
  /// Not copyable: the octree's copy would refuse the handles the records hold. Movable: the moved-to streamer
  /// takes the objects, states and memory; the moved-from one may only be destroyed or assigned to.
  Streamer(const Streamer&) = delete;
  /// Not copyable.
  Streamer& operator=(const Streamer&) = delete;
  /// Takes the other streamer's objects, states and memory.
  Streamer(Streamer&&) noexcept = default;
  /// Takes the other streamer's objects, states and memory.
  Streamer& operator=(Streamer&&) noexcept = default;
  /// Frees everything.
  ~Streamer() = default;

  /// The configuration (caps as last set).
  const StreamerConfig<S>& config() const noexcept { return config_; }

  /// Adds an Unloaded object. Throws std::invalid_argument (nothing changes) for an id already present or a box
  /// with a NaN or infinite coordinate or min > max. Amortised O(depth); allocates (map node, slot) as needed.
  void add(std::uint64_t id, const box_type& bounds) {
    check_box(bounds, "streaming: add");
    if (index_.contains(id)) fail("add: duplicate id " + std::to_string(id));
    const bool reuse = !free_slots_.empty();
    if (!reuse && objects_.size() >= std::size_t{kNone} - 1) throw std::length_error("quadrant: streaming: 2^32 objects");
    const std::uint32_t slot = reuse ? free_slots_.back() : static_cast<std::uint32_t>(objects_.size());
    // The map node first; if anything after it throws (only std::bad_alloc can), it is taken back out.
    index_.emplace(id, slot);
    try {
      if (!reuse) {
        objects_.emplace_back();
        // Room for every slot on the free list, so remove() never allocates (nor throws half-way).
        if (free_slots_.capacity() < objects_.size()) free_slots_.reserve(2 * objects_.size());
      }
      const Handle h = tree_.insert(bounds, slot);
      Object& o = objects_[slot];
      o = Object{};
      o.id = id;
      o.bounds = bounds;
      o.handle = h;
      o.alive = true;
    } catch (...) {
      index_.erase(id);
      if (!reuse && objects_.size() > slot) objects_.pop_back();
      throw;
    }
    if (reuse) free_slots_.pop_back();
  }

  /// Removes the object at once and returns the state it had: Loading means the caller should abandon that load
  /// (no cancel is reported, and a later mark_loaded for the id throws as for any unknown id), Loaded that it
  /// should release it. Throws std::invalid_argument for an unknown id. O(depth); allocates nothing.
  StreamState remove(std::uint64_t id) {
    const auto it = find(id, "remove");
    const std::uint32_t slot = it->second;
    Object& o = objects_[slot];
    const StreamState was = o.state;
    tree_.erase(o.handle);
    unlist(slot);
    o.alive = false;
    o.state = StreamState::Unloaded;
    index_.erase(it);
    free_slots_.push_back(slot);
    return was;
  }

  /// Gives the object new bounds; its state is unchanged until the next update() decides (a Loaded object moved
  /// out of every kept region is unloaded then). Throws std::invalid_argument (nothing changes) for an unknown id
  /// or a bad box. O(1) while it stays in its node, else O(depth).
  void move(std::uint64_t id, const box_type& bounds) {
    const auto it = find(id, "move");
    check_box(bounds, "streaming: move");
    Object& o = objects_[it->second];
    tree_.move(o.handle, bounds);
    o.bounds = bounds;
  }

  /// Reports a finished load: Loading -> Loaded, returns true. A completion that comes too late (the load was
  /// cancelled, or already reported, or the object was never issued) changes nothing and returns false: the
  /// caller drops what it loaded. Throws std::invalid_argument for an unknown id (never added, or removed). O(1).
  bool mark_loaded(std::uint64_t id) { return finish_load(id, "mark_loaded", StreamState::Loaded); }

  /// Reports a failed load: Loading -> Unloaded (a later update asks again while the object is wanted), returns
  /// true; otherwise as mark_loaded: false, nothing changes. Throws std::invalid_argument for an unknown id. O(1).
  bool mark_failed(std::uint64_t id) { return finish_load(id, "mark_failed", StreamState::Unloaded); }

  /// Changes the caps from the next update on. Lowering max_loads_in_flight cancels nothing: the objects already
  /// Loading finish, and no new load is issued until fewer are in flight. O(1).
  void set_limits(std::size_t max_loads_per_update, std::size_t max_loads_in_flight) noexcept {
    config_.max_loads_per_update = max_loads_per_update;
    config_.max_loads_in_flight = max_loads_in_flight;
  }

  /// One frame: decides cancels, unloads and loads for `sources` (see the file comment) and returns them. Throws
  /// std::invalid_argument (nothing changes, last_update() included) for a source with a NaN or infinite position
  /// or a NaN, infinite or negative prefetch radius, and for nothing else: any finite position and radius work,
  /// however close to S's largest value; an empty span is allowed (nothing is wanted). Cost: per source a frustum
  /// query and a prefetch query on the octree, plus one kept test per resident object not wanted, plus sorting
  /// the candidates. Allocates nothing once its vectors have grown to the frame's sizes. The result lives until
  /// the next update().
  const StreamUpdate<S>& update(std::span<const source_type> sources);

  /// The last update's result (empty before the first).
  const StreamUpdate<S>& last_update() const noexcept { return out_; }

  /// True when the id is present. O(1).
  bool contains(std::uint64_t id) const noexcept { return index_.contains(id); }
  /// The object's state. Throws std::invalid_argument for an unknown id. O(1).
  StreamState state(std::uint64_t id) const { return objects_[find(id, "state")->second].state; }
  /// The object's bounds. Throws std::invalid_argument for an unknown id. Valid until the next mutation.
  const box_type& bounds(std::uint64_t id) const { return objects_[find(id, "bounds")->second].bounds; }
  /// Objects present.
  std::size_t size() const noexcept { return index_.size(); }
  /// Objects Loading now.
  std::size_t loading() const noexcept { return loading_; }
  /// Objects Loaded now.
  std::size_t loaded() const noexcept { return resident_.size() - loading_; }
  /// Objects Queued now.
  std::size_t queued() const noexcept { return queued_.size(); }

  /// Calls fn(std::uint64_t id, const Box&, StreamState) for every object, in slot order. O(slots).
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Object& o : objects_)
      if (o.alive) fn(o.id, o.bounds, o.state);
  }

  /// The octree (values are internal slots), to draw its nodes or count them. Invalidated by add and remove.
  const tree_type& tree() const noexcept { return tree_; }

  /// Checks the bookkeeping (lists, counts, map, tree) and throws std::logic_error naming the first broken
  /// invariant. A debugging aid: O(objects), plus the tree's validate().
  void validate() const;

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  struct Object {
    std::uint64_t id = 0;
    box_type bounds{};
    Handle handle{};
    std::uint32_t wanted_stamp = 0;  // == stamp_: wanted by the current update
    std::uint32_t listed_at = kNone;  // position in resident_ (Loading, Loaded) or queued_ (Queued)
    StreamState state = StreamState::Unloaded;
    bool alive = false;
  };
  struct Candidate {
    double key;  // squared distance to the nearest source position
    std::uint64_t id;
    std::uint32_t slot;
  };

  [[noreturn]] static void fail(const std::string& defect) {
    throw std::invalid_argument("quadrant: streaming: " + defect);
  }

  static const StreamerConfig<S>& checked_config(const StreamerConfig<S>& c) {
    if (std::isnan(c.unload_margin)) fail("unload_margin is NaN");
    if (!std::isfinite(c.unload_margin)) fail("unload_margin is infinite");
    if (c.unload_margin < 0) fail("unload_margin is negative");
    return c;
  }

  // Builds a message only on failure: update() allocates nothing when its input is good.
  static void check_sources(std::span<const source_type> sources) {
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const source_type& s = sources[i];
      const char* defect = nullptr;
      for (int a = 0; a < 3 && !defect; ++a) {
        if (std::isnan(s.position[a])) defect = "position is NaN";
        else if (!std::isfinite(s.position[a])) defect = "position is infinite";
      }
      const S r = s.prefetch_radius;
      if (!defect && std::isnan(r)) defect = "prefetch_radius is NaN";
      if (!defect && !std::isfinite(r)) defect = "prefetch_radius is infinite";
      if (!defect && r < 0) defect = "prefetch_radius is negative";
      if (defect) fail("update: source " + std::to_string(i) + " " + defect);
    }
  }

  typename std::unordered_map<std::uint64_t, std::uint32_t>::const_iterator find(std::uint64_t id,
                                                                                 const char* what) const {
    const auto it = index_.find(id);
    if (it == index_.end()) fail(std::string(what) + ": unknown id " + std::to_string(id));
    return it;
  }
  typename std::unordered_map<std::uint64_t, std::uint32_t>::iterator find(std::uint64_t id, const char* what) {
    const auto it = index_.find(id);
    if (it == index_.end()) fail(std::string(what) + ": unknown id " + std::to_string(id));
    return it;
  }

  bool finish_load(std::uint64_t id, const char* what, StreamState to) {
    Object& o = objects_[find(id, what)->second];
    if (o.state != StreamState::Loading) return false;
    if (to == StreamState::Unloaded) {
      unlist(static_cast<std::uint32_t>(&o - objects_.data()));
    } else {
      --loading_;  // stays on resident_
    }
    o.state = to;
    return true;
  }

  // Puts a slot on resident_ or queued_ (by its state), remembering where.
  void list(std::uint32_t slot, std::vector<std::uint32_t>& on) {
    objects_[slot].listed_at = static_cast<std::uint32_t>(on.size());
    on.push_back(slot);
  }
  // Takes a slot off whichever list its state puts it on (swap-remove), fixing the counters.
  void unlist(std::uint32_t slot) {
    Object& o = objects_[slot];
    if (o.state == StreamState::Unloaded) return;
    std::vector<std::uint32_t>& on = o.state == StreamState::Queued ? queued_ : resident_;
    if (o.state == StreamState::Loading) --loading_;
    const std::uint32_t at = o.listed_at, last = on.back();
    on[at] = last;
    objects_[last].listed_at = at;
    on.pop_back();
    o.listed_at = kNone;
  }

  void mark_wanted(std::uint32_t slot) {
    Object& o = objects_[slot];
    if (o.wanted_stamp == stamp_) return;
    o.wanted_stamp = stamp_;
    wanted_.push_back(slot);
  }

  StreamerConfig<S> config_;
  tree_type tree_;
  std::vector<Object> objects_;
  std::vector<std::uint32_t> free_slots_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::vector<std::uint32_t> resident_;  // Loading and Loaded slots
  std::vector<std::uint32_t> queued_;    // Queued slots
  std::size_t loading_ = 0;
  std::uint32_t stamp_ = 0;
  // Per-update scratch, kept so that steady-state updates allocate nothing.
  std::vector<std::uint32_t> wanted_;
  std::vector<Candidate> candidates_;
  std::vector<detail::KeptRegion<S>> regions_;
  StreamUpdate<S> out_;
};

}  // namespace quadrant
