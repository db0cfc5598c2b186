// SPDX-License-Identifier: MIT
// quadrant internals: which trees this thread is walking, so that a tree refuses to change from inside its own
// callbacks. Not for direct inclusion.
//
// A walk hands the user's callback references into the tree (values, and the walk's own position in the node and
// entry arrays); an insert, erase or move from that callback may reallocate or reorder them under the walk. Each
// walk that calls user code pushes a record on a per-thread list for its duration, and every mutating member looks
// its tree up there first. Per thread, not per tree: const walks run concurrently from many threads, and a shared
// counter would be a write to one cache line from all of them; the list costs a walk two stores to thread-local
// memory, and a mutation outside any walk one load.
#pragma once

#include <stdexcept>
#include <string>

namespace quadrant::detail {

// One running walk: the tree it reads and the walk it runs inside, if any (a callback may start another walk).
struct ActiveWalk {
  const void* tree;
  const ActiveWalk* outer;
};

inline thread_local const ActiveWalk* active_walks = nullptr;

// Marks `tree` as walked by this thread for the scope's lifetime; nests, and unwinds with exceptions.
class WalkScope {
 public:
  explicit WalkScope(const void* tree) noexcept : self_{tree, active_walks} { active_walks = &self_; }
  ~WalkScope() { active_walks = self_.outer; }
  WalkScope(const WalkScope&) = delete;
  WalkScope& operator=(const WalkScope&) = delete;

 private:
  ActiveWalk self_;
};

// True when this thread is inside a walk of `tree` (in one of its callbacks).
inline bool inside_walk(const void* tree) noexcept {
  for (const ActiveWalk* w = active_walks; w != nullptr; w = w->outer)
    if (w->tree == tree) return true;
  return false;
}

// Throws std::logic_error when this thread is inside a walk of `tree`: `what` (a member's name) would change the
// tree under the walk.
inline void refuse_inside_walk(const void* tree, const char* what) {
  if (inside_walk(tree))
    throw std::logic_error(std::string("quadrant: ") + what +
                           ": called from inside a walk of the same tree (a query, pair, ray, nearest or node "
                           "callback); collect the change and apply it after the walk returns");
}

}  // namespace quadrant::detail
