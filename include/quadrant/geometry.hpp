// SPDX-License-Identifier: MIT
// quadrant — geometry: points, boxes, the query shapes and the exact tests between them.
//
// Every query shape provides the same four functions, which is all Tree needs from it (the concept QueryShape in
// geometry/shape.hpp states it):
//   check_shape(shape)          throws std::invalid_argument naming the defect (NaN, negative radius, ...)
//   bounding_box(shape)         an axis-aligned box holding the shape
//   overlaps(shape, box)        exact closed overlap with an object's box
//   classify(shape, node)       Outside / Crossing / Inside for a node's bounds, consistent with overlaps
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include "geometry/box.hpp"
#include "geometry/distance.hpp"
#include "geometry/numeric.hpp"
#include "geometry/circle.hpp"
#include "geometry/ellipse.hpp"
#include "geometry/sector.hpp"
#include "geometry/polygon.hpp"
#include "geometry/segment.hpp"
#include "geometry/frustum.hpp"
#include "geometry/narrow_phase.hpp"
#include "geometry/shape.hpp"
