// SPDX-License-Identifier: MIT
// quadrant — what a walk did (QueryStats, PairStats) and the shape of a tree (Stats).
//
// Threads: plain values.
#pragma once

#include <cstddef>

namespace quadrant {

/// What one query did: nodes visited, boxes tested, objects reported.
struct QueryStats {
  std::size_t nodes_visited = 0;  ///< nodes entered: tested against the shape, or (ray casts, nearest) taken off
                                  ///< the best-first heap
  std::size_t box_tests = 0;      ///< object boxes tested against the query shape (or keyed, for rays and nearest)
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
  std::size_t outside_world = 0;  ///< objects whose box reaches outside Config::world (they are kept and found,
                                  ///< but pile up near the root: see docs/core.md, "Objects outside the world")
  std::size_t root_entries = 0;   ///< entries the root lists itself: every query and pair walk tests them all
};

}  // namespace quadrant
