/* SPDX-License-Identifier: MIT */
/* The C API under abuse, in C99: handles of other trees, mutation and destruction from inside callbacks, refused
 * calls that must leave the previous call's output intact, batch calls checked whole, and values beyond the float
 * range of float indexes. Each case fails with the defect it guards against. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrant/c/quadrant.h"
#include "test_c_check.h"

static quadrant_tree* make_tree(int dims, quadrant_scalar scalar, quadrant_placement placement) {
  quadrant_config config;
  quadrant_tree* tree = NULL;
  int i;
  quadrant_config_init(&config, dims, scalar);
  for (i = 0; i < 3; ++i) config.world_min[i] = 0, config.world_max[i] = 100;
  config.placement = placement;
  config.split_threshold = 2;
  REQUIRE_OK(quadrant_tree_create(&config, &tree));
  return tree;
}

static int has(const char* text) { return strstr(quadrant_last_error(), text) != NULL; }

/* Every call that takes a handle refuses one of another tree, and changes neither tree. */
static void check_foreign_refused(quadrant_tree* a, quadrant_tree* b, quadrant_handle of_a, int dims) {
  const double lo[3] = {5, 5, 5}, hi[3] = {6, 6, 6};
  double min[3], max[3];
  uint64_t value = 0;
  uint32_t layers = 0;
  const size_t size_b = quadrant_tree_size(b);
  CHECK(quadrant_tree_contains(a, of_a) == 1);
  CHECK(quadrant_tree_contains(b, of_a) == 0);
  CHECK(quadrant_tree_erase(b, of_a) == QUADRANT_INVALID_ARGUMENT);
  CHECK(has("stale or foreign"));
  CHECK(quadrant_tree_move(b, of_a, lo, hi) == QUADRANT_INVALID_ARGUMENT);
  CHECK(quadrant_tree_move_many(b, &of_a, lo, hi, 1) == QUADRANT_INVALID_ARGUMENT);
  CHECK(quadrant_tree_set_value(b, of_a, 99) == QUADRANT_INVALID_ARGUMENT);
  CHECK(quadrant_tree_set_layers(b, of_a, 1) == QUADRANT_INVALID_ARGUMENT);
  CHECK(quadrant_tree_value(b, of_a, &value) == QUADRANT_INVALID_ARGUMENT);
  CHECK(quadrant_tree_layers(b, of_a, &layers) == QUADRANT_INVALID_ARGUMENT);
  CHECK(quadrant_tree_bounds(b, of_a, min, max) == QUADRANT_INVALID_ARGUMENT);
  CHECK(quadrant_tree_size(b) == size_b);
  REQUIRE_OK(quadrant_tree_validate(b));
  (void)dims;
}

/* Trees made one after another, each with objects in the same slots (the first objects of fresh trees share slot
 * and generation): no tree accepts another's handle, before and after its slots are reused. */
static void foreign_handles(int dims, quadrant_scalar scalar, quadrant_placement placement) {
  enum { T = 24, K = 8 };
  quadrant_tree* trees[T];
  quadrant_handle handles[T][K];
  const double lo[3] = {1, 1, 1}, hi[3] = {2, 2, 2};
  int t, u, k, round;
  for (t = 0; t < T; ++t) {
    trees[t] = make_tree(dims, scalar, placement);
    for (k = 0; k < K; ++k) REQUIRE_OK(quadrant_tree_insert(trees[t], lo, hi, (uint64_t)k, ~0u, &handles[t][k]));
  }
  for (round = 0; round < 3; ++round) {
    for (t = 0; t < T; ++t)
      for (u = 0; u < T; ++u)
        if (u != t)
          for (k = 0; k < K; ++k) CHECK(quadrant_tree_contains(trees[u], handles[t][k]) == 0);
    check_foreign_refused(trees[0], trees[1], handles[0][0], dims);
    check_foreign_refused(trees[T - 1], trees[0], handles[T - 1][K - 1], dims);
    /* Reuse the slots a random number of times in each tree: generations drift apart. */
    for (t = 0; t < T; ++t)
      for (k = 0; k < K; ++k) {
        int again;
        for (again = 0; again <= (int)rnd(5) + round; ++again) {
          REQUIRE_OK(quadrant_tree_erase(trees[t], handles[t][k]));
          REQUIRE_OK(quadrant_tree_insert(trees[t], lo, hi, (uint64_t)k, ~0u, &handles[t][k]));
        }
      }
  }
  /* Pairs between two trees hand out each tree's own handles; contacts the tracked tree's. */
  {
    quadrant_handle pairs[2 * K * K];
    size_t count = 0, i;
    REQUIRE_OK(quadrant_trees_pairs_into(trees[2], trees[3], ~0u, ~0u, pairs, K * K, &count));
    CHECK(count == (size_t)K * K);
    for (i = 0; i < count && i < (size_t)K * K; ++i) {
      CHECK(quadrant_tree_contains(trees[2], pairs[2 * i]) == 1 && quadrant_tree_contains(trees[3], pairs[2 * i]) == 0);
      CHECK(quadrant_tree_contains(trees[3], pairs[2 * i + 1]) == 1 &&
            quadrant_tree_contains(trees[2], pairs[2 * i + 1]) == 0);
    }
  }
  {
    quadrant_contacts* contacts = NULL;
    quadrant_contact_step step;
    size_t i;
    REQUIRE_OK(quadrant_contacts_create(&contacts));
    REQUIRE_OK(quadrant_contacts_update(contacts, trees[4], ~0u, NULL, &step));
    CHECK(step.begun_count == (size_t)K * (K - 1) / 2);
    for (i = 0; i < step.begun_count; ++i)
      CHECK(quadrant_tree_contains(trees[4], step.begun[i].a) == 1 && quadrant_tree_contains(trees[5], step.begun[i].a) == 0);
    quadrant_contacts_destroy(contacts);
  }
  for (t = 0; t < T; ++t) quadrant_tree_destroy(trees[t]);
}

