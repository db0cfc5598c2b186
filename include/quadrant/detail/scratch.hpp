// SPDX-License-Identifier: MIT
// quadrant internals: per-thread scratch vectors for walks that need a heap (ray casts, nearest neighbours), the
// pair walks' stacks and the bulk build. Not for direct inclusion.
//
// Const queries may run concurrently, so their scratch cannot live in the tree. Each thread keeps one vector per
// nesting level (a callback may start another query on the same tree or another one); a lease takes the level's
// vector and gives it back, so after the first query at a level nothing is allocated. release_scratch() hands the
// memory of every pool of the calling thread back, for a thread that has built a large tree and will not build
// again soon.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

#include "pages.hpp"

namespace quadrant {
namespace detail {

// One thread's pool of scratch vectors of one element type, as release_scratch() sees it.
class ScratchPool {
 public:
  // Frees the vectors no lease holds now.
  virtual void release() noexcept = 0;

 protected:
  ScratchPool() = default;
  ~ScratchPool() = default;
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;
};

// The calling thread's pools, in the order they were first used.
inline std::vector<ScratchPool*>& thread_pools() {
  thread_local std::vector<ScratchPool*> pools;
  return pools;
}

template <class T>
class ScratchLease {
 public:
  ScratchLease() {
    Levels& levels = per_thread();
    if (levels.depth == levels.vectors.size()) levels.vectors.emplace_back();  // deque: earlier levels stay put
    vector_ = &levels.vectors[levels.depth++];
    vector_->clear();
  }
  ~ScratchLease() { --per_thread().depth; }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  Array<T>& get() noexcept { return *vector_; }

 private:
  struct Levels final : ScratchPool {
    std::deque<Array<T>> vectors;
    std::size_t depth = 0;
    // The registry is made before this pool (the constructor asks for it), so it outlives the pool at thread exit.
    Levels() { thread_pools().push_back(this); }
    ~Levels() {
      auto& pools = thread_pools();
      pools.erase(std::remove(pools.begin(), pools.end(), this), pools.end());
    }
    void release() noexcept override {
      // Levels at or above `depth` are held by no lease; pop_back leaves the held ones where they are.
      while (vectors.size() > depth) vectors.pop_back();
    }
  };
  static Levels& per_thread() {
    thread_local Levels levels;
    return levels;
  }
  Array<T>* vector_;
};

}  // namespace detail

/// Frees the scratch memory the calling thread keeps for reuse: the bulk build's (Tree::assign: about 8 bytes an
/// object of the largest tree built, 60 under Placement::Leaves), the pair walks' and the nearest searches'. The next call that needs scratch
/// allocates it again. Call it after building a large tree that will not be rebuilt soon. Only the calling thread's
/// scratch; buffers in use by a walk that is running on this thread (from inside its callback) are kept. Never
/// throws.
inline void release_scratch() noexcept {
  for (detail::ScratchPool* pool : detail::thread_pools()) pool->release();
}

}  // namespace quadrant
