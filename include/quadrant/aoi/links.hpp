// SPDX-License-Identifier: MIT
// quadrant internals: AoiWorld's candidate lists — re-anchoring an entity and relinking its lists: members of
// AoiWorld (world.hpp). Not for direct inclusion: <quadrant/aoi.hpp> brings it. The invariant is in core.hpp.
//
// Forward lists are exact between ticks: cand[w] holds one entry per eligible target t with in_range(w, t). While a
// tick applies its mutations they stay exact for every pair neither of whose anchors has moved since the pair was
// last tested; besides, a list may hold entries out of reach of two kinds, which evaluate() reports (a Leave, if
// seen) and drops:
//   stale: the watcher re-anchored and the target fell out of its reach while seen (the entry's stale bit);
//   left behind: the target re-anchored out of the watcher's reach, or its relink found the pair ineligible (the
//   watcher's layers, as they were then, share no bit with the target's new ones) — recorded by leave_behind.
// A watcher that re-anchors later in the same tick may keep such an entry (its new reach or layers take the target
// back): it then names itself in the target's reverse list again (relink_kept_target).
// An entity re-anchors at most once a tick, and relinks its own list itself.
//
// Reverse lists are supersets: every watcher w holding an entry of t that is neither stale nor left behind is named
// in rcand[t], or, when implied(w, t) (world.hpp: w also marks, t also watches, and w's reach is no longer than
// t's, so that w in reach of t's anchor follows), in t's own list, which holds w; the two may name others, some
// twice. A world of equal radii where every entity is Both keeps its reverse lists empty: they held as many
// entries as the candidate lists. Nothing searches a list to take an entry out (with a few hundred entries
// per list, those searches were a large part of a tick where entities re-anchor often): a re-anchoring marker rewrites
// its own reverse list in the pass it makes anyway, link_watcher cleans a reverse list when it fills, and a watcher
// drops its left-behind entries in the pass evaluate() makes anyway. Which watchers held s before s re-anchors is
// known without the reverse list: exactly those eligible with in_range at s's old anchor (the forward lists are
// exact for the pairs s is in).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../detail/inline.hpp"
#include "../detail/prefetch.hpp"
#include "../geometry.hpp"
#include "world.hpp"

