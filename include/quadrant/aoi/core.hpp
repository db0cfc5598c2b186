// SPDX-License-Identifier: MIT
// quadrant internals: the state and the tick machinery behind AoiWorld (aoi/world.hpp). Not for direct inclusion:
// <quadrant/aoi.hpp> brings it.
//
// Idea (Verlet lists with per-entity anchors). Each entity has an anchor, a point within skin / 2 of its position
// (its position when it last re-anchored, or ahead of it for a runner: see lead_anchor); it re-anchors when it
// drifts more than skin / 2 from it. Let reach(W) = view_radius + hysteresis + skin (+ kUnderflowReach, below).
// Invariant, between ticks:
// cand[W] holds one entry for every eligible target T (a marker whose layers share a bit with W's) whose anchor lies
// within reach(W) of W's anchor (in_range, with a rounding tolerance), and nothing else; every watcher holding an
// entry of T is named in rcand[T] or, where that follows from the geometry, in cand[T] itself, and the two may
// name others (see aoi/links.hpp: removing a watcher from a long reverse list would cost a search, so the lists are
// cleaned in passes instead). Every position is within skin / 2 of its anchor, so
// every T within view_radius + hysteresis of W has an entry: a tick tests only the candidates, and only of the
// watchers whose neighbourhood changed. An entry carries the seen bit (W saw T at the last tick): the relation lives
// in the lists. During a tick a list may also hold entries out of reach — stale ones (targets that left the
// watcher's reach when it re-anchored, still seen) and those left behind by targets that re-anchored out of its
// reach: evaluate() reports their Leave and drops them. The bodies tree indexes every entity by its body box around
// its anchor: it finds the pairs of a re-anchoring entity, and answers skill queries (whose shapes' bounding boxes
// it is queried with, grown by skin / 2: a body lies within skin / 2 of its anchor's box); the ranges
// tree holds the few watchers whose reach is far above the others' (so that the bodies query stays small). See
// docs/aoi.md for the costs.
//
// Threads: as AoiWorld.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "../detail/prefetch.hpp"
#include "../geometry.hpp"  // also <emmintrin.h> and QUADRANT_SSE2 where the SSE2 paths are on
#include "../handle.hpp"
#include "events.hpp"