/* A callback of a tree may not change it, set_value included; it may query it again. */
typedef struct {
  quadrant_tree* tree;
  quadrant_handle first;
  int calls, inner_hits;
  int destroy;
} Inside;
static int count_hit(void* user, quadrant_handle h, uint64_t v) {
  (void)h, (void)v;
  ++*(int*)user;
  return 1;
}
static int mutate_inside(void* user, quadrant_handle h, uint64_t v) {
  Inside* in = (Inside*)user;
  const double lo[3] = {0, 0, 0}, hi[3] = {50, 50, 50};
  quadrant_shape everything = quadrant_shape_box(2, lo, hi);
  (void)v;
  ++in->calls;
  CHECK(quadrant_tree_set_value(in->tree, h, 12345) == QUADRANT_LOGIC_ERROR);
  CHECK(has("inside a walk"));
  CHECK(quadrant_tree_set_layers(in->tree, h, 2) == QUADRANT_LOGIC_ERROR);
  /* A nested query sees every object and leaves the outer walk going. */
  REQUIRE_OK(quadrant_tree_query(in->tree, &everything, ~0u, count_hit, &in->inner_hits, NULL));
  if (in->destroy && in->calls == 1) quadrant_tree_destroy(in->tree);
  return 1;
}
static void callbacks(void) {
  quadrant_tree* tree = make_tree(2, QUADRANT_DOUBLE, QUADRANT_LOOSE);
  const double lo[2] = {0, 0}, hi[2] = {50, 50};
  quadrant_shape everything = quadrant_shape_box(2, lo, hi);
  Inside in;
  int i;
  for (i = 0; i < 10; ++i) {
    const double a[2] = {i * 4.0, i * 4.0}, b[2] = {i * 4.0 + 1, i * 4.0 + 1};
    REQUIRE_OK(quadrant_tree_insert(tree, a, b, (uint64_t)i, ~0u, NULL));
  }
  memset(&in, 0, sizeof in);
  in.tree = tree;
  REQUIRE_OK(quadrant_tree_query(tree, &everything, ~0u, mutate_inside, &in, NULL));
  CHECK(in.calls == 10 && in.inner_hits == 100);
  {
    /* Every value as inserted: the refused set_value changed nothing. */
    quadrant_handle hs[10];
    uint64_t values[10];
    size_t count = 0;
    int seen[10] = {0};
    REQUIRE_OK(quadrant_tree_query_into(tree, &everything, ~0u, hs, values, 10, &count));
    CHECK(count == 10);
    for (i = 0; i < 10; ++i) {
      uint32_t layers = 0;
      CHECK(values[i] < 10);
      if (values[i] < 10) seen[values[i]] = 1;
      REQUIRE_OK(quadrant_tree_layers(tree, hs[i], &layers));
      CHECK(layers == ~0u);
    }
    for (i = 0; i < 10; ++i) CHECK(seen[i] == 1);
  }
  /* Mutation works again once the walk has returned. */
  {
    const double a[2] = {1, 1}, b[2] = {2, 2};
    REQUIRE_OK(quadrant_tree_insert(tree, a, b, 77, ~0u, NULL));
    REQUIRE_OK(quadrant_tree_validate(tree));
  }
  /* Destroyed from its own callback: the walk finishes (every object delivered), then the tree is freed (ASan
   * and LeakSanitizer check both). */
  memset(&in, 0, sizeof in);
  in.tree = tree;
  in.destroy = 1;
  REQUIRE_OK(quadrant_tree_query(tree, &everything, ~0u, mutate_inside, &in, NULL));
  CHECK(in.calls == 11);
}