namespace quadrant {

// Moves the entity's anchor to its position, updates its tree entries and relinks both of its lists: by
// relink_drift when only the position changed (drift_only), else by relink.
template <class S>
void AoiWorld<S>::reanchor(std::uint32_t s, bool drift_only, bool added) {
  using namespace detail::aoi;
  Cold& c = cold_[s];
  ++reanchors_since_renumber_;
  Anchor& an = anchors_[s];
  const Anchor old = an;
  an.at = drift_only ? lead_anchor(s) : hot_[s].pos;
  c.origin = hot_[s].pos;
  c.path = 0;
  an.reach = reach(s) * (1 + kTol);
  an.anchor_tick = tick_no_;
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
  if (hot_[s].marker_layers == 0) rcand_.clear(s);  // its watchers drop its entries in evaluate()
  if (watcher) min_reach_ = std::min(min_reach_, an.reach);
  if (drift_only)
    relink_drift(s, old);
  else
    relink(s, added);
}

// Where a drifting entity re-anchors: at its position, or ahead of it when it has been moving straight. An entity
// re-anchors when it drifts skin / 2 from its anchor; one that walks straight on from an anchor placed up to
// 0.9 * skin / 2 ahead re-anchors after up to 1.9 times the distance (and re-anchors cost most of a tick where
// entities run across the map). Straightness is the distance from the last re-anchor over the path walked since:
// about 1 for a runner, near 0 for a random walker (whose anchor stays at its position: a lead in a direction it
// does not keep would only make it re-anchor sooner). The lead scales with straightness squared.
template <class S>
Vec<2, S> AoiWorld<S>::lead_anchor(std::uint32_t s) const {
  using namespace detail::aoi;
  const Cold& c = cold_[s];
  const Vec<2, S> p = hot_[s].pos;
  const double dx = static_cast<double>(p.x) - static_cast<double>(c.origin.x);
  const double dy = static_cast<double>(p.y) - static_cast<double>(c.origin.y);
  const double d = std::sqrt(dx * dx + dy * dy);
  if (!(d > 0) || !(c.path >= d)) return p;
  const double straight = d / c.path;
  const double lead = 0.45 * skin_ * straight * straight;
  const Vec<2, S> at{static_cast<S>(static_cast<double>(p.x) + dx * (lead / d)),
                     static_cast<S>(static_cast<double>(p.y) + dy * (lead / d))};
  // Rounding to S must leave the position well within skin / 2 of the anchor (it may not, for huge coordinates).
  return std::isfinite(at.x) && std::isfinite(at.y) && dist2(p, at) <= sq(0.46 * skin_) ? at : p;
}

namespace detail::aoi {
// The region where a drifting entity can gain pairs: the disc of its reach around its new anchor, less every
// point within `keep` of its old anchor (pairs there were in reach before and are in the lists already). A query
// shape for the bodies tree (see the shape functions in docs/queries.md); internal, never checked.
template <class S>
struct Crescent {
  Box<2, S> box;  // bounds the disc
  Vec<2, S> new_at, old_at;
  double reach2;  // the disc's radius squared, grown so that rounding cannot prune a point within it
  double keep2;   // keep squared, shrunk so that rounding cannot prune a point beyond keep
};
template <class S>
void check_shape(const Crescent<S>&) noexcept {}
template <class S>
Box<2, S> bounding_box(const Crescent<S>& c) noexcept {
  return c.box;
}
// Distances in double: to b's nearest point from the new anchor, to its farthest corner from the old one. Inlined:
// the query calls it for every entry it meets, and g++ 12 kept it out of line.
template <class S>
QUADRANT_INLINE bool overlaps(const Crescent<S>& c, const Box<2, S>& b) noexcept {
  return quadrant::overlaps(c.box, b) && squared_distance_as<double>(c.new_at, b) <= c.reach2 &&
         !(squared_max_distance_as<double>(c.old_at, b) <= c.keep2);
}
template <class S>
Relation classify(const Crescent<S>& c, const Box<2, S>& b) noexcept {
  return overlaps(c, b) ? Relation::Crossing : Relation::Outside;
}
// A box around the points within sqrt(reach2) of new_at and beyond sqrt(keep2) of old_at (keep2 <= 0: none kept).
// Those points lie ahead of the line through the two circles' crossings: (p - new_at) . u > -h, u the unit vector
// from old_at to new_at, d their distance, h = (reach2 + d^2 - keep2) / 2d. So the box bounds the disc's segment
// ahead of that line, not the whole disc: with equal reaches R, an anchor that moved by d along an axis queries
// (R + d / 2) x 2R instead of 2R x 2R (d is skin / 2 to skin: about 0.6 of the area at the default skin). h is grown
// by a margin far beyond the rounding of these sums, and the box rounded outwards and kept within the disc's box.
template <class S>
Box<2, S> crescent_box(const Vec<2, S>& new_at, const Vec<2, S>& old_at, double reach2, double keep2) noexcept {
  const double r = std::sqrt(reach2);
  const Box<2, S> disc = round_out_box(new_at, r);
  // Squares near the subnormal range (tiny worlds) round too coarsely for the margin below: there, the disc's box.
  if (!(keep2 > 1e-280)) return disc;
  const double ux = static_cast<double>(new_at.x) - static_cast<double>(old_at.x);
  const double uy = static_cast<double>(new_at.y) - static_cast<double>(old_at.y);
  const double d = std::sqrt(ux * ux + uy * uy);
  if (!(d > 0) || !std::isfinite(d)) return disc;
  const double h = (reach2 + d * d - keep2) / (2 * d) + 1e-6 * (r + d + max_abs(new_at));
  if (!(h > -r && h < r)) return disc;  // nothing kept ahead of the line, or nothing of the disc behind it
  const double ex = ux / d, ey = uy / d, w = std::sqrt(r * r - h * h);
  // How far the segment reaches along an axis direction e: e . u = eu, |e . u_perp| = ev.
  auto extent = [&](double eu, double ev) { return eu * r >= -h ? r : -h * eu + w * ev; };
  const Vec<2, double> lo{-extent(-ex, std::abs(ey)), -extent(-ey, std::abs(ex))};
  const Vec<2, double> hi{extent(ex, std::abs(ey)), extent(ey, std::abs(ex))};
  return intersection(disc, outward_box(new_at, lo, hi));
}
}  // namespace detail::aoi

// relink for an entity whose position alone changed (its radius, mode and layers did not): instead of finding all
// its pairs again, it re-tests the pairs it has — its list as a watcher, its reverse list as a marker — against the
// new anchor, and queries only the crescent where new pairs can be (the reach around the new anchor less what was
// in reach of the old one). A re-anchor then costs its list lengths plus the pairs that join, not a tree query over
// every neighbour. The lists end as relink would leave them.
//   watcher side: an entry still in reach stays; one out of reach turns stale if seen (evaluate reports its
//   Leave), else goes.
//   marker side: a watcher that held s and still has it in reach stays named; one that held s and lost it keeps a
//   left-behind entry and looks again at this tick; the others drop out of the reverse list.
//   New pairs from the crescent get entries (or a stale entry revives); every watcher touched looks again.
template <class S>
void AoiWorld<S>::relink_drift(std::uint32_t s, const Anchor& old) {
  using namespace detail::aoi;
  const bool watcher = is_watcher(s);
  const std::uint32_t marker_layers = hot_[s].marker_layers;
  if (!watcher && marker_layers == 0) return;
  const std::uint32_t layers = cold_[s].layers;
  const std::uint32_t held_target = next_stamp(), held_watcher = next_stamp();
  const Anchor& an = anchors_[s];
  // Marker side, while s's own list (which names the watchers w with implied(w, s)) is as it was: rcand[s] first,
  // then each entry of s's list as the watcher pass below reaches it. A watcher that held s and still has it in
  // reach stays named (in rcand[s], unless implied: then s's list keeps it) and is stamped, so that a second naming
  // and the crescent pass it by; one that held s and lost it leaves its entry behind; the others drop out.
  auto meet = [&](std::uint32_t w) {
    Anchor& aw = anchors_[w];
    if (aw.stamp == held_watcher) return false;  // named twice
    // Not holding a live entry of s: it drops out (the crescent below finds it if it gains one). This pass reads
    // the watchers' anchors only (see Anchor).
    if ((aw.watching & marker_layers) == 0 || !in_range(aw, old)) return false;
    if (in_range(aw, an)) {
      aw.stamp = held_watcher;
      return !(hot_[w].marker_layers != 0 && watcher && aw.reach <= an.reach);  // !implied(w, s): w watches
    }
    leave_behind(w, s);
    return false;
  };
  if (marker_layers != 0) {
    // Nothing here adds to a list: the pointer stays valid.
    std::uint32_t* const rc = rcand_.data(s);
    std::uint32_t kept = 0;
    const std::uint32_t n = rcand_.size(s);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (i + 8 < n) detail::prefetch(&anchors_[detail::opaque(rc[i + 8])]);
      if (meet(rc[i])) rc[kept++] = rc[i];
    }
    rcand_.shrink(s, kept);
  }
  if (watcher) {
    // One pass over s's list, for both of its roles. Nothing in it adds to a candidate list (link_watcher adds to
    // reverse lists): the pointer stays valid, and entries are rewritten only behind the one being read.
    std::uint32_t* const list = cand_.data(s);
    const std::uint32_t n = cand_.size(s);
    std::uint32_t k = 0, stale = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (i + 8 < n) {
        const std::uint32_t ahead = detail::opaque(list[i + 8] & kSlotMask);
        detail::prefetch(&anchors_[ahead]);
        detail::prefetch(&hot_[ahead]);
      }
      const std::uint32_t e = list[i], t = e & kSlotMask;
      // A watcher in s's list held s without being named in rcand[s] only with implied(t, s).
      if (marker_layers != 0) meet(t);
      if ((hot_[t].marker_layers & layers) != 0 && in_range(s, t)) {
        anchors_[t].target_stamp = held_target;
        list[k++] = e & ~kStaleBit;
        relink_kept_target(s, old, t);
      } else if ((e & kSeenBit) != 0) {
        list[k++] = e | kStaleBit;
        ++stale;
        cold_[t].stale_tick = tick_no_;
      }  // else the entry goes (rcand[t] may still name s)
    }
    cand_.shrink(s, k);
    cold_[s].stale_count = stale;
  }

  const double half = std::max(watcher ? an.reach : 0.0, marker_layers != 0 ? big_reach_ : 0.0);
  // Pairs within keep of the old anchor were in reach of it: as targets (keep <= the old reach) and as watchers
  // (keep <= every watcher's reach).
  double keep = std::min(watcher ? old.reach : std::numeric_limits<double>::infinity(),
                         marker_layers != 0 ? min_reach_ : std::numeric_limits<double>::infinity());
  keep = std::isinf(keep) ? -1.0 : keep * (1 - 1e-9);
  const double outer = half + 3 * kTol * (half + max_abs(an.at));
  const double keep2 = keep < 0 ? -1.0 : sq(keep) - kSquareSlack;
  const double reach2 = sq(outer) + kSquareSlack;
  const Crescent<S> region{crescent_box(an.at, old.at, reach2, keep2), an.at, old.at, reach2, keep2 > 0 ? keep2 : -1.0};
  // Only a target given a stale entry at this tick can have one to revive (stale entries never outlive a tick).
  const bool may_revive = cold_[s].stale_tick == tick_no_;
  // A watcher w newly in reach of s (as a marker) gets an entry and looks again at this tick.
  auto gain_watcher = [&](std::uint32_t w) {
    anchors_[w].stamp = held_watcher;
    give_entry(w, s, may_revive);
    link_watcher(s, w);
    mark_dirty(w);
  };
  // The crescent's entities are collected first and met after, each one's records and list end asked for a few
  // entities ahead: they lie anywhere in the arrays, and at 100k entities meeting them one by one as the query
  // found them waited on a miss for each.
  scratch_.clear();
  bodies_.query(
      region,
      [&](Handle, const std::uint32_t& f) {
        if (f != s) scratch_.push_back(f);
      },
      layers);
  const std::size_t found = scratch_.size();
  for (std::size_t i = 0; i < found; ++i) {
    if (i + 16 < found) {
      const std::uint32_t ahead = scratch_[i + 16];
      detail::prefetch(&anchors_[ahead]);
      detail::prefetch(&hot_[ahead]);
      cand_.prefetch_span(ahead);
    }
    if (i + 8 < found) cand_.prefetch_end(scratch_[i + 8]);
    const std::uint32_t f = scratch_[i];
    if (watcher && anchors_[f].target_stamp != held_target && (hot_[f].marker_layers & layers) != 0 &&
        in_range(s, f)) {
      anchors_[f].target_stamp = held_target;
      cand_.push(s, f);
      link_watcher(f, s);
    }
    if (watches_small(anchors_[f], marker_layers) && anchors_[f].stamp != held_watcher && in_range(f, s))
      gain_watcher(f);
  }
  if (marker_layers != 0 && !ranges_.empty())
    ranges_.query(
        an.at,
        [&](Handle, const std::uint32_t& w) {
          if (w != s && anchors_[w].stamp != held_watcher && in_range(w, s)) gain_watcher(w);
        },
        marker_layers);
}

