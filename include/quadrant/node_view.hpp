// SPDX-License-Identifier: MIT
// quadrant — Entry and NodeView: how a tree shows its nodes to `Tree::for_each_node`.
//
// Threads: views into a tree; valid while the tree is not mutated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "geometry.hpp"
#include "handle.hpp"
#include "tree/entry.hpp"

namespace quadrant {

/// One object as a node lists it: its box and layer mask as the node stores them, and its handle.
template <int D, class S>
struct Entry {
  Box<D, S> box;                ///< the object's box, as last inserted or moved
  Handle handle;                ///< the object
  std::uint32_t layers = ~0u;   ///< the object's layer mask (Tree::insert, Tree::set_layers)
};

/// The objects one node lists, as a read-only range of `Entry` values (each built on access: the node stores
/// boxes and record indices, not handles). Supports range-for, `size()`, `empty()` and `operator[]`. Valid only
/// while the NodeView is.
template <int D, class S>
class NodeItems {
 public:
  /// Rebuilds the handle of the object with record index `id` (supplied by the tree).
  using HandleOf = Handle (*)(const void* tree, std::uint32_t id);

  /// An input iterator over the items; dereferencing yields an Entry by value.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;  ///< single pass is all it promises
    using value_type = Entry<D, S>;                     ///< what * yields
    using difference_type = std::ptrdiff_t;             ///< distance between two iterators
    using pointer = void;                               ///< no -> : items are built on access
    using reference = Entry<D, S>;                      ///< * yields a value
    iterator() = default;                               ///< a singular iterator
    /// The item here.
    Entry<D, S> operator*() const {
      const detail::StoredEntry<D, S>& e = data_[index_];
      return {e.box, handle_of_(tree_, e.id), e.layers};
    }
    /// Advances to the next item.
    iterator& operator++() noexcept {
      ++index_;
      return *this;
    }
    /// Advances, returning the old position.
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++index_;
      return old;
    }
    /// Same position in the same range.
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.index_ == b.index_; }

   private:
    friend class NodeItems;
    // Copies of the range's words, so an iterator outlives the range object it came from.
    iterator(const detail::StoredEntry<D, S>* data, const void* tree, HandleOf handle_of, std::size_t index) noexcept
        : data_(data), tree_(tree), handle_of_(handle_of), index_(index) {}
    const detail::StoredEntry<D, S>* data_ = nullptr;
    const void* tree_ = nullptr;
    HandleOf handle_of_ = nullptr;
    std::size_t index_ = 0;
  };

  NodeItems() = default;  ///< no items
  /// Items over `size` stored entries at `data`; `handle_of(tree, id)` makes handles. Built by Tree.
  NodeItems(const detail::StoredEntry<D, S>* data, std::size_t size, const void* tree, HandleOf handle_of) noexcept
      : data_(data), size_(size), tree_(tree), handle_of_(handle_of) {}

  /// Number of objects the node lists.
  std::size_t size() const noexcept { return size_; }
  /// True when the node lists no object.
  bool empty() const noexcept { return size_ == 0; }
  /// Item i (i < size()).
  Entry<D, S> operator[](std::size_t i) const { return {data_[i].box, handle_of_(tree_, data_[i].id), data_[i].layers}; }
  /// The first item.
  iterator begin() const noexcept { return {data_, tree_, handle_of_, 0}; }
  /// Past the last item.
  iterator end() const noexcept { return {data_, tree_, handle_of_, size_}; }

 private:
  const detail::StoredEntry<D, S>* data_ = nullptr;
  std::size_t size_ = 0;
  const void* tree_ = nullptr;
  HandleOf handle_of_ = nullptr;
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
  NodeItems<D, S> items;              ///< the objects this node lists (box, handle, layers)
  std::size_t count = 0;              ///< entries in the whole subtree (0: an empty subtree)
  std::uint32_t layers = 0;           ///< union of the layer masks of the subtree's objects
};

}  // namespace quadrant
