// quadrant — polygonal query shapes: OrientedBox and ConvexPolygon, tested by separating axes.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <span>
#include <vector>

#include "box.hpp"
#include "round.hpp"

namespace quadrant {

/// A closed rectangle turned by `angle` radians counter-clockwise about its `center`; half_extents >= 0 along its
/// own x and y before rotation.
template <class S = float>
struct OrientedBox {
  Vec<2, S> center;        ///< centre
  Vec<2, S> half_extents;  ///< half side lengths along the box's own axes, >= 0
  S angle;                 ///< rotation, radians, counter-clockwise
};

}  // namespace quadrant
