// SPDX-License-Identifier: MIT
// quadrant tests — random helpers shared by the shape tests: uniform numbers, lattice integers, and boxes inside a
// node that often snap to its faces or collapse to zero size (the cases where classify and overlaps must agree).
#pragma once

#include <algorithm>
#include <random>
#include <utility>

#include <gtest/gtest.h>

#include <quadrant/geometry.hpp>

namespace quadrant_test {

inline double uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
inline int lattice(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A box inside node: each side snapped to a face of node, or drawn inside it, or collapsed to zero size.
template <int D, class S>
quadrant::Box<D, S> sub_box(std::mt19937& rng, const quadrant::Box<D, S>& node) {
  quadrant::Box<D, S> b;
  for (int i = 0; i < D; ++i) {
    const S lo = node.min[i], hi = node.max[i];
    const auto pick = [&] {
      const int k = lattice(rng, 0, 3);
      if (k == 0) return lo;
      if (k == 1) return hi;
      return std::clamp(static_cast<S>(uniform(rng, double(lo), double(hi))), lo, hi);
    };
    S a = pick(), c = lattice(rng, 0, 3) == 0 ? a : pick();
    if (a > c) std::swap(a, c);
    b.min[i] = a;
    b.max[i] = c;
  }
  return b;
}

// The property Tree relies on: for `samples` boxes b inside node, classify(shape, node) == Outside implies
// !overlaps(shape, b) and Inside implies overlaps(shape, b); also Outside exactly when the node itself misses.
// Returns the node's relation, for the caller's counts.
template <class Shape, int D, class S>
quadrant::Relation expect_classify_consistent(std::mt19937& rng, const Shape& shape, const quadrant::Box<D, S>& node,
                                              int samples = 8) {
  const quadrant::Relation r = classify(shape, node);
  EXPECT_EQ(r != quadrant::Relation::Outside, overlaps(shape, node));
  for (int k = 0; k < samples; ++k) {
    const quadrant::Box<D, S> b = sub_box(rng, node);
    if (r == quadrant::Relation::Outside) {
      EXPECT_FALSE(overlaps(shape, b)) << "sample " << k << " of an Outside node";
    }
    if (r == quadrant::Relation::Inside) {
      EXPECT_TRUE(overlaps(shape, b)) << "sample " << k << " of an Inside node";
    }
  }
  return r;
}

}  // namespace quadrant_test
