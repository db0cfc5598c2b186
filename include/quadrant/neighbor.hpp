// SPDX-License-Identifier: MIT
// quadrant — Neighbor: one answer of Tree::nearest.
//
// Threads: plain values.
#pragma once

#include "handle.hpp"

namespace quadrant {

/// One object found by `Tree::nearest`: its handle and its distance from the query point to its box (0 inside).
template <class S>
struct Neighbor {
  Handle handle;  ///< the object
  S distance;     ///< Euclidean distance from the query point to the object's box
};

}  // namespace quadrant
