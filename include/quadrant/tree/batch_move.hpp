// SPDX-License-Identifier: MIT
// quadrant internals: the batch move, Tree::move(handles, boxes[, threads]) (tree/tree.hpp). Not for direct
// inclusion: <quadrant/tree.hpp> brings it.
//
// The threads check the items, a range each, then give every object that stays in its node and within the node's
// fit its new box, each writing that object's entry alone. The fits that must grow are grown after, on this
// thread, while every node the threads saw stands; then this thread relocates the others in order. On one thread
// the objects move in order, each object's memory fetched a few objects ahead of its turn.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../detail/prefetch.hpp"
#include "../detail/scratch.hpp"
#include "../detail/threads.hpp"
#include "../detail/walk_guard.hpp"
#include "../handle.hpp"
#include "core.hpp"
#include "placement.hpp"
#include "tree.hpp"

namespace quadrant {
namespace detail {

// Slots from which a batch move fetches each object's memory ahead of its turn. Below, what a move reads (some 60
// bytes an object) stays in the L2 cache from frame to frame and the fetches only cost instructions; above, they
// hide the cache misses of a move (docs/dev/timings-from-code.md).
inline constexpr std::size_t kMovePrefetchFrom = 8192;

// Calls fn(i, slot) for the checked items [from, to) of a batch move on a tree of `slots` record slots, in order.
// From kMovePrefetchFrom slots on, each object's memory is fetched in four stages, kAhead objects apart, each stage
// reading what the one before brought in; by the time fn runs, the object's references, node and entry are in the
// cache.
template <int D, class S, class Fn>
void each_moving(const TreeCore<D, S>& core, std::size_t slots, std::span<const Handle> handles, std::size_t from,
                 std::size_t to, Fn&& fn) {
  if (slots < kMovePrefetchFrom) {
    for (std::size_t i = from; i < to; ++i) fn(i, handles[i].index());
    return;
  }
  constexpr std::size_t kAhead = 16;
  const auto& store = core.store();
  // Parent decides by the cell alone; the bounds would take a line fill for nothing.
  const bool parent = core.config().placement == Placement::Parent;
  for (std::size_t i = from; i < to; ++i) {
    if (i + 4 * kAhead < to) store.template prefetch_object<0>(handles[i + 4 * kAhead].index());
    if (i + 3 * kAhead < to) store.template prefetch_object<1>(handles[i + 3 * kAhead].index());
    if (i + 2 * kAhead < to) {
      if (parent) store.template prefetch_object<2, false>(handles[i + 2 * kAhead].index());
      else store.template prefetch_object<2, true>(handles[i + 2 * kAhead].index());
    }
    if (i + kAhead < to) store.template prefetch_object<3>(handles[i + kAhead].index());
    fn(i, handles[i].index());
  }
}

// Whether a checked batch on a tree of `slots` record slots lists a handle twice. Ranges (lo(t) .. lo(t + 1), none
// empty) whose slots increase, each starting above the one before, cannot; otherwise a bit a slot decides.
template <class Lo>
bool lists_a_handle_twice(std::span<const Handle> handles, std::size_t slots, const std::vector<char>& increasing,
                          Lo&& lo) {
  bool ordered = true;
  for (unsigned t = 0; t < increasing.size() && ordered; ++t)
    ordered = increasing[t] && (t == 0 || handles[lo(t) - 1].index() < handles[lo(t)].index());
  if (ordered) return false;
  std::vector<std::uint64_t> seen((slots + 63) / 64, 0);
  for (const Handle& h : handles) {
    std::uint64_t& word = seen[h.index() / 64];
    const std::uint64_t bit = std::uint64_t{1} << (h.index() % 64);
    if (word & bit) return true;
    word |= bit;
  }
  return false;
}

}  // namespace detail

template <int D, class T, class S>
std::size_t Tree<D, T, S>::move(std::span<const Handle> handles, std::span<const box_type> boxes, unsigned threads) {
  detail::refuse_inside_walk(this, "move");
  if (handles.size() != boxes.size())
    throw std::invalid_argument("quadrant: move: " + std::to_string(handles.size()) + " handles but " +
                                std::to_string(boxes.size()) + " boxes");
  const std::size_t n = handles.size();
  threads = detail::resolve_threads(threads);
  // Below this many objects a thread, starting it costs more than its share saves (measured on moving boxes:
  // docs/dev/timings-from-code.md).
  constexpr std::size_t kPerThread = 32768;
  threads = unsigned(std::clamp<std::size_t>(n / kPerThread, 1, threads));
  if (config().placement == Placement::Leaves) threads = 1;
  auto lo = [&](unsigned t) { return n * t / threads; };

  // Checks, a range a thread. A range also notes whether its handles' slots increase, which rules out a
  // handle listed twice without a look-up.
  std::size_t bad = n;
  std::vector<char> increasing;  // by range; one thread leaves it empty and allocates nothing
  if (threads == 1) {
    bool unused;
    bad = first_bad_item(handles, boxes, 0, n, unused);
  } else {
    std::vector<std::size_t> first_bad(threads, n);
    increasing.assign(threads, 1);
    detail::on_threads(threads, [&](unsigned t) {
      bool up = true;
      const std::size_t i = first_bad_item(handles, boxes, lo(t), lo(t + 1), up);
      first_bad[t] = i == lo(t + 1) ? n : i;
      increasing[t] = up;
    });
    bad = *std::min_element(first_bad.begin(), first_bad.end());
  }
  if (bad != n) {
    try {
      checked(handles[bad], "move");
      check_box(boxes[bad], "move");
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(e.what()) + " (item " + std::to_string(bad) + ")");
    }
  }
  if (threads > 1 && detail::lists_a_handle_twice(handles, records_.size(), increasing, lo)) threads = 1;

