// quadrant tests — random helpers shared by the shape tests: uniform numbers, lattice integers, and boxes inside a
// node that often snap to its faces or collapse to zero size (the cases where classify and overlaps must agree).
#pragma once

#include <algorithm>
#include <random>
#include <utility>

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

}  // namespace quadrant_test
