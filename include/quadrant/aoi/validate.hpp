// SPDX-License-Identifier: MIT
// quadrant internals: AoiWorld::validate, the invariants of the candidate lists checked by brute force (a member
// of AoiWorld, world.hpp). Not for direct inclusion: <quadrant/aoi.hpp> brings it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "world.hpp"

namespace quadrant {

template <class S>
void AoiWorld<S>::validate() const {
  using namespace detail::aoi;
  auto fail = [](const std::string& what) { throw std::logic_error("quadrant: aoi: validate: " + what); };
  const std::uint32_t n = static_cast<std::uint32_t>(cold_.size());
  std::size_t live = 0, pairs = 0;
  std::vector<std::vector<std::uint32_t>> holders(n);  // the watchers holding an entry of each target
  for (std::uint32_t w = 0; w < n; ++w) {
    const Cold& c = cold_[w];
    if ((c.flags & kLive) == 0) {
      if (cand_.size(w) != 0 || rcand_.size(w) != 0) fail("a free slot holds a list");
      if (anchors_[w].watching != 0) fail("a free slot watches");
      continue;
    }
    ++live;
    if ((c.flags & ~(kLive | kPending | kAdded | kRemoved | kMoved | kChanged)) != 0) fail("a slot is dying after a tick");
    const std::string who = "watcher " + std::to_string(ids_[w]);
    if (anchors_[w].watching != (watches(c.mode) ? c.layers : 0)) fail(who + ": the layers its anchor watches");
    if (c.layers != 0 && c.body.is_null()) fail("entity " + std::to_string(ids_[w]) + " is not in the bodies tree");
    if (c.range.is_null() != !(is_watcher(w) && anchors_[w].reach > big_reach_)) fail(who + ": ranges tree membership");
    std::uint32_t seen = 0;
    std::vector<std::uint32_t> targets;
    for (const std::uint32_t* e = cand_.begin(w); e != cand_.end(w); ++e) {
      const std::uint32_t t = *e & kSlotMask;
      if ((*e & kStaleBit) != 0) fail(who + ": a stale entry after a tick");
      if (t >= n || (cold_[t].flags & kLive) == 0) fail(who + ": an entry of a free slot");
      if (!is_watcher(w) || (hot_[t].marker_layers & c.layers) == 0 || t == w) fail(who + ": an ineligible entry");
      if (!in_range(w, t)) fail(who + ": an entry out of reach (" + std::to_string(ids_[t]) + ")");
      targets.push_back(t);
      holders[t].push_back(w);
      if ((*e & kSeenBit) != 0) ++seen;
    }
    std::sort(targets.begin(), targets.end());
    if (std::adjacent_find(targets.begin(), targets.end()) != targets.end()) fail(who + ": a duplicate entry");
    if (seen != c.seen_count) fail(who + ": seen_count");
    pairs += seen;
    // Complete: every eligible target in reach has an entry.
    if (is_watcher(w))
      for (std::uint32_t t = 0; t < n; ++t)
        if (t != w && (cold_[t].flags & kLive) != 0 && (hot_[t].marker_layers & c.layers) != 0 && in_range(w, t) &&
            !std::binary_search(targets.begin(), targets.end(), t))
          fail(who + ": target " + std::to_string(ids_[t]) + " in reach has no entry");
  }
  // Reverse lists: every holder w of t is named in rcand[t], or, with implied(w, t), in t's own list (they may name
  // other watchers, and some twice).
  for (std::uint32_t t = 0; t < n; ++t) {
    if ((cold_[t].flags & kLive) == 0) continue;
    const std::string whose = "rcand of " + std::to_string(ids_[t]);
    std::vector<std::uint32_t> named(rcand_.begin(t), rcand_.end(t)), own;
    for (const std::uint32_t* e = cand_.begin(t); e != cand_.end(t); ++e) own.push_back(*e & kSlotMask);
    std::sort(named.begin(), named.end());
    std::sort(own.begin(), own.end());
    if (!named.empty() && named.back() >= n) fail(whose + " names no slot");
    for (std::uint32_t w : holders[t]) {
      const bool in_own = std::binary_search(own.begin(), own.end(), w);
      if (implied(w, t) ? !in_own : !std::binary_search(named.begin(), named.end(), w))
        fail(whose + " misses watcher " + std::to_string(ids_[w]));
    }
  }
  if (live != live_count_) fail("live count");
  if (pairs != pair_count_) fail("pair count");
  if (bodies_.size() > live) fail("bodies tree size");
  bodies_.validate();
  ranges_.validate();
}

}  // namespace quadrant
