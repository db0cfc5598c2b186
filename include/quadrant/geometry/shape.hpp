// SPDX-License-Identifier: MIT
// quadrant — the query-shape contract as a concept: what Tree::query, query_nodes and AoiWorld::query need from a
// shape. Include <quadrant/geometry.hpp>, which brings this and every shape that meets it.
//
// A query checks the shape once (check_shape), takes its bounding box, then tests it against many boxes — through
// detail::prepare(shape), which is the shape itself or, for shapes whose tests start with trigonometry (Ellipse,
// Sector), a copy with that work done once. Both forms must answer the same.
//
// Threads: a concept; nothing runs.
#pragma once

#include <concepts>

#include "box.hpp"

namespace quadrant {

/// Satisfied by a query shape of D dimensions and scalar S: a type with
///   check_shape(shape)        throws std::invalid_argument naming the defect (NaN, negative radius, ...);
///   bounding_box(shape)       an axis-aligned Box<D, S> holding the shape;
///   overlaps(shape, box)      exact closed overlap with an object's box (convertible to bool);
///   classify(shape, node)     Outside / Crossing / Inside for a node's bounds, consistent with overlaps;
/// and the same two tests on detail::prepare(shape). Box<D, S>, Vec<D, S> (a point), Circle, Sphere, Ring, Ellipse,
/// Sector, OrientedBox, ConvexPolygon, Segment<D, S> and Frustum model it for their D (float and double); a shape
/// of the other dimension or scalar does not. Found by argument-dependent lookup: a user shape declares the four
/// functions in its own namespace.
template <class Shape, int D, class S>
concept QueryShape = requires(const Shape& shape, const Box<D, S>& box) {
  check_shape(shape);
  { bounding_box(shape) } -> std::same_as<Box<D, S>>;
  { overlaps(shape, box) } -> std::convertible_to<bool>;
  { classify(shape, box) } -> std::same_as<Relation>;
  { overlaps(detail::prepare(shape), box) } -> std::convertible_to<bool>;
  { classify(detail::prepare(shape), box) } -> std::same_as<Relation>;
};

}  // namespace quadrant
