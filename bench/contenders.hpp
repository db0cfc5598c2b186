// SPDX-License-Identifier: MIT
// quadrant benchmarks — every contender behind the same small interface: build(boxes), update(boxes) (every box
// may have moved), for_each_pair(fn(id, id)), query(window, fn(id)). Ids are the boxes' indices in the scene.
//
// Peers: Box2D 2.4's b2DynamicTree (fat AABBs, moved with MoveProxy; answers filtered by the exact boxes, as Box2D's
// own broad phase does before its narrow phase) and Boost.Geometry's rtree, built by packing (rebuilt every frame)
// or by R* insertion (updated by remove + insert).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include <box2d/b2_dynamic_tree.h>

#include <boost/geometry.hpp>
#include <boost/geometry/index/rtree.hpp>
#include <boost/iterator/function_output_iterator.hpp>
#include <quadrant_support/generated.hpp>

#include <quadrant/tree.hpp>

#include "scene.hpp"

namespace quadrant_bench {

/// Box2D's dynamic AABB tree.
class Box2dTree {
 public:
  void build(std::span<const Box2> boxes) {
    boxes_.assign(boxes.begin(), boxes.end());
    proxies_.resize(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i)
      proxies_[i] = tree_.CreateProxy(aabb(boxes[i]), reinterpret_cast<void*>(std::uintptr_t(i)));
  }

  void update(std::span<const Box2> boxes) {
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const b2Vec2 displacement((boxes[i].min.x - boxes_[i].min.x), (boxes[i].min.y - boxes_[i].min.y));
      tree_.MoveProxy(proxies_[i], aabb(boxes[i]), displacement);
      boxes_[i] = boxes[i];
    }
  }

  /// Box2D's way to find pairs: query the tree with each box and keep the pairs whose exact boxes overlap.
  template <class Fn>
  void for_each_pair(Fn&& fn) const {
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
      const Box2& a = boxes_[i];
      const std::uint32_t self = std::uint32_t(i);
      query_raw(a, [&](std::uint32_t other) {
        if (other > self && overlaps(a, boxes_[other])) fn(self, other);
      });
    }
  }

  template <class Fn>
  void query(const Box2& window, Fn&& fn) const {
    query_raw(window, [&](std::uint32_t id) {
      if (overlaps(window, boxes_[id])) fn(id);
    });
  }

  // Churn: one object at a time.
  void insert(std::uint32_t id, const Box2& box) {
    if (id >= boxes_.size()) {
      boxes_.resize(id + 1);
      proxies_.resize(id + 1);
    }
    boxes_[id] = box;
    proxies_[id] = tree_.CreateProxy(aabb(box), reinterpret_cast<void*>(std::uintptr_t(id)));
  }
  void erase(std::uint32_t id) { tree_.DestroyProxy(proxies_[id]); }
  void move(std::uint32_t id, const Box2& box) {
    const b2Vec2 displacement((box.min.x - boxes_[id].min.x), (box.min.y - boxes_[id].min.y));
    tree_.MoveProxy(proxies_[id], aabb(box), displacement);
    boxes_[id] = box;
  }

 private:
  template <class Fn>
  struct Callback {
    const b2DynamicTree* tree;
    Fn* fn;
    bool QueryCallback(std::int32_t proxy) {
      (*fn)(std::uint32_t(reinterpret_cast<std::uintptr_t>(tree->GetUserData(proxy))));
      return true;
    }
  };

  template <class Fn>
  void query_raw(const Box2& box, Fn&& fn) const {
    Callback<std::remove_reference_t<Fn>> cb{&tree_, &fn};
    tree_.Query(&cb, aabb(box));
  }

  static b2AABB aabb(const Box2& b) {
    b2AABB out;
    out.lowerBound.Set(b.min.x, b.min.y);
    out.upperBound.Set(b.max.x, b.max.y);
    return out;
  }

  b2DynamicTree tree_;
  std::vector<std::int32_t> proxies_;
  std::vector<Box2> boxes_;
};