namespace quadrant {

namespace detail::aoi {

inline constexpr std::uint32_t kNoSlot = 0xffffffffu;

// Cold-state flags of a slot.
enum : std::uint16_t {
  kLive = 1,        // part of the relation since the last tick
  kPending = 2,     // listed in pending_ (something to apply at the next tick)
  kAdded = 4,       // added since the last tick
  kRemoved = 8,     // removed since the last tick
  kMoved = 16,      // next_pos differs
  kChanged = 32,    // radius, mode, layers or body radius differ
  kDying = 64,      // removed in the tick being run: its pairs end, its slot is freed at the end
};

inline double sq(double v) noexcept { return v * v; }

// Relative tolerances covering double rounding (about 1e-16 relative) in the proofs of the candidate invariant.
inline constexpr double kTol = 1e-12;
// A body box is computed in S (float rounds at 6e-8 relative): the grown box of the tree allows for it.
inline constexpr double kBodyTol = 1e-6;

// Squared distances are compared in double, where a square below the smallest subnormal rounds to zero: two
// positions closer than about 3e-162 (or that much beyond a view radius) can test as in reach for any radius. The
// reach of every watcher is grown by this much so that the candidate lists hold such pairs too; at ordinary
// magnitudes the addition vanishes in rounding.
inline constexpr double kUnderflowReach = 1e-160;

// Squares below about 1e-300 carry absolute rounding errors (a subnormal square rounds to a multiple of 5e-324),
// which relative tolerances do not cover: tests that must agree with in_range at such magnitudes (the re-anchoring
// queries) add or take off this much from the squares they compare. At any other magnitude it vanishes.
inline constexpr double kSquareSlack = 1e-320;

// Bounds for the float test of a squared distance d2f (float positions) against a limit x computed in double:
// d2f < float_inside(x) proves d2 <= x and d2f > float_outside(x) proves d2 > x; between them the double test
// decides. A float square is within 1e-6 relative of the exact one only while it is a normal float far from
// overflow (1e-30..1e37): below, subnormal squares lose every digit (and the bounds leave the decision to double);
// above, the bounds stop at 1e37.
inline float float_inside(double x) noexcept {
  return x < 1e-30 ? -1.0f : static_cast<float>(std::min(x, 1e37)) * 0.9999f;
}
inline float float_outside(double x) noexcept {
  return x < 1e-30 ? 2e-30f : x > 1e37 ? std::numeric_limits<float>::infinity() : static_cast<float>(x) * 1.0001f;
}

// The largest coordinate or radius accepted: squares overflow a double beyond about 1.3e154, and the sums and
// squares the tests form from coordinates and radii up to 1e150 stay far below that.
inline constexpr double kMaxMagnitude = 1e150;

template <class S>
inline double max_abs(const Vec<2, S>& p) noexcept {
  return std::max(std::abs(static_cast<double>(p.x)), std::abs(static_cast<double>(p.y)));
}

template <class S>
inline double dist2(const Vec<2, S>& a, const Vec<2, S>& b) noexcept {
  const double dx = static_cast<double>(a.x) - static_cast<double>(b.x);
  const double dy = static_cast<double>(a.y) - static_cast<double>(b.y);
  return dx * dx + dy * dy;
}

[[noreturn]] inline void fail(const char* what, const std::string& defect) {
  throw std::invalid_argument(std::string("quadrant: aoi: ") + what + ": " + defect);
}

template <class S>
void check_position(const Vec<2, S>& p, const char* what) {
  for (int i = 0; i < 2; ++i) {
    if (std::isnan(p[i])) fail(what, "position coordinate is NaN");
    if (!std::isfinite(p[i])) fail(what, "position coordinate is infinite");
    if (std::abs(static_cast<double>(p[i])) > kMaxMagnitude) fail(what, "position coordinate is beyond 1e150");
  }
}

template <class S>
void check_radius(S r, const char* what, const char* name) {
  if (std::isnan(r)) fail(what, std::string(name) + " is NaN");
  if (r < 0) fail(what, std::string(name) + " is negative");
  if (!std::isfinite(r) || static_cast<double>(r) > kMaxMagnitude)
    fail(what, std::string(name) + " is infinite or beyond 1e150");
}

// What a watcher's evaluation touches for every candidate, packed in one small record.
template <class S>
struct Hot {
  Vec<2, S> pos;                    // position as of the tick being run (the last tick, between ticks)
  std::uint32_t marker_layers = 0;  // layers when a live marker, else 0: a candidate is eligible when it shares a bit
  std::uint32_t drop_mark = 0;      // scratch of evaluate(): marks the targets whose entries the watcher drops
};

// Everything else about a slot, and the values waiting for the next tick.
template <class S>
struct Cold {
  S view_radius = 0, body_radius = 0;
  std::uint32_t layers = 0;
  AoiMode mode = AoiMode::Both;
  std::uint16_t flags = 0;
  Vec<2, S> next_pos{};
  S next_view_radius = 0, next_body_radius = 0;
  std::uint32_t next_layers = 0;
  AoiMode next_mode = AoiMode::Both;
  Handle body, range;                  // entries in the two trees (null when absent)
  std::uint32_t seen_count = 0;         // targets it saw at the last tick (entries of cand with the seen bit)
  std::uint32_t stale_count = 0;        // entries of cand with the stale bit
  std::uint32_t dirty_tick = 0;         // the tick that last marked it for evaluation
  std::uint32_t stale_tick = 0;         // the last tick that gave it a stale entry in some list
  Vec<2, S> origin{};                   // its position when it last re-anchored
  double path = 0;                      // the length of its moves since then (see lead_anchor)
};

// Many small lists (one per slot) in one array, so that walking the slots in order walks memory in order (one
// vector per slot scatters the lists over the heap, and a tick that reads them all pays a miss per list). A list
// that outgrows its room moves to the end, into the array's spare room; the array is repacked, in slot order, when
// that runs out (or when the slots are renumbered). Pointers into a list live until the next push to any list.
class ListArena {
 public:
  std::uint32_t* data(std::uint32_t s) noexcept { return items_.data() + spans_[s].begin; }
  const std::uint32_t* data(std::uint32_t s) const noexcept { return items_.data() + spans_[s].begin; }
  std::uint32_t size(std::uint32_t s) const noexcept { return spans_[s].size; }
  const std::uint32_t* begin(std::uint32_t s) const noexcept { return data(s); }
  const std::uint32_t* end(std::uint32_t s) const noexcept { return data(s) + size(s); }
  void add_slot() { spans_.emplace_back(); }
  // Hints: ask for the cache line of list s's record, or of the place its next entry goes.
  void prefetch_span(std::uint32_t s) const noexcept { detail::prefetch(&spans_[s]); }
  void prefetch_end(std::uint32_t s) const noexcept {
    detail::prefetch(items_.data() + spans_[s].begin + spans_[s].size);
  }
  void reserve_slots(std::size_t n) { spans_.reserve(n); }
  void clear(std::uint32_t s) noexcept { spans_[s].size = 0; }
  void shrink(std::uint32_t s, std::uint32_t n) noexcept { spans_[s].size = n; }
  std::uint32_t capacity(std::uint32_t s) const noexcept { return spans_[s].cap; }
  void push(std::uint32_t s, std::uint32_t v) {
    if (spans_[s].size == spans_[s].cap) grow(s, spans_[s].cap + spans_[s].cap / 4 + 8);
    Span& sp = spans_[s];
    items_[sp.begin + sp.size++] = v;
  }
  // Room for cap entries in list s (no change when it has that much).
  void reserve(std::uint32_t s, std::uint32_t cap) {
    if (cap > spans_[s].cap) grow(s, cap);
  }
  // Rewrites the array with list s moved to slot new_of[s], in the new slot order.
  void renumber(const std::vector<std::uint32_t>& new_of) {
    std::vector<Span> renumbered;  // renumberings are rare: the copy is not kept
    renumbered.reserve(spans_.capacity());  // the room AoiWorld reserved for new slots
    renumbered.resize(spans_.size());
    for (std::size_t s = 0; s < spans_.size(); ++s) renumbered[new_of[s]] = spans_[s];
    spans_.swap(renumbered);
    repack();
  }

