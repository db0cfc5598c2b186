// SPDX-License-Identifier: MIT
// quadrant internals: the invariant checker, Tree::validate, and Tree::stats (tree/tree.hpp). Not for direct
// inclusion: <quadrant/tree.hpp> brings it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "../stats.hpp"
#include "core.hpp"
#include "tree.hpp"

namespace quadrant::detail {

// Checks every invariant of the node store against the object records and throws std::logic_error naming the
// first one broken. `records` answers slots() (record slots ever used), live(id), box(id), layers(id), size() (live
// objects as the tree counts them) and free_slots() (the free list's length).
template <int D, class S, class Records>
void validate_tree(const TreeCore<D, S>& core, const Records& records) {
  constexpr std::uint32_t fanout = NodeStore<D, S>::kFanout;
  auto fail = [](const std::string& what) { throw std::logic_error("quadrant: Tree::validate: " + what); };
  const NodeStore<D, S>& store = core.store();
  const Config<D, S>& config = core.config();
  if (store.slots() == 0 || !store.alive(0)) fail("the root is missing");
  if (store.parent(0) != kNone || store.depth(0) != 0) fail("the root has a parent or a depth");
  if (!(store.cell(0) == config.world) || !(store.bounds(0) == everything<D, S>()))
    fail("the root's cell is not the world or its bounds are not everything");

  if (const std::uint32_t at = store.bad_home(); at != kNone)
    fail("home table cell " + std::to_string(at) + " names a free node or one whose cell does not hold it");

  with_placement(config.placement, [&](auto p) {
    using P = decltype(p);
    const std::uint32_t merge_limit = static_cast<std::uint32_t>(config.split_threshold / 2);
    std::size_t walked = 0, total_entries = 0;
    // While packed, the pre-order walk reads the entries as one run: each subtree's run starts where the walk is.
    const auto* cursor = store.subtree_entries(0).data();
    store.walk(0, 0, [&](std::uint32_t n) {
      const std::string at = "node " + std::to_string(n) + " (depth " + std::to_string(store.depth(n)) + "): ";
      ++walked;
      if (store.packed()) {
        if ((store.count(n) != 0 && store.subtree_entries(n).data() != cursor) ||
            (!store.entries(n).empty() && store.entries(n).data() != cursor))
          fail(at + "packed, but its entries are not where the pre-order run has reached");
        if (store.entries_in_id_order())
          for (std::uint32_t k = 0; k < store.entries(n).size(); ++k)
            if (store.entries(n)[k].id != store.first_index(n) + k)
              fail(at + "its entries are said to lie at the indices of their ids, but one does not");
        cursor += store.entries(n).size();
      }
      if (!store.alive(n)) fail(at + "reachable but marked free");
      if (store.depth(n) > config.max_depth) fail(at + "deeper than max_depth");
      const auto entries = store.entries(n);
      std::size_t below = entries.size();
      std::uint32_t layers = 0;
      for (const auto& e : entries) layers |= e.layers;
      if (!store.is_leaf(n)) {
        if ((store.first_child(n) - 1) % fanout != 0) fail(at + "children do not start a block");
        std::uint32_t k = 0;
        for (const std::uint32_t c : store.children(n)) {
          if (!store.alive(c) || store.parent(c) != n || store.depth(c) != store.depth(n) + 1)
            fail(at + "child " + std::to_string(k) + " is not linked back");
          if (!(store.cell(c) == child_cell(store.cell(n), k)))
            fail(at + "child " + std::to_string(k) + " cell is not a half of the parent's");
          if (!(store.bounds(c) == P::child_bounds(store.cell(c), store.bounds(n), config.world)))
            fail(at + "child " + std::to_string(k) + " bounds are wrong");
          if (store.count(c) != 0 && !contains(store.fit(n), store.fit(c)))
            fail(at + "child " + std::to_string(k) + " fit is not inside the parent's");
          below += store.count(c);
          layers |= store.layers(c);
          ++k;
        }
        if (P::kEveryLeaf && !entries.empty()) fail(at + "an inner node lists objects under Placement::Leaves");
        if (config.split_threshold > 0 && store.count(n) <= merge_limit) fail(at + "inner node with few objects was not merged");
        if (!core.can_split(store.cell(n), store.depth(n))) fail(at + "split although it may not be");
      } else if (config.split_threshold == 0 && core.can_split(store.cell(n), store.depth(n)) &&
                 !(n == 0 && records.size() == 0)) {
        // (An empty root leaf is a moved-from full tree; it rebuilds on the next insert.)
        fail(at + "leaf of a full tree (split_threshold 0) above max_depth");
      }
      if (store.layers(n) != layers) fail(at + "layer union is not the union of the subtree's layers");
      if (store.count(n) != below)
        fail(at + "subtree count " + std::to_string(store.count(n)) + " but holds " + std::to_string(below));
      for (std::uint32_t i = 0; i < entries.size(); ++i) {
        const auto& e = entries[i];
        const std::string item = at + "entry " + std::to_string(i) + ": ";
        if (e.id >= records.slots() || !records.live(e.id)) fail(item + "object is not live");
        if (!(records.box(e.id) == e.box)) fail(item + "box differs from the object's");
        if (records.layers(e.id) != e.layers) fail(item + "layers differ from the object's");
        const std::uint32_t r = store.entry_ref(n, i);
        if (r >= store.ref_slots() || store.ref_node(r) != n || store.ref_slot(r) != i)
          fail(item + "reference does not point back");
        bool belongs = false;
        if constexpr (P::kEveryLeaf) belongs = overlaps(store.cell(n), core.clamped(e.box));
        else belongs = core.belongs(p, n, e.box);
        if (!belongs) fail(item + "object does not belong here");
        if (!contains(store.fit(n), e.box)) fail(item + "object is not inside its node's fit");
        // What a nearest search's clearance relies on (TreeCore::overhang).
        if constexpr (!P::kEveryLeaf) {
          using W = WideScalar<S>;
          if (n != 0)
            for (int k = 0; k < D; ++k)
              if (W(store.cell(n).min[k]) - W(e.box.min[k]) > core.overhang() ||
                  W(e.box.max[k]) - W(store.cell(n).max[k]) > core.overhang())
                fail(item + "object reaches beyond its node's cell by more than the overhang");
        }
      }
      total_entries += entries.size();
      return Step::Descend;
    });

    std::size_t live = 0, chained = 0;
    for (std::uint32_t id = 0; id < records.slots(); ++id) {
      if (!records.live(id)) {
        if (store.first_ref(id) != kNone) fail("free record " + std::to_string(id) + " keeps references");
        continue;
      }
      ++live;
      const std::string obj = "object " + std::to_string(id) + ": ";
      std::size_t length = 0;
      std::uint32_t prev = kNone;
      for (std::uint32_t r = store.first_ref(id); r != kNone; prev = r, r = store.next_ref(r), ++length) {
        if (store.prev_ref(r) != prev) fail(obj + "reference chain is broken");
        const std::uint32_t m = store.ref_node(r);
        if (m >= store.slots() || !store.alive(m) || store.ref_slot(r) >= store.entries(m).size() ||
            store.entries(m)[store.ref_slot(r)].id != id)
          fail(obj + "reference points at the wrong entry");
        if (length > store.ref_slots()) fail(obj + "reference chain loops");
      }
      std::size_t expected = 1;
      if constexpr (P::kEveryLeaf) {
        expected = 0;
        core.for_each_leaf_overlapping(core.clamped(records.box(id)), [&](std::uint32_t) { ++expected; });
      }
      if (length != expected)
        fail(obj + "listed by " + std::to_string(length) + " nodes, expected " + std::to_string(expected));
      chained += length;
    }
    if (live != records.size())
      fail("size() is " + std::to_string(records.size()) + " but " + std::to_string(live) + " objects are live");
    if (records.free_slots() != records.slots() - live) fail("free record list is out of step");
    if (chained != total_entries) fail("entries reachable from nodes differ from object references");
    if (walked + store.free_blocks() * fanout != store.slots()) fail("nodes leaked: neither reachable nor free");
  });
}

}  // namespace quadrant::detail

