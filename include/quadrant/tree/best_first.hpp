// SPDX-License-Identifier: MIT
// quadrant internals: the one best-first walk behind ray casts, incremental nearest neighbours and k nearest.
// Not for direct inclusion.
//
// Nodes (and, for results that stream, objects) wait in a heap ordered by a key — the fraction where a segment
// enters a box, or a squared distance — that never exceeds the key of anything inside a node's bounds, so when an
// object comes off the heap nothing left can come before it. What happens to an object is the result set's
// business, as in nanoflann's KNN and radius result sets:
//   Results::kStreams  true: objects go through the heap and report(entry, key) is called in key order (it
//                      returns false to stop); false: offer(entry, key) collects them as their node is opened.
//   bound()            nodes and objects with a larger key are out of reach (k nearest: the k-th best so far).
//   accepts(key, id)   a cheap early test before the duplicate rule (k nearest: would it enter the best k?).
// Results that collect start with a descent to the leaf nearest by key, whose objects give the bound a value
// before the first sibling is pushed (so most siblings on the path are pruned, never pushed), and the walk then
// starts from that path, not from the root again.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "../detail/scratch.hpp"
#include "../stats.hpp"
#include "node_store.hpp"

namespace quadrant::detail {

// A node or an object waiting in a best-first heap.
template <class K>
struct Pending {
  K key;
  std::uint32_t node;
  std::uint32_t slot;  // kNone: the node itself; otherwise one of its entries
  std::uint32_t id;    // node index, or the object's record index (ties go to the lower index)
};
// Heap order (std::push_heap keeps the greatest on top): smaller keys first; at equal keys nodes before objects
// (a node at the same key may still hold an object with a lower index), then lower ids, so answers with equal keys
// come in handle-index order.
template <class K>
struct LaterThan {
  bool operator()(const Pending<K>& x, const Pending<K>& y) const noexcept {
    if (x.key != y.key) return x.key > y.key;
    const bool x_node = x.slot == kNone, y_node = y.slot == kNone;
    if (x_node != y_node) return y_node;
    return x.id > y.id;
  }
};

// The duplicate rule of ray casts under Placement::Leaves: an object listed by several leaves is taken from the one
// that is first by (key, node index) among them, which is the first of them the walk opens. Nearest searches use
// the report point instead (the point of the box nearest the query; see Tree::nearest), but a point on a segment
// would be rounded, and rounding could put it in a leaf the segment misses.
template <int D, class S, class K, class NodeKey>
bool first_leaf_of(const NodeStore<D, S>& store, std::uint32_t id, std::uint32_t n, K key_n, NodeKey& node_key) {
  for (std::uint32_t r = store.first_ref(id); r != kNone; r = store.next_ref(r)) {
    const std::uint32_t m = store.ref_node(r);
    if (m == n) continue;
    const std::optional<K> key_m = node_key(m);
    if (key_m && (*key_m < key_n || (*key_m == key_n && m < n))) return false;
  }
  return true;
}

// The clearance a best_first walk is given when it has none (see best_first).
struct NoClearance {};

// node_key(n) and entry_key(box) give a node's or an object's key, or nothing when it is out of reach. Under
// Placement::Leaves, takes_from(entry, n, key of n) says whether leaf n is the one an object listed by several
// leaves is taken from. Results that collect start their descent at node `start` (any live node: the nearer the
// answers, the sooner the bound is tight; see NodeStore::home_of). clearance(n), when given, is a key below which
// no object lies outside node n's subtree but in the entries of n's ancestors (see Tree::nearest): the walk up
// from the descent's leaf stops at the first node whose clearance exceeds the bound. Allocates nothing once the
// per-thread heap is warm.
template <class K, class P, int D, class S, class NodeKey, class EntryKey, class TakesFrom, class Results,
          class Clearance = NoClearance>
void best_first(P, const NodeStore<D, S>& store, std::uint32_t layers, NodeKey&& node_key, EntryKey&& entry_key,
                TakesFrom&& takes_from, Results& results, QueryStats& st, std::uint32_t start = 0,
                Clearance clearance = {}) {
  constexpr bool kClears = !std::is_same_v<Clearance, NoClearance>;
  ScratchLease<Pending<K>> lease;
  Array<Pending<K>>& heap = lease.get();
  const LaterThan<K> later;
  auto push = [&](const Pending<K>& p) {
    heap.push_back(p);
    std::push_heap(heap.begin(), heap.end(), later);
  };
  // Tests node n's entries; those in reach are offered, or pushed when results stream.
  // The mask and the count are copied into locals: the loop's stores (a result taken) could otherwise alias them,
  // and each entry would load them again.
  auto scan = [&](std::uint32_t n, K key_n) {
    ++st.nodes_visited;
    const auto entries = store.entries(n);
    const std::uint32_t mask = layers;
    std::size_t tests = 0;
    for (std::uint32_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      if ((e.layers & mask) == 0) continue;
      ++tests;
      const std::optional<K> k = entry_key(e.box);
      if (!k || !results.accepts(*k, e.id)) continue;
      if constexpr (P::kEveryLeaf)
        if (!takes_from(e, n, key_n)) continue;
      if constexpr (Results::kStreams) push({*k, n, i, e.id});
      else results.offer(e, *k);
    }
    st.box_tests += tests;
  };
  // Results that collect (k nearest) first follow the nearest child down to a leaf and take its objects: the
  // bound they give turns most of the path's siblings away before they reach the heap. The walk below then skips
  // that leaf's entries. The descent starts at `start`, or the lowest ancestor of it holding objects in `layers`.
  std::uint32_t home = kNone;
  if constexpr (!Results::kStreams) {
    std::uint32_t n = start;
    while (n != 0 && !store.reaches(n, layers)) n = store.parent(n);
    std::optional<K> key_n = store.reaches(n, layers) ? node_key(n) : std::nullopt;
    // The walk up reads the cell of each node it leaves for its clearance, starting with home's: ask for the cell
    // of every node the descent reaches, so that the miss overlaps the descent and home's scan instead of following
    // them.
    if constexpr (kClears) store.prefetch_cell(n);
    while (key_n && !store.is_leaf(n)) {
      std::uint32_t next = kNone;
      std::optional<K> key_next;
      for (const std::uint32_t c : store.children(n)) {
        if (!store.reaches(c, layers)) continue;
        if (const std::optional<K> k = node_key(c); k && (!key_next || *k < *key_next)) {
          next = c;
          key_next = k;
        }
      }
      n = next;
      key_n = key_next;
      if constexpr (kClears) store.prefetch_cell(n);
    }
    if (key_n && !(*key_n > results.bound())) {
      home = n;
      scan(n, *key_n);
    }
  }
  // Every node in reach is on the path from the root to home or below a sibling of a node on it, whichever leaf
  // home is. So the walk starts from the path, read just now: its nodes' own entries are offered and the siblings
  // in reach pushed, instead of walking down from the root again through nodes already seen.
  auto push_child = [&](std::uint32_t c) {
    if (!store.reaches(c, layers)) return;
    if (const std::optional<K> k = node_key(c); k && !(*k > results.bound())) {
      // Its record is at hand (reaches read it): start loading the entries it lists, so the miss overlaps the
      // rest of this node's children and the heap's work instead of following the pop.
      store.prefetch_entries(c);
      push({*k, c, kNone, c});
    }
  };
  // Walks best-first through the pending nodes and objects up to key `upto` (the rest stay pending); those beyond
  // the bound are dropped. Returns false when the results asked to stop.
  auto walk = [&](K upto) {
    while (!heap.empty()) {
      if (heap.front().key > upto) return true;
      // Equal keys may still hold an object with a lower index, so only strictly farther items are dropped.
      if (heap.front().key > results.bound()) {
        heap.clear();
        return true;
      }
      std::pop_heap(heap.begin(), heap.end(), later);
      const Pending<K> top = heap.back();
      heap.pop_back();
      if constexpr (Results::kStreams) {
        if (top.slot != kNone) {
          ++st.hits;
          if (!results.report(store.entries(top.node)[top.slot], top.key)) {
            st.stopped = true;
            return false;
          }
          continue;
        }
      }
      scan(top.node, top.key);
      for (const std::uint32_t c : store.children(top.node)) push_child(c);
    }
    return true;
  };
  // With a clearance, the walk up goes best-first through what it has pushed as far as the clearance of the node
  // reached, whose siblings are next: that tightens the bound where the answers are, and once the bound is within
  // a node's clearance, no sibling of it or of its ancestors needs reading (only the ancestors' own entries).
  if (home != kNone) {
    for (std::uint32_t below = home, a = store.parent(home); a != kNone; below = a, a = store.parent(a)) {
      if constexpr (kClears) {
        const K clear = clearance(below);
        if (!walk(clear)) return;
        if (clear > results.bound()) {
          for (; a != kNone; a = store.parent(a))
            if (!store.entries(a).empty())
              if (const std::optional<K> k = node_key(a); k && !(*k > results.bound())) scan(a, *k);
          break;
        }
      }
      if (const std::optional<K> k = node_key(a); k && !(*k > results.bound())) scan(a, *k);
      for (const std::uint32_t c : store.children(a))
        if (c != below) push_child(c);
    }
  } else if (store.reaches(0, layers)) {
    if (const std::optional<K> k = node_key(0); k && !(*k > results.bound())) push({*k, 0, kNone, 0});
  }
  walk(std::numeric_limits<K>::infinity());
}

// Results that stream every object in key order to report(entry, key).
template <class K, class Report>
struct StreamResults {
  static constexpr bool kStreams = true;
  Report& report;
  static K bound() noexcept { return std::numeric_limits<K>::infinity(); }
  static bool accepts(K, std::uint32_t) noexcept { return true; }
};

// The k best objects by (key, record index) within `limit`, kept in a max-heap whose top is the worst of them.
template <class K>
class KBestResults {
 public:
  static constexpr bool kStreams = false;
  struct Found {
    K key;
    std::uint32_t id;
  };
  KBestResults(Array<Found>& found, std::size_t k, K limit) noexcept : found_(found), k_(k), bound_(limit) {}
  // A member offer keeps up to date (the limit until k are found, then the k-th best key), not recomputed from
  // found_ on every call: the walk asks for it once per child node.
  K bound() const noexcept { return bound_; }
  bool accepts(K key, std::uint32_t id) const noexcept {
    return key <= bound_ && (found_.size() < k_ || better({key, id}, found_.front()));
  }
  // Takes an object accepts() let through.
  template <class Entry>
  void offer(const Entry& e, K key) {
    const Found f{key, e.id};
    if (found_.size() == k_) {
      replace_worst(f);
    } else {
      found_.push_back(f);
      std::push_heap(found_.begin(), found_.end(), better);
    }
    if (found_.size() == k_) bound_ = found_.front().key;
  }
  // The answers, nearest first.
  Array<Found>& sorted() {
    std::sort_heap(found_.begin(), found_.end(), better);
    return found_;
  }

 private:
  // A function object, not a function: std's heap algorithms take the comparator by value, and g++ did not inline
  // a function pointer through them.
  struct Better {
    bool operator()(const Found& a, const Found& b) const noexcept {
      return a.key < b.key || (a.key == b.key && a.id < b.id);
    }
  };
  static constexpr Better better{};
  // The worst of the k gives way to f, which is better than it: f sifts down from the top. One pass down, where
  // std::pop_heap followed by std::push_heap makes one down and one up.
  void replace_worst(const Found& f) noexcept {
    const std::size_t n = found_.size();
    std::size_t i = 0;
    for (std::size_t c = 1; c < n; c = 2 * i + 1) {
      if (c + 1 < n && better(found_[c], found_[c + 1])) ++c;  // the worse child
      if (!better(f, found_[c])) break;
      found_[i] = found_[c];
      i = c;
    }
    found_[i] = f;
  }
  Array<Found>& found_;
  std::size_t k_;
  K bound_;
};

}  // namespace quadrant::detail
