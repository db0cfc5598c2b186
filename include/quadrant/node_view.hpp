// quadrant — Entry and NodeView: how a tree shows its nodes to `Tree::for_each_node`.
//
// Threads: views into a tree; valid while the tree is not mutated.
#pragma once

#include <cstdint>
#include <span>

#include "geometry.hpp"
#include "handle.hpp"

namespace quadrant {

/// One object as a node lists it: a copy of its box (so a node's objects are tested without indirection) and
/// its handle.
template <int D, class S>
struct Entry {
  Box<D, S> box;  ///< the object's box, as last inserted or moved
  Handle handle;  ///< the object
};

/// A read-only look at one node, as `Tree::for_each_node` passes it. Valid only during the callback.
template <int D, class S>
struct NodeView {
  Box<D, S> cell;                     ///< the node's cell (children halve it)
  Box<D, S> bounds;                   ///< what the node's objects lie in: the cell, grown under Placement::Loose,
                                      ///< and everything at the root (objects outside the world live there)
  int depth = 0;                      ///< root = 0
  bool leaf = true;                   ///< no children
  std::uint32_t id = 0;               ///< node index in the pool (root = 0); reused after merges
  std::uint32_t parent = 0;           ///< parent's id; the root's is ~0u
  std::span<const Entry<D, S>> items; ///< the objects this node lists (box and handle)
};

}  // namespace quadrant
