/* SPDX-License-Identifier: MIT */
/* Tests of the C API's nodes, area of interest and streaming, in C99, each against a brute-force model written from
 * the docs (docs/aoi.md, docs/streaming.md), never from the library:
 *  - nodes: for_each_node against stats, locate against the cells, query_nodes against the leaves' cells;
 *  - filters and contacts: pairs through a layer matrix, and contact events (begun, ended, current) over 30 steps of
 *    moves, inserts, erases and layer changes, against brute-force set differences, every placement, 2D and 3D;
 *  - AoiWorld: a random run (moves, radius and layer changes, removals and re-adds, every mode, hysteresis) whose
 *    every tick's events must equal the model's relation diff in order, with visible, watchers and body queries;
 *  - Streamer: prefetch sources moving over a field of boxes, loads, unloads, cancels and queueing under caps, late
 *    and failed completions, removals, against the model's states;
 *  - bad input: a status, a message, nothing changed.
 * Coordinates are small integers, so every square is exact in float and double and the model is exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrant/c/quadrant.h"
#include "test_c_check.h"

/* ---- nodes ---- */

enum { MAX_NODES = 4096 };
typedef struct {
  int dims, n;
  quadrant_node nodes[MAX_NODES];
} NodeList;
static int collect_node(void* user, const quadrant_node* node) {
  NodeList* list = (NodeList*)user;
  if (list->n < MAX_NODES) list->nodes[list->n] = *node;
  ++list->n;
  return 1;
}
static int cell_touches(int d, const quadrant_node* node, const double* min, const double* max) {
  int i;
  for (i = 0; i < d; ++i)
    if (node->cell_max[i] < min[i] || max[i] < node->cell_min[i]) return 0;
  return 1;
}

static void check_nodes(int d, quadrant_scalar scalar) {
  static NodeList all, hit;
  quadrant_config config;
  quadrant_tree* tree;
  quadrant_stats stats;
  size_t items = 0;
  int i, q, k;
  quadrant_config_init(&config, d, scalar);
  for (i = 0; i < d; ++i) config.world_max[i] = 64;
  config.split_threshold = 4;
  REQUIRE_OK(quadrant_tree_create(&config, &tree));
  for (i = 0; i < 300; ++i) {
    double lo[3], hi[3];
    for (k = 0; k < d; ++k) lo[k] = rnd(60), hi[k] = lo[k] + rnd(4);
    REQUIRE_OK(quadrant_tree_insert(tree, lo, hi, (uint64_t)i, ~0u, NULL));
  }
  REQUIRE_OK(quadrant_tree_stats(tree, &stats));
  all.n = 0;
  REQUIRE_OK(quadrant_tree_for_each_node(tree, collect_node, &all));
  CHECK((size_t)all.n == stats.nodes && all.n <= MAX_NODES && all.n > 1);
  CHECK(all.nodes[0].id == 0 && all.nodes[0].parent == 0xffffffffu && all.nodes[0].depth == 0);
  CHECK(all.nodes[0].count == stats.references);
  for (i = 0; i < all.n && i < MAX_NODES; ++i) items += all.nodes[i].items;
  CHECK(items == stats.references);
  /* locate: a leaf whose cell holds the point. */
  for (q = 0; q < 100; ++q) {
    double p[3];
    quadrant_node leaf;
    for (k = 0; k < d; ++k) p[k] = rnd(64 * 8) / 8.0;
    REQUIRE_OK(quadrant_tree_locate(tree, p, &leaf));
    CHECK(leaf.leaf == 1 && cell_touches(d, &leaf, p, p));
  }
  {
    const double outside[3] = {-1, 5, 5};
    quadrant_node leaf;
    CHECK(quadrant_tree_locate(tree, outside, &leaf) == QUADRANT_INVALID_ARGUMENT);
    CHECK(strstr(quadrant_last_error(), "outside") != NULL);
  }
  /* query_nodes(box): exactly the leaves whose cells touch the box (the non-empty ones with skip_empty). */
  for (q = 0; q < 50; ++q) {
    double lo[3], hi[3];
    int skip = q % 2, want = 0, j, found;
    quadrant_shape box;
    for (k = 0; k < d; ++k) lo[k] = rnd(64), hi[k] = lo[k] + rnd(20);
    box = quadrant_shape_box(d, lo, hi);
    hit.n = 0;
    REQUIRE_OK(quadrant_tree_query_nodes(tree, &box, skip, collect_node, &hit));
    for (i = 0; i < all.n; ++i) {
      if (!all.nodes[i].leaf || !cell_touches(d, &all.nodes[i], lo, hi) || (skip && all.nodes[i].count == 0)) continue;
      ++want;
      found = 0;
      for (j = 0; j < hit.n; ++j) found += hit.nodes[j].id == all.nodes[i].id;
      CHECK(found == 1);
    }
    CHECK(hit.n == want);
  }
  quadrant_tree_destroy(tree);
}

