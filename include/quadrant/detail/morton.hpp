// SPDX-License-Identifier: MIT
// quadrant internals: Morton (Z-order) keys of 2D points, for sorting records so that neighbours in space are
// neighbours in memory (AoiWorld renumbers its slots by them). Not for direct inclusion.
//
// Threads: every function here is pure; call it from any thread.
#pragma once

#include <algorithm>
#include <cstdint>

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

// The Morton key of a point: its cell in a 65536 x 65536 grid over `world` (computed in double; points outside
// clamp to the border cells).
template <class S>
std::uint32_t morton_key(const Vec<2, S>& p, const Box<2, S>& world) noexcept {
  auto cell = [](double v, double lo, double hi) {
    const double f = (v - lo) / (hi - lo) * 65536.0;
    return static_cast<std::uint32_t>(std::clamp(f, 0.0, 65535.0));
  };
  return interleave(cell(static_cast<double>(p.x), static_cast<double>(world.min.x), static_cast<double>(world.max.x)),
                    cell(static_cast<double>(p.y), static_cast<double>(world.min.y), static_cast<double>(world.max.y)));
}

}  // namespace quadrant::detail
