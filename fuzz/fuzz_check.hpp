// SPDX-License-Identifier: MIT
// quadrant fuzz targets: the failure check every target uses. A finding aborts, which libFuzzer reports with the
// input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define QUADRANT_FUZZ_CHECK(cond, what)                                                  \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "quadrant fuzz: %s (%s:%d): %s\n", what, __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
