// SPDX-License-Identifier: MIT
// quadrant internals: the pairs between two trees (quadrant::for_each_pair(a, b, fn), tree/tree.hpp). Not for
// direct inclusion: <quadrant/tree.hpp> brings it.
//
// The walk runs over the nodes of the outer tree and, for each, walks the inner one with a group of the outer
// tree's objects: a subtree of up to kGroup objects (under Leaves, a node's own). Each node of the inner walk's path
// keeps the group's objects that reach its fit, a range filtered from its parent's, so the group shares the descent
// from the root that a query per object would repeat. Its cost follows the outer tree's nodes: the caller puts the
// tree with fewer objects outside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../detail/callbacks.hpp"
#include "../detail/scratch.hpp"
#include "../detail/walk_guard.hpp"
#include "../geometry.hpp"
#include "../stats.hpp"
#include "core.hpp"
#include "tree.hpp"
#include "walks.hpp"

namespace quadrant {
namespace detail {

// Calls pair(id of a's object, id of b's object) for every overlapping pair of an object of `ca` in `la` and an
// object of `cb` in `lb`; pair returns false to stop. The ids are record slots of each tree.
template <int D, class S, class Pair>
PairStats cross_pairs(const TreeCore<D, S>& ca, const TreeCore<D, S>& cb, std::uint32_t la, std::uint32_t lb,
                      Pair&& pair) {
  PairStats st;
  bool go_on = true;
  // An object of the outer walk's group on the inner walk's path: its box (what the inner loops read) and its id.
  struct Reached {
    Box<D, S> box;
    std::uint32_t id;
  };
  // Outer subtrees of at most this many objects walk the inner tree as one group, sharing the descent that a group a node
  // would repeat. Groups of 512-8192 measure alike (docs/dev/timings-from-code.md); the cap bounds the scratch
  // (the group's filtered ranges down one path of the inner tree).
  constexpr std::uint32_t kGroup = 1024;
  // The range of reach that the inner walk's node at one depth of the path keeps: [begin, end), the box around
  // those objects, and where free room starts above every range of the path down to it (top).
  struct Level {
    std::size_t begin, end, top;
    Box<D, S> near;
  };
  ScratchLease<Reached> reach_lease;
  ScratchLease<Level> level_lease;
  // The ranges of the path, by depth. The vector only grows (to twice what a node needs), so a node's filtering
  // writes without a size check or a zero fill.
  Array<Reached>& reach = reach_lease.get();
  Array<Level>& levels = level_lease.get();
  const auto& sa = ca.store();
  const auto& sb = cb.store();
  with_placement(ca.config().placement, [&](auto pa) {
    with_placement(cb.config().placement, [&](auto pb) {
      using PA = decltype(pa);
      using PB = decltype(pb);
      sa.walk(0, 0, [&](std::uint32_t x) {
        if (!sa.reaches(x, la)) return Step::Skip;
        ++st.nodes_visited;
        // The group that walks the inner tree together: x's objects in la, or, where x's subtree is small and each object
        // sits in one node (not under Leaves, whose report rule reads the node's cell), every object of the
        // subtree, which then is not entered. A group shares the descent from the inner tree's root, which for a few
        // objects costs more than testing them.
        const bool group = !PA::kEveryLeaf && sa.count(x) <= kGroup;
        const std::size_t most = group ? sa.count(x) : sa.entries(x).size();
        if (reach.size() < most) reach.resize(2 * most);
        std::size_t used = 0;
        auto gather = [&](std::uint32_t n) {
          for (const auto& e : sa.entries(n)) {
            reach[used] = Reached{e.box, e.id};
            used += (e.layers & la) != 0;
          }
        };
        if (group)
          sa.walk(x, x, [&](std::uint32_t n) {
            if (!sa.reaches(n, la)) return Step::Skip;
            gather(n);
            return Step::Descend;
          });
        else
          gather(x);
        const Step after = group ? Step::Skip : Step::Descend;
        if (used == 0) return after;
        // Walking the inner tree, each node on the path keeps the group's objects that reach its bounds (a stack of
        // index ranges, one per depth, each its parent's filtered, with their boxes beside them); a subtree
        // none of them reaches is skipped. A node whose bounds miss an object holds no partner for it (under
        // Leaves, the leaf reporting a pair holds the pair's report point, which lies in both boxes or, clamped
        // into the inner tree's world, in a boundary leaf's bounds, which are open on the world's faces).
        std::size_t tests = 0;  // counted here, added to st once: the loop then keeps it in a register
        sb.walk(0, 0, [&](std::uint32_t y) {
          ++st.nodes_visited;
          if (!sb.reaches(y, lb)) return Step::Skip;
          const Box<D, S>& fy = sb.fit(y);
          const std::size_t d = static_cast<std::size_t>(sb.depth(y));
          if (levels.size() <= d) levels.resize(d + 1);
          Level& at = levels[d];
          bool shared = false;  // y keeps its parent's range as it is
          if (d == 0) {
            at = Level{0, used, used, reach[0].box};
            for (std::size_t k = 1; k < used; ++k) at.near = merge(at.near, reach[k].box);
          } else {
            const Level& up = levels[d - 1];
            if (contains(fy, up.near)) {
              // Near the top of the walk a fit holds every object of the range: the range is kept, not copied.
              at = up;
              shared = true;
            } else {
              // Without a branch: each element is copied and kept when it overlaps (the outcome is close to
              // random, and a mispredicted branch costs more than the copy).
              const std::size_t need = up.top + (up.end - up.begin);
              if (reach.size() < need) reach.resize(2 * need);
              std::size_t out = up.top;
              for (std::size_t k = up.begin; k < up.end; ++k) {
                reach[out] = reach[k];
                out += overlaps(reach[k].box, fy);
              }
              if (out == up.top) return Step::Skip;
              at = Level{up.top, out, out, reach[up.top].box};
              for (std::size_t k = up.top + 1; k < out; ++k) at.near = merge(at.near, reach[k].box);
            }
          }
          const std::size_t first = at.begin;
          std::size_t top = at.end;
          auto emit = [&](std::uint32_t ida, const auto& eb) {
            ++st.pairs;
            go_on = pair(ida, eb.id);
            if (!go_on) st.stopped = true;
            return go_on;
          };
          if constexpr (!PA::kEveryLeaf && !PB::kEveryLeaf) {
            // An object of x whose box holds y's fit overlaps every object of y's subtree: it is paired with all
            // of them untested (one run of the array after a bulk build, as a query reports a subtree inside its
            // shape) and leaves the range, so y's children do not meet it again. (Under Leaves a pair is
            // reported by one leaf only, which this shortcut would not respect.)
            // A shared range is the parent's, which y's siblings still read, and is left as it is: its objects
            // lie inside y's fit, so one of them holds the fit only when it equals it.
            if (!shared) {
              std::size_t keep = first;
              for (std::size_t k = first; k < top; ++k) {
                if (!contains(reach[k].box, fy)) {
                  reach[keep++] = reach[k];
                  continue;
                }
                const std::uint32_t ida = reach[k].id;
                QueryStats inside;
                auto hit = [&](const auto& eb) { return emit(ida, eb); };
                const bool whole = report_subtree(sb, y, lb, inside, hit);
                st.nodes_visited += inside.nodes_visited;
                if (!whole) return Step::Stop;
              }
              if (keep != top) {
                at.end = at.top = top = keep;
                if (first == top) return Step::Skip;
                at.near = reach[first].box;
                for (std::size_t k = first + 1; k < top; ++k) at.near = merge(at.near, reach[k].box);
              }
            }
          }
          // y's objects that miss the box around the range are skipped with one test.
          const Box<D, S> near = at.near;
          for (const auto& eb : sb.entries(y)) {
            if ((eb.layers & lb) == 0 || !overlaps(near, eb.box)) continue;
            tests += top - first;
            const bool whole = for_each_hit(first, top, [&](std::size_t k) {
              return overlaps(reach[k].box, eb.box);
            }, [&](std::size_t k) {
              const Reached& r = reach[k];
              if constexpr (PA::kEveryLeaf)
                if (!PA::reports(sa.cell(x), r.box, eb.box, ca.config().world)) return true;
              if constexpr (PB::kEveryLeaf)
                if (!PB::reports(sb.cell(y), r.box, eb.box, cb.config().world)) return true;
              return emit(r.id, eb);
            });
            if (!whole) return Step::Stop;
          }
          return Step::Descend;
        });
        st.box_tests += tests;
        return go_on ? after : Step::Stop;
      });
    });
  });
  return st;
}

}  // namespace detail

template <int D, class TA, class TB, class S, class Fn>
PairStats for_each_pair(const Tree<D, TA, S>& a, const Tree<D, TB, S>& b, Fn&& fn, std::uint32_t layers_a,
                        std::uint32_t layers_b) {
  if (static_cast<const void*>(&a) == static_cast<const void*>(&b))
    throw std::invalid_argument("quadrant: for_each_pair(a, b, fn): a and b are the same tree (use a.for_each_pair(fn))");
  const detail::WalkScope walking_a(&a), walking_b(&b);
  auto report = [&](std::uint32_t ia, std::uint32_t ib) {
    return detail::report_pair(fn, a.handle_of(ia), *a.records_[ia].value, b.handle_of(ib), *b.records_[ib].value);
  };
  // The tree with fewer objects goes outside; fn still gets a's object first.
  if (b.size() < a.size())
    return detail::cross_pairs(b.core_, a.core_, layers_b, layers_a,
                               [&](std::uint32_t ib, std::uint32_t ia) { return report(ia, ib); });
  return detail::cross_pairs(a.core_, b.core_, layers_a, layers_b, report);
}

}  // namespace quadrant
