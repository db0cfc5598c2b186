// SPDX-License-Identifier: MIT
// quadrant internals: the node pool and its stackless walk. Not for direct inclusion.
//
// Nodes live in one vector addressed by 32-bit indices. The root is node 0; every other node belongs to a block of
// 2^D siblings starting at 1 + k * 2^D, so a node's position among its siblings is arithmetic and the children of
// a node sit side by side in memory. Freed blocks go on a free list and are reused before the vector grows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "../geometry.hpp"
#include "../handle.hpp"
#include "../node_view.hpp"

namespace quadrant::detail {

inline constexpr std::uint32_t kNone = ~std::uint32_t{0};

template <int D, class S>
struct Node {
  Box<D, S> cell;    // the exact cell; children halve it
  Box<D, S> bounds;  // what queries prune by: every object stored in the subtree lies inside (root: everything)
  std::uint32_t parent = kNone;
  std::uint32_t first_child = kNone;
  std::uint32_t count = 0;     // entries stored in this subtree
  std::uint32_t retry_at = 0;  // a failed split is retried only once the leaf holds this many entries
  std::uint32_t layers = 0;    // union of the layer masks of the subtree's entries, exact
  int depth = 0;
  bool alive = false;
  std::vector<Entry<D, S>> entries;
  std::vector<std::uint32_t> entry_refs;  // parallel to entries: the reference record of each entry
};

// What a walk's visitor tells it after seeing a node.
enum class Step { Descend, Skip, Stop };

template <int D, class S>
class NodePool {
 public:
  static constexpr std::uint32_t kFanout = 1u << D;

  std::vector<Node<D, S>> nodes;

  void reset_to_root(const Box<D, S>& cell, const Box<D, S>& bounds) {
    nodes.resize(std::max<std::size_t>(nodes.size(), 1));
    Node<D, S>& root = nodes[0];
    root.cell = cell;
    root.bounds = bounds;
    root.parent = kNone;
    root.first_child = kNone;
    root.count = 0;
    root.retry_at = 0;
    root.layers = 0;
    root.depth = 0;
    root.alive = true;
  }

  // Returns the index of the first node of a fresh block of 2^D children, reusing a freed block if there is one.
  std::uint32_t allocate_block() {
    if (!free_blocks_.empty()) {
      std::uint32_t b = free_blocks_.back();
      free_blocks_.pop_back();
      return b;
    }
    std::size_t first = nodes.size();
    if (first + kFanout >= std::size_t{kNone})
      throw std::length_error("quadrant: the node pool exceeds 2^32 nodes");
    nodes.resize(first + kFanout);
    return static_cast<std::uint32_t>(first);
  }

  // The block's entries keep their capacity so that reuse after churn does not allocate.
  void free_block(std::uint32_t first) {
    for (std::uint32_t k = 0; k < kFanout; ++k) {
      Node<D, S>& n = nodes[first + k];
      n.alive = false;
      n.parent = kNone;
      n.first_child = kNone;
      n.count = 0;
      n.retry_at = 0;
      n.layers = 0;
      n.entries.clear();
      n.entry_refs.clear();
    }
    free_blocks_.push_back(first);
  }

  void clear_free_list() { free_blocks_.clear(); }
  std::size_t free_blocks() const { return free_blocks_.size(); }
  std::size_t free_list_bytes() const { return free_blocks_.capacity() * sizeof(std::uint32_t); }

  static bool is_last_sibling(std::uint32_t n) { return (n - 1) % kFanout == kFanout - 1; }

  // The node that follows n's subtree in pre-order, staying inside `bound`'s subtree; kNone at the end.
  std::uint32_t next_after_subtree(std::uint32_t n, std::uint32_t bound) const {
    while (n != bound) {
      if (!is_last_sibling(n)) return n + 1;
      n = nodes[n].parent;
    }
    return kNone;
  }

  // Pre-order walk starting at `start`, continuing to the end of `bound`'s subtree (start must lie in it). No
  // stack: the next node is the first child, else the next sibling, else an ancestor's next sibling.
  template <class Visit>
  void walk(std::uint32_t start, std::uint32_t bound, Visit&& visit) const {
    std::uint32_t n = start;
    while (n != kNone) {
      Step step = visit(n);
      if (step == Step::Stop) return;
      const std::uint32_t child = nodes[n].first_child;
      if (step == Step::Descend && child != kNone) {
        n = child;
      } else {
        n = next_after_subtree(n, bound);
      }
    }
  }

 private:
  std::vector<std::uint32_t> free_blocks_;
};

}  // namespace quadrant::detail