namespace bg = boost::geometry;
namespace bgi = boost::geometry::index;
using BoostPoint = bg::model::point<float, 2, bg::cs::cartesian>;
using BoostBox = bg::model::box<BoostPoint>;
using BoostValue = std::pair<BoostBox, std::uint32_t>;
/// Boost's R* parameters with 16 entries per node, its documentation's usual choice.
using BoostRtreeType = bgi::rtree<BoostValue, bgi::rstar<16>>;

inline BoostBox to_boost(const Box2& b) { return {{b.min.x, b.min.y}, {b.max.x, b.max.y}}; }

/// Boost.Geometry's rtree. `packed`: built by the packing constructor (sort-tile-recursive style) and rebuilt
/// whenever the boxes change; otherwise built by R* insertion and updated by remove + insert.
class BoostRtree {
 public:
  explicit BoostRtree(bool packed) : packed_(packed) {}

  void build(std::span<const Box2> boxes) {
    values_.resize(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) values_[i] = {to_boost(boxes[i]), std::uint32_t(i)};
    if (packed_) {
      tree_ = BoostRtreeType(values_.begin(), values_.end());
    } else {
      tree_.clear();
      for (const BoostValue& v : values_) tree_.insert(v);
    }
  }

  void update(std::span<const Box2> boxes) {
    if (packed_) {
      build(boxes);
      return;
    }
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      tree_.remove(values_[i]);
      values_[i].first = to_boost(boxes[i]);
      tree_.insert(values_[i]);
    }
  }

  template <class Fn>
  void for_each_pair(Fn&& fn) const {
    for (const BoostValue& v : values_) {
      const std::uint32_t self = v.second;
      tree_.query(bgi::intersects(v.first), boost::make_function_output_iterator([&](const BoostValue& o) {
                    if (o.second > self) fn(self, o.second);
                  }));
    }
  }

  template <class Fn>
  void query(const Box2& window, Fn&& fn) const {
    tree_.query(bgi::intersects(to_boost(window)),
                boost::make_function_output_iterator([&](const BoostValue& o) { fn(o.second); }));
  }

  /// The k nearest (Boost's nearest predicate; order not guaranteed, the answer is compared as a set).
  template <class Fn>
  void nearest(Vec2 p, std::size_t k, Fn&& fn) const {
    tree_.query(bgi::nearest(BoostPoint(p.x, p.y), unsigned(k)),
                boost::make_function_output_iterator([&](const BoostValue& o) { fn(o.second); }));
  }

  // Churn: one object at a time.
  void insert(std::uint32_t id, const Box2& box) {
    if (id >= values_.size()) values_.resize(id + 1);
    values_[id] = {to_boost(box), id};
    tree_.insert(values_[id]);
  }
  void erase(std::uint32_t id) { tree_.remove(values_[id]); }
  void move(std::uint32_t id, const Box2& box) {
    tree_.remove(values_[id]);
    values_[id].first = to_boost(box);
    tree_.insert(values_[id]);
  }

 private:
  bool packed_;
  BoostRtreeType tree_;
  std::vector<BoostValue> values_;
};

/// The max_depth a user would give for n objects: enough levels for leaves of about split_threshold objects
/// (log4(n / 8) + 1), at least the default 8.
inline int depth_for(std::size_t n) {
  int depth = 1;
  for (std::size_t cap = 8; cap < n; cap *= 4) ++depth;
  return std::max(8, depth + 1);
}

/// quadrant's Tree with one placement, updated by move() or rebuilt from scratch by a bulk build (assign keeps the
/// pools).
class QuadrantTree {
 public:
  /// threads > 1: the moves are shared by that many threads (Tree::move(handles, boxes, threads)) and the pairs
  /// found by Tree::pairs on them (for_each_pair's order, into a buffer) or, with `ordered` false, by
  /// for_each_pair_parallel into a buffer of value pairs per worker (in no set order), read after by the caller's fn.
  /// keep_handles false: a static tree, built once and only queried, makes no handles (as a user's static level
  /// would not); update, erase and move then do not work. Each object's value is its scene index.
  QuadrantTree(const Box2& world, std::size_t n, quadrant::Placement placement, bool rebuild, unsigned threads = 1,
               bool keep_handles = true, bool ordered = true)
      : tree_(config(world, n, placement)), rebuild_(rebuild), threads_(threads), keep_handles_(keep_handles),
        ordered_(ordered) {}