namespace quadrant {

template <int D, class T, class S>
Stats Tree<D, T, S>::stats() const {
  Stats s;
  s.objects = size_;
  const auto& store = core_.store();
  s.bytes = store.bytes() + core_.scratch_bytes() + records_.capacity() * sizeof(Record) +
            generations_.capacity() * sizeof(std::uint32_t) +
            free_records_.capacity() * sizeof(std::uint32_t);
  store.walk(0, 0, [&](std::uint32_t n) {
    ++s.nodes;
    if (store.is_leaf(n)) ++s.leaves;
    s.depth = std::max(s.depth, store.depth(n));
    s.references += store.entries(n).size();
    return detail::Step::Descend;
  });
  s.root_entries = store.entries(0).size();
  const box_type& world = config().world;
  for (std::uint32_t id = 0; id < records_.size(); ++id)
    if (records_[id].value && !quadrant::contains(world, store.object_box(id))) ++s.outside_world;
  return s;
}

template <int D, class T, class S>
void Tree<D, T, S>::validate() const {
  struct Records {
    const Tree& tree;
    std::size_t slots() const { return tree.records_.size(); }
    bool live(std::uint32_t id) const { return tree.records_[id].value.has_value(); }
    // An object's box and layers are those of its first entry: validate checks every other entry against them.
    const box_type& box(std::uint32_t id) const { return tree.core_.store().object_box(id); }
    std::uint32_t layers(std::uint32_t id) const { return tree.core_.store().object_layers(id); }
    std::size_t size() const { return tree.size_; }
    std::size_t free_slots() const { return tree.free_records_.size(); }
  };
  detail::validate_tree(core_, Records{*this});
}

}  // namespace quadrant
