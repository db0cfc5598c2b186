// SPDX-License-Identifier: MIT
// quadrant internals: the pre-order walks behind Tree::query, Tree::for_each_pair and Tree::query_nodes. Not for
// direct inclusion.
//
// Each is one visitor over NodeStore::walk, compiled per placement; they read the tree only, so they may run
// concurrently with each other. An object is handed back as its stored entry through `hit` or `pair`, which the
// Tree turns into handles and values and passes to the user's callback; they return false to stop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "../geometry/box.hpp"
#include "../layer_matrix.hpp"
#include "../stats.hpp"
#include "../detail/scratch.hpp"
#include "core.hpp"

namespace quadrant::detail {

// Calls emit(i) for each i in [from, to) for which hit(i), in order; false as soon as emit returns false. The hit
// tests run without a branch on their outcome, writing the positions of the hits a chunk at a time, and the hits
// are emitted after: in the entry loops of queries and pairs which entries hit is close to random, and a
// mispredicted branch per entry costs more than the list.
template <class Hit, class Emit>
bool for_each_hit(std::size_t from, std::size_t to, Hit&& hit, Emit&& emit) {
  constexpr std::size_t kChunk = 64;
  std::size_t found[kChunk];
  for (; from < to; from += kChunk) {
    const std::size_t end = std::min(to, from + kChunk);
    std::size_t count = 0;
    for (std::size_t i = from; i < end; ++i) {
      found[count] = i;
      count += static_cast<std::size_t>(hit(i));
    }
    for (std::size_t k = 0; k < count; ++k)
      if (!emit(found[k])) return false;
  }
  return true;
}

// The entry loop every query walk shares: the layer test, the exact test, the count of tests (of the objects in
// `layers`), and the report. Returns false when the callback stopped the walk. The exact test runs on every entry,
// without a branch (see for_each_hit).
template <class Entries, class Test, class Hit>
bool report_entries(const Entries& entries, std::uint32_t layers, QueryStats& st, Test&& test, Hit& hit) {
  std::size_t tested = 0;
  const bool go_on = for_each_hit(0, entries.size(), [&](std::size_t i) {
    const bool in_layers = (entries[i].layers & layers) != 0;
    tested += in_layers;
    return in_layers & test(entries[i]);
  }, [&](std::size_t i) {
    ++st.hits;
    if (hit(entries[i])) return true;
    st.stopped = true;
    return false;
  });
  st.box_tests += tested;
  return go_on;
}

// Reports every entry in `layers`, untested (a subtree inside the shape). Returns false when the callback stopped.
template <class Entries, class Hit>
bool report_all(const Entries& entries, std::uint32_t layers, QueryStats& st, Hit& hit) {
  for (const auto& e : entries) {
    if ((e.layers & layers) == 0) continue;
    ++st.hits;
    if (!hit(e)) {
      st.stopped = true;
      return false;
    }
  }
  return true;
}

// A query's hit callback that can also be handed an object by its id, where the walk knows the id without the
// entry (see report_subtree). by_id(id) reports object id as by_entry(its entry) would; fetch(first, last) starts
// loading what reporting ids [first, last) will read.
template <class ByEntry, class ById, class Fetch>
struct EntryOrIdHit {
  ByEntry by_entry;
  ById by_id;
  Fetch fetch;
  template <class Entry>
  bool operator()(const Entry& e) {
    return by_entry(e);
  }
};
template <class ByEntry, class ById, class Fetch>
EntryOrIdHit(ByEntry, ById, Fetch) -> EntryOrIdHit<ByEntry, ById, Fetch>;
template <class Hit>
inline constexpr bool takes_ids = false;
template <class ByEntry, class ById, class Fetch>
inline constexpr bool takes_ids<EntryOrIdHit<ByEntry, ById, Fetch>> = true;

// Reports every object of top's subtree in `layers`, untested: the subtree lies inside the shape. After a bulk
// build the subtree's entries are one run of the array, read front to back without visiting its nodes.
template <int D, class S, class Hit>
bool report_subtree(const NodeStore<D, S>& store, std::uint32_t top, std::uint32_t layers, QueryStats& st, Hit& hit) {
  if constexpr (takes_ids<Hit>) {
    // Ids in order, and every entry in `layers` (none has a layer outside the subtree's union, and none has no
    // layer): the objects are named without reading their entries. Reporting reads the caller's records, which
    // then lie in the same order; the entries' boxes, three quarters of their bytes, are not needed.
    if (store.entries_in_id_order() && (store.subtree_layers(top) & ~layers) == 0) {
      const std::uint32_t first = store.first_index(top), last = first + store.count(top);
      for (std::uint32_t id = first; id < last; ++id) {
        if (!hit.by_id(id)) {
          st.hits += id + 1 - first;
          st.stopped = true;
          return false;
        }
      }
      st.hits += last - first;
      return true;
    }
  }
  if (store.packed()) return report_all(store.subtree_entries(top), layers, st, hit);
  bool go_on = true;
  store.walk(top, top, [&](std::uint32_t n) {
    if (n != top) ++st.nodes_visited;
    if (!store.reaches(n, layers)) return Step::Skip;
    if (!report_all(store.entries(n), layers, st, hit)) {
      go_on = false;
      return Step::Stop;
    }
    return Step::Descend;
  });
  return go_on;
}

// Loose and Parent: every object of a subtree lies inside its node's fit, so a subtree whose fit lies inside the
// shape is reported without testing its objects, and one whose fit misses the shape is skipped. The root is always
// crossed (it is the one node most queries cross).
//
// Shapes whose classify takes a mask of the tests still to make (Frustum: six planes and the corners' box) start
// each node from its parent's mask, so a child skips the planes its parent lies wholly inside. The walk is
// pre-order, so when a node at depth d is visited, masks[d - 1] still holds its parent's mask; nodes deeper than
// the array start from every test (correct, merely slower).
template <class P, int D, class S, class Shape, class Hit>
void query_walk(P, const TreeCore<D, S>& core, const Shape& query_shape, std::uint32_t layers, QueryStats& st,
                Hit& hit) {
  const NodeStore<D, S>& store = core.store();
  decltype(auto) shape = prepare(query_shape);
  if constexpr (!P::kEveryLeaf) {
    constexpr bool masked = requires(std::uint32_t& mask) { classify(shape, std::declval<const Box<D, S>&>(), mask); };
    constexpr std::size_t kMaskDepth = 64;
    std::uint32_t masks[kMaskDepth];
    masks[0] = ~0u;  // the root is crossed without a test
    store.walk(0, 0, [&](std::uint32_t n) {
      ++st.nodes_visited;
      // The fit first: most nodes a walk meets are siblings it skips, and their fits share a cache line while
      // their nodes do not. (A node that never held an object has an empty fit; the gate below skips it.)
      Relation rel = Relation::Crossing;
      if (n != 0) {
        if constexpr (masked) {
          const std::size_t d = static_cast<std::size_t>(store.depth(n));
          std::uint32_t mask = d <= kMaskDepth ? masks[d - 1] : ~0u;
          rel = classify(shape, store.fit(n), mask);
          if (d < kMaskDepth) masks[d] = mask;
        } else {
          rel = classify(shape, store.fit(n));
        }
      }
      if (rel == Relation::Outside || !store.reaches(n, layers)) return Step::Skip;
      if (rel == Relation::Inside) return report_subtree(store, n, layers, st, hit) ? Step::Skip : Step::Stop;
      const auto entries = store.entries(n);
      if constexpr (takes_ids<Hit>) {
        // The hits' records are loaded while their entries are tested, not after.
        if (store.entries_in_id_order() && !entries.empty())
          hit.fetch(store.first_index(n), store.first_index(n) + static_cast<std::uint32_t>(entries.size()));
      }
      const bool go_on = report_entries(entries, layers, st, [&](const auto& e) {
        return overlaps(shape, e.box);
      }, hit);
      return go_on ? Step::Descend : Step::Stop;
    });
  } else {
    // Leaves: walk the leaves the clamped query box overlaps; an object listed by several of them is reported by
    // the one that owns its report point against the query's box.
    const Box<D, S> qbox = bounding_box(query_shape);
    const Box<D, S> cq = core.clamped(qbox);
    store.walk(0, 0, [&](std::uint32_t n) {
      ++st.nodes_visited;
      // The fit prunes too: the leaf owning an object's report point lists it, so its fit holds the object.
      if (!store.reaches(n, layers) || !overlaps(store.cell(n), cq) || !overlaps(store.fit(n), qbox)) return Step::Skip;
      const bool go_on = report_entries(store.entries(n), layers, st, [&](const auto& e) {
        if (!overlaps(e.box, qbox) || !P::reports(store.cell(n), e.box, qbox, core.world())) return false;
        // A box query's exact test is the bounding-box test just made.
        if constexpr (std::is_same_v<std::remove_cvref_t<Shape>, Box<D, S>>) return true;
        else return overlaps(shape, e.box);
      }, hit);
      return go_on ? Step::Descend : Step::Stop;
    });
  }
}

// What a pair walk lets through. gate(): the layers that take part at all (subtrees without any are skipped);
// partners(mask): the layers an object with `mask` may pair with (0: it takes part in no pair). kPerPair: whether a
// pair of objects that both take part must still be checked (a matrix), or always qualifies (one mask).
struct MaskPairs {
  static constexpr bool kPerPair = false;
  std::uint32_t mask;
  std::uint32_t gate() const noexcept { return mask; }
  std::uint32_t partners(std::uint32_t layers) const noexcept { return (layers & mask) != 0 ? mask : 0; }
};
struct MatrixPairs {
  static constexpr bool kPerPair = true;
  const LayerMatrix& matrix;
  std::uint32_t active;  // matrix.active()
  std::uint32_t gate() const noexcept { return active; }
  std::uint32_t partners(std::uint32_t layers) const noexcept { return matrix.partners(layers); }
};

// True when b lies in the interior of cell: it touches no face.
template <int D, class S>
bool strictly_inside(const Box<D, S>& cell, const Box<D, S>& b) noexcept {
  for (int i = 0; i < D; ++i)
    if (!(cell.min[i] < b.min[i] && b.max[i] < cell.max[i])) return false;
  return true;
}

// Entry a of node n against the entries of the nodes after n in pre-order, up to the end of bound's subtree, pruned
// by node bounds and by `partners`, the layers a may pair with; n's own subtree is entered or skipped as `own`
// says. Returns false when report stopped.
template <int D, class S, class Entry, class Report>
bool pairs_after(const NodeStore<D, S>& store, const Entry& a, std::uint32_t n, std::uint32_t bound, Step own,
                 std::uint32_t partners, PairStats& st, Report& report) {
  bool go_on = true;
  store.walk(n, bound, [&](std::uint32_t m) {
    if (m == n) return own;
    ++st.nodes_visited;
    if (!overlaps(a.box, store.fit(m)) || !store.reaches(m, partners)) return Step::Skip;  // the fit first, as in query_walk
    // A plain loop, not for_each_hit: one entry meets a few entries a node here, and the list cost more than the
    // branches it saves.
    for (const auto& b : store.entries(m)) {
      if ((b.layers & partners) == 0) continue;
      ++st.box_tests;
      if (overlaps(a.box, b.box) && !(go_on = report(a, b))) return Step::Stop;
    }
    return Step::Descend;
  });
  return go_on;
}

// The Parent pair walk keeps its stack of entries with each box mirrored: its low corner and its negated high
// corner. A closed overlap test of such a box against a box given as its high corner and its negated low corner is
// then 2D comparisons of one sense (a.min <= b.max, -a.max <= -b.min): in 2D float one SSE compare of two loads,
// where overlaps() must shuffle both boxes first. Negation is exact, so the answers are the same.
template <int D, class S>
QUADRANT_INLINE Box<D, S> mirrored(const Box<D, S>& b) noexcept {
  Box<D, S> m;
  for (int i = 0; i < D; ++i) {
    m.min[i] = b.min[i];
    m.max[i] = -b.max[i];
  }
  return m;
}
// The probe's form: the high corner, then the negated low corner (the box with its corners swapped, mirrored).
template <int D, class S>
QUADRANT_INLINE Box<D, S> mirrored_probe(const Box<D, S>& b) noexcept {
  return mirrored(Box<D, S>{b.max, b.min});
}
// True when the boxes overlap (closed), `m` from mirrored(), `probe` from mirrored_probe().
template <int D, class S>
QUADRANT_INLINE bool overlaps_mirrored(const Box<D, S>& m, const Box<D, S>& probe) noexcept {
#if defined(QUADRANT_SSE2)
  if constexpr (D == 2 && std::is_same_v<S, float>)
    return _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(reinterpret_cast<const float*>(&m)),
                                        _mm_loadu_ps(reinterpret_cast<const float*>(&probe)))) == 0xF;
