// SPDX-License-Identifier: MIT
// quadrant — ContactTracker: which pairs of a tree's objects started and stopped touching since the last step, the
// begin / end events of a physics engine's contact listener (Unity's OnTriggerEnter / OnTriggerExit).
//
// Threads: a tracker is one object's worth of state; update() reads the tree (const) and writes the tracker, so
// one tracker per thread, and no mutation of the tree during update().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "detail/radix.hpp"
#include "handle.hpp"
#include "layer_matrix.hpp"
#include "tree.hpp"

namespace quadrant {

/// Two objects whose boxes overlap (touching counts), the one with the lower handle index first.
struct Contact {
  Handle a;  ///< handle index below b's
  Handle b;
  /// Equal when they name the same two objects.
  friend constexpr bool operator==(const Contact&, const Contact&) noexcept = default;
};

/// Tracks the overlapping pairs of one tree from step to step. Each update() finds the step's pairs (the tree's
/// for_each_pair, in `layers`) and compares them with the last step's: begun() are the pairs that overlap now and
/// did not before, ended() those that did and do not now — because the boxes moved apart, an object left the
/// layers, or an object was erased (its handle in the event is then stale: `tree.contains(h)` is false). A pair is
/// the same pair while both handles are: an object erased and another inserted in its slot makes an End and a
/// Begin. Every list is sorted by (a.index(), b.index()), so the events do not depend on the tree's layout or
/// placement. O(pairs) a step (a radix sort of the pairs and one merge with the last step's); allocates nothing
/// once its buffers have grown to the largest step.
template <int D, class T, class S = float>
class ContactTracker {
 public:
  using tree_type = Tree<D, T, S>;

  /// A tracker with no contacts yet; the first update reports every pair as begun.
  ContactTracker() = default;

  /// One step: the pairs of `tree` in `layers` now, against the last step's. Throws std::invalid_argument, with
  /// the tracker unchanged, when `tree` is not the tree of the previous steps (compared by address; clear() lets
  /// a tracker follow another tree, or one that was moved).
  void update(const tree_type& tree, std::uint32_t layers = ~0u) { step(tree, layers); }
  /// One step with the pairs a layer collision matrix lets through (see Tree::for_each_pair(fn, matrix)); errors
  /// as update(tree, layers).
  void update(const tree_type& tree, const LayerMatrix& matrix) { step(tree, matrix); }

  /// The pairs that started overlapping at the last update, sorted by (a.index(), b.index()).
  std::span<const Contact> begun() const noexcept { return begun_; }
  /// The pairs that stopped overlapping at the last update (a handle of an erased object is stale), sorted.
  std::span<const Contact> ended() const noexcept { return ended_; }
  /// Every pair overlapping at the last update (those begun, and those that stayed), sorted.
  std::span<const Contact> contacts() const noexcept { return contacts_; }

  /// Forgets every contact and the tree: the next update reports all of its pairs as begun. Keeps the memory.
  void clear() noexcept {
    tree_ = nullptr;
    current_.clear();
    next_.clear();
    begun_.clear();
    ended_.clear();
    contacts_.clear();
  }

 private:
  struct Keyed {
    std::uint64_t key;  // a.index() << 32 | b.index(): one live pair per key at a time
    Contact pair;
  };

  // Filter: a layer mask or a LayerMatrix, handed to the tree's pair walk.
  template <class Filter>
  void step(const tree_type& tree, const Filter& filter) {
    if (tree_ != nullptr && tree_ != &tree)
      throw std::invalid_argument(
          "quadrant: ContactTracker::update: another tree than the previous steps' (call clear() to switch trees)");
    tree_ = &tree;
    // The two pair buffers trade places every step: each gets the room of the larger, so that once warm neither
    // grows again.
    if (next_.capacity() < current_.capacity()) next_.reserve(current_.capacity());
    next_.clear();
    tree.for_each_pair([&](Handle a, Handle b) {
      if (b.index() < a.index()) std::swap(a, b);
      next_.push_back({key_of(a, b), {a, b}});
    }, filter);
    detail::radix_sort(next_, scratch_, [](const Keyed& k) { return k.key; });
    diff();
  }

  static std::uint64_t key_of(Handle a, Handle b) noexcept { return std::uint64_t{a.index()} << 32 | b.index(); }

  // Merges last step's sorted pairs with this step's. A key present in both names the same slots; if a slot changed
  // object meanwhile (the handles differ), the old pair ended and the new one began.
  void diff() {
    begun_.clear();
    ended_.clear();
    contacts_.clear();
    std::size_t i = 0, j = 0;
    while (i < current_.size() || j < next_.size()) {
      if (j == next_.size() || (i < current_.size() && current_[i].key < next_[j].key)) {
        ended_.push_back(current_[i++].pair);
      } else if (i == current_.size() || next_[j].key < current_[i].key) {
        begun_.push_back(next_[j].pair);
        contacts_.push_back(next_[j++].pair);
      } else {
        if (!(current_[i].pair == next_[j].pair)) {
          ended_.push_back(current_[i].pair);
          begun_.push_back(next_[j].pair);
        }
        contacts_.push_back(next_[j].pair);
        ++i;
        ++j;
      }
    }
    current_.swap(next_);
  }

  const tree_type* tree_ = nullptr;
  std::vector<Keyed> current_, next_, scratch_;
  std::vector<Contact> begun_, ended_, contacts_;
};

}  // namespace quadrant
