// quadrant internals: the query and pair walks of Tree. Included by tree.hpp; not for direct inclusion.
//
// Each is one visitor over the stackless pre-order walk of detail::NodePool; they read the tree only, so they may
// run concurrently with each other.
#pragma once

namespace quadrant {

// ---- queries ----

// Loose and Parent: every object lies inside its node's bounds, so a subtree whose bounds lie inside the shape
// is reported without testing its objects, and one whose bounds miss the shape is skipped.
template <int D, class T, class S>
template <class Shape, class Fn>
void Tree<D, T, S>::query_nested(const Shape& shape, Fn& fn, QueryStats& st) const {
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0) return Step::Skip;
    const Relation rel = classify(shape, node.bounds);
    if (rel == Relation::Outside) return Step::Skip;
    if (rel == Relation::Inside) return report_subtree(n, fn, st) ? Step::Skip : Step::Stop;
    for (const entry_type& e : node.entries) {
      ++st.box_tests;
      if (!overlaps(shape, e.box)) continue;
      if (!hit(e, fn, st)) return Step::Stop;
    }
    return Step::Descend;
  });
}

template <int D, class T, class S>
template <class Fn>
bool Tree<D, T, S>::report_subtree(std::uint32_t top, Fn& fn, QueryStats& st) const {
  bool go_on = true;
  pool_.walk(top, top, [&](std::uint32_t n) {
    if (n != top) ++st.nodes_visited;
    for (const entry_type& e : pool_.nodes[n].entries)
      if (!hit(e, fn, st)) {
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
void Tree<D, T, S>::query_leaves(const Shape& shape, Fn& fn, QueryStats& st) const {
  const box_type qbox = bounding_box(shape);
  const box_type cq = clamped(qbox);
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0 || !overlaps(node.cell, cq)) return Step::Skip;
    for (const entry_type& e : node.entries) {
      ++st.box_tests;
      if (!overlaps(shape, e.box) || !owns(node.cell, report_point(e.box, qbox), config_.world)) continue;
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
void Tree<D, T, S>::pairs_nested(Fn& fn, PairStats& st) const {
  bool go_on = true;
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0) return Step::Skip;
    for (std::size_t i = 0; i < node.entries.size() && go_on; ++i) {
      const entry_type& a = node.entries[i];
      for (std::size_t j = i + 1; j < node.entries.size() && go_on; ++j) {
        ++st.box_tests;
        if (overlaps(a.box, node.entries[j].box)) go_on = report_pair(a, node.entries[j], fn, st);
      }
      if (!go_on) break;
      pool_.walk(n, 0, [&](std::uint32_t m) {
        if (m == n) return Step::Descend;
        const Node& other = pool_.nodes[m];
        ++st.nodes_visited;
        if (other.count == 0 || !overlaps(a.box, other.bounds)) return Step::Skip;
        for (const entry_type& b : other.entries) {
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
void Tree<D, T, S>::pairs_in_leaves(Fn& fn, PairStats& st) const {
  pool_.walk(0, 0, [&](std::uint32_t n) {
    const Node& node = pool_.nodes[n];
    ++st.nodes_visited;
    if (node.count == 0) return Step::Skip;
    const std::size_t count = node.entries.size();
    for (std::size_t i = 0; i < count; ++i) {
      const entry_type& a = node.entries[i];
      for (std::size_t j = i + 1; j < count; ++j) {
        const entry_type& b = node.entries[j];
        ++st.box_tests;
        if (!overlaps(a.box, b.box) || !owns(node.cell, report_point(a.box, b.box), config_.world)) continue;
        if (!report_pair(a, b, fn, st)) return Step::Stop;
      }
    }
    return Step::Descend;
  });
}

}  // namespace quadrant
