// quadrant internals: AoiWorld's candidate lists — re-anchoring an entity and relinking its lists. Included by
// aoi.hpp; not for direct inclusion. The invariant is in detail/aoi_core.hpp.
//
// Lists are exact: cand[w] holds one entry per target t with in_range(w, t) (plus stale entries waiting to report
// a Leave), and rcand[t] lists exactly the watchers holding an entry of t. A re-anchor therefore touches only the
// pairs that joined or left, and both roles of an entity are relinked from one tree query.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace quadrant {

// Moves the entity's anchor to its position, updates its tree entries and relinks both of its lists: by
// relink_drift when only the position changed (drift_only), else by relink.
template <class S>
void AoiWorld<S>::reanchor(std::uint32_t s, bool drift_only) {
  using namespace detail::aoi;
  Cold& c = cold_[s];
  ++reanchors_since_renumber_;
  Anchor& an = anchors_[s];
  const Vec<2, S> old_at = an.at;
  const double old_reach = an.reach;
  an.at = hot_[s].pos;
  an.tol = kTol * max_abs(an.at);
  an.reach = reach(s) * (1 + kTol);
  if (c.layers != 0) {
    const Box<2, S> b = body_box(s);
    if (c.body.is_null()) {
      c.body = bodies_.insert(b, s, c.layers);
    } else {
      bodies_.move(c.body, b);
      if (bodies_.layers(c.body) != c.layers) bodies_.set_layers(c.body, c.layers);
    }
  } else if (!c.body.is_null()) {
    bodies_.erase(c.body);
    c.body = Handle{};
  }
  const bool watcher = is_watcher(s);
  place_range(s);
  if (!watcher) {
    // A watcher no more: evaluate() reports the Leave of the pairs it saw, and empties the list.
    unlink_targets(s);
    if (c.seen_count == 0) cand_.clear(s);
  }
  if (hot_[s].marker_layers == 0) rcand_[s].clear();  // its watchers drop its entries in evaluate()
  if (watcher) min_reach_ = std::min(min_reach_, an.reach);
  if (drift_only)
    relink_drift(s, old_at, old_reach);
  else
    relink(s);
}

namespace detail::aoi {
// The region where a drifting entity can gain pairs: a box around its new anchor, less every point within `keep`
// of its old anchor (pairs there were in reach before and are in the lists already). A query shape for the bodies
// tree (see the shape functions in docs/queries.md); internal, never checked.
template <class S>
struct Crescent {
  Box<2, S> box;
  Vec<2, S> old_at;
  double keep2;  // keep squared, shrunk so that rounding cannot prune a point beyond keep
};
// The largest squared distance from p to a point of b, in double.
template <class S>
double max_dist2(const Vec<2, S>& p, const Box<2, S>& b) noexcept {
  double d2 = 0;
  for (int i = 0; i < 2; ++i) {
    const double lo = std::abs(static_cast<double>(p[i]) - static_cast<double>(b.min[i]));
    const double hi = std::abs(static_cast<double>(b.max[i]) - static_cast<double>(p[i]));
    d2 += sq(std::max(lo, hi));
  }
  return d2;
}
template <class S>
void check_shape(const Crescent<S>&) noexcept {}
template <class S>
Box<2, S> bounding_box(const Crescent<S>& c) noexcept {
  return c.box;
}
template <class S>
bool overlaps(const Crescent<S>& c, const Box<2, S>& b) noexcept {
  return quadrant::overlaps(c.box, b) && !(max_dist2(c.old_at, b) <= c.keep2);
}
template <class S>
Relation classify(const Crescent<S>& c, const Box<2, S>& b) noexcept {
  return overlaps(c, b) ? Relation::Crossing : Relation::Outside;
}
}  // namespace detail::aoi

