// SPDX-License-Identifier: MIT
// quadrant internals: the query and pair walks of Tree. Included by tree.hpp; not for direct inclusion.
//
// Each is one visitor over the stackless pre-order walk of detail::NodePool; they read the tree only, so they may
// run concurrently with each other.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace quadrant {

// ---- queries ----

// Loose and Parent: every object lies inside its node's bounds, so a subtree whose bounds lie inside the shape
// is reported without testing its objects, and one whose bounds miss the shape is skipped. The root's bounds are
// everything (objects outside the world live there): it is always crossed.
//
// Shapes whose classify takes a mask of the tests still to make (Frustum: six planes and the corners' box) start
// each node from its parent's mask, so a child skips the planes its parent lies wholly inside. The walk is
// pre-order, so when a node at depth d is visited, masks[d - 1] still holds its parent's mask; nodes deeper than
// the array start from every test (correct, merely slower).
template <int D, class T, class S>
template <class Shape, class Fn>
void Tree<D, T, S>::query_nested(const Shape& query_shape, Fn& fn, std::uint32_t layers, QueryStats& st) const {
  decltype(auto) shape = detail::prepare(query_shape);
  constexpr bool masked = requires(std::uint32_t& mask) { classify(shape, std::declval<const box_type&>(), mask); };
  constexpr std::size_t kMaskDepth = 64;
  std::uint32_t masks[kMaskDepth];
  masks[0] = ~0u;  // the root is crossed without a test
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0 || (node.layers & layers) == 0) return Step::Skip;
    Relation rel = Relation::Crossing;
    if (n != 0) {
      if constexpr (masked) {
        const std::size_t d = static_cast<std::size_t>(node.depth);
        std::uint32_t mask = d <= kMaskDepth ? masks[d - 1] : ~0u;
        rel = classify(shape, node.bounds, mask);
        if (d < kMaskDepth) masks[d] = mask;
      } else {
        rel = classify(shape, node.bounds);
      }
    }
    if (rel == Relation::Outside) return Step::Skip;
    if (rel == Relation::Inside) return report_subtree(n, fn, layers, st) ? Step::Skip : Step::Stop;
    for (const entry_type& e : node.entries) {
      if ((e.layers & layers) == 0) continue;
      ++st.box_tests;
      if (!overlaps(shape, e.box)) continue;
      if (!hit(e, fn, st)) return Step::Stop;
    }
    return Step::Descend;
  });
}

template <int D, class T, class S>
template <class Fn>
bool Tree<D, T, S>::report_subtree(std::uint32_t top, Fn& fn, std::uint32_t layers, QueryStats& st) const {
  bool go_on = true;
  pool_.walk(top, top, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    if (n != top) ++st.nodes_visited;
    if (node.count == 0 || (node.layers & layers) == 0) return Step::Skip;
    for (const entry_type& e : node.entries)
      if ((e.layers & layers) != 0 && !hit(e, fn, st)) {
        go_on = false;
        return Step::Stop;
      }
    return Step::Descend;
  });
  return go_on;
}

template <int D, class T, class S>
template <class Fn>
bool Tree<D, T, S>::hit(const entry_type& e, Fn& fn, QueryStats& st) const {
  ++st.hits;
  if (detail::report_hit(fn, e.handle, *records_[e.handle.index_].value)) return true;
  st.stopped = true;
  return false;
}

// Leaves: walk the leaves the clamped query box overlaps; an object listed by several of them is reported by the
// one that owns the report point of its box and the query's box.
template <int D, class T, class S>
template <class Shape, class Fn>
void Tree<D, T, S>::query_leaves(const Shape& query_shape, Fn& fn, std::uint32_t layers, QueryStats& st) const {
  decltype(auto) shape = detail::prepare(query_shape);
  const box_type qbox = bounding_box(query_shape);
  const box_type cq = clamped(qbox);
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0 || (node.layers & layers) == 0 || !overlaps(node.cell, cq)) return Step::Skip;
    for (const entry_type& e : node.entries) {
      if ((e.layers & layers) == 0 || !overlaps(e.box, qbox)) continue;
      if (!owns(node.cell, report_point(e.box, qbox), config_.world)) continue;
      ++st.box_tests;
      // A box query's exact test is the bounding-box test just made.
      if constexpr (!std::is_same_v<std::remove_cvref_t<Shape>, box_type>)
        if (!overlaps(shape, e.box)) continue;
      if (!hit(e, fn, st)) return Step::Stop;
    }
    return Step::Descend;
  });
}

