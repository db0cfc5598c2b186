/* SPDX-License-Identifier: MIT */
/* The C tests' checks and random numbers (one copy for test_c_api.c and test_c_world.c). */
#ifndef QUADRANT_TEST_C_CHECK_H
#define QUADRANT_TEST_C_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "quadrant/c/quadrant.h"

static int failures = 0;
#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)
#define REQUIRE_OK(call)                                                                     \
  do {                                                                                       \
    quadrant_status st_ = (call);                                                            \
    if (st_ != QUADRANT_OK) {                                                                \
      fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #call, (int)st_,     \
              quadrant_last_error());                                                        \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static unsigned long long rng_state = 12345;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng_state >> 33) % n);
}

/* A tree object as the tests' models keep it: its box, layers and handle. */
typedef struct {
  int live;
  double min[3], max[3];
  uint32_t layers;
  quadrant_handle h;
} Obj;

#endif
