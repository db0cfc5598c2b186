// SPDX-License-Identifier: MIT
// quadrant internals: the pair walk on several threads, Tree::for_each_pair_parallel and Tree::pairs
// (tree/tree.hpp). Not for direct inclusion: <quadrant/tree.hpp> brings it.
//
// The walk is cut at the shallowest depth with 8 nodes per thread: the part above it is one piece, each subtree
// below another, and idle workers take the next piece, so the split follows the work. pairs() gives each piece a
// buffer of its own and splices them where the top piece skipped each subtree, so its result is for_each_pair's
// sequence whatever the threads' timing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/callbacks.hpp"
#include "../detail/threads.hpp"
#include "../detail/walk_guard.hpp"
#include "../handle.hpp"
#include "../stats.hpp"
#include "core.hpp"
#include "entry.hpp"
#include "placement.hpp"
#include "tree.hpp"
#include "walks.hpp"

namespace quadrant {
namespace detail {

// The pair walk of `core` cut into pieces (piece 0 above the split depth, piece i + 1 the subtree of tasks[i]) run
// by `threads` workers, each marking `owner` (the tree) as walked. pair(piece, worker, a, b) reports a pair;
// prepared(number of tasks) runs before any worker starts; on_top_task(n) runs in the top piece where it skips
// task n (in task order).
template <int D, class S, class Pair, class Prepared, class OnTopTask = void (*)(std::uint32_t)>
PairStats parallel_pairs(const TreeCore<D, S>& core, const void* owner, unsigned threads, std::uint32_t layers,
                         std::vector<std::uint32_t>& tasks, Pair&& pair, Prepared&& prepared,
                         OnTopTask&& on_top_task = [](std::uint32_t) {}) {
  threads = resolve_threads(threads);
  const PairSplit split =
      threads > 1 ? split_pairs(core.store(), layers, std::size_t{8} * threads, tasks) : PairSplit{};
  prepared(tasks.size());
  const std::size_t n_pieces = tasks.size() + 1;
  if (n_pieces == 1) threads = 1;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<PairStats> stats(threads);
  auto work = [&](unsigned worker) {
    const WalkScope walking(owner);
    // The walk counts into a copy of its own: the workers' entries of `stats` share a cache line, and counting
    // into them made every box test a write to a line the other worker was writing too (1M boxes, two
    // threads: no faster than one).
    PairStats mine;
    try {
      for (std::size_t piece = next++; piece < n_pieces && !failed.load(std::memory_order_relaxed); piece = next++) {
        auto report = [&](const StoredEntry<D, S>& a, const StoredEntry<D, S>& b) {
          pair(piece, worker, a, b);
          return !failed.load(std::memory_order_relaxed);
        };
        with_placement(core.config().placement, [&](auto p) {
          if (piece == 0)
            pairs_walk(p, core, MaskPairs{layers}, mine, report, 0, split, on_top_task);
          else
            pairs_walk(p, core, MaskPairs{layers}, mine, report, tasks[piece - 1], split,
                               [](std::uint32_t) {});
        });
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
    stats[worker] = mine;
  };
  on_threads(threads, work);
  if (error) std::rethrow_exception(error);
  PairStats total;
  for (const PairStats& st : stats) {
    total.nodes_visited += st.nodes_visited;
    total.box_tests += st.box_tests;
    total.pairs += st.pairs;
  }
  return total;
}

}  // namespace detail

template <int D, class T, class S>
template <class Fn>
PairStats Tree<D, T, S>::for_each_pair_parallel(Fn&& fn, unsigned threads, std::uint32_t layers) const {
  std::vector<std::uint32_t> tasks;
  return detail::parallel_pairs(core_, this, threads, layers, tasks, [&](std::size_t, unsigned worker,
                                                                        const stored_entry& a, const stored_entry& b) {
    auto call = [&](const auto&... args) {
      static_assert(std::is_void_v<decltype(fn(worker, args...))>,
                    "quadrant: for_each_pair_parallel's callback returns void");
      fn(worker, args...);
    };
    if constexpr (std::is_invocable_v<Fn&, unsigned, Handle, Handle>) {
      call(handle_of(a.id), handle_of(b.id));
    } else if constexpr (std::is_invocable_v<Fn&, unsigned, Handle, const T&, Handle, const T&>) {
      call(handle_of(a.id), *records_[a.id].value, handle_of(b.id), *records_[b.id].value);
    } else if constexpr (std::is_invocable_v<Fn&, unsigned, const T&, const T&>) {
      call(*records_[a.id].value, *records_[b.id].value);
    } else {
      static_assert(detail::always_false<Fn>,
                    "quadrant: for_each_pair_parallel's callback takes (unsigned worker, Handle, Handle), (unsigned "
                    "worker, const T&, const T&) or (unsigned worker, Handle, const T&, Handle, const T&)");
    }
  }, [](std::size_t) {});
}

template <int D, class T, class S>
PairStats Tree<D, T, S>::pairs(std::vector<std::pair<Handle, Handle>>& out, unsigned threads,
                               std::uint32_t layers) const {
  out.clear();
  std::vector<std::uint32_t> tasks;
  // A buffer a cache line, so that the workers filling neighbouring pieces do not write to one line.
  struct alignas(64) Piece {
    std::vector<std::pair<Handle, Handle>> pairs;
  };
  std::vector<Piece> pieces;
  std::vector<std::size_t> marks;  // marks[i]: the top piece's output before task i
  const PairStats st = detail::parallel_pairs(
      core_, this, threads, layers, tasks,
      [&](std::size_t piece, unsigned, const stored_entry& a, const stored_entry& b) {
        (piece == 0 ? out : pieces[piece - 1].pairs).emplace_back(handle_of(a.id), handle_of(b.id));
      },
      [&](std::size_t n_tasks) {
        pieces.resize(n_tasks);
        marks.reserve(n_tasks);
      },
      [&](std::uint32_t) { marks.push_back(out.size()); });
  if (pieces.empty()) return st;
  // out holds the top piece; splice each task's pairs in where the top walk skipped its subtree.
  std::vector<std::pair<Handle, Handle>> top;
  top.swap(out);
  out.reserve(st.pairs);
  std::size_t from = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    out.insert(out.end(), top.begin() + static_cast<std::ptrdiff_t>(from), top.begin() + static_cast<std::ptrdiff_t>(marks[i]));
    out.insert(out.end(), pieces[i].pairs.begin(), pieces[i].pairs.end());
    from = marks[i];
  }
  out.insert(out.end(), top.begin() + static_cast<std::ptrdiff_t>(from), top.end());
  return st;
}

}  // namespace quadrant