// ---- pairs ----
template <int D, class T, class S>
template <class Fn>
bool Tree<D, T, S>::report_pair(const entry_type& a, const entry_type& b, Fn& fn, PairStats& st) const {
  ++st.pairs;
  if (detail::call_and_continue(fn, a.handle, b.handle)) return true;
  st.stopped = true;
  return false;
}

// Loose and Parent: each entry is tested against the later entries of its node and against every node after
// its own in pre-order (its descendants, then the rest), pruned by node bounds; each pair is met once.
template <int D, class T, class S>
template <class Fn>
void Tree<D, T, S>::pairs_nested(Fn& fn, std::uint32_t layers, PairStats& st) const {
  bool go_on = true;
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0 || (node.layers & layers) == 0) return Step::Skip;
    for (std::size_t i = 0; i < node.entries.size() && go_on; ++i) {
      const entry_type& a = node.entries[i];
      if ((a.layers & layers) == 0) continue;
      for (std::size_t j = i + 1; j < node.entries.size() && go_on; ++j) {
        if ((node.entries[j].layers & layers) == 0) continue;
        ++st.box_tests;
        if (overlaps(a.box, node.entries[j].box)) go_on = report_pair(a, node.entries[j], fn, st);
      }
      if (!go_on) break;
      pool_.walk(n, 0, [&](std::uint32_t m) {
        if (m == n) return Step::Descend;
        const Node& other = pool_.nodes[m];
        ++st.nodes_visited;
        if (other.count == 0 || (other.layers & layers) == 0 || !overlaps(a.box, other.bounds)) return Step::Skip;
        for (const entry_type& b : other.entries) {
          if ((b.layers & layers) == 0) continue;
          ++st.box_tests;
          if (overlaps(a.box, b.box) && !(go_on = report_pair(a, b, fn, st))) return Step::Stop;
        }
        return Step::Descend;
      });
    }
    return go_on ? Step::Descend : Step::Stop;
  });
}

// Leaves: all pairs within each leaf; a pair listed by several leaves is reported by the one owning its report
// point.
template <int D, class T, class S>
template <class Fn>
void Tree<D, T, S>::pairs_in_leaves(Fn& fn, std::uint32_t layers, PairStats& st) const {
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0 || (node.layers & layers) == 0) return Step::Skip;
    const std::size_t count = node.entries.size();
    for (std::size_t i = 0; i < count; ++i) {
      const entry_type& a = node.entries[i];
      if ((a.layers & layers) == 0) continue;
      for (std::size_t j = i + 1; j < count; ++j) {
        const entry_type& b = node.entries[j];
        if ((b.layers & layers) == 0) continue;
        ++st.box_tests;
        if (!overlaps(a.box, b.box) || !owns(node.cell, report_point(a.box, b.box), config_.world)) continue;
        if (!report_pair(a, b, fn, st)) return Step::Stop;
      }
    }
    return Step::Descend;
  });
}

// ---- best-first walks: ray casts and nearest neighbours ----

namespace detail {
// A node or an object waiting in a best-first heap, keyed by entry fraction (rays) or squared distance (nearest).
template <class S>
struct Pending {
  S key;
  std::uint32_t node;
  std::uint32_t slot;  // kNone: the node itself; otherwise one of its entries
  std::uint32_t id;    // node index, or the object's handle index (ties go to the lower index)
};
// Heap order (std::push_heap keeps the greatest on top): smaller keys first; at equal keys nodes before objects
// (a node at the same key may still hold an object with a lower index), then lower ids, so answers with equal keys
// come in handle-index order.
template <class S>
struct LaterThan {
  bool operator()(const Pending<S>& x, const Pending<S>& y) const noexcept {
    if (x.key != y.key) return x.key > y.key;
    const bool x_node = x.slot == kNone, y_node = y.slot == kNone;
    if (x_node != y_node) return y_node;
    return x.id > y.id;
  }
};
}  // namespace detail

template <int D, class T, class S>
template <class K, class Key>
bool Tree<D, T, S>::first_leaf_of(std::uint32_t id, std::uint32_t n, K key_n, Key&& key) const {
  for (std::uint32_t r = records_[id].ref; r != kNone; r = refs_[r].next) {
    const std::uint32_t m = refs_[r].node;
    if (m == n) continue;
    const std::optional<K> key_m = key(m);
    if (key_m && (*key_m < key_n || (*key_m == key_n && m < n))) return false;
  }
  return true;
}