/* A refused streamer update leaves the previous update's arrays readable and unchanged. */
static void refused_update(void) {
  quadrant_streamer_config config;
  quadrant_streamer* s = NULL;
  quadrant_stream_source source;
  quadrant_stream_update first, again;
  quadrant_stream_load copy[4];
  int i;
  quadrant_streamer_config_init(&config, QUADRANT_DOUBLE);
  for (i = 0; i < 3; ++i) config.tree.world_min[i] = 0, config.tree.world_max[i] = 1000;
  REQUIRE_OK(quadrant_streamer_create(&config, &s));
  for (i = 0; i < 4; ++i) {
    const double lo[3] = {i * 10.0, 0, 0}, hi[3] = {i * 10.0 + 1, 1, 1};
    REQUIRE_OK(quadrant_streamer_add(s, (uint64_t)i, lo, hi));
  }
  memset(&source, 0, sizeof source);
  source.prefetch_radius = 100;
  REQUIRE_OK(quadrant_streamer_update(s, &source, 1, &first));
  CHECK(first.load_count == 4);
  memcpy(copy, first.loads, sizeof copy);
  /* Enough new objects that the loads' room must grow: a refused update may not move the array handed out. */
  for (i = 4; i < 4000; ++i) {
    const double lo[3] = {(i % 100) * 5.0, 0, 0}, hi[3] = {(i % 100) * 5.0 + 1, 1, 1};
    REQUIRE_OK(quadrant_streamer_add(s, (uint64_t)i, lo, hi));
  }
  source.prefetch_radius = NAN;
  CHECK(quadrant_streamer_update(s, &source, 1, &again) == QUADRANT_INVALID_ARGUMENT);
  CHECK(memcmp(copy, first.loads, sizeof copy) == 0);
  REQUIRE_OK(quadrant_streamer_validate(s));
  quadrant_streamer_destroy(s);
}

/* move_many checks every entry as move would before moving any: a coordinate beyond 1e150 in a double world. */
static void aoi_checked_whole(void) {
  quadrant_aoi_settings settings;
  quadrant_aoi* aoi = NULL;
  const uint64_t ids[2] = {1, 2};
  const double xy[4] = {40, 40, 1e151, 0};
  double at[2];
  quadrant_aoi_settings_init(&settings, QUADRANT_DOUBLE);
  settings.world_max[0] = settings.world_max[1] = 100;
  REQUIRE_OK(quadrant_aoi_create(&settings, &aoi));
  REQUIRE_OK(quadrant_aoi_add(aoi, 1, 10, 10, 5, QUADRANT_AOI_BOTH, ~0u, 0));
  REQUIRE_OK(quadrant_aoi_add(aoi, 2, 20, 20, 5, QUADRANT_AOI_BOTH, ~0u, 0));
  {
    const quadrant_aoi_event* events;
    size_t count;
    REQUIRE_OK(quadrant_aoi_tick(aoi, &events, &count));
  }
  CHECK(quadrant_aoi_move_many(aoi, ids, xy, 2) == QUADRANT_INVALID_ARGUMENT);
  CHECK(has("1e150") && has("entry 1"));
  {
    const quadrant_aoi_event* events;
    size_t count;
    REQUIRE_OK(quadrant_aoi_tick(aoi, &events, &count));
  }
  REQUIRE_OK(quadrant_aoi_position(aoi, 1, at));
  CHECK(at[0] == 10 && at[1] == 10);
  REQUIRE_OK(quadrant_aoi_validate(aoi));
  quadrant_aoi_destroy(aoi);
}

