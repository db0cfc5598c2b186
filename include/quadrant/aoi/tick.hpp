// SPDX-License-Identifier: MIT
// quadrant internals: AoiWorld's tick — apply the recorded mutations, keep the candidate lists, evaluate the
// watchers whose neighbourhood changed, collect the events: members of AoiWorld (world.hpp). Not for direct
// inclusion: <quadrant/aoi.hpp> brings it. The invariant and the idea are in core.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "world.hpp"

namespace quadrant {

// A tick: (1) apply each recorded mutation; an entity that drifted more than skin / 2, or changed radius, mode or
// layers, re-anchors and relinks its lists (links.hpp); the watchers that may see a change are marked dirty.
// (2) Evaluate the dirty watchers against their candidates, in ascending id order so that the events come out
// ordered. When many entities changed (an eighth or more), every watcher is evaluated instead — cheaper than the
// marking — in slot order (which follows space, see layout.hpp), and the events are then put in id order.
// (3) Free the removed slots; now and then renumber the slots.
template <class S>
void AoiWorld<S>::run_tick() {
  using namespace detail::aoi;
  events_.clear();
  event_order_.clear();
  left_.clear();
  dirty_.clear();
  added_.clear();
  dying_.clear();
  if (++tick_no_ == 0) {
    for (Cold& c : cold_) c.dirty_tick = c.stale_tick = 0;
    for (Anchor& a : anchors_) a.anchor_tick = 0;
    tick_no_ = 1;
  }
  if (!skin_chosen_) choose_skin();
  all_dirty_ = pending_.size() * 8 >= live_count_;
  for (std::uint32_t s : pending_) apply(s, all_dirty_);
  pending_.clear();
  if (!left_.empty()) index_left_behind();

  // New slots join the id order (events are ordered by watcher id).
  if (!added_.empty()) {
    auto by_id = [&](std::uint32_t a, std::uint32_t b) { return ids_[a] < ids_[b]; };
    std::sort(added_.begin(), added_.end(), by_id);
    merge_.resize(order_.size() + added_.size());
    std::merge(order_.begin(), order_.end(), added_.begin(), added_.end(), merge_.begin(), by_id);
    order_.swap(merge_);
    ranks_stale_ = true;
  }

  if (all_dirty_) {
    // Slot order follows space (see layout.hpp): neighbours' records are in cache. Events are put in id order
    // afterwards.
    if (ranks_stale_) update_ranks();
    ranks_stale_ = false;
    event_ranks_.clear();
    for (std::uint32_t s = 0; s < cold_.size(); ++s)
      if ((cold_[s].flags & kLive) != 0 && (is_watcher(s) || cold_[s].seen_count != 0)) evaluate(s);
    order_events();
  } else {
    std::sort(dirty_.begin(), dirty_.end(), [&](std::uint32_t a, std::uint32_t b) { return ids_[a] < ids_[b]; });
    for (std::uint32_t s : dirty_) evaluate(s);
  }

  if (!dying_.empty()) {
    std::erase_if(order_, [&](std::uint32_t s) { return (cold_[s].flags & kDying) != 0; });
    ranks_stale_ = true;
    for (std::uint32_t s : dying_) {
      cand_.clear(s);
      rcand_.clear(s);
      cold_[s].flags = 0;
      hot_[s] = Hot{};
      free_.push_back(s);
      --live_count_;
    }
  }
  // Renumber once the entities have moved about a skin on average, or many joined (see layout.hpp).
  if (live_count_ >= 64 &&
      (reanchors_since_renumber_ >= 2 * live_count_ || 4 * adds_since_renumber_ >= live_count_))
    renumber();
}

// The automatic skin: 0.6 times the median reach (view radius + hysteresis) of the watchers about to be live —
// measured best for walkers of a few units a tick at radius 100 (docs/aoi.md). Chosen once; the entities already
// live re-anchor at this tick, since their tree boxes and reaches depend on the skin.
template <class S>
void AoiWorld<S>::choose_skin() {
  using namespace detail::aoi;
  std::vector<double> radii;  // once in a world's life: not kept
  for (std::uint32_t s : pending_) {
    const Cold& c = cold_[s];
    if ((c.flags & kRemoved) == 0 && watches(c.next_mode) && c.next_layers != 0 && c.next_view_radius > 0)
      radii.push_back(static_cast<double>(c.next_view_radius) + static_cast<double>(settings_.hysteresis));
  }
  if (radii.empty()) return;
  auto mid = radii.begin() + static_cast<std::ptrdiff_t>(radii.size() / 2);
  std::nth_element(radii.begin(), mid, radii.end());
  skin_ = 0.6 * *mid;
  skin_chosen_ = true;
  for (std::uint32_t s = 0; s < cold_.size(); ++s) {
    Cold& c = cold_[s];
    if ((c.flags & kLive) == 0) continue;
    c.flags |= kChanged;  // next_* equal the current values: nothing changes but the anchor
    enlist(s);
  }
}

template <class S>
void AoiWorld<S>::apply(std::uint32_t s, bool all_dirty) {
  using namespace detail::aoi;
  Cold& c = cold_[s];
  const std::uint16_t f = c.flags;
  c.flags = static_cast<std::uint16_t>(f & kLive);
  if ((f & kRemoved) != 0) {
    slot_of_.erase(ids_[s]);
    if ((f & kLive) == 0) {  // added and removed between two ticks: never part of the relation
      hot_[s] = Hot{};
      free_.push_back(s);
      return;
    }
    // Its watchers must see it leave; its own pairs end when it is evaluated as a non-watcher.
    if (!all_dirty) mark_watchers_of(s);
    unlink_targets(s);
    if (c.seen_count != 0) mark_dirty(s);
    hot_[s].marker_layers = 0;
    anchors_[s].watching = 0;  // a watcher no more (re-anchoring passes read it)
    if (!c.body.is_null()) bodies_.erase(c.body);
    if (!c.range.is_null()) ranges_.erase(c.range);
    c.body = c.range = Handle{};
    c.flags |= kDying;
    dying_.push_back(s);
    return;
  }
  // Watchers that saw it (or might) look again: it moved or changed.
  if (!all_dirty && hot_[s].marker_layers != 0) mark_watchers_of(s);
  c.path += std::sqrt(dist2(hot_[s].pos, c.next_pos));
  hot_[s].pos = c.next_pos;
  bool rebuild = false;
  if ((f & kChanged) != 0) {
    c.view_radius = c.next_view_radius;
    c.body_radius = c.next_body_radius;
    c.mode = c.next_mode;
    c.layers = c.next_layers;
    hot_[s].marker_layers = marks(c.mode) ? c.layers : 0;
    rebuild = true;
  }
  if ((f & kAdded) != 0) {
    c.flags |= kLive;
    added_.push_back(s);
    ++adds_since_renumber_;
    ++live_count_;
    rebuild = true;
  }
  if (rebuild) anchors_[s].watching = watches(c.mode) ? c.layers : 0;
  if (rebuild || dist2(hot_[s].pos, anchors_[s].at) > sq(skin_ / 2))
    reanchor(s, !rebuild, (f & kAdded) != 0);
  if (is_watcher(s) || c.seen_count != 0) mark_dirty(s);
}

template <class S>
void AoiWorld<S>::mark_dirty(std::uint32_t w) {
  if (all_dirty_) return;  // every watcher is evaluated: nothing to note (nor a cold record to read)
  Cold& c = cold_[w];
  if (c.dirty_tick == tick_no_) return;
  c.dirty_tick = tick_no_;
  dirty_.push_back(w);
}

// Groups the entries left behind at this tick by watcher, a counting sort: watcher w's targets become the run
// [counts_[w - 1], counts_[w]) of scratch_ (from 0 for w = 0), which holds until the evaluations are over (scratch_
// and counts_ serve other passes before and after them). Recorded in the order the re-anchors met them, a watcher's
// entries lay scattered over left_, and following them missed the cache at every step when runners are many.
template <class S>
void AoiWorld<S>::index_left_behind() {
  const std::size_t n = cold_.size();
  counts_.assign(n + 1, 0);
  for (const Left& l : left_) ++counts_[l.watcher];
  std::uint32_t at = 0;
  for (std::uint32_t w = 0; w < n; ++w) {
    const std::uint32_t count = counts_[w];
    counts_[w] = at;
    at += count;
  }
  scratch_.resize(left_.size());
  for (const Left& l : left_) scratch_[counts_[l.watcher]++] = l.target;
}

template <class S>
void AoiWorld<S>::mark_watchers_of(std::uint32_t t) {
  for_each_named(t, [&](std::uint32_t w) { mark_dirty(w); });
}

template <class S>
std::uint32_t AoiWorld<S>::next_drop_mark() {
  if (drop_mark_ > 0xfffffff0u) {
    for (Hot& h : hot_) h.drop_mark = 0;
    drop_mark_ = 0;
  }
  return ++drop_mark_;
}

template <class S>
std::uint32_t AoiWorld<S>::next_stamp() {
  if (stamp_ > 0xfffffff0u) {
    for (Anchor& a : anchors_) a.stamp = a.target_stamp = 0;
    stamp_ = 0;
  }
  return ++stamp_;
}

// One watcher's new visible set and its events, in one pass over its candidates. The entry of a target carries the
// seen bit (the pair held at the last tick), which picks the radius: view radius, or view radius + hysteresis.
// Entries out of reach (stale, or left behind by a target that re-anchored: see links.hpp) and entries of
// targets no longer eligible (removed, mode or layers changed) report their Leave, if seen, and are dropped.
template <class S>
void AoiWorld<S>::evaluate(std::uint32_t w) {
  using namespace detail::aoi;
  std::uint32_t* const list = cand_.data(w);
  const std::size_t n = cand_.size(w);
  const std::size_t first_event = events_.size();
  const Hot* const hot = hot_.data();
  std::size_t k = 0;
  std::uint32_t seen_count = 0;
  if (is_watcher(w)) {
    const double r = static_cast<double>(cold_[w].view_radius);
    const double r2 = sq(r), rh2 = sq(r + static_cast<double>(settings_.hysteresis));
    // Float bounds a little inside and outside the exact limits: a float distance beyond them decides alone.
    const float r2_in = float_inside(r2), rh2_in = float_inside(rh2);
    const float r2_out = float_outside(r2), rh2_out = float_outside(rh2);
    const std::uint32_t layers = cold_[w].layers;
    // Entries left behind at this tick (and still out of reach: the watcher may have re-anchored since) get this
    // mark in their target's record; kNoSlot is never a mark.
    std::uint32_t mark = kNoSlot;
    if (!left_.empty()) {
      const std::uint32_t end = counts_[w];
      if (const std::uint32_t begin = w == 0 ? 0 : counts_[w - 1]; begin != end) {
        mark = next_drop_mark();
        for (std::uint32_t i = begin; i < end; ++i)
          if (!in_range(w, scratch_[i])) hot_[scratch_[i]].drop_mark = mark;
      }
    }
    const Vec<2, S> pw = hot[w].pos;
    // Branch-light: about a third of the candidates are visible, in no pattern, so "visible?" is computed without
    // a branch (a mispredicted branch per candidate cost more than the rest of the pass); the branches left are
    // taken rarely (events, entries to drop, distances within rounding of the limit).
    auto one = [&](std::uint32_t e) {
      const std::uint32_t t = e & kSlotMask;
      const bool was = (e & kSeenBit) != 0;
      const Hot& ht = hot[t];
      if ((e & kStaleBit) != 0 || (ht.marker_layers & layers) == 0 || ht.drop_mark == mark) [[unlikely]] {
        if (was) add_event(AoiEvent::Kind::Leave, w, t);
        return;
      }
      bool now;
      if constexpr (std::is_same_v<S, float>) {
        // In float first; the double test decides only near the edge.
        const float dx = ht.pos.x - pw.x, dy = ht.pos.y - pw.y;
        const float d2f = dx * dx + dy * dy;
        now = d2f < (was ? rh2_in : r2_in);
        if (!now && d2f <= (was ? rh2_out : r2_out)) [[unlikely]]
          now = dist2(pw, ht.pos) <= (was ? rh2 : r2);
      } else {
        now = dist2(pw, ht.pos) <= (was ? rh2 : r2);
      }
      if (now != was) [[unlikely]] add_event(now ? AoiEvent::Kind::Enter : AoiEvent::Kind::Leave, w, t);
      list[k++] = t | (static_cast<std::uint32_t>(now) << 31);
      seen_count += static_cast<std::uint32_t>(now);
    };
    std::size_t i = 0;
#if defined(QUADRANT_SSE2)
    if constexpr (std::is_same_v<S, float>) {
      // Four candidates at a time: most groups change nothing (no event, nothing to drop, no distance near the
      // edge), and such a group is decided in a few vector instructions; any other group goes through one().
      const __m128 wx = _mm_set1_ps(pw.x), wy = _mm_set1_ps(pw.y);
      const __m128 in_seen = _mm_set1_ps(rh2_in), in_unseen = _mm_set1_ps(r2_in);
      const __m128 out_seen = _mm_set1_ps(rh2_out), out_unseen = _mm_set1_ps(r2_out);
      const __m128i slot_mask = _mm_set1_epi32(static_cast<int>(kSlotMask));
      const __m128i stale_bit = _mm_set1_epi32(static_cast<int>(kStaleBit));
      const __m128i layer_mask = _mm_set1_epi32(static_cast<int>(layers));
      const __m128i zero = _mm_setzero_si128();
      const __m128i marked = _mm_set1_epi32(static_cast<int>(mark));
      static_assert(sizeof(Hot) == 16 && offsetof(Hot, marker_layers) == 8 && offsetof(Hot, drop_mark) == 12,
                    "evaluate reads a Hot record as four 32-bit lanes");
      alignas(16) std::uint32_t ts[4];
      for (; i + 4 <= n; i += 4) {
        if (i + 12 < n) detail::prefetch(&hot[list[i + 12] & kSlotMask]);
        const __m128i ev = _mm_loadu_si128(reinterpret_cast<const __m128i*>(list + i));
        _mm_store_si128(reinterpret_cast<__m128i*>(ts), _mm_and_si128(ev, slot_mask));
        // The four targets' records (x, y, marker layers, drop mark: 16 bytes each), transposed to four of each.
        __m128 xs = _mm_loadu_ps(reinterpret_cast<const float*>(&hot[ts[0]]));
        __m128 ys = _mm_loadu_ps(reinterpret_cast<const float*>(&hot[ts[1]]));
        __m128 lays = _mm_loadu_ps(reinterpret_cast<const float*>(&hot[ts[2]]));
        __m128 marks = _mm_loadu_ps(reinterpret_cast<const float*>(&hot[ts[3]]));
        _MM_TRANSPOSE4_PS(xs, ys, lays, marks);
        const __m128 dx = _mm_sub_ps(xs, wx), dy = _mm_sub_ps(ys, wy);
        const __m128 d2 = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
        const __m128i lay = _mm_castps_si128(lays);
        const __m128 was = _mm_castsi128_ps(_mm_srai_epi32(ev, 31));  // all ones where the seen bit is set
        const __m128 in = _mm_or_ps(_mm_and_ps(was, in_seen), _mm_andnot_ps(was, in_unseen));
        const __m128 out = _mm_or_ps(_mm_and_ps(was, out_seen), _mm_andnot_ps(was, out_unseen));
        const __m128 now = _mm_cmplt_ps(d2, in);
        // A lane needs one(): an entry to drop (stale, ineligible or left behind), or a distance within rounding of
        // the limit (not inside by the float test, not beyond the outer bound: the double test decides).
        const __m128i bad = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi32(_mm_and_si128(ev, stale_bit), stale_bit),
                         _mm_cmpeq_epi32(_mm_and_si128(lay, layer_mask), zero)),
            _mm_cmpeq_epi32(_mm_castps_si128(marks), marked));
        const __m128 near_edge = _mm_andnot_ps(now, _mm_cmple_ps(d2, out));
        if (_mm_movemask_ps(_mm_or_ps(_mm_castsi128_ps(bad), near_edge)) != 0) [[unlikely]] {
          for (std::size_t j = 0; j < 4; ++j) one(list[i + j]);
          continue;
        }
        // Every lane stays: its entry is the slot and the new seen bit; a lane whose bit changed has an event.
        const __m128i kept = _mm_or_si128(_mm_and_si128(ev, slot_mask),
                                          _mm_and_si128(_mm_castps_si128(now), _mm_set1_epi32(static_cast<int>(kSeenBit))));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(list + k), kept);
        k += 4;
        const unsigned now_bits = static_cast<unsigned>(_mm_movemask_ps(now));
        for (unsigned changed = now_bits ^ static_cast<unsigned>(_mm_movemask_ps(was)); changed != 0;
             changed &= changed - 1) {
          const int j = std::countr_zero(changed);
          add_event((now_bits >> j) & 1u ? AoiEvent::Kind::Enter : AoiEvent::Kind::Leave, w, ts[j]);
        }
        // The bits of a 4-bit mask, counted by table (std::popcount is a library call without -mpopcnt).
        constexpr std::uint64_t kBits = 0x4332322132212110u;  // nibble m holds popcount(m)
        seen_count += static_cast<std::uint32_t>(kBits >> (4 * now_bits)) & 0xfu;
      }
    }
#endif
    for (; i < n; ++i) {
      if (i + 8 < n) detail::prefetch(&hot[list[i + 8] & kSlotMask]);
      one(list[i]);
    }
  } else {
    // Removed, or no longer a watcher (its entries are stale): every pair it saw ends.
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t t = list[i] & kSlotMask;
      if ((list[i] & kSeenBit) != 0) add_event(AoiEvent::Kind::Leave, w, t);
    }
  }
  cand_.shrink(w, static_cast<std::uint32_t>(k));
  if (events_.size() - first_event > 1)
    std::sort(events_.begin() + static_cast<std::ptrdiff_t>(first_event), events_.end(),
              [](const AoiEvent& a, const AoiEvent& b) { return a.target < b.target; });
  pair_count_ = pair_count_ - cold_[w].seen_count + seen_count;
  cold_[w].seen_count = seen_count;
  cold_[w].stale_count = 0;
}

}  // namespace quadrant