  std::size_t relocated = 0;
  if (threads == 1) {
    detail::with_placement(config().placement, [&](auto p) {
      detail::each_moving(core_, records_.size(), handles, 0, n, [&](std::size_t i, std::uint32_t id) {
        relocated += core_.move(p, id, boxes[i]);
      });
    });
    return relocated;
  }
  // later[i]: what the threads left to do for item i: nothing (kMovedInPlace), grow the fits from a node, or
  // move the object elsewhere (kNone).
  detail::ScratchLease<std::uint32_t> later_lease;
  detail::Array<std::uint32_t>& later = later_lease.get();
  later.resize(n);
  using Core = detail::TreeCore<D, S>;
  // The boxes' extents (see TreeCore::overhang), one maximum a thread, noted once the threads are done.
  std::vector<detail::WideScalar<S>> extents(threads, 0);
  const bool loose = config().placement == Placement::Loose;
  detail::on_threads(threads, [&](unsigned t) {
    detail::WideScalar<S> extent = 0;
    detail::each_moving(core_, records_.size(), handles, lo(t), lo(t + 1), [&](std::size_t i, std::uint32_t id) {
      if (loose) extent = std::max(extent, Core::extent_of(boxes[i]));
      later[i] = core_.move_in_place({boxes[i], id, 0});
    });
    extents[t] = extent;
  });
  for (const auto e : extents) core_.note_extent(e);
  // The fits grow before any object moves elsewhere, while every node the threads saw stands.
  for (std::size_t i = 0; i < n; ++i)
    if (later[i] < Core::kMovedInPlace) core_.grow_fit(later[i], boxes[i]);
  for (std::size_t i = 0; i < n; ++i) {
    if (later[i] != detail::kNone) continue;
    const std::uint32_t id = handles[i].index_;
    relocated += core_.move(id, boxes[i]);
  }
  return relocated;
}

// The first item in [begin, end) of a batch move with a bad handle or box, or `end`; sets `increasing` to
// whether the handles' slots increase up to there.
template <int D, class T, class S>
std::size_t Tree<D, T, S>::first_bad_item(std::span<const Handle> handles, std::span<const box_type> boxes,
                                          std::size_t begin, std::size_t end, bool& increasing) const noexcept {
  constexpr std::size_t kAhead = 16;  // objects between the prefetch and the check
  auto slot_of = [&](std::size_t i) { return std::min<std::uint32_t>(handles[i].index_, std::uint32_t(records_.size() - 1)); };
  increasing = true;
  for (std::size_t i = begin; i < end; ++i) {
    if (i + kAhead < end && records_.size() >= detail::kMovePrefetchFrom) {
      detail::prefetch(&records_[slot_of(i + kAhead)]);
      detail::prefetch(&generations_[slot_of(i + kAhead)]);
    }
    if (!contains(handles[i]) || !valid_box(boxes[i])) return i;
    if (i > begin && handles[i].index_ <= handles[i - 1].index_) increasing = false;
  }
  return end;
}

}  // namespace quadrant