  static quadrant::Config<2, float> config(const Box2& world, std::size_t n, quadrant::Placement placement) {
    quadrant::Config<2, float> c;
    c.world = world;
    c.max_depth = depth_for(n);
    c.placement = placement;
    return c;
  }

  // A bulk build (Tree::assign); handles_[i] names scene object i.
  void build(std::span<const Box2> boxes) {
    const auto items = quadrant_support::Generated(static_cast<std::uint32_t>(boxes.size()),
                                                   [boxes](std::uint32_t i) { return std::pair{boxes[i], i}; });
    if (keep_handles_) tree_.assign(items, handles_);
    else tree_.assign(items, quadrant::no_handles);
  }

  void update(std::span<const Box2> boxes) {
    if (rebuild_) {
      build(boxes);
      return;
    }
    tree_.move(handles_, boxes, threads_);
  }

  template <class Fn>
  void for_each_pair(Fn&& fn) const {
    if (threads_ > 1 && !ordered_) {
      if (worker_pairs_.size() < threads_) worker_pairs_.resize(threads_);
      for (auto& w : worker_pairs_) w.pairs.clear();
      tree_.for_each_pair_parallel([&](unsigned w, const std::uint32_t& a, const std::uint32_t& b) {
        worker_pairs_[w].pairs.emplace_back(a, b);
      }, threads_);
      for (const auto& w : worker_pairs_)
        for (const auto& [a, b] : w.pairs) fn(a, b);
      return;
    }
    if (threads_ > 1) {
      tree_.pairs(pairs_, threads_);
      for (const auto& [a, b] : pairs_) fn(tree_.value(a), tree_.value(b));
      return;
    }
    tree_.for_each_pair([&](const std::uint32_t& a, const std::uint32_t& b) { fn(a, b); });
  }

  template <class Fn>
  void query(const Box2& window, Fn&& fn) const {
    tree_.query(window, [&](const std::uint32_t& id) { fn(id); });
  }

  template <class Fn>
  void nearest(Vec2 p, std::size_t k, Fn&& fn) const {
    tree_.nearest(p, k, scratch_);
    for (const auto& nb : scratch_) fn(tree_.value(nb.handle));
  }

  // Churn: one object at a time; ids index the handles.
  void insert(std::uint32_t id, const Box2& box) {
    if (id >= handles_.size()) handles_.resize(id + 1);
    handles_[id] = tree_.insert(box, id);
  }
  void erase(std::uint32_t id) { tree_.erase(handles_[id]); }
  void move(std::uint32_t id, const Box2& box) { tree_.move(handles_[id], box); }

  const quadrant::Tree<2, std::uint32_t, float>& tree() const noexcept { return tree_; }
  /// The scene index of the object `h` names.
  std::uint32_t id(quadrant::Handle h) const { return tree_.value(h); }

 private:
  quadrant::Tree<2, std::uint32_t, float> tree_;
  bool rebuild_;
  unsigned threads_;
  bool keep_handles_;
  bool ordered_;
  mutable std::vector<std::pair<quadrant::Handle, quadrant::Handle>> pairs_;
  // A worker's buffer a cache line, so that the workers do not write to one line.
  struct alignas(64) WorkerPairs {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  };
  mutable std::vector<WorkerPairs> worker_pairs_;
  std::vector<quadrant::Handle> handles_;
  mutable std::vector<quadrant::Neighbor<float>> scratch_;
};

inline const char* placement_name(quadrant::Placement p) {
  switch (p) {
    case quadrant::Placement::Loose: return "Loose";
    case quadrant::Placement::Parent: return "Parent";
    case quadrant::Placement::Leaves: return "Leaves";
  }
  return "?";
}

}  // namespace quadrant_bench
