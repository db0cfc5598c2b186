// SPDX-License-Identifier: MIT
// quadrant — Handle: the name of an object stored in a Tree.
//
// Threads: plain values; copy them freely between threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace quadrant {

template <int D, class T, class S>
class Tree;

/// Names one object in one Tree. Opaque, 12 bytes, copyable, comparable and hashable.
/// A default-constructed Handle names nothing. A handle goes stale when its object is erased or the tree cleared;
/// a stale handle, or one from another tree, is rejected by every Tree member (`contains` answers false, the
/// others throw std::invalid_argument). A copy of a tree is another tree: it refuses the original's handles
/// (`copy.handle_at(h.index())` names the same object in the copy). A moved-to tree keeps the handles.
/// The generation is 32 bits: a slot reused 2^32 times accepts an ancient handle again.
class Handle {
 public:
  /// The null handle: names nothing, `contains` is false for it in every tree.
  constexpr Handle() noexcept = default;
  /// True for the null handle (default-constructed, names nothing); false for every handle insert returned, even
  /// once it has gone stale.
  constexpr bool is_null() const noexcept { return index_ == kNull; }
  /// Slot of the object in its tree's record array: dense, < the largest size the tree ever had. Useful as an
  /// index into side arrays; reused after erase (the generation tells reuses apart).
  constexpr std::uint32_t index() const noexcept { return index_; }
  /// How many times the slot was reused before this object took it.
  constexpr std::uint32_t generation() const noexcept { return generation_; }
  /// Equal when they name the same object of the same tree.
  friend constexpr bool operator==(const Handle&, const Handle&) noexcept = default;

 private:
  template <int D, class T, class S>
  friend class Tree;
  static constexpr std::uint32_t kNull = ~std::uint32_t{0};
  constexpr Handle(std::uint32_t index, std::uint32_t generation, std::uint32_t owner) noexcept
      : index_(index), generation_(generation), owner_(owner) {}
  std::uint32_t index_ = kNull;
  std::uint32_t generation_ = 0;
  std::uint32_t owner_ = 0;
};

/// Tree::assign(items, no_handles): a bulk build that hands out no handles, for a tree that is only queried
/// (a level's static geometry). Writing the handles costs about a tenth of a large build: they are written in the
/// items' order while the build fills the records in space order.
struct NoHandles {
  explicit NoHandles() = default;
};
/// The tag that asks Tree::assign for no handles.
inline constexpr NoHandles no_handles{};

namespace detail {
// Each tree gets its own owner tag so that a handle from another tree is told apart from a live one.
inline std::uint32_t next_tree_tag() noexcept {
  static std::atomic<std::uint32_t> counter{0};
  std::uint32_t tag = counter.fetch_add(1, std::memory_order_relaxed) + 1;
  return tag == 0 ? 1 : tag;
}
}  // namespace detail

}  // namespace quadrant

/// Hash of a Handle, for unordered containers.
template <>
struct std::hash<quadrant::Handle> {
  std::size_t operator()(const quadrant::Handle& h) const noexcept {
    std::uint64_t key = (std::uint64_t{h.generation()} << 32) | h.index();
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key);
  }
};
