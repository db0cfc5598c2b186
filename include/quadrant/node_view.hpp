// SPDX-License-Identifier: MIT
// quadrant — Entry and NodeView: how a tree shows its nodes to `Tree::for_each_node`.
//
// Threads: views into a tree; valid while the tree is not mutated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "geometry.hpp"
#include "handle.hpp"

namespace quadrant {

/// One object as a node lists it: a copy of its box and layer mask (so a node's objects are tested without
/// indirection) and its handle.
template <int D, class S>
struct Entry {
  Box<D, S> box;                ///< the object's box, as last inserted or moved
  Handle handle;                ///< the object
  std::uint32_t layers = ~0u;   ///< the object's layer mask (Tree::insert, Tree::set_layers)
};

/// A read-only look at one node, as `Tree::for_each_node` passes it. Valid only during the callback.
template <int D, class S>
struct NodeView {
  Box<D, S> cell;                     ///< the node's cell (children halve it)
  Box<D, S> bounds;                   ///< what queries prune by: every point of every object in the subtree lies
                                      ///< inside. Loose: the cell grown by half its side; Parent: the cell;
                                      ///< Leaves: the cell, open to infinity on the world's faces (objects outside
                                      ///< the world are listed by the leaves on its boundary); the root: everything
  int depth = 0;                      ///< root = 0
  bool leaf = true;                   ///< no children
  std::uint32_t id = 0;               ///< node index in the pool (root = 0); reused after merges
  std::uint32_t parent = 0;           ///< parent's id; the root's is ~0u
  std::span<const Entry<D, S>> items; ///< the objects this node lists (box, handle, layers)
  std::size_t count = 0;              ///< entries in the whole subtree (0: an empty subtree)
  std::uint32_t layers = 0;           ///< union of the layer masks of the subtree's objects
};

}  // namespace quadrant