/* ---- filters and contact events ---- */

enum { CT_N = 150 };
static Obj cobj[CT_N];
typedef struct {
  quadrant_handle a, b;
} HPair;
static uint32_t slot_of(quadrant_handle h) { return (uint32_t)(h & 0xffffffffu); }
static int cmp_hpair(const void* x, const void* y) {
  const HPair *p = (const HPair*)x, *q = (const HPair*)y;
  if (slot_of(p->a) != slot_of(q->a)) return slot_of(p->a) < slot_of(q->a) ? -1 : 1;
  if (slot_of(p->b) != slot_of(q->b)) return slot_of(p->b) < slot_of(q->b) ? -1 : 1;
  return 0;
}
static int boxes_overlap(int d, const Obj* x, const Obj* y) {
  int k;
  for (k = 0; k < d; ++k)
    if (x->max[k] < y->min[k] || y->max[k] < x->min[k]) return 0;
  return 1;
}
/* The model's matrix: layer 0 against layer 2, and layer 1 with itself. */
static int model_allows(uint32_t a, uint32_t b) {
  return ((a & 1u) && (b & 4u)) || ((a & 4u) && (b & 1u)) || ((a & 2u) && (b & 2u));
}
/* Brute force: the overlapping pairs (through the model's matrix when filtered), a's slot first, sorted. */
static size_t model_pairs(int d, int filtered, HPair* out) {
  size_t n = 0;
  int i, j;
  for (i = 0; i < CT_N; ++i)
    for (j = i + 1; j < CT_N; ++j) {
      const Obj *x = &cobj[i], *y = &cobj[j];
      if (!x->live || !y->live || !boxes_overlap(d, x, y)) continue;
      if (filtered && !model_allows(x->layers, y->layers)) continue;
      out[n].a = slot_of(x->h) < slot_of(y->h) ? x->h : y->h;
      out[n].b = slot_of(x->h) < slot_of(y->h) ? y->h : x->h;
      ++n;
    }
  qsort(out, n, sizeof *out, cmp_hpair);
  return n;
}
static int same_pairs(const quadrant_contact* got, size_t n, const HPair* want, size_t m) {
  size_t i;
  if (n != m) return 0;
  for (i = 0; i < n; ++i)
    if (got[i].a != want[i].a || got[i].b != want[i].b) return 0;
  return 1;
}
/* want = now \ before (both sorted by slots; a pair is the same pair while both handles are). */
static size_t difference(const HPair* now, size_t n, const HPair* before, size_t m, HPair* out) {
  size_t i, j, k = 0;
  for (i = 0; i < n; ++i) {
    int found = 0;
    for (j = 0; j < m && !found; ++j) found = now[i].a == before[j].a && now[i].b == before[j].b;
    if (!found) out[k++] = now[i];
  }
  return k;
}