#endif
  // As overlaps() does it: without branches, apart on an axis when b.max < a.min or a.max < b.min.
  int apart = 0;
  for (int i = 0; i < D; ++i) apart |= int{probe.min[i] < m.min[i]} | int{probe.max[i] < m.max[i]};
  return apart == 0;
}

// A split of the pair walk into independent pieces for several threads: `top` runs the walk above `depth` and
// hands each reached node at that depth to on_task(n) instead of entering it; each task then runs its subtree.
// Every node is handled by exactly one piece, the top one or its task's, and the pieces only read the tree.
struct PairSplit {
  int depth = -1;  // -1: no split, the walk covers the whole tree
};

// Parent: a node's entries lie in its cell, so an entry meets the entries of its own node, of its ancestors and of
// its descendants only — except one touching its cell's face (see below). One pre-order walk carries `active`, a
// stack holding for each node on the path the ancestors' entries that reach its cell followed by its own entries;
// a child's range is its parent's range filtered by the child's cell. Each entry is tested against its node's range
// as it grows, so each pair is tested once. A walk of the subtree of `start` (a task of a split) first rebuilds
// the stack along the path from the root, without testing. The stack's boxes are mirrored (see mirrored()).
template <int D, class S, class Filter, class Report, class OnTask>
void parent_pairs_walk(const NodeStore<D, S>& store, const Filter& filter, PairStats& st, Report& report,
                       std::uint32_t start, PairSplit split, OnTask&& on_task) {
  const std::uint32_t layers = filter.gate();
  bool go_on = true;
  using entry_type = typename NodeStore<D, S>::entry_type;
  ScratchLease<entry_type> lease;
  Array<entry_type>& active = lease.get();
  ScratchLease<std::size_t> level_lease;
  Array<std::size_t>& level_end = level_lease.get();  // by depth: where the node's range on the path ends
  std::size_t top = 0;
  auto reserve = [&](std::size_t size) {
    if (size > active.size()) active.resize(std::max<std::size_t>(size, 2 * active.size()));
  };
  // Opens node n's range: its ancestors' entries that reach its cell. Returns where the range starts.
  auto open = [&](std::uint32_t n, std::size_t d) {
    if (d == 0) {
      top = 0;
      reserve(store.entries(n).size());
      return std::size_t{0};
    }
    const std::size_t from = d >= 2 ? level_end[d - 2] : 0, to = level_end[d - 1];
    top = to;
    const auto cell = mirrored_probe(store.fit(n));
    reserve(to + (to - from) + store.entries(n).size());
    // Branch-free: every entry is copied and kept only when it reaches the cell (a coin toss to predict).
    st.box_tests += to - from;
    for (std::size_t i = from; i < to; ++i) {
      active[top] = active[i];
      top += overlaps_mirrored(active[i].box, cell);
    }
    return to;
  };
  // Pushes an entry of the node being walked, its box mirrored.
  auto push = [&](const entry_type& e) {
    active[top] = e;
    active[top++].box = mirrored(e.box);
  };
  auto close = [&](std::size_t d) {
    if (d >= level_end.size()) level_end.resize(d + 1);
    level_end[d] = top;
  };
  if (start != 0) {
    std::uint32_t path[256];
    std::size_t len = 0;
    for (std::uint32_t a = store.parent(start); len < 256; a = store.parent(a)) {
      path[len++] = a;
      if (a == 0) break;
    }
    for (std::size_t k = len; k-- > 0;) {
      const std::uint32_t a = path[k];
      const std::size_t d = static_cast<std::size_t>(store.depth(a));
      open(a, d);
      for (const auto& e : store.entries(a))
        if ((e.layers & layers) != 0) push(e);
      close(d);
    }
  }
  store.walk(start, start, [&](std::uint32_t n) {
    if (store.depth(n) == split.depth && n != start) {
      if (store.reaches(n, layers)) on_task(n);
      return Step::Skip;
    }
    ++st.nodes_visited;
    if (!store.reaches(n, layers)) return Step::Skip;
    const std::size_t d = static_cast<std::size_t>(store.depth(n));
    const std::size_t first = open(n, d);
    for (const auto& b : store.entries(n)) {
      const std::uint32_t partners = filter.partners(b.layers);
      if (partners == 0) continue;
      std::size_t tested = 0;
      const auto probe = mirrored_probe(b.box);
      go_on = for_each_hit(first, top, [&](std::size_t i) {
        bool in_layers = true;
        if constexpr (Filter::kPerPair) in_layers = (active[i].layers & partners) != 0;
        tested += in_layers;
        return in_layers & overlaps_mirrored(active[i].box, probe);
      }, [&](std::size_t i) {
        entry_type a = active[i];
        a.box = mirrored(a.box);  // its own inverse
        return report(a, b);
      });
      st.box_tests += tested;
      if (!go_on) return Step::Stop;
      // An entry touching its cell's face may touch entries beyond the subtree: they come later in pre-order,
      // within the subtree of the lowest ancestor whose cell holds it strictly inside.
      std::uint32_t bound = n;
      while (bound != 0 && !strictly_inside(store.cell(bound), b.box)) bound = store.parent(bound);
      if (bound != n && !(go_on = pairs_after(store, b, n, bound, Step::Skip, partners, st, report)))
        return Step::Stop;
      push(b);
    }
    close(d);
    return Step::Descend;
  });
}

