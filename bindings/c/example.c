/* SPDX-License-Identifier: MIT */
/* The C API in one page: a quadtree of a few monsters, a circle query around the player, the overlapping pairs,
 * and what an error looks like. Build: link quadrant_c (or quadrant_c_static) and the C++ runtime. */
#include <stdio.h>

#include "quadrant/c/quadrant.h"

static int print_hit(void* user, quadrant_handle handle, uint64_t value) {
  (void)user, (void)handle;
  printf("  monster %llu is within reach\n", (unsigned long long)value);
  return 1; /* go on */
}

static int print_pair(void* user, quadrant_handle a, uint64_t va, quadrant_handle b, uint64_t vb) {
  (void)user, (void)a, (void)b;
  printf("  monsters %llu and %llu overlap\n", (unsigned long long)va, (unsigned long long)vb);
  return 1;
}

int main(void) {
  quadrant_config config;
  quadrant_tree* tree = NULL;
  const double player[2] = {50, 50};
  const double boxes[4][4] = {{45, 45, 47, 47}, {46, 46, 49, 48}, {80, 10, 82, 12}, {52, 60, 54, 62}};
  quadrant_shape reach;
  quadrant_query_stats stats;
  size_t found = 0;
  uint64_t values[8];
  int i;

  quadrant_config_init(&config, 2, QUADRANT_FLOAT);
  config.world_max[0] = config.world_max[1] = 100; /* the world is [0, 100] x [0, 100] */
  if (quadrant_tree_create(&config, &tree) != QUADRANT_OK) {
    fprintf(stderr, "%s\n", quadrant_last_error());
    return 1;
  }
  for (i = 0; i < 4; ++i) {
    /* each monster's box: min (x, y), max (x, y); its value is its index in the game's own array */
    if (quadrant_tree_insert(tree, &boxes[i][0], &boxes[i][2], (uint64_t)i, ~0u, NULL) != QUADRANT_OK) {
      fprintf(stderr, "%s\n", quadrant_last_error());
      return 1;
    }
  }

  printf("within 12 of the player, by callback:\n");
  reach = quadrant_shape_ball(2, player, 12);
  quadrant_tree_query(tree, &reach, ~0u, print_hit, NULL, &stats);
  printf("  (%zu found, %zu boxes tested)\n", stats.hits, stats.box_tests);

  quadrant_tree_query_into(tree, &reach, ~0u, NULL, values, 8, &found);
  printf("the same into an array: %zu values\n", found);

  printf("overlapping pairs:\n");
  quadrant_tree_pairs(tree, ~0u, print_pair, NULL);

  /* Bad input: a status, a message, nothing changed. */
  if (quadrant_tree_insert(tree, &boxes[0][2], &boxes[0][0], 9, ~0u, NULL) != QUADRANT_OK)
    printf("a box with min > max is refused: %s\n", quadrant_last_error());
  printf("the tree still holds %zu objects\n", quadrant_tree_size(tree));

  quadrant_tree_destroy(tree);
  return found == 3 ? 0 : 1; /* monsters 0, 1 and 3 */
}
