// quadrant — Handle: the name of an object stored in a Tree, and the small result types of the tree's walks.
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
/// others throw std::invalid_argument). A copy of a tree answers to the handles of the original.
class Handle {
 public:
  /// The null handle: names nothing, `contains` is false for it in every tree.
  constexpr Handle() noexcept = default;
  /// True for a handle produced by an insert (it may still be stale).
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

/// What one query did: the seeds' "traversal counts".
struct QueryStats {
  std::size_t nodes_visited = 0;  ///< nodes whose bounds were tested or entered
  std::size_t box_tests = 0;      ///< object boxes tested against the query shape
  std::size_t hits = 0;           ///< objects reported to the callback
  bool stopped = false;           ///< the callback returned false
};

/// What one `for_each_pair` did.
struct PairStats {
  std::size_t nodes_visited = 0;  ///< nodes whose bounds were tested or entered
  std::size_t box_tests = 0;      ///< object-object box tests
  std::size_t pairs = 0;          ///< overlapping pairs reported
  bool stopped = false;           ///< the callback returned false
};

/// The shape of a tree at one moment (see Tree::stats).
struct Stats {
  std::size_t nodes = 0;       ///< live nodes, the root included
  std::size_t leaves = 0;      ///< live nodes without children
  int depth = 0;               ///< deepest live node (root = 0)
  std::size_t objects = 0;     ///< objects stored
  std::size_t references = 0;  ///< node entries: = objects except under Placement::Leaves, where one object
                               ///< may be listed by several leaves
  std::size_t bytes = 0;       ///< heap memory held (pools, entry arrays, free lists), capacity included
};

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