 private:
  struct Span {
    std::uint32_t begin = 0, size = 0, cap = 0;
  };
  // A list that outgrows its room moves to the end of the array, into the array's spare room, with a quarter more
  // room (doubling it, each move took twice the list's size of the spare room, and the spare room had to be
  // twice as large for as few repacks); when that is used up, the array is repacked. The array never grows by the
  // vector's doubling: right after a repack that doubled it, and lists and spare room together held 2.5 times the
  // entries (a world of runners at 10k, 1.9 KB an entity in candidate lists for 0.75 KB of entries).
  void grow(std::uint32_t s, std::uint32_t cap) {
    Span& sp = spans_[s];
    const std::size_t at = items_.size();
    if (sp.begin + sp.cap == at && sp.begin + cap <= items_.capacity()) {  // the last list grows in place
      items_.resize(sp.begin + cap);
    } else if (at + cap <= items_.capacity()) {
      items_.resize(at + cap);
      std::copy(items_.begin() + sp.begin, items_.begin() + sp.begin + sp.size, items_.begin() + at);
      sp.begin = static_cast<std::uint32_t>(at);
    } else {
      repack(s, cap);
      return;
    }
    sp.cap = cap;
  }
  // Copies every list, in slot order, into a new array that replaces the old one: each list with an eighth of room
  // to grow. A repack made by list `grown` outgrowing the array gives that list room for `grown_cap` entries at
  // least and the array an eighth of spare room for lists that outgrow theirs; a renumbering packs the lists with
  // no spare room. With lists that moved by doubling, an eighth of spare room made frequent repacks, each a slow
  // tick; lists that move with a quarter more room make them rare, and a quarter of spare room would hold more
  // memory for no fewer repacks.
  // The old array is freed rather than kept for the next repack: it is as large as every list together.
  void repack(std::uint32_t grown = ~0u, std::uint32_t grown_cap = 0) {
    auto room = [&](std::size_t s) {
      const std::uint32_t size = spans_[s].size, r = size + size / 8 + 2;
      return s == grown ? std::max(r, grown_cap) : r;
    };
    std::size_t total = 0;
    for (std::size_t s = 0; s < spans_.size(); ++s) total += room(s);
    const std::size_t spare = grown == ~0u ? 0 : total / 8;
    if (total + spare > 0xffffffffu)
      throw std::length_error("quadrant: aoi: candidate or watcher lists exceed 2^32 entries");
    std::vector<std::uint32_t> packed;
    packed.reserve(total + spare);
    packed.resize(total);
    std::uint32_t at = 0;
    for (std::size_t s = 0; s < spans_.size(); ++s) {
      Span& sp = spans_[s];
      std::copy(items_.begin() + sp.begin, items_.begin() + sp.begin + sp.size, packed.begin() + at);
      sp.begin = at;
      sp.cap = static_cast<std::uint32_t>(room(s));
      at += sp.cap;
    }
    items_.swap(packed);
  }

 public:
  // Heap bytes held, capacity included.
  std::size_t bytes() const noexcept {
    return items_.capacity() * sizeof(std::uint32_t) + spans_.capacity() * sizeof(Span);
  }

 private:
  std::vector<std::uint32_t> items_;
  std::vector<Span> spans_;
};

// The index of the first entry e of a[0, n) with (e & mask) == v, or n. Used on the rare paths (a full relink, a
// stale entry revived, for_each_watcher); lists hold a few hundred entries: with SSE2 (every x86-64) it compares 8
// entries per step.
inline std::size_t find_masked(const std::uint32_t* a, std::size_t n, std::uint32_t v, std::uint32_t mask) noexcept {
  std::size_t i = 0;
#if defined(QUADRANT_SSE2)
  const __m128i value = _mm_set1_epi32(static_cast<int>(v)), bits = _mm_set1_epi32(static_cast<int>(mask));
  for (; i + 8 <= n; i += 8) {
    const __m128i lo = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)), bits);
    const __m128i hi = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 4)), bits);
    const int hit = _mm_movemask_epi8(_mm_packs_epi32(_mm_cmpeq_epi32(lo, value), _mm_cmpeq_epi32(hi, value)));
    if (hit != 0) return i + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(hit))) / 2;
  }
#endif
  for (; i < n; ++i)
    if ((a[i] & mask) == v) return i;
  return n;
}

inline bool watches(AoiMode m) noexcept { return (static_cast<unsigned>(m) & 1u) != 0; }
inline bool marks(AoiMode m) noexcept { return (static_cast<unsigned>(m) & 2u) != 0; }

}  // namespace detail::aoi
}  // namespace quadrant
