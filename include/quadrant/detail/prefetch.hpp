// SPDX-License-Identifier: MIT
// quadrant internals: software prefetch hints. Not for direct inclusion.
#pragma once

#include <cstdint>

namespace quadrant::detail {

// Asks for the cache line holding p; a hint only (any address is allowed, nothing is read).
inline void prefetch(const void* p) noexcept {
#if defined(__GNUC__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

// An index read from memory for a prefetch address, passed through an empty volatile asm: g++ 12 drops a prefetch
// whose address is computed from loads (the loads are then dead), and the asm makes them live.
inline std::uint32_t opaque(std::uint32_t v) noexcept {
#if defined(__GNUC__)
  asm volatile("" : "+r"(v));
#endif
  return v;
}

}  // namespace quadrant::detail