/* A float index refuses every finite value beyond the float range, naming it; infinity keeps its meaning. */
static void float_range(void) {
  quadrant_tree* f = make_tree(2, QUADRANT_FLOAT, QUADRANT_LOOSE);
  quadrant_tree* d = make_tree(2, QUADRANT_DOUBLE, QUADRANT_LOOSE);
  const double lo[2] = {1, 1}, hi[2] = {2, 2}, far[2] = {1e39, 2}, p[2] = {0, 0};
  quadrant_handle h, hs[1];
  double dist[1];
  size_t count = 0;
  quadrant_shape ball = quadrant_shape_ball(2, p, 1e39), box = quadrant_shape_box(2, lo, far);
  REQUIRE_OK(quadrant_tree_insert(f, lo, hi, 1, ~0u, &h));
  REQUIRE_OK(quadrant_tree_insert(d, lo, hi, 1, ~0u, NULL));
  CHECK(quadrant_tree_insert(f, lo, far, 2, ~0u, NULL) == QUADRANT_INVALID_ARGUMENT && has("beyond the range of float"));
  CHECK(quadrant_tree_move(f, h, lo, far) == QUADRANT_INVALID_ARGUMENT && has("beyond the range of float"));
  CHECK(quadrant_tree_query_into(f, &ball, ~0u, hs, NULL, 1, &count) == QUADRANT_INVALID_ARGUMENT && has("radius"));
  CHECK(quadrant_tree_query_into(f, &box, ~0u, hs, NULL, 1, &count) == QUADRANT_INVALID_ARGUMENT && has("max"));
  CHECK(quadrant_tree_nearest(f, p, 1, 1e39, ~0u, hs, dist, &count) == QUADRANT_INVALID_ARGUMENT &&
        has("max_distance"));
  CHECK(quadrant_tree_nearest(f, p, 1, 3e38, ~0u, hs, dist, &count) == QUADRANT_OK && count == 1);
  CHECK(quadrant_tree_nearest(f, p, 1, INFINITY, ~0u, hs, dist, &count) == QUADRANT_OK && count == 1);
  CHECK(quadrant_tree_size(f) == 1);
  /* Fields a kind does not read may hold anything, a value beyond float included. */
  {
    const double square[8] = {0, 0, 3, 0, 3, 3, 0, 3};
    quadrant_shape ring = quadrant_shape_ring(0, 0, 0, 5), sector = quadrant_shape_sector(0, 0, 1, 1, 5, 1);
    quadrant_shape polygon = quadrant_shape_polygon(square, 4);
    ring.angle = 1e39, sector.r1 = 1e39, polygon.r0 = polygon.r1 = polygon.angle = 1e39;
    CHECK(quadrant_tree_query_into(f, &ring, ~0u, hs, NULL, 1, &count) == QUADRANT_OK && count == 1);
    CHECK(quadrant_tree_query_into(f, &sector, ~0u, hs, NULL, 1, &count) == QUADRANT_OK && count == 1);
    CHECK(quadrant_tree_query_into(f, &polygon, ~0u, hs, NULL, 1, &count) == QUADRANT_OK && count == 1);
  }
  /* A double tree takes them all. */
  CHECK(quadrant_tree_insert(d, lo, far, 2, ~0u, NULL) == QUADRANT_OK);
  CHECK(quadrant_tree_query_into(d, &ball, ~0u, hs, NULL, 1, &count) == QUADRANT_OK && count == 2);
  CHECK(quadrant_tree_nearest(d, p, 1, 1e39, ~0u, hs, dist, &count) == QUADRANT_OK && count == 1);
  {
    quadrant_aoi_settings settings;
    quadrant_aoi* aoi = NULL;
    quadrant_aoi_settings_init(&settings, QUADRANT_FLOAT);
    REQUIRE_OK(quadrant_aoi_create(&settings, &aoi));
    CHECK(quadrant_aoi_add(aoi, 1, 1e39, 0, 5, QUADRANT_AOI_BOTH, ~0u, 0) == QUADRANT_INVALID_ARGUMENT &&
          has("beyond the range of float"));
    CHECK(quadrant_aoi_add(aoi, 1, 0, 0, 1e39, QUADRANT_AOI_BOTH, ~0u, 0) == QUADRANT_INVALID_ARGUMENT &&
          has("view_radius"));
    CHECK(quadrant_aoi_size(aoi) == 0);
    quadrant_aoi_destroy(aoi);
  }
  quadrant_tree_destroy(f);
  quadrant_tree_destroy(d);
}

int main(void) {
  const quadrant_placement placements[3] = {QUADRANT_LOOSE, QUADRANT_PARENT, QUADRANT_LEAVES};
  int dims, scalar, p;
  for (dims = 2; dims <= 3; ++dims)
    for (scalar = 0; scalar < 2; ++scalar)
      for (p = 0; p < 3; ++p) foreign_handles(dims, scalar == 0 ? QUADRANT_FLOAT : QUADRANT_DOUBLE, placements[p]);
  callbacks();
  refused_update();
  aoi_checked_whole();
  float_range();
  if (failures != 0) {
    fprintf(stderr, "quadrant C API under abuse: %d check(s) failed\n", failures);
    return 1;
  }
  printf("quadrant C API under abuse: every case refused or survived as documented\n");
  return 0;
}