static void check_contacts(int d, quadrant_scalar scalar, quadrant_placement placement) {
  static HPair now[CT_N * CT_N / 2], before[CT_N * CT_N / 2], fnow[CT_N * CT_N / 2], fbefore[CT_N * CT_N / 2],
      want[CT_N * CT_N / 2];
  static quadrant_handle flat[CT_N * CT_N];
  static const uint32_t layer_choices[4] = {1u, 2u, 4u, 3u};
  quadrant_config config;
  quadrant_tree *tree, *other;
  quadrant_contacts *contacts, *filtered;
  quadrant_layer_matrix matrix = {{0}}, lopsided = {{0}};
  size_t n_before = 0, f_before = 0;
  int step, i, k, total = 0;
  quadrant_layer_matrix_between(&matrix, 1u, 4u);
  REQUIRE_OK(quadrant_layer_matrix_set(&matrix, 1, 1, 1));
  quadrant_config_init(&config, d, scalar);
  for (k = 0; k < d; ++k) config.world_max[k] = 64;
  config.split_threshold = 4;
  config.placement = placement;
  REQUIRE_OK(quadrant_tree_create(&config, &tree));
  REQUIRE_OK(quadrant_tree_create(&config, &other));
  REQUIRE_OK(quadrant_contacts_create(&contacts));
  REQUIRE_OK(quadrant_contacts_create(&filtered));
  memset(cobj, 0, sizeof cobj);
  for (step = 0; step < 30; ++step) {
    quadrant_contact_step got, fgot;
    size_t n, fn, m, count;
    for (i = 0; i < CT_N; ++i) {
      Obj* o = &cobj[i];
      const unsigned roll = rnd(100);
      if (!o->live) {
        if (roll < (step == 0 ? 90u : 20u)) {
          for (k = 0; k < d; ++k) o->min[k] = rnd(60), o->max[k] = o->min[k] + 1 + rnd(5);
          o->layers = layer_choices[rnd(4)];
          REQUIRE_OK(quadrant_tree_insert(tree, o->min, o->max, (uint64_t)i, o->layers, &o->h));
          o->live = 1;
        }
      } else if (roll < 40) {
        for (k = 0; k < d; ++k) {
          const double dx = (double)rnd(5) - 2;
          o->min[k] = fmax(0, o->min[k] + dx), o->max[k] = fmax(o->min[k], o->max[k] + dx);
        }
        REQUIRE_OK(quadrant_tree_move(tree, o->h, o->min, o->max));
      } else if (roll < 45) {
        REQUIRE_OK(quadrant_tree_erase(tree, o->h));
        o->live = 0;
      } else if (roll < 48) {
        o->layers = layer_choices[rnd(4)];
        REQUIRE_OK(quadrant_tree_set_layers(tree, o->h, o->layers));
      }
    }
    n = model_pairs(d, 0, now);
    fn = model_pairs(d, 1, fnow);
    /* Filtered pairs, into an array. */
    REQUIRE_OK(quadrant_tree_pairs_filtered_into(tree, &matrix, flat, CT_N * CT_N / 2, &count));
    CHECK(count == fn);
    {
      size_t j;
      for (j = 0; j < count && j < fn; ++j) {
        HPair p;
        p.a = slot_of(flat[2 * j]) < slot_of(flat[2 * j + 1]) ? flat[2 * j] : flat[2 * j + 1];
        p.b = slot_of(flat[2 * j]) < slot_of(flat[2 * j + 1]) ? flat[2 * j + 1] : flat[2 * j];
        CHECK(bsearch(&p, fnow, fn, sizeof p, cmp_hpair) != NULL);
      }
    }
    /* Contact events: begun = now \ before, ended = before \ now, contacts = now; sorted by slots. */
    REQUIRE_OK(quadrant_contacts_update(contacts, tree, ~0u, NULL, &got));
    m = difference(now, n, before, n_before, want);
    CHECK(same_pairs(got.begun, got.begun_count, want, m));
    m = difference(before, n_before, now, n, want);
    CHECK(same_pairs(got.ended, got.ended_count, want, m));
    CHECK(same_pairs(got.contacts, got.contact_count, now, n));
    total += (int)(got.begun_count + got.ended_count);
    REQUIRE_OK(quadrant_contacts_update(filtered, tree, 0, &matrix, &fgot));
    m = difference(fnow, fn, fbefore, f_before, want);
    CHECK(same_pairs(fgot.begun, fgot.begun_count, want, m));
    m = difference(fbefore, f_before, fnow, fn, want);
    CHECK(same_pairs(fgot.ended, fgot.ended_count, want, m));
    CHECK(same_pairs(fgot.contacts, fgot.contact_count, fnow, fn));
    memcpy(before, now, n * sizeof *now);
    n_before = n;
    memcpy(fbefore, fnow, fn * sizeof *fnow);
    f_before = fn;
    /* Another tree is refused, and changes nothing (the next step above still diffs against this one). */
    CHECK(quadrant_contacts_update(contacts, other, ~0u, NULL, &got) == QUADRANT_INVALID_ARGUMENT);
    CHECK(strstr(quadrant_last_error(), "another tree") != NULL);
  }
  CHECK(total > (d == 2 ? 1000 : 100)); /* events of this run: 1397..1754 in 2D, 188..239 in 3D */
  /* After clear, a tracker follows another tree; bad matrices and layers are refused. */
  {
    quadrant_contact_step got;
    REQUIRE_OK(quadrant_contacts_clear(contacts));
    REQUIRE_OK(quadrant_contacts_update(contacts, other, ~0u, NULL, &got));
    CHECK(got.begun_count == 0 && got.ended_count == 0 && got.contact_count == 0);
    lopsided.partners[3] = 1u << 5; /* 3 collides with 5, but not 5 with 3 */
    CHECK(quadrant_tree_pairs_filtered_into(tree, &lopsided, flat, 0, &got.begun_count) == QUADRANT_INVALID_ARGUMENT);
    CHECK(strstr(quadrant_last_error(), "symmetric") != NULL);
    CHECK(quadrant_contacts_update(filtered, tree, 0, &lopsided, &got) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_tree_pairs_filtered_into(tree, NULL, flat, 0, &got.begun_count) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_layer_matrix_set(&matrix, 32, 0, 1) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_layer_matrix_set(&matrix, 0, -1, 1) == QUADRANT_INVALID_ARGUMENT);
    REQUIRE_OK(quadrant_layer_matrix_set(&matrix, 1, 1, 0));
    CHECK(matrix.partners[1] == 0 && matrix.partners[0] == 4u && matrix.partners[2] == 1u);
  }
  quadrant_contacts_destroy(contacts);
  quadrant_contacts_destroy(filtered);
  quadrant_tree_destroy(tree);
  quadrant_tree_destroy(other);
}

/* ---- area of interest ---- */