// relink for an entity whose position alone changed (its radius, mode and layers did not): instead of finding all
// its pairs again, it re-tests the pairs it has — its list as a watcher, its reverse list as a marker — against the
// new anchor, and queries only the crescent where new pairs can be (the reach around the new anchor less what was
// in reach of the old one). A re-anchor then costs its list lengths plus the pairs that join or leave, not a tree
// query over every neighbour. The lists end exactly as relink would leave them.
//   watcher side: an entry still in reach stays (a stale one is revived); one out of reach turns stale if seen
//   (evaluate reports its Leave), else goes.
//   marker side: a watcher still in reach keeps its entry (revived if stale); one out of reach gets it marked stale.
//   New pairs from the crescent get entries; every watcher touched looks again at this tick.
template <class S>
void AoiWorld<S>::relink_drift(std::uint32_t s, const Vec<2, S>& old_at, double old_reach) {
  using namespace detail::aoi;
  const bool watcher = is_watcher(s);
  const std::uint32_t marker_layers = hot_[s].marker_layers;
  if (!watcher && marker_layers == 0) return;
  const std::uint32_t layers = cold_[s].layers;
  const std::uint32_t held_target = next_stamp(), held_watcher = next_stamp();
  if (watcher) {
    std::uint32_t* const list = cand_.data(s);
    const std::uint32_t n = cand_.size(s);
    std::uint32_t k = 0, stale = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t e = list[i], t = e & kSlotMask;
      if ((hot_[t].marker_layers & layers) != 0 && in_range(s, t)) {
        hot_[t].stamp = held_target;
        list[k++] = e & ~kStaleBit;
      } else if ((e & kSeenBit) != 0) {
        list[k++] = e | kStaleBit;
        ++stale;
        cold_[t].stale_tick = tick_no_;
      } else {
        erase_one(rcand_[t], s);
      }
    }
    cand_.shrink(s, k);
    cold_[s].stale_count = stale;
  }
  std::vector<std::uint32_t>& rc = rcand_[s];
  const bool may_revive = cold_[s].stale_tick == tick_no_;
  for (const std::uint32_t w : rc) {
    if (is_watcher(w) && (cold_[w].layers & marker_layers) != 0 && in_range(w, s)) {
      anchors_[w].stamp = held_watcher;
      if (may_revive && cold_[w].stale_count != 0) set_stale(w, s, false);
    } else {
      set_stale(w, s, true);
      mark_dirty(w);
    }
  }

  const Anchor& an = anchors_[s];
  const double half = std::max(watcher ? an.reach : 0.0, marker_layers != 0 ? big_reach_ : 0.0);
  // Pairs within keep of the old anchor were in reach of it: as targets (keep <= the old reach) and as watchers
  // (keep <= every watcher's reach).
  double keep = std::min(watcher ? old_reach : std::numeric_limits<double>::infinity(),
                         marker_layers != 0 ? min_reach_ : std::numeric_limits<double>::infinity());
  keep = std::isinf(keep) ? -1.0 : keep * (1 - 1e-9);
  const Crescent<S> region{outward_box(an.at, half + 3 * kTol * (half + max_abs(an.at))), old_at,
                           keep < 0 ? -1.0 : sq(keep)};
  // A watcher w newly in reach of s (as a marker) gets an entry and looks again at this tick.
  auto gain_watcher = [&](std::uint32_t w) {
    anchors_[w].stamp = held_watcher;
    cand_.push(w, s);
    rc.push_back(w);
    mark_dirty(w);
  };
  bodies_.query(
      region,
      [&](Handle, const std::uint32_t& f) {
        if (f == s) return;
        if (watcher && hot_[f].stamp != held_target && (hot_[f].marker_layers & layers) != 0 && in_range(s, f)) {
          hot_[f].stamp = held_target;
          cand_.push(s, f);
          rcand_[f].push_back(s);
        }
        if ((anchors_[f].watch_layers & marker_layers) != 0 && anchors_[f].stamp != held_watcher && in_range(f, s))
          gain_watcher(f);
      },
      layers);
  if (marker_layers != 0 && !ranges_.empty())
    ranges_.query(
        an.at,
        [&](Handle, const std::uint32_t& w) {
          if (w != s && anchors_[w].stamp != held_watcher && in_range(w, s)) gain_watcher(w);
        },
        marker_layers);
}

// A watcher is "big" when its reach exceeds big_reach_ (see renumber): big watchers are found through the ranges
// tree; the others through the bodies tree, with a query of half-side big_reach_.
template <class S>
void AoiWorld<S>::place_range(std::uint32_t s) {
  Cold& c = cold_[s];
  const bool big = is_watcher(s) && reach(s) > big_reach_;
  anchors_[s].watch_layers = is_watcher(s) && !big ? c.layers : 0;
  if (big) {
    if (c.range.is_null()) {
      c.range = ranges_.insert(range_box(s), s, c.layers);
    } else {
      ranges_.move(c.range, range_box(s));
      if (ranges_.layers(c.range) != c.layers) ranges_.set_layers(c.range, c.layers);
    }
  } else if (!c.range.is_null()) {
    ranges_.erase(c.range);
    c.range = Handle{};
  }
}

