/* SPDX-License-Identifier: MIT */
/* Tests of the C API (include/quadrant/c/quadrant.h), in C99: queries, pairs and nearest against brute force over
 * random scenes (2D and 3D, float and double, each placement), buffers smaller than the answer, the error model
 * (bad input fails with a status and a message and changes nothing; mutation from a callback is refused), and
 * stale handles. Coordinates are multiples of 1/16 below 128, exact in float, so brute force in double is exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrant/c/quadrant.h"
#include "test_c_check.h"

/* A multiple of 1/16 in [lo, lo + n/16). */
static double coord(double lo, unsigned n) { return lo + rnd(n) / 16.0; }

enum { N = 400 };
static Obj objs[N];

static int overlaps(int d, const double* amin, const double* amax, const double* bmin, const double* bmax) {
  int i;
  for (i = 0; i < d; ++i)
    if (amax[i] < bmin[i] || bmax[i] < amin[i]) return 0;
  return 1;
}
static double dist2(int d, const double* p, const double* min, const double* max) {
  double s = 0;
  int i;
  for (i = 0; i < d; ++i) {
    const double g = p[i] < min[i] ? min[i] - p[i] : (p[i] > max[i] ? p[i] - max[i] : 0);
    s += g * g;
  }
  return s;
}

/* Collects handles (a flag per object index, found through the value). */
typedef struct {
  int seen[N];
  int calls, stop_after;
} Hits;
static int on_hit(void* user, quadrant_handle h, uint64_t value) {
  Hits* hits = (Hits*)user;
  (void)h;
  CHECK(value < N);
  if (value < N) hits->seen[value] += 1;
  ++hits->calls;
  return hits->stop_after == 0 || hits->calls < hits->stop_after;
}
static int pair_count_seen;
static int on_pair(void* user, quadrant_handle a, uint64_t va, quadrant_handle b, uint64_t vb) {
  int* matrix = (int*)user;
  (void)a, (void)b;
  if (va < N && vb < N) {
    const uint64_t lo = va < vb ? va : vb, hi = va < vb ? vb : va;
    matrix[lo * N + hi] += 1;
  }
  ++pair_count_seen;
  return 1;
}

/* A callback that tries to mutate the tree it is called from: every attempt must fail with LOGIC_ERROR. */
static int mutate_inside(void* user, quadrant_handle h, uint64_t value) {
  quadrant_tree* tree = (quadrant_tree*)user;
  const double lo[3] = {1, 1, 1}, hi[3] = {2, 2, 2};
  (void)value;
  CHECK(quadrant_tree_insert(tree, lo, hi, 7, ~0u, NULL) == QUADRANT_LOGIC_ERROR);
  CHECK(strstr(quadrant_last_error(), "quadrant") != NULL);
  CHECK(quadrant_tree_erase(tree, h) == QUADRANT_LOGIC_ERROR);
  CHECK(quadrant_tree_move(tree, h, lo, hi) == QUADRANT_LOGIC_ERROR);
  CHECK(quadrant_tree_clear(tree) == QUADRANT_LOGIC_ERROR);
  return 1;
}