// s keeps its entry of t through a drift (relink_drift). If t re-anchored earlier in this tick, t's relink met s at
// its old anchor and kept naming s only if t was in reach of it; otherwise t dropped s (and left the entry behind:
// see the file comment), and s, keeping the entry from its new anchor, is named for t again. (A relink for a change
// of radius, mode or layers names s for every target it keeps: its old values may have made t's list name it.)
template <class S>
void AoiWorld<S>::relink_kept_target(std::uint32_t s, const Anchor& old, std::uint32_t t) {
  if (anchors_[t].anchor_tick == tick_no_ && !in_range(old, anchors_[t])) link_watcher(t, s);
}

// w gains an entry of s. If s got a stale entry somewhere at this tick (may_revive), w's may be one: it revives
// rather than doubling.
template <class S>
void AoiWorld<S>::give_entry(std::uint32_t w, std::uint32_t s, bool may_revive) {
  if (!(may_revive && cold_[w].stale_count != 0 && set_stale(w, s, false))) cand_.push(w, s);
}

// w, which holds an entry of t, is named for t: in rcand[t], unless implied(w, t) (t's own list holds w: see the
// file comment). A full rcand is cleaned before it grows: it keeps the watchers that can hold a live entry of t
// (eligible, in reach) without implied, each once — never dropping one it must name (a live entry is eligible and in
// reach), so the list stays a superset — and grows only if that left it more than half full. Amortised O(1) per
// call.
template <class S>
void AoiWorld<S>::link_watcher(std::uint32_t t, std::uint32_t w) {
  if (implied(w, t)) return;
  const std::uint32_t cap = rcand_.capacity(t);
  if (rcand_.size(t) == cap && cap >= 16) {
    const std::uint32_t marker_layers = hot_[t].marker_layers;
    std::uint32_t* const first = rcand_.data(t);
    std::uint32_t* last = std::remove_if(first, first + cap, [&](std::uint32_t v) {
      return (anchors_[v].watching & marker_layers) == 0 || !in_range(v, t) || implied(v, t);
    });
    std::sort(first, last);
    last = std::unique(first, last);
    const auto size = static_cast<std::uint32_t>(last - first);
    rcand_.shrink(t, size);
    if (size * 2 > cap) rcand_.reserve(t, cap * 2);
  }
  rcand_.push(t, w);
}

