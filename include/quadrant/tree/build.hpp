// SPDX-License-Identifier: MIT
// quadrant internals: the bulk build, Tree::assign and Tree::rebuild (tree/tree.hpp), and the TreeCore members
// they run (core.hpp). Not for direct inclusion: <quadrant/tree.hpp> brings it.
//
// assign checks every item and computes the key that names its node (build_keys.hpp: the node's place in the tree's
// pre-order, or under Leaves the Morton code of the box's center), radix-sorts the keys in the tree's own entry
// array, writes the entries in key order and builds the tree top-down: each node's entries are one run of the
// sorted array, its own entries first, then each child's, child by child, so a split finds them in place.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../detail/prefetch.hpp"
#include "../detail/morton.hpp"
#include "../detail/scratch.hpp"
#include "../detail/walk_guard.hpp"
#include "../handle.hpp"
#include "build_keys.hpp"
#include "core.hpp"
#include "placement.hpp"
#include "tree.hpp"

namespace quadrant {
namespace detail {

template <int D, class S>
template <class P>
void TreeCore<D, S>::build(P p, Array<entry_type>& arena, std::span<const std::uint64_t> keys,
                           const BuildKeys<D, S>& key_of) {
  const std::size_t threshold = static_cast<std::size_t>(config_.split_threshold);
  ScratchLease<BuildJob> job_lease;
  ScratchLease<std::uint32_t> mask_lease;
  ScratchLease<entry_type> other_lease, stay_lease;
  Array<BuildJob>& jobs = job_lease.get();
  Array<std::uint32_t>& masks = mask_lease.get();
  // One-node placements build in place (see build_input): the arena is the store's entry array, and a node's own
  // entries, then each child's, child by child, are put where the tree lists them. An entry goes to one child
  // at most, so the children's entries fit in their parent's range. A split nearly always finds them child by
  // child already and only moves the entries that stay in front; otherwise it sorts them into the same range of
  // a second buffer, made on first need. Leaves may copy an entry to several children: they are sorted past the
  // end of the arena (scratch) and moved down over their parent's range, whose entries are all placed by then.
  Array<entry_type>& other = other_lease.get();
  Array<entry_type>& stay = stay_lease.get();
  jobs.push_back({0, 0, static_cast<std::uint32_t>(arena.size()), false});
  store_.reserve_entries(arena.size());
  // Leaves' invariant: the job on top of the stack owns the end of the arena (arena.size() == hi), so a finished
  // job gives its space back by truncating, and the children of a split take the place of their parent's range.
  while (!jobs.empty()) {
    const BuildJob job = jobs.back();
    jobs.pop_back();
    const std::uint32_t n = job.node, size = job.hi - job.lo;
    entry_type* const from = (job.other ? other : arena).data() + job.lo;
    const std::span<const entry_type> here(from, size);
    if (const int d = store_.depth(n); d < key_of.levels()) {
      build_from_keys(p, n, d, job, here, keys, key_of, jobs);
      continue;
    }
    const bool split_now = threshold != 0 && size > threshold && can_split(store_.cell(n), store_.depth(n)) &&
                           split_helps(p, n, here);
    if (!split_now) {
      list_own(p, n, job.lo, here);
      if constexpr (P::kEveryLeaf) arena.resize(job.lo);
      continue;
    }
    box_type cells[fanout], child_bounds[fanout];
    const std::uint32_t first = split_empty(p, n, cells, child_bounds);
    // Count sort by child.
    std::uint32_t counts[fanout] = {};
    masks.resize(size);
    std::uint32_t stayed = 0;
    // Whether the entries going down come child by child (child 0's first): entries in Morton order of their
    // centers nearly always do, and then each child's are one run of the range already.
    bool in_child_order = !P::kEveryLeaf;
    std::uint32_t last_child = 0;
    for (std::uint32_t i = 0; i < size; ++i) {
      std::uint32_t mask;
      if constexpr (P::kEveryLeaf) {
        mask = child_mask(p, n, cells, from[i].box);
      } else {
        // route(), with the children's cells and bounds at hand rather than read back from the store.
        const vec_type key = P::key_point(from[i].box);
        const std::uint32_t k = child_index(cells[0], key);
        const bool down = (n != 0 || overlaps(config_.world, key)) && P::fits(cells[k], child_bounds[k], from[i].box);
        mask = down ? 1u << k : 0u;
        in_child_order &= !down || k >= last_child;
        last_child = down ? k : last_child;
      }
      masks[i] = mask;
      stayed += mask == 0;
      for (std::uint32_t m = mask; m != 0; m &= m - 1) ++counts[std::countr_zero(m)];
    }
    std::uint32_t at[fanout], lo[fanout], total = 0;
    bool to_other = job.other;  // where the children's entries will be
    if constexpr (P::kEveryLeaf) {
      // The entries that stay are listed at the end of the store's array; child k's range ends where child
      // k - 1's begins: child 0's, highest, is built first (pushed last below), so the job on top of the stack
      // always owns the end of the arena.
      store_.start_range_here(n);
      if (stayed != 0) {
        std::uint32_t stay_layers = 0;
        store_.make_room(n, stayed);
        for (std::uint32_t i = 0; i < size; ++i) {
          if (masks[i] != 0) continue;
          store_.add_entry(n, from[i]);
          stay_layers |= from[i].layers;
        }
        store_.add_count(n, stayed);
        store_.add_layers(n, stay_layers);
      }
      for (std::uint32_t k = fanout; k-- > 0;) {
        lo[k] = at[k] = job.lo + total;
        total += counts[k];
      }
      arena.resize(job.hi + total);
      entry_type* const to = arena.data() + job.hi - job.lo;  // `from` may have moved: index the arena again
      for (std::uint32_t i = 0; i < size; ++i)
        for (std::uint32_t m = masks[i]; m != 0; m &= m - 1) to[at[std::countr_zero(m)]++] = arena[job.lo + i];
      std::copy(arena.begin() + job.hi, arena.end(), arena.begin() + job.lo);
      arena.resize(job.lo + total);
    } else {
      // In place: the entries that stay first, then child 0's, child 1's, and so on.
      total = stayed;
      for (std::uint32_t k = 0; k < fanout; ++k) {
        lo[k] = at[k] = job.lo + total;
        total += counts[k];
      }
      if (in_child_order) {
        // Each child's entries are one run already: the entries going down move back past those that stay
        // (from the end, so that none overwrites one not yet moved), which then take the front, both in order.
        if (stayed != 0) {
          stay.clear();
          for (std::uint32_t i = 0; i < size; ++i)
            if (masks[i] == 0) stay.push_back(from[i]);
          for (std::uint32_t i = size, to = size; i-- > 0;)
            if (masks[i] != 0) from[--to] = from[i];
          std::copy(stay.begin(), stay.end(), from);
        }
      } else {
        if (other.size() < arena.size()) other.resize(arena.size());
        entry_type* const to = (job.other ? arena : other).data();
        std::uint32_t kept = 0;
        for (std::uint32_t i = 0; i < size; ++i) {
          if (masks[i] != 0) to[at[std::countr_zero(masks[i])]++] = from[i];
          else from[kept++] = from[i];  // kept <= i: read already
        }
        to_other = !job.other;
      }
      list_own(p, n, job.lo, {from, stayed});
    }
    // Child 0 is pushed last, so that it is built first: ranges come out in pre-order.
    for (std::uint32_t k = fanout; k-- > 0;)
      if (counts[k] != 0) jobs.push_back({first + k, lo[k], lo[k] + counts[k], to_other});
  }
  // Every node was listed in pre-order from an empty array: each subtree's entries are one run.
  store_.mark_packed();
}

// build()'s step for node n at depth d < key_of.levels(), whose entries `here` are keys[job.lo, job.hi) of the
// arena, in key order: n's own entries (their level is d) come first, then each child's, child by child.
template <int D, class S>
template <class P>
void TreeCore<D, S>::build_from_keys(P p, std::uint32_t n, int d, const BuildJob& job, std::span<const entry_type> here,
                     std::span<const std::uint64_t> keys, const BuildKeys<D, S>& key_of, Array<BuildJob>& jobs) {
  const std::uint64_t* const first = keys.data() + job.lo;
  const std::uint64_t* const last = keys.data() + job.hi;
  const std::uint64_t* const own_end =
      std::partition_point(first, last, [&](std::uint64_t k) { return key_of.level(key_high(k)) == d; });
  // Splitting helps when an entry goes down; then its path's cells below n may split, so n's may too.
  if (here.size() <= static_cast<std::size_t>(config_.split_threshold) || own_end == last) {
    list_own(p, n, job.lo, here);
    return;
  }
  box_type cells[fanout], child_bounds[fanout];
  const std::uint32_t first_child = split_empty(p, n, cells, child_bounds);
  list_own(p, n, job.lo, here.first(static_cast<std::size_t>(own_end - first)));
  std::uint32_t lo[fanout + 1];
  lo[0] = static_cast<std::uint32_t>(own_end - keys.data());
  for (std::uint32_t k = 1; k < fanout; ++k)
    lo[k] = static_cast<std::uint32_t>(std::partition_point(keys.data() + lo[k - 1], last, [&](std::uint64_t key) {
                                         return key_of.child(key_high(key), d) < k;
                                       }) - keys.data());
  lo[fanout] = job.hi;
  // Child 0 is pushed last, so that it is built first: ranges come out in pre-order.
  for (std::uint32_t k = fanout; k-- > 0;)
    if (lo[k + 1] != lo[k]) jobs.push_back({first_child + k, lo[k], lo[k + 1], false});
}

// Gives node n, which lists no entry yet, its children, leaving their cells and bounds in `cells` and
// `child_bounds` for the caller's routing. Returns the first child.
template <int D, class S>
template <class P>
std::uint32_t TreeCore<D, S>::split_empty(P, std::uint32_t n, box_type (&cells)[fanout], box_type (&child_bounds)[fanout]) {
  const box_type bounds = store_.bounds(n);
  for (std::uint32_t k = 0; k < fanout; ++k) {
    cells[k] = child_cell(store_.cell(n), k);
    child_bounds[k] = P::child_bounds(cells[k], bounds, config_.world);
  }
  return store_.split(
      n, [&](std::uint32_t k) { return cells[k]; }, [&](std::uint32_t k, const box_type&) { return child_bounds[k]; },
      [](const entry_type&) { return 0u; });
}

// Lists `own`, the entries node n keeps, in n, which has no entries yet; n's subtree starts at `lo` of the
// arena. Under a one-node placement the build is in place (see build_input): n's range is made at `lo`, where
// `own` lies already or at the same indices of the second buffer. Under Leaves it is appended to the array.
template <int D, class S>
template <class P>
void TreeCore<D, S>::list_own(P, std::uint32_t n, std::uint32_t lo, std::span<const entry_type> own) {
  if constexpr (P::kEveryLeaf) {
    store_.start_range_here(n);
    if (own.empty()) return;
    store_.make_room(n, static_cast<std::uint32_t>(own.size()));
    store_.add_entries(n, own);
  } else {
    store_.list_at(n, lo, own);
    if (own.empty()) return;
  }
  std::uint32_t layers = 0;
  for (const entry_type& e : own) layers |= e.layers;
  store_.add_count(n, static_cast<std::int64_t>(own.size()));
  store_.add_layers(n, layers);
}

}  // namespace detail

template <int D, class T, class S>
template <class R>
void Tree<D, T, S>::assign_items(R&& items, std::vector<Handle>* handles) {
  detail::refuse_inside_walk(this, "assign");
  constexpr bool with_layers = std::tuple_size_v<std::remove_cvref_t<std::ranges::range_reference_t<R>>> == 3;
  detail::ScratchLease<std::uint64_t> keys_lease, slots_lease;
  detail::Array<std::uint64_t>& keys = keys_lease.get();
  detail::Array<std::uint64_t>& slots = slots_lease.get();
  // Check everything first, computing each item's key: where in the tree's pre-order its node lies (see
  // BuildKeys; under Leaves, the Morton code of its box's center).
  std::size_t expected = 0;
  if constexpr (std::ranges::sized_range<R>) expected = static_cast<std::size_t>(std::ranges::size(items));
  const detail::BuildKeys<D, S> key_of(config(), expected);
  std::uint64_t i = 0;
  detail::WideScalar<S> extent = 0;  // the items' largest (see TreeCore::overhang)
  detail::with_placement(config().placement, [&](auto p) {
    for (auto&& item : items) {
      const box_type& box = std::get<0>(item);
      try {
        check_box(box, "assign");
        if constexpr (with_layers) check_layers(static_cast<std::uint32_t>(std::get<2>(item)), "assign");
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string(e.what()) + " (item " + std::to_string(i) + ")");
      }
      if (i >= std::uint64_t{detail::kNone} - 1) throw std::length_error("quadrant: assign: more than 2^32 objects");
      keys.push_back(std::uint64_t{key_of(p, box)} << 32 | i);
      if constexpr (std::is_same_v<decltype(p), detail::LoosePolicy>)
        extent = std::max(extent, detail::TreeCore<D, S>::extent_of(box));
      ++i;
    }
  });
  const std::size_t n = keys.size();
  // A range read in any order is read in slot order, so the records and entries fill front to back and only the
  // items and handles are reached at random; another is read in its own order, through slots[i], item i's slot.
  constexpr bool in_slot_order = std::ranges::random_access_range<R>;
  if constexpr (!in_slot_order) slots.resize(n);
  // Memory before the first change, so that only the values' constructors and the build's own memory can throw
  // after it (the tree is then left empty).
  if (handles != nullptr) handles->resize(n);
  free_records_.reserve(std::max(records_.size(), n));
  generations_.reserve(n);
  records_.reserve(n);
  core_.reserve_objects(n);
  // The capacity is there: growing the record arrays cannot throw (a grown array with no free-list room for its
  // slots would leave the tree out of step).
  if (records_.size() < n) {
    generations_.resize(n, 0);
    records_.resize(n);
  }
  detail::ScratchLease<stored_entry> entries_lease;
  detail::Array<stored_entry>* entries = nullptr;
  stored_entry* out = nullptr;  // entries->data()
  auto place_item = [&](auto&& item, std::size_t at, std::uint32_t slot) {
    std::uint32_t layers = ~0u;
    if constexpr (with_layers) layers = static_cast<std::uint32_t>(std::get<2>(item));
    out[slot] = {std::get<0>(item), slot, layers};
    records_[slot].value.emplace(std::get<1>(std::forward<decltype(item)>(item)));
    if (handles != nullptr) (*handles)[at] = Handle(slot, generations_[slot], tag_);
  };
  empty_slots_from(static_cast<std::uint32_t>(n));
  try {
    // The entries in slot order (the build's input): the objects' boxes and layers live in their entries only.
    // Under a one-node placement they are written straight into the tree's entry array, emptied above.
    entries = &core_.build_input(n, entries_lease.get());
    out = entries->data();
    // Item keys[r]'s low word goes to record slot r. The sort borrows the entry array, not written yet, as its
    // scratch (24 bytes an entry in 2D float; the sort needs 8).
    static_assert(std::is_trivially_copyable_v<stored_entry> && sizeof(stored_entry) >= sizeof(std::uint64_t));
    detail::radix_sort_by_high_word(keys, std::as_writable_bytes(std::span<stored_entry>(*entries)));
    if constexpr (!in_slot_order)
      for (std::size_t r = 0; r < n; ++r) slots[keys[r] & 0xffffffffu] = r;
    if constexpr (in_slot_order) {
      const auto first = std::ranges::begin(items);
      for (std::uint32_t slot = 0; slot < n; ++slot) {
        const std::size_t at = keys[slot] & 0xffffffffu;
        // Items in memory, and the handles, are fetched a few slots ahead: their order is the callers'.
        constexpr std::uint32_t kAhead = 16;
        if (slot + kAhead < n) {
          const std::uint32_t ahead = detail::opaque(static_cast<std::uint32_t>(keys[slot + kAhead]));
          if constexpr (std::ranges::contiguous_range<R>) detail::prefetch(std::ranges::data(items) + ahead);
          if (handles != nullptr) detail::prefetch(handles->data() + ahead);
        }
        place_item(first[static_cast<std::ranges::range_difference_t<R>>(at)], at, slot);
      }
    } else {
      i = 0;
      for (auto&& item : items) {
        place_item(std::forward<decltype(item)>(item), i, static_cast<std::uint32_t>(slots[i]));
        ++i;
      }
    }
    size_ = n;
    core_.note_extent(extent);
    core_.build(*entries, keys, key_of);
  } catch (...) {
    clear();
    throw;
  }
}