static void run(int d, quadrant_scalar scalar, quadrant_placement placement) {
  quadrant_config config;
  quadrant_tree* tree = NULL;
  int i, j, round;
  int* matrix = (int*)calloc((size_t)N * N, sizeof(int));
  quadrant_config_init(&config, d, scalar);
  for (i = 0; i < 3; ++i) config.world_min[i] = 0, config.world_max[i] = 128;
  config.placement = placement;
  config.split_threshold = 8;
  REQUIRE_OK(quadrant_tree_create(&config, &tree));
  for (i = 0; i < N; ++i) {
    Obj* o = &objs[i];
    int a;
    for (a = 0; a < 3; ++a) {
      o->min[a] = coord(-8, 16 * 136);
      o->max[a] = o->min[a] + (rnd(10) == 0 ? rnd(16 * 30) : rnd(16 * 4)) / 16.0;
    }
    o->layers = 1u << rnd(3);
    o->live = 1;
    REQUIRE_OK(quadrant_tree_insert(tree, o->min, o->max, (uint64_t)i, o->layers, &o->h));
  }
  for (round = 0; round < 4; ++round) {
    /* Mutations: moves, erases and re-inserts. */
    for (i = 0; i < N; ++i) {
      Obj* o = &objs[i];
      const unsigned u = rnd(10);
      if (u < 3 && o->live) {
        int a;
        for (a = 0; a < 3; ++a) {
          const double side = o->max[a] - o->min[a];
          o->min[a] = coord(-8, 16 * 136);
          o->max[a] = o->min[a] + side;
        }
        REQUIRE_OK(quadrant_tree_move(tree, o->h, o->min, o->max));
      } else if (u == 3 && o->live) {
        REQUIRE_OK(quadrant_tree_erase(tree, o->h));
        CHECK(!quadrant_tree_contains(tree, o->h));
        CHECK(quadrant_tree_erase(tree, o->h) == QUADRANT_INVALID_ARGUMENT); /* stale */
        o->live = 0;
      } else if (u == 4 && !o->live) {
        REQUIRE_OK(quadrant_tree_insert(tree, o->min, o->max, (uint64_t)i, o->layers, &o->h));
        o->live = 1;
      }
    }
    REQUIRE_OK(quadrant_tree_validate(tree));
    {
      size_t live = 0;
      for (i = 0; i < N; ++i) live += (size_t)objs[i].live;
      CHECK(quadrant_tree_size(tree) == live);
    }
    /* Box, point and ball queries against brute force, with layer masks. */
    for (j = 0; j < 30; ++j) {
      double lo[3], hi[3], p[3];
      const double r = rnd(16 * 20) / 16.0;
      const uint32_t mask = j % 3 == 0 ? ~0u : (1u << rnd(3));
      quadrant_shape shapes[3];
      int k, a;
      for (a = 0; a < 3; ++a) {
        lo[a] = coord(-8, 16 * 136);
        hi[a] = lo[a] + rnd(16 * 30) / 16.0;
        p[a] = coord(-8, 16 * 136);
      }
      shapes[0] = quadrant_shape_box(d, lo, hi);
      shapes[1] = quadrant_shape_point(d, p);
      shapes[2] = quadrant_shape_ball(d, p, r);
      for (k = 0; k < 3; ++k) {
        Hits hits;
        quadrant_query_stats st;
        size_t want = 0, count = 0;
        quadrant_handle small[3];
        memset(&hits, 0, sizeof hits);
        REQUIRE_OK(quadrant_tree_query(tree, &shapes[k], mask, on_hit, &hits, &st));
        for (i = 0; i < N; ++i) {
          const Obj* o = &objs[i];
          int hit = 0;
          if (!o->live || (o->layers & mask) == 0) {
            CHECK(hits.seen[i] == 0);
            continue;
          }
          if (k == 0) hit = overlaps(d, o->min, o->max, lo, hi);
          if (k == 1) hit = overlaps(d, o->min, o->max, p, p);
          if (k == 2) hit = dist2(d, p, o->min, o->max) <= r * r;
          CHECK(hits.seen[i] == hit);
          want += (size_t)hit;
        }
        CHECK(st.hits == want && (size_t)hits.calls == want && st.stopped == 0);
        /* The buffer variant: the count of all, the first three of them. */
        REQUIRE_OK(quadrant_tree_query_into(tree, &shapes[k], mask, small, NULL, 3, &count));
        CHECK(count == want);
        for (i = 0; i < (int)(count < 3 ? count : 3); ++i) {
          uint64_t v = N;
          REQUIRE_OK(quadrant_tree_value(tree, small[i], &v));
          CHECK(v < N && hits.seen[v] == 1);
        }
        /* A callback that stops. */
        if (want >= 2) {
          memset(&hits, 0, sizeof hits);
          hits.stop_after = 2;
          REQUIRE_OK(quadrant_tree_query(tree, &shapes[k], mask, on_hit, &hits, &st));
          CHECK(hits.calls == 2 && st.stopped == 1);
        }
      }
    }
    /* Every pair, once, against brute force. */
    memset(matrix, 0, (size_t)N * N * sizeof(int));
    pair_count_seen = 0;
    REQUIRE_OK(quadrant_tree_pairs(tree, ~0u, on_pair, matrix));
    {
      size_t want = 0, count = 0;
      for (i = 0; i < N; ++i)
        for (j = i + 1; j < N; ++j) {
          const int hit = objs[i].live && objs[j].live && overlaps(d, objs[i].min, objs[i].max, objs[j].min, objs[j].max);
          CHECK(matrix[i * N + j] == hit);
          want += (size_t)hit;
        }
      CHECK((size_t)pair_count_seen == want);
      REQUIRE_OK(quadrant_tree_pairs_into(tree, ~0u, NULL, 0, &count));
      CHECK(count == want);
    }
    /* The 5 nearest to a point, against brute force distances. */
    {
      double p[3], dist[5];
      quadrant_handle hs[5];
      size_t count = 0, live = 0;
      int a;
      for (a = 0; a < 3; ++a) p[a] = coord(0, 16 * 128);
      REQUIRE_OK(quadrant_tree_nearest(tree, p, 5, INFINITY, ~0u, hs, dist, &count));
      for (i = 0; i < N; ++i) live += (size_t)objs[i].live;
      CHECK(count == (live < 5 ? live : 5));
      for (j = 0; j < (int)count; ++j) {
        uint64_t v = N;
        size_t closer = 0;
        REQUIRE_OK(quadrant_tree_value(tree, hs[j], &v));
        CHECK(v < N && objs[v].live);
        if (v >= N) continue;
        CHECK(fabs(sqrt(dist2(d, p, objs[v].min, objs[v].max)) - dist[j]) <= 1e-6 * (1 + dist[j]));
        if (j > 0) CHECK(dist[j - 1] <= dist[j]);
        for (i = 0; i < N; ++i)
          if (objs[i].live && sqrt(dist2(d, p, objs[i].min, objs[i].max)) < dist[j] * (1 - 1e-6)) ++closer;
        CHECK(closer <= (size_t)j); /* nothing nearer was left out */
      }
    }
  }
  /* Bad input: a status, a message, nothing changed. */
  {
    const size_t before = quadrant_tree_size(tree);
    double lo[3] = {1, 1, 1}, hi[3] = {0, 0, 0};
    quadrant_handle h = 99;
    quadrant_shape bad = quadrant_shape_ball(d, lo, -1);
    size_t count = 5;
    CHECK(quadrant_tree_insert(tree, lo, hi, 1, ~0u, &h) == QUADRANT_INVALID_ARGUMENT); /* min > max */
    CHECK(strlen(quadrant_last_error()) > 0);
    CHECK(h == 99);
    hi[0] = NAN, hi[1] = hi[2] = 2;
    CHECK(quadrant_tree_insert(tree, lo, hi, 1, ~0u, &h) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_tree_insert(tree, NULL, hi, 1, ~0u, &h) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_tree_move(tree, 0, lo, lo) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_tree_query_into(tree, &bad, ~0u, NULL, NULL, 0, &count) == QUADRANT_INVALID_ARGUMENT);
    CHECK(count == 0);
    bad = quadrant_shape_ring(1, 1, 0, 2);
    if (d == 3) CHECK(quadrant_tree_query_into(tree, &bad, ~0u, NULL, NULL, 0, &count) == QUADRANT_INVALID_ARGUMENT);
    bad.kind = (quadrant_shape_kind)42;
    CHECK(quadrant_tree_query_into(tree, &bad, ~0u, NULL, NULL, 0, &count) == QUADRANT_INVALID_ARGUMENT);
    CHECK(strstr(quadrant_last_error(), "unknown shape kind") != NULL);
    CHECK(quadrant_tree_size(tree) == before);
    REQUIRE_OK(quadrant_tree_validate(tree));
  }
  /* Mutation from inside a callback is refused and changes nothing. */
  {
    const size_t before = quadrant_tree_size(tree);
    const double lo[3] = {0, 0, 0}, hi[3] = {128, 128, 128};
    const quadrant_shape all = quadrant_shape_box(d, lo, hi);
    REQUIRE_OK(quadrant_tree_query(tree, &all, ~0u, mutate_inside, tree, NULL));
    CHECK(quadrant_tree_size(tree) == before);
    REQUIRE_OK(quadrant_tree_validate(tree));
  }
  /* clear: every handle stale. */
  REQUIRE_OK(quadrant_tree_clear(tree));
  CHECK(quadrant_tree_size(tree) == 0);
  for (i = 0; i < N; ++i) CHECK(!quadrant_tree_contains(tree, objs[i].h));
  quadrant_tree_destroy(tree);
  free(matrix);
}