// The one best-first walk behind ray casts and nearest neighbours. node_key(n) and entry_key(box) give a node's
// or an object's key (entry fraction, squared distance), or nothing when it is out of reach; a node's key is at most
// the key of anything inside its bounds, so when an object comes off the heap nothing left can come before it.
// report(entry, key) returns false to stop.
template <int D, class T, class S>
template <class K, class NodeKey, class EntryKey, class Report>
QueryStats Tree<D, T, S>::best_first(std::uint32_t layers, NodeKey&& node_key, EntryKey&& entry_key,
                                     Report&& report) const {
  QueryStats st;
  detail::ScratchLease<detail::Pending<K>> lease;
  std::vector<detail::Pending<K>>& heap = lease.get();
  const detail::LaterThan<K> later;
  const bool leaves = config_.placement == Placement::Leaves;
  auto push = [&](const detail::Pending<K>& p) {
    heap.push_back(p);
    std::push_heap(heap.begin(), heap.end(), later);
  };
  if (pool_.nodes[0].count > 0 && (pool_.nodes[0].layers & layers) != 0)
    if (const std::optional<K> k = node_key(0)) push({*k, 0, kNone, 0});
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const detail::Pending<K> top = heap.back();
    heap.pop_back();
    const Node& node = pool_.nodes[top.node];
    if (top.slot != kNone) {
      ++st.hits;
      if (!report(node.entries[top.slot], top.key)) {
        st.stopped = true;
        break;
      }
      continue;
    }
    ++st.nodes_visited;
    for (std::uint32_t i = 0; i < node.entries.size(); ++i) {
      const entry_type& e = node.entries[i];
      if ((e.layers & layers) == 0) continue;
      ++st.box_tests;
      const std::optional<K> k = entry_key(e.box);
      if (!k) continue;
      if (leaves && !first_leaf_of(e.handle.index_, top.node, top.key, node_key)) continue;
      push({*k, top.node, i, e.handle.index_});
    }
    if (node.first_child == kNone) continue;
    for (std::uint32_t c = node.first_child; c < node.first_child + fanout; ++c) {
      const Node& child = pool_.nodes[c];
      if (child.count == 0 || (child.layers & layers) == 0) continue;
      if (const std::optional<K> k = node_key(c)) push({*k, c, kNone, c});
    }
  }
  return st;
}

// Ray casts are keyed by the fraction where the segment enters a node's bounds or an object's box.
template <int D, class T, class S>
template <class Fn>
QueryStats Tree<D, T, S>::raycast(const Segment<D, S>& segment, Fn&& fn, std::uint32_t layers) const {
  check_shape(segment);
  return best_first<S>(
      layers, [&](std::uint32_t m) { return entry_fraction(segment, pool_.nodes[m].bounds); },
      [&](const box_type& b) { return entry_fraction(segment, b); },
      [&](const entry_type& e, S t) {
        return detail::call_and_continue(fn, e.handle, *records_[e.handle.index_].value, t);
      });
}

namespace detail {
// The wider type nearest-neighbour distances are squared in: double for float, long double for double, so no
// finite coordinates overflow them.
template <class S>
using WideScalar = std::conditional_t<std::is_same_v<S, float>, double, long double>;

// Squared distance from a point to a closed box (0 inside), in the wide type.
template <int D, class S>
WideScalar<S> squared_distance(const Vec<D, S>& point, const Box<D, S>& b) noexcept {
  using W = WideScalar<S>;
  W sum = 0;
  for (int i = 0; i < D; ++i) {
    W d = 0;
    if (point[i] < b.min[i]) d = W(b.min[i]) - W(point[i]);
    else if (point[i] > b.max[i]) d = W(point[i]) - W(b.max[i]);
    sum += d * d;
  }
  return sum;
}
}  // namespace detail

// Nearest neighbours are keyed by squared distance, out of reach beyond max_distance. The squares are taken in a
// wider type (double for float, long double for double), so no finite coordinates overflow them.
template <int D, class T, class S>
template <class Fn>
QueryStats Tree<D, T, S>::for_each_nearest(const vec_type& point, Fn&& fn, S max_distance,
                                           std::uint32_t layers) const {
  check_nearest_args(point, max_distance);
  using W = detail::WideScalar<S>;
  const W limit = W(max_distance) * W(max_distance);  // infinity stays infinity
  auto key = [&](const box_type& b) -> std::optional<W> {
    const W sum = detail::squared_distance(point, b);
    if (sum <= limit) return sum;
    return std::nullopt;
  };
  return best_first<W>(
      layers, [&](std::uint32_t m) { return key(pool_.nodes[m].bounds); }, key,
      [&](const entry_type& e, W d) {
        return detail::call_and_continue(fn, e.handle, *records_[e.handle.index_].value, static_cast<S>(std::sqrt(d)));
      });
}

