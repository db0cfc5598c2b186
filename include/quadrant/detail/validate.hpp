// SPDX-License-Identifier: MIT
// quadrant internals: Tree::validate, the invariant checker. Included by tree.hpp; not for direct inclusion.
#pragma once

#include <stdexcept>
#include <string>

namespace quadrant {

template <int D, class T, class S>
void Tree<D, T, S>::validate() const {
  auto fail = [](const std::string& what) { throw std::logic_error("quadrant: Tree::validate: " + what); };
  const auto& nodes = pool_.nodes;
  if (nodes.empty() || !nodes[0].alive) fail("the root is missing");
  if (nodes[0].parent != kNone || nodes[0].depth != 0) fail("the root has a parent or a depth");
  if (!(nodes[0].cell == config_.world) || !(nodes[0].bounds == everything()))
    fail("the root's cell is not the world or its bounds are not everything");

  const bool leaves = config_.placement == Placement::Leaves;
  const std::uint32_t merge_limit = static_cast<std::uint32_t>(config_.split_threshold / 2);
  std::size_t walked = 0, total_entries = 0;
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = nodes[n];
    const std::string at = "node " + std::to_string(n) + " (depth " + std::to_string(node.depth) + "): ";
    ++walked;
    if (!node.alive) fail(at + "reachable but marked free");
    if (node.depth > config_.max_depth) fail(at + "deeper than max_depth");
    if (node.entries.size() != node.entry_refs.size()) fail(at + "entries and their references differ in number");
    std::size_t below = node.entries.size();
    std::uint32_t layers = 0;
    for (const entry_type& e : node.entries) layers |= e.layers;
    if (node.first_child != kNone) {
      if ((node.first_child - 1) % fanout != 0) fail(at + "children do not start a block");
      for (std::uint32_t k = 0; k < fanout; ++k) {
        const Node& c = nodes[node.first_child + k];
        if (!c.alive || c.parent != n || c.depth != node.depth + 1) fail(at + "child " + std::to_string(k) + " is not linked back");
        if (!(c.cell == child_cell(node.cell, k))) fail(at + "child " + std::to_string(k) + " cell is not a half of the parent's");
        if (!(c.bounds == child_bounds(c.cell, node.bounds))) fail(at + "child " + std::to_string(k) + " bounds are wrong");
        below += c.count;
        layers |= c.layers;
      }
      if (leaves && !node.entries.empty()) fail(at + "an inner node lists objects under Placement::Leaves");
      if (config_.split_threshold > 0 && node.count <= merge_limit) fail(at + "inner node with few objects was not merged");
      if (!can_split(node.cell, node.depth)) fail(at + "split although it may not be");
    } else if (config_.split_threshold == 0 && can_split(node.cell, node.depth) && !(n == 0 && size_ == 0)) {
      // (An empty root leaf is a moved-from full tree; it rebuilds on the next insert.)
      fail(at + "leaf of a full tree (split_threshold 0) above max_depth");
    }
    if (node.layers != layers) fail(at + "layer union is not the union of the subtree's layers");
    if (node.count != below) fail(at + "subtree count " + std::to_string(node.count) + " but holds " + std::to_string(below));
    for (std::uint32_t i = 0; i < node.entries.size(); ++i) {
      const entry_type& e = node.entries[i];
      const std::string item = at + "entry " + std::to_string(i) + ": ";
      if (!contains(e.handle)) fail(item + "handle is not live");
      if (!(records_[e.handle.index_].box == e.box)) fail(item + "box differs from the object's");
      if (records_[e.handle.index_].layers != e.layers) fail(item + "layers differ from the object's");
      const std::uint32_t r = node.entry_refs[i];
      if (r >= refs_.size() || refs_[r].node != n || refs_[r].slot != i) fail(item + "reference does not point back");
      if (leaves ? !overlaps(node.cell, clamped(e.box)) : !belongs(n, e.box)) fail(item + "object does not belong here");
    }
    total_entries += node.entries.size();
    return Step::Descend;
  });

  std::size_t live = 0, chained = 0;
  for (std::uint32_t id = 0; id < records_.size(); ++id) {
    const Record& rec = records_[id];
    if (!rec.value) {
      if (rec.ref != kNone) fail("free record " + std::to_string(id) + " keeps references");
      continue;
    }
    ++live;
    const std::string obj = "object " + std::to_string(id) + ": ";
    std::size_t length = 0;
    std::uint32_t prev = kNone;
    for (std::uint32_t r = rec.ref; r != kNone; prev = r, r = refs_[r].next, ++length) {
      if (refs_[r].prev != prev) fail(obj + "reference chain is broken");
      const Ref& ref = refs_[r];
      if (ref.node >= nodes.size() || !nodes[ref.node].alive || ref.slot >= nodes[ref.node].entries.size() ||
          nodes[ref.node].entries[ref.slot].handle.index_ != id)
        fail(obj + "reference points at the wrong entry");
      if (length > refs_.size()) fail(obj + "reference chain loops");
    }
    std::size_t expected = 1;
    if (leaves) {
      expected = 0;
      for_each_leaf_overlapping(clamped(rec.box), [&](std::uint32_t) { ++expected; });
    }
    if (length != expected)
      fail(obj + "listed by " + std::to_string(length) + " nodes, expected " + std::to_string(expected));
    chained += length;
  }
  if (live != size_) fail("size() is " + std::to_string(size_) + " but " + std::to_string(live) + " objects are live");
  if (free_records_.size() != records_.size() - live) fail("free record list is out of step");
  if (chained != total_entries) fail("entries reachable from nodes differ from object references");
  if (walked + pool_.free_blocks() * fanout != nodes.size()) fail("nodes leaked: neither reachable nor free");
}

}  // namespace quadrant
