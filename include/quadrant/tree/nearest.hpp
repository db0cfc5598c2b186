// SPDX-License-Identifier: MIT
// quadrant internals: the tree's best-first searches, Tree::raycast, Tree::nearest and Tree::for_each_nearest
// (tree/tree.hpp), over the engine of best_first.hpp. Not for direct inclusion: <quadrant/tree.hpp> brings it.
//
// A search keys each node by its prune box and each object by its box: the fraction where a ray enters it, or the
// distance from the point in a metric that compares in a double on every platform (geometry/distance.hpp). A
// nearest search passes a clearance, so that it stops walking up once its k-th answer lies inside a node's cell.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "../detail/callbacks.hpp"
#include "../detail/prefetch.hpp"
#include "../detail/scratch.hpp"
#include "../detail/walk_guard.hpp"
#include "../geometry.hpp"
#include "../geometry/distance.hpp"
#include "../neighbor.hpp"
#include "../stats.hpp"
#include "best_first.hpp"
#include "core.hpp"
#include "entry.hpp"
#include "placement.hpp"
#include "tree.hpp"

namespace quadrant {
namespace detail {

// The box best-first walks (nearest, raycast) key node m by: its fit (see NodeStore::fit) under Loose and
// Parent; its bounds under Leaves, whose ownership rule needs the owner leaf opened by the distance to its bounds.
template <class P, int D, class S>
const Box<D, S>& prune_box(P, const TreeCore<D, S>& core, std::uint32_t m) noexcept {
  if constexpr (P::kEveryLeaf) return core.store().bounds(m);
  else return core.store().fit(m);
}

// A nearest search's clearance of node n (see detail::best_first): the squared distance from `point` to the
// nearest face of n's cell, less how far an object may reach beyond the cell of a node listing it (the
// overhang: see TreeCore::overhang), scaled as the metric scales. Nothing outside n's subtree and n's ancestors
// lies nearer: each such object is listed by a node whose cell lies outside n's, or (under Leaves) taken from the
// leaf owning its point nearest `point`, outside n's cell too. Negative when `point` is not that far inside the
// cell. So that rounding never makes it exceed an object's computed distance, it is shrunk by 2^-48 of the
// largest term it was formed from (the gaps' and the keys' subtractions round by half an ulp of those), then its
// square by a relative 1e-9; none below 2^-900, where the square would lose its relative precision.
template <class P, int D, class S>
auto nearest_clearance(P, const TreeCore<D, S>& core, const NearestMetric<D, S>& metric) {
  using W = WideScalar<S>;
  return [&core, metric](std::uint32_t n) {
    const Box<D, S>& c = core.store().cell(n);
    W inner = std::numeric_limits<W>::infinity(), largest = 0;
    for (int i = 0; i < D; ++i) {
      const W below = -metric.gap(i, c.min[i]), above = metric.gap(i, c.max[i]);
      inner = std::min({inner, below, above});
      largest = std::max({largest, std::abs(below), std::abs(above), std::abs(W(metric.pk[i]))});
    }
    if constexpr (!P::kEveryLeaf) {
      const W overhang = core.overhang() * metric.k;
      inner -= overhang;
      largest += overhang;
    }
    inner -= largest * 0x1p-48;
    return inner > 0x1p-900 ? inner * inner * W(1 - 1e-9) : W(-1);
  };
}

// The metric of a nearest search from `point`: scaled by the largest coordinate it can meet, the world's and the
// objects' (the root's fit; none while the tree is empty).
template <int D, class S>
NearestMetric<D, S> nearest_metric(const TreeCore<D, S>& core, const Vec<D, S>& point) noexcept {
  S magnitude = 0;
  const Box<D, S>& fit = core.store().fit(0);
  const bool empty = !(fit.min[0] <= fit.max[0]);
  for (int i = 0; i < D; ++i) {
    magnitude = std::max({magnitude, std::abs(core.world().min[i]), std::abs(core.world().max[i])});
    if (!empty) magnitude = std::max({magnitude, std::abs(fit.min[i]), std::abs(fit.max[i])});
  }
  return NearestMetric<D, S>(point, magnitude);
}

// Under Placement::Leaves a nearest search takes an object from the leaf owning its report point: the point of
// its box nearest the query point. That leaf lists the object, and its bounds are no farther than the object
// (they hold that point, or reach to infinity beyond the world's face it was clamped onto), so the walk opens it
// before the object is due.
template <int D, class S>
auto nearest_owner(const TreeCore<D, S>& core, const Vec<D, S>& point) {
  return [&core, point](const StoredEntry<D, S>& e, std::uint32_t n, auto) {
    const Vec<D, S> q = clamp(point, e.box);
    return LeavesPolicy::reports(core.store().cell(n), e.box, Box<D, S>{q, q}, core.world());
  };
}

}  // namespace detail

template <int D, class T, class S>
template <class Fn>
QueryStats Tree<D, T, S>::raycast(const Segment<D, S>& segment, Fn&& fn, std::uint32_t layers) const {
  check_shape(segment);
  const detail::WalkScope walking(this);
  auto report = [&](const stored_entry& e, S t) {
    return detail::call_and_continue(fn, handle_of(e.id), *records_[e.id].value, t);
  };
  detail::StreamResults<S, decltype(report)> results{report};
  const auto& store = core_.store();
  QueryStats st;
  detail::with_placement(core_.config().placement, [&](auto p) {
    auto node_key = [&](std::uint32_t m) { return entry_fraction(segment, detail::prune_box(p, core_, m)); };
    auto first_leaf = [&](const stored_entry& e, std::uint32_t n, S key_n) {
      return detail::first_leaf_of(store, e.id, n, key_n, node_key);
    };
    detail::best_first<S>(
        p, store, layers, node_key, [&](const box_type& b) { return entry_fraction(segment, b); }, first_leaf,
        results, st);
  });
  return st;
}

template <int D, class T, class S>
void Tree<D, T, S>::nearest(const vec_type& point, std::size_t k, std::vector<Neighbor<S>>& out, S max_distance,
                            std::uint32_t layers) const {
  out.clear();
  check_nearest_args(point, max_distance);
  if (k == 0) return;
  using W = detail::WideScalar<S>;
  const auto metric = detail::nearest_metric(core_, point);
  const W limit = metric.key_of(max_distance);
  // Always a key: KBestResults' bound (never above limit) turns away whatever is beyond max_distance.
  // The metric is held by value: the walk reads it for every entry, and through a reference each read would be
  // two dependent loads.
  auto key = [metric](const box_type& b) { return std::optional<W>(metric(b)); };
  // The answers' handles are rebuilt from their generations, and a caller's next step is nearly always the
  // answer's value: start loading both as an answer is found, so the cache misses overlap the rest of the walk
  // instead of following it.
  struct Results : detail::KBestResults<W> {
    using detail::KBestResults<W>::KBestResults;
    const std::uint32_t* generations;
    const Record* records;
    void offer(const stored_entry& e, W d) {
      detail::prefetch(generations + e.id);
      detail::prefetch(records + e.id);
      detail::KBestResults<W>::offer(e, d);
    }
  };
  detail::ScratchLease<typename Results::Found> found_lease;
  Results results(found_lease.get(), k, limit);
  results.generations = generations_.data();
  results.records = records_.data();
  const auto& store = core_.store();
  QueryStats st;
  detail::with_placement(core_.config().placement, [&](auto p) {
    detail::best_first<W>(p, store, layers, [&](std::uint32_t m) { return key(detail::prune_box(p, core_, m)); }, key,
                          detail::nearest_owner(core_, point), results, st, store.home_of(point),
                          detail::nearest_clearance(p, core_, metric));
  });
  for (const auto& f : results.sorted()) out.push_back(Neighbor<S>{handle_of(f.id), metric.distance_of(f.key)});
}

template <int D, class T, class S>
template <class Fn>
QueryStats Tree<D, T, S>::for_each_nearest(const vec_type& point, Fn&& fn, S max_distance,
                                           std::uint32_t layers) const {
  check_nearest_args(point, max_distance);
  const detail::WalkScope walking(this);
  using W = detail::WideScalar<S>;
  const auto metric = detail::nearest_metric(core_, point);
  const W limit = metric.key_of(max_distance);  // infinity stays infinity
  auto key = [&](const box_type& b) -> std::optional<W> {
    const W d = metric(b);
    return d <= limit ? std::optional<W>(d) : std::nullopt;
  };
  auto report = [&](const stored_entry& e, W d) {
    return detail::call_and_continue(fn, handle_of(e.id), *records_[e.id].value, metric.distance_of(d));
  };
  detail::StreamResults<W, decltype(report)> results{report};
  const auto& store = core_.store();
  QueryStats st;
  detail::with_placement(core_.config().placement, [&](auto p) {
    detail::best_first<W>(p, store, layers, [&](std::uint32_t m) { return key(detail::prune_box(p, core_, m)); }, key,
                          detail::nearest_owner(core_, point), results, st);
  });
  return st;
}

}  // namespace quadrant
