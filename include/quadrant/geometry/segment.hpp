// quadrant — Segment<D>: line segments (ray casts and segment queries).
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include "box.hpp"

namespace quadrant {

/// The closed segment from `a` to `b` (a == b is a point). A ray cast walks it from a to b.
template <int D, class S = float>
struct Segment {
  Vec<D, S> a;  ///< start (fraction 0)
  Vec<D, S> b;  ///< end (fraction 1)
};

}  // namespace quadrant
