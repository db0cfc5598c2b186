// SPDX-License-Identifier: MIT
// quadrant internals: the tree's nodes as NodeView, Tree::query_nodes, Tree::locate and Tree::for_each_node
// (tree/tree.hpp). Not for direct inclusion: <quadrant/tree.hpp> brings it.
//
// A view names a node's cell, bounds, depth and entries; its items turn each entry's record slot into a handle
// through the tree, which the view holds type-erased so that NodeView does not depend on the value type.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "../detail/callbacks.hpp"
#include "../detail/walk_guard.hpp"
#include "../geometry.hpp"
#include "../node_view.hpp"
#include "tree.hpp"
#include "walks.hpp"

namespace quadrant {

template <int D, class T, class S>
template <class Shape, class Fn>
void Tree<D, T, S>::query_nodes(const Shape& shape, Fn&& fn, bool skip_empty) const {
  static_assert(std::is_same_v<decltype(bounding_box(shape)), box_type>,
                "quadrant: the query shape's dimension or scalar type differs from the tree's");
  check_shape(shape);
  const detail::WalkScope walking(this);
  detail::nodes_walk(core_.store(), shape, skip_empty,
                     [&](std::uint32_t n) { return detail::call_and_continue(fn, view(n)); });
}

template <int D, class T, class S>
auto Tree<D, T, S>::locate(const vec_type& point) const -> node_view {
  check_point(point, "locate");
  if (!overlaps(core_.world(), point)) throw std::invalid_argument("quadrant: locate: point outside the world");
  std::uint32_t n = 0;
  while (!core_.store().is_leaf(n)) n = core_.child_owning(n, point);
  return view(n);
}

template <int D, class T, class S>
template <class Fn>
void Tree<D, T, S>::for_each_node(Fn&& fn) const {
  const detail::WalkScope walking(this);
  core_.store().walk(0, 0, [&](std::uint32_t n) {
    return detail::call_and_continue(fn, view(n)) ? detail::Step::Descend : detail::Step::Stop;
  });
}

template <int D, class T, class S>
auto Tree<D, T, S>::view(std::uint32_t n) const -> node_view {
  const auto& store = core_.store();
  const auto entries = store.entries(n);
  return node_view{store.cell(n),
                   store.bounds(n),
                   store.depth(n),
                   store.is_leaf(n),
                   n,
                   store.parent(n),
                   NodeItems<D, S>(entries.data(), entries.size(), this, &handle_of_erased),
                   store.count(n),
                   store.layers(n)};
}

}  // namespace quadrant
