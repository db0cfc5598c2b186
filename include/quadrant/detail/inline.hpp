// SPDX-License-Identifier: MIT
// quadrant internals: the forced-inline marker of the hot box relations. Not for direct inclusion.
#pragma once

// The box tests run once per entry in the inner loops of every walk. g++ 12 stops inlining them into the largest
// walks (the two-tree pair walk, the pair walks of the parallel finder) once those reach its growth limits, and an
// out-of-line call per test then weighs on the whole walk; marking them always-inline keeps them in the loop.
#if defined(__GNUC__) || defined(__clang__)
#define QUADRANT_INLINE [[gnu::always_inline]] inline
#elif defined(_MSC_VER)
#define QUADRANT_INLINE __forceinline
#else
#define QUADRANT_INLINE inline
#endif