// Every unordered overlapping pair the filter lets through (MaskPairs, MatrixPairs), once; pair(a, b) gets the two
// stored entries. Covers the subtree
// of `start` (the whole tree from the root), handing nodes at split.depth to on_task (see PairSplit).
//
// Parent: parent_pairs_walk. Loose: each entry is tested against the later entries of its node and against every
// node after its own in pre-order (its descendants, then the rest), pruned by node bounds; each pair is met once.
// Leaves: all pairs within each leaf; a pair listed by several leaves is reported by the one owning its report
// point.
template <class P, int D, class S, class Filter, class Pair, class OnTask>
void pairs_walk(P, const TreeCore<D, S>& core, const Filter& filter, PairStats& st, Pair& pair, std::uint32_t start,
                PairSplit split, OnTask&& on_task) {
  const NodeStore<D, S>& store = core.store();
  const std::uint32_t layers = filter.gate();
  bool go_on = true;
  auto report = [&](const auto& a, const auto& b) {
    ++st.pairs;
    if (pair(a, b)) return true;
    st.stopped = true;
    return false;
  };
  if constexpr (P::kind == Placement::Parent) {
    parent_pairs_walk(store, filter, st, report, start, split, on_task);
    return;
  }
  store.walk(start, start, [&](std::uint32_t n) {
    if (store.depth(n) == split.depth && n != start) {
      if (store.reaches(n, layers)) on_task(n);
      return Step::Skip;
    }
    ++st.nodes_visited;
    if (!store.reaches(n, layers)) return Step::Skip;
    const auto entries = store.entries(n);
    for (std::size_t i = 0; i < entries.size() && go_on; ++i) {
      const auto& a = entries[i];
      const std::uint32_t partners = filter.partners(a.layers);
      if (partners == 0) continue;
      std::size_t tested = 0;
      go_on = for_each_hit(i + 1, entries.size(), [&](std::size_t j) {
        const bool in_layers = (entries[j].layers & partners) != 0;
        tested += in_layers;
        return in_layers & overlaps(a.box, entries[j].box);
      }, [&](std::size_t j) {
        if constexpr (P::kEveryLeaf)
          if (!P::reports(store.cell(n), a.box, entries[j].box, core.world())) return true;
        return report(a, entries[j]);
      });
      st.box_tests += tested;
      if constexpr (!P::kEveryLeaf) {
        if (!go_on) break;
        go_on = pairs_after(store, a, n, 0, Step::Descend, partners, st, report);
      }
    }
    return go_on ? Step::Descend : Step::Stop;
  });
}

