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

// Asks for every cache line (64 bytes) that [begin, end) touches; a hint only.
inline void prefetch_range(const void* begin, const void* end) noexcept {
  const auto first = reinterpret_cast<std::uintptr_t>(begin) & ~std::uintptr_t{63};
  const auto last = reinterpret_cast<std::uintptr_t>(end);
  for (std::uintptr_t line = first; line < last; line += 64) prefetch(reinterpret_cast<const void*>(line));
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
