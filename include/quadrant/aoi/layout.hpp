// SPDX-License-Identifier: MIT
// quadrant internals: AoiWorld's memory layout — slots renumbered along a Morton curve, and the events of a tick
// put in (watcher id, target id) order: members of AoiWorld (world.hpp). Not for direct inclusion:
// <quadrant/aoi.hpp> brings it.
//
// Why: a watcher's evaluation reads the records of its candidates, which are its neighbours in space. With slots
// in the order ids were added (random in space, in a server), every read is a cache miss; with slots in Morton
// order, neighbours share cache lines. Entities drift, so the numbering is redone now and then (see run_tick).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "../detail/morton.hpp"
#include "world.hpp"

namespace quadrant {

// The Morton key of a point: its cell in a 65536 x 65536 grid over the world (detail/morton.hpp).
template <class S>
std::uint32_t AoiWorld<S>::morton(const Vec<2, S>& p) const noexcept {
  return detail::morton_key(p, settings_.world);
}

// Renumbers the slots: live ones in Morton order of their anchors, free ones after them; rewrites every list, the
// id map, the id order and the trees' values. Runs at the end of a tick (nothing pending). O(N log N + list
// entries), with no sort per list; keeps its scratch memory.
template <class S>
void AoiWorld<S>::renumber() {
  using namespace detail::aoi;
  const std::size_t n = cold_.size();
  keys_.clear();
  for (std::uint32_t s = 0; s < n; ++s)
    if ((cold_[s].flags & kLive) != 0) keys_.push_back({morton(anchors_[s].at), s});
  std::sort(keys_.begin(), keys_.end());
  new_of_.assign(n, kNoSlot);
  std::uint32_t next = 0;
  for (const auto& k : keys_) new_of_[k.second] = next++;
  for (std::uint32_t s = 0; s < n; ++s)
    if (new_of_[s] == kNoSlot) new_of_[s] = next++;

  // The records move in place, along the permutation's cycles: copies of them (200 bytes a slot) would be held
  // between renumberings, or allocated by each. The walk consumes a copy of new_of_, in counts_ (order_events'
  // scratch, whose result lives in event_order_).
  counts_.assign(new_of_.begin(), new_of_.end());
  for (std::uint32_t s = 0; s < n; ++s)
    while (counts_[s] != s) {
      const std::uint32_t to = counts_[s];
      std::swap(hot_[s], hot_[to]);
      std::swap(cold_[s], cold_[to]);
      std::swap(ids_[s], ids_[to]);
      std::swap(anchors_[s], anchors_[to]);
      std::swap(counts_[s], counts_[to]);
    }
  cand_.renumber(new_of_);
  rcand_.renumber(new_of_);
  for (std::uint32_t s = 0; s < n; ++s) {
    std::uint32_t* const watchers = rcand_.data(s);
    for (std::uint32_t i = 0; i < rcand_.size(s); ++i) watchers[i] = new_of_[watchers[i]];
    std::uint32_t* list = cand_.data(s);
    // The lists keep their order: nothing needs them sorted (a watcher's events are sorted when it is evaluated).
    // Sorting each by slot, for reading the targets' records front to back, made the renumbering tick several
    // times slower and no tick measurably faster.
    for (std::uint32_t i = 0; i < cand_.size(s); ++i) list[i] = new_of_[list[i] & kSlotMask] | (list[i] & ~kSlotMask);
  }
  for (auto& entry : slot_of_) entry.second = new_of_[entry.second];
  for (std::uint32_t& s : order_) s = new_of_[s];
  free_.clear();
  for (std::uint32_t s = static_cast<std::uint32_t>(n); s-- > keys_.size();) free_.push_back(s);
  update_ranks();

  // Big watchers: those beyond the 90th percentile of reach (see place_range).
  reaches_.clear();
  min_reach_ = std::numeric_limits<double>::infinity();
  for (std::uint32_t s = 0; s < keys_.size(); ++s)
    if (is_watcher(s)) {
      reaches_.push_back(anchors_[s].reach);
      min_reach_ = std::min(min_reach_, anchors_[s].reach);
    }
  if (!reaches_.empty()) {
    auto at = reaches_.begin() + static_cast<std::ptrdiff_t>(reaches_.size() * 9 / 10);
    std::nth_element(reaches_.begin(), at, reaches_.end());
    big_reach_ = *at;
  }
  // The trees keep their nodes (rebuilding them would churn their memory); their values follow the slots.
  for (std::uint32_t s = 0; s < keys_.size(); ++s) {
    Cold& c = cold_[s];
    if (!c.body.is_null()) bodies_.value(c.body) = s;
    if (!c.range.is_null()) ranges_.value(c.range) = s;
    place_range(s);
  }
  // Before the first renumbering every watcher is big: a world whose watchers turn out alike empties the ranges
  // tree here, and gives back its nodes (110 bytes an entity at 10k).
  if (ranges_.empty()) ranges_ = TreeType(tree_config(settings_));
  reanchors_since_renumber_ = 0;
  adds_since_renumber_ = 0;
  // Renumberings are rare (every 2N re-anchors): their scratch, 20 bytes a slot, is made by each and not kept.
  // (counts_ stays: order_events uses it at every tick that evaluates every watcher, index_left_behind at every
  // tick that leaves entries behind.)
  std::vector<std::pair<std::uint32_t, std::uint32_t>>().swap(keys_);
  std::vector<std::uint32_t>().swap(new_of_);
  std::vector<double>().swap(reaches_);
}

// rank_[slot]: the slot's place in id order (events are sorted by it).
template <class S>
void AoiWorld<S>::update_ranks() {
  rank_.resize(cold_.size());
  for (std::uint32_t i = 0; i < order_.size(); ++i) rank_[order_[i]] = i;
}

// Puts the tick's events in (watcher id, target id) order when the watchers were evaluated in slot order: a
// counting sort by the watcher's rank (stable: each watcher's events are already in target order), into
// event_order_, the events' indices in that order (4 bytes an event rather than a sorted copy of 24). O(N + events).
template <class S>
void AoiWorld<S>::order_events() {
  const std::size_t n = order_.size();
  counts_.assign(n + 1, 0);
  for (std::uint32_t r : event_ranks_) ++counts_[r + 1];
  for (std::size_t i = 0; i < n; ++i) counts_[i + 1] += counts_[i];
  event_order_.resize(events_.size());
  for (std::size_t i = 0; i < events_.size(); ++i) event_order_[counts_[event_ranks_[i]]++] = static_cast<std::uint32_t>(i);
}

}  // namespace quadrant