template <int D, class T, class S>
void Tree<D, T, S>::rebuild(const box_type& world) {
  detail::refuse_inside_walk(this, "rebuild");
  Config<D, S> c = config();
  c.world = world;
  detail::TreeCore<D, S> fresh(checked_config(c));
  // The live objects' entries, in the order of their build keys in the new world (see assign).
  detail::ScratchLease<std::uint64_t> keys_lease, tmp_lease;
  detail::Array<std::uint64_t>& keys = keys_lease.get();
  keys.clear();
  const auto& store = core_.store();
  const detail::BuildKeys<D, S> key_of(fresh.config(), size_);
  detail::with_placement(c.placement, [&](auto p) {
    for (std::uint32_t id = 0; id < records_.size(); ++id)
      if (records_[id].value) keys.push_back(std::uint64_t{key_of(p, store.object_box(id))} << 32 | id);
  });
  detail::radix_sort_by_high_word(keys, tmp_lease.get());
  detail::ScratchLease<stored_entry> entries_lease;
  detail::Array<stored_entry>& entries = fresh.build_input(keys.size(), entries_lease.get());
  for (std::size_t r = 0; r < keys.size(); ++r) {
    const auto id = static_cast<std::uint32_t>(keys[r] & 0xffffffffu);
    entries[r] = {store.object_box(id), id, store.object_layers(id)};
  }
  fresh.reserve_objects(records_.size());
  fresh.note_extent(core_.overhang());  // the same objects
  fresh.build(entries, keys, key_of);
  core_ = std::move(fresh);
}

}  // namespace quadrant