enum { AOI_N = 120 };
typedef struct {
  int present;     /* added and not removed (as recorded) */
  int live;        /* in the relation as of the last tick */
  double x, y, r;  /* as recorded (take effect at the tick) */
  int mode;
  uint32_t layers;
  double body;
  double lx, ly, lr; /* as of the last tick */
  int lmode;
  uint32_t llayers;
  double lbody;
} Ent;
static Ent ents[AOI_N];
static unsigned char sees[AOI_N][AOI_N]; /* as of the last tick */
static uint64_t ent_id(int i) { return ((uint64_t)i * 2654435761u) % 1000003u; }
static int cmp_event(const void* a, const void* b) {
  const quadrant_aoi_event *x = (const quadrant_aoi_event*)a, *y = (const quadrant_aoi_event*)b;
  if (x->watcher != y->watcher) return x->watcher < y->watcher ? -1 : 1;
  if (x->target != y->target) return x->target < y->target ? -1 : 1;
  return 0;
}
static int cmp_id(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* The model's tick: the recorded values become current, the relation is recomputed, the diff sorted. */
static size_t model_tick(double hysteresis, quadrant_aoi_event* out) {
  static unsigned char next[AOI_N][AOI_N];
  size_t n = 0;
  int w, t;
  for (w = 0; w < AOI_N; ++w) {
    Ent* e = &ents[w];
    e->live = e->present;
    e->lx = e->x, e->ly = e->y, e->lr = e->r, e->lmode = e->mode, e->llayers = e->layers, e->lbody = e->body;
  }
  for (w = 0; w < AOI_N; ++w)
    for (t = 0; t < AOI_N; ++t) {
      const Ent *a = &ents[w], *b = &ents[t];
      const double dx = a->lx - b->lx, dy = a->ly - b->ly, d2 = dx * dx + dy * dy;
      const double reach = sees[w][t] ? a->lr + hysteresis : a->lr;
      next[w][t] = (unsigned char)(w != t && a->live && b->live && (a->lmode & QUADRANT_AOI_WATCHER) &&
                                   (b->lmode & QUADRANT_AOI_MARKER) && (a->llayers & b->llayers) != 0 &&
                                   d2 <= reach * reach);
      if (next[w][t] != sees[w][t]) {
        out[n].watcher = ent_id(w), out[n].target = ent_id(t);
        out[n].kind = next[w][t] ? QUADRANT_AOI_ENTER : QUADRANT_AOI_LEAVE;
        out[n].reserved = 0;
        ++n;
      }
    }
  memcpy(sees, next, sizeof sees);
  qsort(out, n, sizeof *out, cmp_event);
  return n;
}

static void check_aoi(quadrant_scalar scalar) {
  static quadrant_aoi_event want[AOI_N * AOI_N];
  static const uint32_t layer_choices[4] = {~0u, 1u, 2u, 3u};
  const double hysteresis = 3;
  quadrant_aoi_settings settings;
  quadrant_aoi* aoi;
  int tick, i, total_events = 0;
  memset(ents, 0, sizeof ents);
  memset(sees, 0, sizeof sees);
  quadrant_aoi_settings_init(&settings, scalar);
  settings.world_max[0] = settings.world_max[1] = 200;
  settings.hysteresis = hysteresis;
  REQUIRE_OK(quadrant_aoi_create(&settings, &aoi));
  for (tick = 0; tick < 60; ++tick) {
    const quadrant_aoi_event* got;
    size_t count, n;
    /* Random changes, recorded in both. */
    for (i = 0; i < AOI_N; ++i) {
      Ent* e = &ents[i];
      const unsigned roll = rnd(100);
      if (!e->present) {
        if (roll < (tick == 0 ? 90u : 10u)) {
          e->x = rnd(200), e->y = rnd(200), e->r = 5 + rnd(30), e->mode = 1 + (int)rnd(3);
          e->layers = layer_choices[rnd(4)], e->body = rnd(3);
          REQUIRE_OK(quadrant_aoi_add(aoi, ent_id(i), e->x, e->y, e->r, (quadrant_aoi_mode)e->mode, e->layers, e->body));
          e->present = 1;
        }
      } else if (roll < 40) {
        e->x = fmax(0, fmin(220, e->x + (double)rnd(9) - 4)), e->y = fmax(0, fmin(220, e->y + (double)rnd(9) - 4));
        REQUIRE_OK(quadrant_aoi_move(aoi, ent_id(i), e->x, e->y));
      } else if (roll < 44) {
        e->r = rnd(40);
        REQUIRE_OK(quadrant_aoi_set_view_radius(aoi, ent_id(i), e->r));
      } else if (roll < 47) {
        e->layers = layer_choices[rnd(4)];
        REQUIRE_OK(quadrant_aoi_set_layers(aoi, ent_id(i), e->layers));
      } else if (roll < 50) {
        REQUIRE_OK(quadrant_aoi_remove(aoi, ent_id(i)));
        e->present = 0;
      } else if (roll < 52) { /* removed and added again before the tick: the same id with new values */
        REQUIRE_OK(quadrant_aoi_remove(aoi, ent_id(i)));
        e->x = rnd(200), e->y = rnd(200), e->r = 5 + rnd(30), e->mode = 1 + (int)rnd(3);
        REQUIRE_OK(quadrant_aoi_add(aoi, ent_id(i), e->x, e->y, e->r, (quadrant_aoi_mode)e->mode, e->layers, e->body));
      }
    }
    /* A batch of moves, then one with a bad entry that moves nothing. */
    {
      uint64_t ids[3];
      double xy[6];
      int k, idx[3], m = 0;
      for (i = 0; i < AOI_N && m < 3; ++i)
        if (ents[i].present && rnd(4) == 0) idx[m++] = i;
      for (k = 0; k < m; ++k) {
        ids[k] = ent_id(idx[k]);
        xy[2 * k] = rnd(200), xy[2 * k + 1] = rnd(200);
      }
      REQUIRE_OK(quadrant_aoi_move_many(aoi, ids, xy, (size_t)m));
      for (k = 0; k < m; ++k) ents[idx[k]].x = xy[2 * k], ents[idx[k]].y = xy[2 * k + 1];
      if (m > 0) {
        const double moved[6] = {1, 1, 2, 2, NAN, 3};
        uint64_t bad_ids[3];
        bad_ids[0] = bad_ids[1] = bad_ids[2] = ids[0];
        CHECK(quadrant_aoi_move_many(aoi, bad_ids, moved, 3) == QUADRANT_INVALID_ARGUMENT);
        bad_ids[2] = 999999999u; /* no such id */
        CHECK(quadrant_aoi_move_many(aoi, bad_ids, xy, 3) == QUADRANT_INVALID_ARGUMENT);
      }
    }
    REQUIRE_OK(quadrant_aoi_tick(aoi, &got, &count));
    n = model_tick(hysteresis, want);
    CHECK(count == n);
    if (count == n) CHECK(n == 0 || memcmp(got, want, n * sizeof *got) == 0);
    total_events += (int)n;
    {
      size_t pairs = 0, live = 0;
      int w, t;
      for (w = 0; w < AOI_N; ++w) {
        live += (size_t)ents[w].live;
        for (t = 0; t < AOI_N; ++t) pairs += sees[w][t];
      }
      CHECK(quadrant_aoi_pair_count(aoi) == pairs);
      CHECK(quadrant_aoi_size(aoi) == live);
    }
    /* visible and watchers of a few live entities, ascending. */
    for (i = (int)rnd(7); i < AOI_N; i += 7) {
      uint64_t ids[AOI_N], expect[AOI_N];
      size_t c, m = 0;
      int t;
      double xy[2];
      if (!ents[i].live) continue;
      REQUIRE_OK(quadrant_aoi_visible(aoi, ent_id(i), ids, AOI_N, &c));
      for (t = 0; t < AOI_N; ++t)
        if (sees[i][t]) expect[m++] = ent_id(t);
      qsort(expect, m, sizeof *expect, cmp_id);
      CHECK(c == m && (m == 0 || memcmp(ids, expect, m * sizeof *ids) == 0));
      REQUIRE_OK(quadrant_aoi_watchers(aoi, ent_id(i), ids, AOI_N, &c));
      m = 0;
      for (t = 0; t < AOI_N; ++t)
        if (sees[t][i]) expect[m++] = ent_id(t);
      qsort(expect, m, sizeof *expect, cmp_id);
      CHECK(c == m && (m == 0 || memcmp(ids, expect, m * sizeof *ids) == 0));
      REQUIRE_OK(quadrant_aoi_position(aoi, ent_id(i), xy));
      CHECK(xy[0] == ents[i].lx && xy[1] == ents[i].ly);
    }
    /* A skill's circle against the bodies as of the tick, in layer 2. */
    {
      const double center[2] = {rnd(200), rnd(200)}, radius = rnd(40);
      const quadrant_shape circle = quadrant_shape_ball(2, center, radius);
      uint64_t ids[AOI_N], expect[AOI_N];
      size_t c, m = 0, small;
      for (i = 0; i < AOI_N; ++i) {
        const Ent* e = &ents[i];
        const double gx = fmax(0, fabs(center[0] - e->lx) - e->lbody), gy = fmax(0, fabs(center[1] - e->ly) - e->lbody);
        if (e->live && (e->llayers & 2u) != 0 && gx * gx + gy * gy <= radius * radius) expect[m++] = ent_id(i);
      }
      qsort(expect, m, sizeof *expect, cmp_id);
      REQUIRE_OK(quadrant_aoi_query_into(aoi, &circle, 2u, ids, AOI_N, &c));
      CHECK(c == m && (m == 0 || memcmp(ids, expect, m * sizeof *ids) == 0));
      small = m / 2; /* a short buffer: the first ones, and the full count */
      REQUIRE_OK(quadrant_aoi_query_into(aoi, &circle, 2u, ids, small, &c));
      CHECK(c == m && (small == 0 || memcmp(ids, expect, small * sizeof *ids) == 0));
    }
    if (tick % 10 == 9) REQUIRE_OK(quadrant_aoi_validate(aoi));
  }
  CHECK(total_events > 500); /* the run exercised the relation */
  /* Bad input: a status, a message, nothing changed (the next tick reports nothing). */
  {
    const quadrant_aoi_event* got;
    size_t count, c;
    int live = -1;
    const double frustum[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    quadrant_shape shape = quadrant_shape_frustum(frustum, 0, 0);
    for (i = 0; i < AOI_N && live < 0; ++i)
      if (ents[i].present && ents[i].live) live = i;
    CHECK(live >= 0);
    CHECK(quadrant_aoi_add(aoi, ent_id(live), 1, 1, 5, QUADRANT_AOI_BOTH, ~0u, 0) == QUADRANT_INVALID_ARGUMENT);
    CHECK(strstr(quadrant_last_error(), "already") != NULL);
    CHECK(quadrant_aoi_add(aoi, 5555555, NAN, 1, 5, QUADRANT_AOI_BOTH, ~0u, 0) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_add(aoi, 5555555, 1, 1, -5, QUADRANT_AOI_BOTH, ~0u, 0) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_add(aoi, 5555555, 1, 1, 5, (quadrant_aoi_mode)257, ~0u, 0) == QUADRANT_INVALID_ARGUMENT);
    CHECK(strstr(quadrant_last_error(), "mode") != NULL);
    CHECK(quadrant_aoi_contains(aoi, 5555555) == 0);
    CHECK(quadrant_aoi_move(aoi, 5555555, 1, 1) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_move(aoi, ent_id(live), INFINITY, 1) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_set_view_radius(aoi, ent_id(live), NAN) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_remove(aoi, 5555555) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_visible(aoi, 5555555, NULL, 0, &c) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_query_into(aoi, &shape, ~0u, NULL, 0, &c) == QUADRANT_INVALID_ARGUMENT);
    CHECK(strstr(quadrant_last_error(), "3D") != NULL);
    shape = quadrant_shape_ball(2, frustum, -1);
    CHECK(quadrant_aoi_query_into(aoi, &shape, ~0u, NULL, 0, &c) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_aoi_tick(aoi, NULL, &count) == QUADRANT_INVALID_ARGUMENT);
    REQUIRE_OK(quadrant_aoi_tick(aoi, &got, &count));
    CHECK(count == 0);
    REQUIRE_OK(quadrant_aoi_validate(aoi));
  }
  quadrant_aoi_destroy(aoi);
  {
    quadrant_aoi* none = (quadrant_aoi*)&settings;
    quadrant_aoi_settings_init(&settings, scalar);
    settings.hysteresis = -1;
    CHECK(quadrant_aoi_create(&settings, &none) == QUADRANT_INVALID_ARGUMENT && none == NULL);
    quadrant_aoi_settings_init(&settings, (quadrant_scalar)5);
    CHECK(quadrant_aoi_create(&settings, &none) == QUADRANT_INVALID_ARGUMENT && none == NULL);
  }
}

/* ---- streaming ---- */

enum { ST_N = 400, SOURCES = 2 };
typedef struct {
  int present, state;
  double min[3], max[3];
} StObj;
static StObj sobj[ST_N];

static double gap2(const double* p, const double* min, const double* max) {
  double s = 0;
  int i;
  for (i = 0; i < 3; ++i) {
    const double g = p[i] < min[i] ? min[i] - p[i] : (p[i] > max[i] ? p[i] - max[i] : 0);
    s += g * g;
  }
  return s;
}
typedef struct {
  double d2;
  int i;
} Cand;
static int cmp_cand(const void* a, const void* b) {
  const Cand *x = (const Cand*)a, *y = (const Cand*)b;
  if (x->d2 != y->d2) return x->d2 < y->d2 ? -1 : 1;
  return x->i - y->i;
}
static int contains_id(const uint64_t* ids, size_t n, uint64_t id) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (ids[i] == id) return 1;
  return 0;
}

static void check_streamer(quadrant_scalar scalar) {
  const double margin = 4;
  const size_t per_update = 6, in_flight = 10;
  quadrant_streamer_config config;
  quadrant_streamer* st;
  quadrant_stream_source src[SOURCES];
  int frame, i, k, loads_seen = 0, unloads_seen = 0, cancels_seen = 0, queued_seen = 0;
  memset(sobj, 0, sizeof sobj);
  memset(src, 0, sizeof src);
  quadrant_streamer_config_init(&config, scalar);
  for (k = 0; k < 3; ++k) config.tree.world_max[k] = 100;
  config.tree.split_threshold = 4;
  config.unload_margin = margin;
  config.max_loads_per_update = per_update;
  config.max_loads_in_flight = in_flight;
  REQUIRE_OK(quadrant_streamer_create(&config, &st));
  for (i = 0; i < ST_N; ++i) {
    for (k = 0; k < 3; ++k) sobj[i].min[k] = rnd(95), sobj[i].max[k] = sobj[i].min[k] + rnd(5);
    REQUIRE_OK(quadrant_streamer_add(st, (uint64_t)i + 1, sobj[i].min, sobj[i].max));
    sobj[i].present = 1, sobj[i].state = QUADRANT_STREAM_UNLOADED;
  }
  for (k = 0; k < SOURCES; ++k) {
    src[k].position[0] = rnd(100), src[k].position[1] = rnd(100), src[k].position[2] = rnd(100);
    src[k].prefetch_radius = 25 + 10 * k;
  }
  for (frame = 0; frame < 80; ++frame) {
    quadrant_stream_update u;
    static Cand cand[ST_N];
    size_t nc = 0, loading = 0, take, j;
    /* The sources drift. */
    for (k = 0; k < SOURCES; ++k)
      for (i = 0; i < 3; ++i) src[k].position[i] = fmax(0, fmin(100, src[k].position[i] + (double)rnd(13) - 6));
    REQUIRE_OK(quadrant_streamer_update(st, src, SOURCES, &u));
    /* The model: cancel / unload what no source keeps, then rebuild the queue, then load nearest first. */
    for (i = 0; i < ST_N; ++i) {
      StObj* o = &sobj[i];
      double best = INFINITY;
      int keep = 0;
      if (!o->present) continue;
      for (k = 0; k < SOURCES; ++k) {
        const double d2 = gap2(src[k].position, o->min, o->max), r = src[k].prefetch_radius;
        if (d2 < best) best = d2;
        if (d2 <= (r + margin) * (r + margin)) keep = 1;
      }
      if ((o->state == QUADRANT_STREAM_LOADING || o->state == QUADRANT_STREAM_LOADED) && !keep) {
        CHECK(contains_id(o->state == QUADRANT_STREAM_LOADING ? u.cancels : u.unloads,
                          o->state == QUADRANT_STREAM_LOADING ? u.cancel_count : u.unload_count, (uint64_t)i + 1));
        o->state = QUADRANT_STREAM_UNLOADED;
      }
      if (o->state == QUADRANT_STREAM_QUEUED) o->state = QUADRANT_STREAM_UNLOADED;
      if (o->state == QUADRANT_STREAM_LOADING) ++loading;
      for (k = 0; k < SOURCES; ++k) {
        const double r = src[k].prefetch_radius;
        if (o->state == QUADRANT_STREAM_UNLOADED && gap2(src[k].position, o->min, o->max) <= r * r) {
          cand[nc].d2 = best, cand[nc].i = i, ++nc;
          break;
        }
      }
    }
    qsort(cand, nc, sizeof *cand, cmp_cand);
    take = in_flight - loading < per_update ? in_flight - loading : per_update;
    if (take > nc) take = nc;
    CHECK(u.load_count == take);
    for (j = 0; j < nc; ++j) {
      StObj* o = &sobj[cand[j].i];
      if (j < take) {
        if (j < u.load_count) {
          CHECK(u.loads[j].id == (uint64_t)cand[j].i + 1);
          CHECK(fabs(u.loads[j].distance - sqrt(cand[j].d2)) <= 1e-4 * (1 + sqrt(cand[j].d2)));
        }
        o->state = QUADRANT_STREAM_LOADING;
      } else {
        o->state = QUADRANT_STREAM_QUEUED;
      }
    }
    loads_seen += (int)u.load_count, unloads_seen += (int)u.unload_count, cancels_seen += (int)u.cancel_count;
    queued_seen += (int)u.stats.queued;
    for (j = 1; j < u.unload_count; ++j) CHECK(u.unloads[j - 1] < u.unloads[j]);
    for (j = 1; j < u.cancel_count; ++j) CHECK(u.cancels[j - 1] < u.cancels[j]);
    /* Every state as the model says. */
    for (i = 0; i < ST_N; ++i) {
      quadrant_stream_state s;
      if (!sobj[i].present) {
        CHECK(quadrant_streamer_contains(st, (uint64_t)i + 1) == 0);
        continue;
      }
      REQUIRE_OK(quadrant_streamer_state(st, (uint64_t)i + 1, &s));
      CHECK((int)s == sobj[i].state);
    }
    /* Completions: most loads finish, some fail, some ids report late; an object now and then is removed. */
    for (i = 0; i < ST_N; ++i) {
      StObj* o = &sobj[i];
      const unsigned roll = rnd(100);
      int accepted = -1;
      if (!o->present) continue;
      if (roll < 50) {
        REQUIRE_OK(quadrant_streamer_mark_loaded(st, (uint64_t)i + 1, &accepted));
        CHECK(accepted == (o->state == QUADRANT_STREAM_LOADING));
        if (o->state == QUADRANT_STREAM_LOADING) o->state = QUADRANT_STREAM_LOADED;
      } else if (roll < 55) {
        REQUIRE_OK(quadrant_streamer_mark_failed(st, (uint64_t)i + 1, &accepted));
        CHECK(accepted == (o->state == QUADRANT_STREAM_LOADING));
        if (o->state == QUADRANT_STREAM_LOADING) o->state = QUADRANT_STREAM_UNLOADED;
      } else if (roll < 56) {
        quadrant_stream_state was;
        REQUIRE_OK(quadrant_streamer_remove(st, (uint64_t)i + 1, &was));
        CHECK((int)was == o->state);
        o->present = 0;
      } else if (roll < 58) {
        for (k = 0; k < 3; ++k) o->min[k] = rnd(95), o->max[k] = o->min[k] + rnd(5);
        REQUIRE_OK(quadrant_streamer_move(st, (uint64_t)i + 1, o->min, o->max));
      }
    }
    if (frame % 20 == 19) REQUIRE_OK(quadrant_streamer_validate(st));
  }
  CHECK(loads_seen > 100 && unloads_seen > 10 && cancels_seen > 0 && queued_seen > 0);
  /* A frustum source: what it wants is loaded first; a bad source changes nothing. */
  {
    quadrant_stream_update u;
    quadrant_stream_source bad = src[0];
    double lo[3], hi[3];
    quadrant_stream_state s;
    const double identity[16] = {0.02, 0, 0, 0, 0, 0.02, 0, 0, 0, 0, 0.02, 0, -1, -1, -1, 1}; /* [0,100]^3 */
    bad.prefetch_radius = NAN;
    CHECK(quadrant_streamer_update(st, &bad, 1, &u) == QUADRANT_INVALID_ARGUMENT);
    bad = src[0], bad.position[1] = INFINITY;
    CHECK(quadrant_streamer_update(st, &bad, 1, &u) == QUADRANT_INVALID_ARGUMENT);
    bad = src[0], bad.has_frustum = 1, memcpy(bad.matrix, identity, sizeof identity), bad.matrix[5] = NAN;
    CHECK(quadrant_streamer_update(st, &bad, 1, &u) == QUADRANT_INVALID_ARGUMENT);
    for (i = 0; i < ST_N; ++i)
      if (sobj[i].present) {
        REQUIRE_OK(quadrant_streamer_state(st, (uint64_t)i + 1, &s));
        CHECK((int)s == sobj[i].state);
      }
    bad = src[0], bad.has_frustum = 1, memcpy(bad.matrix, identity, sizeof identity), bad.prefetch_radius = 0;
    REQUIRE_OK(quadrant_streamer_set_limits(st, 1000, 1000));
    REQUIRE_OK(quadrant_streamer_update(st, &bad, 1, &u));
    for (i = 0; i < ST_N; ++i)
      if (sobj[i].present) {
        REQUIRE_OK(quadrant_streamer_state(st, (uint64_t)i + 1, &s));
        CHECK(s == QUADRANT_STREAM_LOADING || s == QUADRANT_STREAM_LOADED); /* the frustum holds the whole world */
      }
    lo[0] = lo[1] = lo[2] = 5, hi[0] = hi[1] = hi[2] = 4;
    CHECK(quadrant_streamer_add(st, 100000, lo, hi) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_streamer_contains(st, 100000) == 0);
    CHECK(quadrant_streamer_remove(st, 100000, NULL) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_streamer_mark_loaded(st, 100000, NULL) == QUADRANT_INVALID_ARGUMENT);
    CHECK(quadrant_streamer_bounds(st, 100000, lo, hi) == QUADRANT_INVALID_ARGUMENT);
    REQUIRE_OK(quadrant_streamer_validate(st));
  }
  quadrant_streamer_destroy(st);
  {
    quadrant_streamer* none = (quadrant_streamer*)&config;
    quadrant_streamer_config_init(&config, scalar);
    config.tree.dims = 2;
    CHECK(quadrant_streamer_create(&config, &none) == QUADRANT_INVALID_ARGUMENT && none == NULL);
    CHECK(strstr(quadrant_last_error(), "3D") != NULL);
    quadrant_streamer_config_init(&config, scalar);
    config.unload_margin = -1;
    CHECK(quadrant_streamer_create(&config, &none) == QUADRANT_INVALID_ARGUMENT && none == NULL);
  }
}

int main(void) {
  int s;
  for (s = 0; s < 2; ++s) {
    const quadrant_scalar scalar = s == 0 ? QUADRANT_FLOAT : QUADRANT_DOUBLE;
    int p;
    check_nodes(2, scalar);
    check_nodes(3, scalar);
    for (p = 0; p < 3; ++p) {
      static const quadrant_placement placements[3] = {QUADRANT_LOOSE, QUADRANT_PARENT, QUADRANT_LEAVES};
      check_contacts(2, scalar, placements[p]);
      check_contacts(3, scalar, placements[p]);
    }
    check_aoi(scalar);
    check_streamer(scalar);
  }
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("quadrant C API: nodes, filters, contacts, area of interest and streaming match their models\n");
  return 0;
}
