// SPDX-License-Identifier: MIT
// quadrant internals: Morton (Z-order) keys of 2D and 3D points, for sorting records so that neighbours in space
// are neighbours in memory (AoiWorld renumbers its slots by them, a tree's bulk build orders its records by them),
// and the radix sort that orders them. Not for direct inclusion.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "radix.hpp"

#include "../geometry/box.hpp"

namespace quadrant::detail {

// Interleaves the bits of two 16-bit numbers (x in the even bits).
inline std::uint32_t interleave(std::uint32_t x, std::uint32_t y) noexcept {
  auto spread = [](std::uint32_t v) {
    v &= 0xffffu;
    v = (v | (v << 8)) & 0x00ff00ffu;
    v = (v | (v << 4)) & 0x0f0f0f0fu;
    v = (v | (v << 2)) & 0x33333333u;
    v = (v | (v << 1)) & 0x55555555u;
    return v;
  };
  return spread(x) | (spread(y) << 1);
}

// Interleaves the bits of three 10-bit numbers (x in bits 0, 3, 6, ...).
inline std::uint32_t interleave(std::uint32_t x, std::uint32_t y, std::uint32_t z) noexcept {
  auto spread = [](std::uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
  };
  return spread(x) | (spread(y) << 1) | (spread(z) << 2);
}

// The Morton key of a point: its cell in a grid over `world` of 65536 cells a side in 2D, 1024 in 3D (computed
// in double; points outside clamp to the border cells, NaN to the first).
template <int D, class S>
std::uint32_t morton_key(const Vec<D, S>& p, const Box<D, S>& world) noexcept {
  constexpr double side = D == 2 ? 65536.0 : 1024.0;
  std::uint32_t c[D];
  for (int i = 0; i < D; ++i) {
    const double lo = static_cast<double>(world.min[i]), hi = static_cast<double>(world.max[i]);
    const double f = (static_cast<double>(p[i]) - lo) / (hi - lo) * side;
    c[i] = f > 0 ? static_cast<std::uint32_t>(std::min(f, side - 1)) : 0u;
  }
  if constexpr (D == 2) return interleave(c[0], c[1]);
  else return interleave(c[0], c[1], c[2]);
}

// Sorts `v` by the high 32 bits of each element (a key; the low bits ride along), stably. `tmp` is scratch. O(n);
// allocates only when tmp is smaller than v.
template <class A>
void radix_sort_by_high_word(std::vector<std::uint64_t, A>& v, std::vector<std::uint64_t, A>& tmp) {
  radix_sort(v, tmp, [](std::uint64_t x) { return x >> 32; }, 32);
}

// The same sort with its scratch in `tmp`, memory the caller lends (at least 8 bytes an element of v), which may
// hold objects of any trivially copyable type (see radix_sort_into). A bulk build lends its entry array before
// writing the entries, so that the sort needs no memory of its own (fresh memory costs a page fault a page on
// first touch).
template <class A>
void radix_sort_by_high_word(std::vector<std::uint64_t, A>& v, std::span<std::byte> tmp) noexcept {
  if (radix_sort_into(v.data(), tmp.data(), v.size(), [](std::uint64_t x) { return x >> 32; }, 32))
    std::memcpy(v.data(), tmp.data(), sizeof(std::uint64_t) * v.size());
}

}  // namespace quadrant::detail