// Rebuilds s's candidates (as a watcher) and its place in its watchers' lists (as a marker), from one query of the
// bodies tree around its anchor (plus one of the ranges tree for big watchers). Stamps tell old pairs from new:
// targets carry theirs in Hot::stamp, watchers in Anchor::stamp (an entity may be both).
//   watcher side: entries found again keep their seen bit; new ones join rcand; old ones not found leave rcand,
//   and those seen stay as stale entries so that evaluate() reports their Leave.
//   marker side: watchers found again keep their entry (revived if stale); new ones get an entry; old ones not
//   found get their entry marked stale. Every watcher touched looks again at this tick. rcand lists every watcher
//   holding an entry of s, stale or not: evaluate() unlinks the stale entries it drops.
template <class S>
void AoiWorld<S>::relink(std::uint32_t s) {
  using namespace detail::aoi;
  const bool watcher = is_watcher(s);
  const std::uint32_t marker_layers = hot_[s].marker_layers;
  if (!watcher && marker_layers == 0) return;
  const std::uint32_t layers = cold_[s].layers;
  const std::uint32_t seen = next_stamp(), unseen = next_stamp(), listed = next_stamp(), again = next_stamp();
  scratch_.clear();
  if (watcher) {
    for (const std::uint32_t* e = cand_.begin(s); e != cand_.end(s); ++e) {
      hot_[*e & kSlotMask].stamp = (*e & kSeenBit) != 0 ? seen : unseen;
      scratch_.push_back(*e & kSlotMask);
    }
    cand_.clear(s);
    cold_[s].stale_count = 0;
  }
  std::vector<std::uint32_t>& rc = rcand_[s];
  for (std::uint32_t w : rc) anchors_[w].stamp = listed;
  // Only a target given a stale entry at this tick can have one to revive (stale entries never outlive a tick).
  const bool may_revive = cold_[s].stale_tick == tick_no_;
  const std::size_t old_watchers = rc.size();
  std::size_t kept_targets = 0, kept_watchers = 0;

  auto as_target = [&](std::uint32_t t) {
    const std::uint32_t st = hot_[t].stamp;
    if (st == again) return;
    hot_[t].stamp = again;
    if (st == seen || st == unseen) {
      ++kept_targets;
      cand_.push(s, st == seen ? t | kSeenBit : t);
    } else {
      cand_.push(s, t);
      rcand_[t].push_back(s);
    }
  };
  auto as_watcher = [&](std::uint32_t w) {
    const std::uint32_t st = anchors_[w].stamp;
    if (st == again) return;
    anchors_[w].stamp = again;
    if (st == listed) {
      ++kept_watchers;
      if (may_revive && cold_[w].stale_count != 0) set_stale(w, s, false);
      return;
    }
    cand_.push(w, s);
    rc.push_back(w);
    mark_dirty(w);
  };

  const Anchor& an = anchors_[s];
  const double half = std::max(watcher ? an.reach : 0.0, marker_layers != 0 ? big_reach_ : 0.0);
  bodies_.query(
      outward_box(an.at, half + 3 * kTol * (half + max_abs(an.at))),
      [&](Handle, const std::uint32_t& f) {
        if (f == s) return;
        if (watcher && (hot_[f].marker_layers & layers) != 0 && in_range(s, f)) as_target(f);
        if ((anchors_[f].watch_layers & marker_layers) != 0 && in_range(f, s)) as_watcher(f);
      },
      layers);
  if (marker_layers != 0 && !ranges_.empty())
    ranges_.query(
        an.at,
        [&](Handle, const std::uint32_t& w) {
          if (w != s && in_range(w, s)) as_watcher(w);
        },
        marker_layers);

  if (watcher && kept_targets != scratch_.size()) {
    for (std::uint32_t t : scratch_) {
      const std::uint32_t st = hot_[t].stamp;
      if (st == again) continue;
      if (st == seen) {
        cand_.push(s, t | kSeenBit | kStaleBit);
        ++cold_[s].stale_count;
        cold_[t].stale_tick = tick_no_;
      } else {
        erase_one(rcand_[t], s);
      }
    }
  }
  // Watchers that lost s: their entry turns stale (and stays linked until evaluate() drops it).
  if (kept_watchers != old_watchers)
    for (std::size_t i = 0; i < old_watchers; ++i) {
      const std::uint32_t w = rc[i];
      if (anchors_[w].stamp == again) continue;
      set_stale(w, s, true);
      mark_dirty(w);
    }
}

// The watcher w gives up its list (removed, or no longer a watcher): unseen entries go now, seen ones turn stale
// so that evaluate() reports their Leave.
template <class S>
void AoiWorld<S>::unlink_targets(std::uint32_t w) {
  std::uint32_t* const list = cand_.data(w);
  std::uint32_t k = 0;
  for (std::uint32_t i = 0; i < cand_.size(w); ++i) {
    const std::uint32_t e = list[i];
    if ((e & kSeenBit) == 0) {
      erase_one(rcand_[e & kSlotMask], w);
      continue;
    }
    list[k++] = e | kStaleBit;
    cold_[e & kSlotMask].stale_tick = tick_no_;
  }
  cand_.shrink(w, k);
  cold_[w].stale_count = k;
}

// Sets or clears the stale bit of t's entry in w's list (a linear search: it happens only when a pair leaves
// reach or returns, and only in lists with stale entries for the return).
template <class S>
void AoiWorld<S>::set_stale(std::uint32_t w, std::uint32_t t, bool stale) {
  std::uint32_t* const list = cand_.data(w);
  const std::size_t i = detail::aoi::find_masked(list, cand_.size(w), t, kSlotMask);
  if (i == cand_.size(w)) return;
  std::uint32_t& e = list[i];
  if (((e & kStaleBit) != 0) == stale) return;
  e ^= kStaleBit;
  cold_[w].stale_count += stale ? 1u : static_cast<std::uint32_t>(-1);
  if (stale) cold_[t].stale_tick = tick_no_;
}

// Removes v from an unordered list, if present.
template <class S>
void AoiWorld<S>::erase_one(std::vector<std::uint32_t>& list, std::uint32_t v) {
  const std::size_t i = detail::aoi::find_masked(list.data(), list.size(), v, ~0u);
  if (i == list.size()) return;
  list[i] = list.back();
  list.pop_back();
}

}  // namespace quadrant