// k nearest: nodes come off a min-heap by distance; objects go straight into a max-heap of the k best so far
// (ordered by distance, then handle index), whose worst bounds every later node. The walk ends when the nearest
// unopened node is farther than that bound.
template <int D, class T, class S>
void Tree<D, T, S>::nearest(const vec_type& point, std::size_t k, std::vector<Neighbor<S>>& out, S max_distance,
                            std::uint32_t layers) const {
  out.clear();
  check_nearest_args(point, max_distance);
  if (k == 0 || pool_.nodes[0].count == 0 || (pool_.nodes[0].layers & layers) == 0) return;
  using W = detail::WideScalar<S>;
  const W limit = W(max_distance) * W(max_distance);
  auto key = [&](const box_type& b) { return detail::squared_distance(point, b); };
  struct Found {
    W key;
    Handle handle;
  };
  // Max-heap: the worst of the best k on top.
  auto better = [](const Found& a, const Found& b) {
    return a.key < b.key || (a.key == b.key && a.handle.index_ < b.handle.index_);
  };
  detail::ScratchLease<detail::Pending<W>> node_lease;
  detail::ScratchLease<Found> found_lease;
  std::vector<detail::Pending<W>>& nodes = node_lease.get();
  std::vector<Found>& found = found_lease.get();
  const detail::LaterThan<W> later;
  const bool leaves = config_.placement == Placement::Leaves;
  auto bound = [&] { return found.size() == k ? found.front().key : limit; };
  const W root_key = key(pool_.nodes[0].bounds);
  if (root_key <= limit) nodes.push_back({root_key, 0, kNone, 0});
  while (!nodes.empty()) {
    std::pop_heap(nodes.begin(), nodes.end(), later);
    const detail::Pending<W> top = nodes.back();
    nodes.pop_back();
    // Equal keys may still hold an object with a lower handle index, so only strictly farther nodes end the walk.
    if (top.key > bound()) break;
    const Node& node = pool_.nodes[top.node];
    for (const entry_type& e : node.entries) {
      if ((e.layers & layers) == 0) continue;
      const Found f{key(e.box), e.handle};
      if (f.key > limit) continue;
      if (found.size() == k && !better(f, found.front())) continue;
      // Placement::Leaves lists an object in every leaf it overlaps.
      if (leaves && std::any_of(found.begin(), found.end(),
                                [&](const Found& g) { return g.handle.index_ == e.handle.index_; }))
        continue;
      if (found.size() == k) {
        std::pop_heap(found.begin(), found.end(), better);
        found.back() = f;
      } else {
        found.push_back(f);
      }
      std::push_heap(found.begin(), found.end(), better);
    }
    if (node.first_child == kNone) continue;
    for (std::uint32_t c = node.first_child; c < node.first_child + fanout; ++c) {
      const Node& child = pool_.nodes[c];
      if (child.count == 0 || (child.layers & layers) == 0) continue;
      const W ck = key(child.bounds);
      if (ck > bound()) continue;
      nodes.push_back({ck, c, kNone, c});
      std::push_heap(nodes.begin(), nodes.end(), later);
    }
  }
  std::sort_heap(found.begin(), found.end(), better);
  for (const Found& f : found) out.push_back(Neighbor<S>{f.handle, static_cast<S>(std::sqrt(f.key))});
}

// ---- node queries ----

template <int D, class T, class S>
template <class Shape, class Fn>
void Tree<D, T, S>::query_nodes(const Shape& query_shape, Fn&& fn, bool skip_empty) const {
  static_assert(std::is_same_v<decltype(bounding_box(query_shape)), box_type>,
                "quadrant: the query shape's dimension or scalar type differs from the tree's");
  check_shape(query_shape);
  decltype(auto) shape = detail::prepare(query_shape);
  bool go_on = true;
  auto report = [&](std::uint32_t n) {
    go_on = detail::call_and_continue(fn, view(n));
    return go_on ? Step::Skip : Step::Stop;
  };
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    if (skip_empty && node.count == 0) return Step::Skip;
    const Relation rel = classify(shape, node.cell);
    if (rel == Relation::Outside) return Step::Skip;
    if (rel == Relation::Inside) {
      // Every leaf below lies inside the shape too.
      pool_.walk(n, n, [&](std::uint32_t m) {
        const Node& below = pool_.nodes[m];
        if (skip_empty && below.count == 0) return Step::Skip;
        if (below.first_child != kNone) return Step::Descend;
        return report(m) == Step::Stop ? Step::Stop : Step::Skip;
      });
      return go_on ? Step::Skip : Step::Stop;
    }
    if (node.first_child != kNone) return Step::Descend;
    return overlaps(shape, node.cell) ? report(n) : Step::Skip;
  });
}

}  // namespace quadrant