int main(void) {
  static const quadrant_placement placements[3] = {QUADRANT_LOOSE, QUADRANT_PARENT, QUADRANT_LEAVES};
  int d, s, p;
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", QUADRANT_C_VERSION_MAJOR, QUADRANT_C_VERSION_MINOR,
           QUADRANT_C_VERSION_PATCH);
  CHECK(strcmp(quadrant_version(), expected) == 0);
  /* A bad config: a status and a message naming the field; no tree. */
  {
    quadrant_config config;
    quadrant_tree* tree = (quadrant_tree*)&config;
    quadrant_config_init(&config, 4, QUADRANT_FLOAT);
    CHECK(quadrant_tree_create(&config, &tree) == QUADRANT_INVALID_ARGUMENT && tree == NULL);
    CHECK(strstr(quadrant_last_error(), "dims") != NULL);
    quadrant_config_init(&config, 2, QUADRANT_DOUBLE);
    config.world_max[0] = config.world_min[0];
    CHECK(quadrant_tree_create(&config, &tree) == QUADRANT_INVALID_ARGUMENT && tree == NULL);
    CHECK(strstr(quadrant_last_error(), "world") != NULL);
    quadrant_config_init(&config, 2, QUADRANT_DOUBLE);
    config.max_depth = -1;
    CHECK(quadrant_tree_create(&config, &tree) == QUADRANT_INVALID_ARGUMENT && tree == NULL);
    quadrant_config_init(&config, 2, QUADRANT_DOUBLE);
    config.placement = (quadrant_placement)7;
    CHECK(quadrant_tree_create(&config, &tree) == QUADRANT_INVALID_ARGUMENT && tree == NULL);
    CHECK(strstr(quadrant_last_error(), "placement") != NULL);
    quadrant_config_init(&config, 2, (quadrant_scalar)9);
    CHECK(quadrant_tree_create(&config, &tree) == QUADRANT_INVALID_ARGUMENT && tree == NULL);
    CHECK(strstr(quadrant_last_error(), "scalar") != NULL);
    CHECK(quadrant_tree_create(NULL, &tree) == QUADRANT_INVALID_ARGUMENT);
  }
  for (d = 2; d <= 3; ++d)
    for (s = 0; s < 2; ++s)
      for (p = 0; p < 3; ++p) run(d, s == 0 ? QUADRANT_FLOAT : QUADRANT_DOUBLE, placements[p]);
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("quadrant C API: all checks passed (2D and 3D, float and double, every placement)\n");
  return 0;
}