// t re-anchored out of w's reach (or stopped being eligible) while w holds an entry of it: the entry stays until
// w's evaluation at this tick drops it, found through the pair recorded here (a search of w's list per pair was
// the alternative). w looks again at this tick. The pairs are grouped by watcher before the evaluations
// (index_left_behind in tick.hpp): nothing here reads or writes w's records.
template <class S>
void AoiWorld<S>::leave_behind(std::uint32_t w, std::uint32_t t) {
  left_.push_back(Left{w, t});
  mark_dirty(w);
}

// A watcher is "big" when its anchor's reach exceeds big_reach_ (see renumber): big watchers are found through the
// ranges tree; the others through the bodies tree, with a query of half-side big_reach_ (their reach is no more).
// The anchor's reach, not reach(s), so that the test reads only the anchor (watches_small).
template <class S>
void AoiWorld<S>::place_range(std::uint32_t s) {
  Cold& c = cold_[s];
  const bool big = is_watcher(s) && anchors_[s].reach > big_reach_;
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

// Rebuilds s's candidates (as a watcher) and its reverse list (as a marker), from one query of the bodies tree
// around its anchor (plus one of the ranges tree for big watchers). Stamps tell old pairs from new: targets carry
// theirs in Anchor::target_stamp, watchers in Anchor::stamp (an entity may be both).
//   watcher side: entries found again keep their seen bit; new ones name s in their target's reverse list; old
//   ones not found go, and those seen stay as stale entries so that evaluate() reports their Leave.
//   marker side: which watchers hold s is found by searching their lists (the reverse list is a superset; this is
//   the rare path: additions, radius, mode and layer changes). Watchers found again keep their entry (revived if
//   stale); new ones get an entry; old ones not found keep a left-behind or ineligible entry and look again at this
//   tick. The reverse list is rebuilt exactly.
template <class S>
void AoiWorld<S>::relink(std::uint32_t s, bool added) {
  using namespace detail::aoi;
  const bool watcher = is_watcher(s);
  const std::uint32_t marker_layers = hot_[s].marker_layers;
  const std::uint32_t seen = next_stamp(), unseen = next_stamp(), listed = next_stamp(), unlisted = next_stamp();
  const std::uint32_t again = next_stamp();
  // The watchers holding s, found before s's own list (which names some of them) changes. A marker no more needs
  // none: its watchers drop their entries as ineligible.
  old_watchers_.clear();
  if (!added && marker_layers != 0)  // a new slot is in no list
    for_each_named(s, [&](std::uint32_t w) {
      Anchor& aw = anchors_[w];
      if (aw.stamp == listed || aw.stamp == unlisted) return;
      const bool holds = find_masked(cand_.data(w), cand_.size(w), s, kSlotMask) != cand_.size(w);
      aw.stamp = holds ? listed : unlisted;
      if (holds) old_watchers_.push_back(w);
    });
  rcand_.clear(s);
  if (!watcher) {
    // A watcher no more: evaluate() reports the Leave of the pairs it saw, and empties the list.
    unlink_targets(s);
    if (cold_[s].seen_count == 0) cand_.clear(s);
    if (marker_layers == 0) return;
  }
  const std::uint32_t layers = cold_[s].layers;
  scratch_.clear();
  if (watcher) {
    for (const std::uint32_t* e = cand_.begin(s); e != cand_.end(s); ++e) {
      anchors_[*e & kSlotMask].target_stamp = (*e & kSeenBit) != 0 ? seen : unseen;
      scratch_.push_back(*e & kSlotMask);
    }
    cand_.clear(s);
    cold_[s].stale_count = 0;
  }
  // Only a target given a stale entry at this tick can have one to revive (stale entries never outlive a tick).
  const bool may_revive = cold_[s].stale_tick == tick_no_;
  std::size_t kept_targets = 0, kept_watchers = 0;

  auto as_target = [&](std::uint32_t t) {
    const std::uint32_t st = anchors_[t].target_stamp;
    if (st == again) return;
    anchors_[t].target_stamp = again;
    if (st == seen || st == unseen) {
      ++kept_targets;
      cand_.push(s, st == seen ? t | kSeenBit : t);
      // s's radius, mode or layers changed: t's own list may have named s, and may not now.
      link_watcher(t, s);
    } else {
      cand_.push(s, t);
      link_watcher(t, s);
    }
  };
  auto as_watcher = [&](std::uint32_t w) {
    const std::uint32_t st = anchors_[w].stamp;
    if (st == again) return;
    anchors_[w].stamp = again;
    link_watcher(s, w);
    if (st == listed) {
      ++kept_watchers;
      if (may_revive && cold_[w].stale_count != 0) set_stale(w, s, false);
      return;
    }
    give_entry(w, s, may_revive);
    mark_dirty(w);
  };

  const Anchor& an = anchors_[s];
  const double half = std::max(watcher ? an.reach : 0.0, marker_layers != 0 ? big_reach_ : 0.0);
  bodies_.query(
      detail::round_out_box(an.at, half + 3 * kTol * (half + max_abs(an.at))),
      [&](Handle, const std::uint32_t& f) {
        if (f == s) return;
        if (watcher && (hot_[f].marker_layers & layers) != 0 && in_range(s, f)) as_target(f);
        if (watches_small(anchors_[f], marker_layers) && in_range(f, s)) as_watcher(f);
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
      if (anchors_[t].target_stamp != seen) continue;  // found again, or unseen (the entry goes)
      cand_.push(s, t | kSeenBit | kStaleBit);
      ++cold_[s].stale_count;
      cold_[t].stale_tick = tick_no_;
    }
  }
  // Watchers that held s and lost it: their entry is left behind (or ineligible): evaluate() drops it.
  if (kept_watchers != old_watchers_.size())
    for (const std::uint32_t w : old_watchers_)
      if (anchors_[w].stamp != again) leave_behind(w, s);
}

// The watcher w gives up its list (removed, or no longer a watcher): unseen entries go now, seen ones turn stale
// so that evaluate() reports their Leave.
template <class S>
void AoiWorld<S>::unlink_targets(std::uint32_t w) {
  std::uint32_t* const list = cand_.data(w);
  std::uint32_t k = 0;
  for (std::uint32_t i = 0; i < cand_.size(w); ++i) {
    const std::uint32_t e = list[i];
    if ((e & kSeenBit) == 0) continue;  // goes (rcand may still name w)
    list[k++] = e | kStaleBit;
    cold_[e & kSlotMask].stale_tick = tick_no_;
  }
  cand_.shrink(w, k);
  cold_[w].stale_count = k;
}

// Sets or clears the stale bit of t's entry in w's list; false when w has no entry of t. A linear search: it runs
// only when a pair returns to reach in the tick that made it stale, in lists holding stale entries.
template <class S>
bool AoiWorld<S>::set_stale(std::uint32_t w, std::uint32_t t, bool stale) {
  std::uint32_t* const list = cand_.data(w);
  const std::size_t i = detail::aoi::find_masked(list, cand_.size(w), t, kSlotMask);
  if (i == cand_.size(w)) return false;
  std::uint32_t& e = list[i];
  if (((e & kStaleBit) != 0) == stale) return true;
  e ^= kStaleBit;
  cold_[w].stale_count += stale ? 1u : static_cast<std::uint32_t>(-1);
  if (stale) cold_[t].stale_tick = tick_no_;
  return true;
}

}  // namespace quadrant