// Splits the pair walk: the shallowest depth (at most 16) with at least `pieces` nodes reaching `layers`, and
// those nodes, left to right (the order the walk above them meets them); depth -1 and no tasks when the tree has
// no such depth (too small to be worth splitting). O(nodes above that depth).
template <int D, class S>
PairSplit split_pairs(const NodeStore<D, S>& store, std::uint32_t layers, std::size_t pieces,
                      std::vector<std::uint32_t>& tasks) {
  std::vector<std::uint32_t> level{0};
  for (int depth = 1; depth <= 16; ++depth) {
    tasks.clear();
    for (std::uint32_t n : level)
      if (!store.is_leaf(n))
        for (std::uint32_t c : store.children(n))
          if (store.reaches(c, layers)) tasks.push_back(c);
    if (tasks.empty()) break;
    if (tasks.size() >= pieces) return PairSplit{depth};
    level.swap(tasks);
  }
  tasks.clear();
  return PairSplit{};
}

// The leaves whose cells overlap the shape, in pre-order; report(n) returns false to stop. Cells wholly inside the
// shape are reported without a test.
template <int D, class S, class Shape, class Report>
void nodes_walk(const NodeStore<D, S>& store, const Shape& query_shape, bool skip_empty, Report&& report) {
  decltype(auto) shape = prepare(query_shape);
  bool go_on = true;
  auto visit_leaf = [&](std::uint32_t n) {
    go_on = report(n);
    return go_on ? Step::Skip : Step::Stop;
  };
  store.walk(0, 0, [&](std::uint32_t n) {
    if (skip_empty && store.count(n) == 0) return Step::Skip;
    const Relation rel = classify(shape, store.cell(n));
    if (rel == Relation::Outside) return Step::Skip;
    if (rel == Relation::Inside) {
      // Every leaf below lies inside the shape too.
      store.walk(n, n, [&](std::uint32_t m) {
        if (skip_empty && store.count(m) == 0) return Step::Skip;
        if (!store.is_leaf(m)) return Step::Descend;
        return visit_leaf(m) == Step::Stop ? Step::Stop : Step::Skip;
      });
      return go_on ? Step::Skip : Step::Stop;
    }
    if (!store.is_leaf(n)) return Step::Descend;
    return overlaps(shape, store.cell(n)) ? visit_leaf(n) : Step::Skip;
  });
}

}  // namespace quadrant::detail
