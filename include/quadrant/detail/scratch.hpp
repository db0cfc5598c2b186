// SPDX-License-Identifier: MIT
// quadrant internals: per-thread scratch vectors for walks that need a heap (ray casts, nearest neighbours).
// Not for direct inclusion.
//
// Const queries may run concurrently, so their scratch cannot live in the tree. Each thread keeps one vector per
// nesting level (a callback may start another query on the same tree or another one); a lease takes the level's
// vector and gives it back, so after the first query at a level nothing is allocated.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

namespace quadrant::detail {

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

  std::vector<T>& get() noexcept { return *vector_; }

 private:
  struct Levels {
    std::deque<std::vector<T>> vectors;
    std::size_t depth = 0;
  };
  static Levels& per_thread() {
    thread_local Levels levels;
    return levels;
  }
  std::vector<T>* vector_;
};

}  // namespace quadrant::detail
