/* SPDX-License-Identifier: MIT */
/* The Lua 5.4 module `quadrant` over the C API: `local quadrant = require "quadrant"`. A tree is a full userdata
 * with methods; boxes are arrays {minx, miny, maxx, maxy} (2D) or {minx, miny, minz, maxx, maxy, maxz} (3D);
 * values are any Lua values, kept in a table beside the tree (the C tree stores a key into it) and released on
 * erase and clear. Library errors are raised as Lua errors with the library's message.
 *
 * Queries never call Lua from inside the C walk: they collect the results first, then return them as an array, or
 * call the function given for each (a Lua error or a mutation in it then cannot cut a C++ walk short). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "quadrant/c/quadrant.h"

#define TREE_META "quadrant.Tree"

typedef struct {
  quadrant_tree* tree;
  int dims;
  lua_Integer next_key; /* the C value of the next object: a key into the values table */
  /* Scratch for query results, reused (grown as needed). */
  quadrant_handle* handles;
  uint64_t* keys;
  size_t capacity;
} LTree;

/* ---- helpers ---- */

static LTree* check_tree(lua_State* L, int at) {
  LTree* t = (LTree*)luaL_checkudata(L, at, TREE_META);
  if (t->tree == NULL) luaL_error(L, "quadrant: the tree was destroyed");
  return t;
}

static void raise_status(lua_State* L, quadrant_status st) {
  if (st != QUADRANT_OK) luaL_error(L, "%s", quadrant_last_error());
}

/* Reads n numbers from the array at `at` into out. */
static void read_numbers(lua_State* L, int at, double* out, int n, const char* what) {
  int i;
  luaL_checktype(L, at, LUA_TTABLE);
  for (i = 0; i < n; ++i) {
    int isnum = 0;
    lua_geti(L, at, i + 1);
    out[i] = (double)lua_tonumberx(L, -1, &isnum);
    if (!isnum) luaL_error(L, "quadrant: %s needs %d numbers; element %d is %s", what, n, i + 1, luaL_typename(L, -1));
    lua_pop(L, 1);
  }
}
static void read_box(lua_State* L, int at, int dims, double* min, double* max) {
  double v[6];
  int i;
  read_numbers(L, at, v, 2 * dims, "a box");
  for (i = 0; i < dims; ++i) min[i] = v[i], max[i] = v[dims + i];
}
static void push_box(lua_State* L, int dims, const double* min, const double* max) {
  int i;
  lua_createtable(L, 2 * dims, 0);
  for (i = 0; i < dims; ++i) {
    lua_pushnumber(L, min[i]);
    lua_seti(L, -2, i + 1);
    lua_pushnumber(L, max[i]);
    lua_seti(L, -2, dims + i + 1);
  }
}
static uint32_t opt_layers(lua_State* L, int at) {
  return (uint32_t)(luaL_optinteger(L, at, (lua_Integer)0xffffffffu) & 0xffffffff);
}

/* The tree's values table (its user value) onto the stack. */
static void push_values(lua_State* L, int tree_at) { lua_getiuservalue(L, tree_at, 1); }

static quadrant_handle check_handle(lua_State* L, int at) { return (quadrant_handle)luaL_checkinteger(L, at); }

/* Runs the query into the tree's scratch, growing it until everything fits; returns the count. */
static size_t run_query(lua_State* L, LTree* t, const quadrant_shape* shape, uint32_t layers) {
  size_t count = 0;
  for (;;) {
    raise_status(L, quadrant_tree_query_into(t->tree, shape, layers, t->handles, t->keys, t->capacity, &count));
    if (count <= t->capacity) return count;
    {
      const size_t want = count * 2;
      quadrant_handle* h = (quadrant_handle*)realloc(t->handles, want * sizeof *h);
      uint64_t* k;
      if (h == NULL) luaL_error(L, "quadrant: out of memory");
      t->handles = h;
      k = (uint64_t*)realloc(t->keys, want * sizeof *k);
      if (k == NULL) luaL_error(L, "quadrant: out of memory");
      t->keys = k;
      t->capacity = want;
    }
  }
}

/* The results of the query just run: an array of values, or, with a function at fn_at, fn(value, handle) for each
 * (stopping when it returns false); returns the number of Lua results. */
static int deliver(lua_State* L, LTree* t, size_t count, int fn_at) {
  size_t i;
  push_values(L, 1);
  if (fn_at != 0) {
    for (i = 0; i < count; ++i) {
      lua_pushvalue(L, fn_at);
      lua_geti(L, -2, (lua_Integer)t->keys[i]);
      lua_pushinteger(L, (lua_Integer)t->handles[i]);
      lua_call(L, 2, 1);
      if (lua_isboolean(L, -1) && !lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_pushinteger(L, (lua_Integer)count);
    return 1;
  }
  lua_createtable(L, (int)count, 0);
  for (i = 0; i < count; ++i) {
    lua_geti(L, -2, (lua_Integer)t->keys[i]);
    lua_seti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}

/* A query method's optional tail: [layers] [fn]. Returns the function's index (0 if none). */
static int query_tail(lua_State* L, int from, uint32_t* layers) {
  *layers = 0xffffffffu;
  if (lua_isfunction(L, from)) return from;
  if (!lua_isnoneornil(L, from)) *layers = opt_layers(L, from);
  if (lua_isfunction(L, from + 1)) return from + 1;
  if (!lua_isnoneornil(L, from + 1)) luaL_argerror(L, from + 1, "a function expected");
  return 0;
}

static int finish_query(lua_State* L, LTree* t, const quadrant_shape* shape, int tail) {
  uint32_t layers;
  const int fn = query_tail(L, tail, &layers);
  const size_t count = run_query(L, t, shape, layers);
  return deliver(L, t, count, fn);
}

/* ---- the module ---- */

static int l_new(lua_State* L) {
  quadrant_config config;
  LTree* t;
  int dims = 2;
  const char* scalar;
  const char* placement;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "dims");
  dims = (int)luaL_optinteger(L, -1, 2);
  lua_pop(L, 1);
  lua_getfield(L, 1, "scalar");
  scalar = luaL_optstring(L, -1, "double");
  lua_pop(L, 1);
  if (strcmp(scalar, "float") != 0 && strcmp(scalar, "double") != 0)
    return luaL_error(L, "quadrant: scalar is \"%s\", not \"float\" or \"double\"", scalar);
  if (dims != 2 && dims != 3) return luaL_error(L, "quadrant: dims is %d, not 2 or 3", dims);
  quadrant_config_init(&config, dims, strcmp(scalar, "float") == 0 ? QUADRANT_FLOAT : QUADRANT_DOUBLE);
  lua_getfield(L, 1, "world");
  if (lua_isnil(L, -1)) return luaL_error(L, "quadrant: new{...} needs world = {minx, miny, maxx, maxy}");
  read_box(L, lua_gettop(L), dims, config.world_min, config.world_max);
  lua_pop(L, 1);
  lua_getfield(L, 1, "max_depth");
  config.max_depth = (int)luaL_optinteger(L, -1, config.max_depth);
  lua_pop(L, 1);
  lua_getfield(L, 1, "split_threshold");
  config.split_threshold = (int)luaL_optinteger(L, -1, config.split_threshold);
  lua_pop(L, 1);
  lua_getfield(L, 1, "min_node_size");
  config.min_node_size = (double)luaL_optnumber(L, -1, 0);
  lua_pop(L, 1);
  lua_getfield(L, 1, "placement");
  placement = luaL_optstring(L, -1, "loose");
  lua_pop(L, 1);
  if (strcmp(placement, "loose") == 0) config.placement = QUADRANT_LOOSE;
  else if (strcmp(placement, "parent") == 0) config.placement = QUADRANT_PARENT;
  else if (strcmp(placement, "leaves") == 0) config.placement = QUADRANT_LEAVES;
  else return luaL_error(L, "quadrant: placement is \"%s\", not \"loose\", \"parent\" or \"leaves\"", placement);

  t = (LTree*)lua_newuserdatauv(L, sizeof(LTree), 1);
  memset(t, 0, sizeof *t);
  t->dims = dims;
  t->next_key = 1;
  luaL_setmetatable(L, TREE_META);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  raise_status(L, quadrant_tree_create(&config, &t->tree));
  return 1;
}

static int l_destroy(lua_State* L) {
  LTree* t = (LTree*)luaL_checkudata(L, 1, TREE_META);
  quadrant_tree_destroy(t->tree);
  t->tree = NULL;
  free(t->handles);
  free(t->keys);
  t->handles = NULL, t->keys = NULL, t->capacity = 0;
  lua_newtable(L); /* the values go */
  lua_setiuservalue(L, 1, 1);
  return 0;
}

static int l_insert(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double min[3], max[3];
  quadrant_handle h = 0;
  const lua_Integer key = t->next_key;
  read_box(L, 2, t->dims, min, max);
  luaL_checkany(L, 3);
  raise_status(L, quadrant_tree_insert(t->tree, min, max, (uint64_t)key, opt_layers(L, 4), &h));
  ++t->next_key;
  push_values(L, 1);
  lua_pushvalue(L, 3);
  lua_seti(L, -2, key);
  lua_pushinteger(L, (lua_Integer)h);
  return 1;
}

static int l_erase(lua_State* L) {
  LTree* t = check_tree(L, 1);
  const quadrant_handle h = check_handle(L, 2);
  uint64_t key = 0;
  raise_status(L, quadrant_tree_value(t->tree, h, &key));
  raise_status(L, quadrant_tree_erase(t->tree, h));
  push_values(L, 1);
  lua_pushnil(L);
  lua_seti(L, -2, (lua_Integer)key);
  return 0;
}

static int l_move(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double min[3], max[3];
  const quadrant_handle h = check_handle(L, 2);
  read_box(L, 3, t->dims, min, max);
  raise_status(L, quadrant_tree_move(t->tree, h, min, max));
  return 0;
}

static int l_set_layers(lua_State* L) {
  LTree* t = check_tree(L, 1);
  raise_status(L, quadrant_tree_set_layers(t->tree, check_handle(L, 2), (uint32_t)(luaL_checkinteger(L, 3) & 0xffffffff)));
  return 0;
}

static int l_contains(lua_State* L) {
  LTree* t = check_tree(L, 1);
  lua_pushboolean(L, lua_isinteger(L, 2) && quadrant_tree_contains(t->tree, (quadrant_handle)lua_tointeger(L, 2)));
  return 1;
}

static int l_size(lua_State* L) {
  LTree* t = check_tree(L, 1);
  lua_pushinteger(L, (lua_Integer)quadrant_tree_size(t->tree));
  return 1;
}

static int l_bounds(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double min[3], max[3];
  raise_status(L, quadrant_tree_bounds(t->tree, check_handle(L, 2), min, max));
  push_box(L, t->dims, min, max);
  return 1;
}

static int l_value(lua_State* L) {
  LTree* t = check_tree(L, 1);
  uint64_t key = 0;
  raise_status(L, quadrant_tree_value(t->tree, check_handle(L, 2), &key));
  push_values(L, 1);
  lua_geti(L, -1, (lua_Integer)key);
  return 1;
}

static int l_clear(lua_State* L) {
  LTree* t = check_tree(L, 1);
  raise_status(L, quadrant_tree_clear(t->tree));
  lua_newtable(L);
  lua_setiuservalue(L, 1, 1);
  return 0;
}

static int l_query_box(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double min[3], max[3];
  quadrant_shape s;
  read_box(L, 2, t->dims, min, max);
  s = quadrant_shape_box(t->dims, min, max);
  return finish_query(L, t, &s, 3);
}

/* query_point(x, y[, z]) */
static int l_query_point(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double p[3];
  quadrant_shape s;
  int i;
  for (i = 0; i < t->dims; ++i) p[i] = (double)luaL_checknumber(L, 2 + i);
  s = quadrant_shape_point(t->dims, p);
  return finish_query(L, t, &s, 2 + t->dims);
}

/* query_circle(x, y, r) in 2D, query_sphere(x, y, z, r) in 3D: both names take the tree's dims. */
static int l_query_ball(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double p[3];
  quadrant_shape s;
  int i;
  for (i = 0; i < t->dims; ++i) p[i] = (double)luaL_checknumber(L, 2 + i);
  s = quadrant_shape_ball(t->dims, p, (double)luaL_checknumber(L, 2 + t->dims));
  return finish_query(L, t, &s, 3 + t->dims);
}

static int l_query_ring(lua_State* L) {
  LTree* t = check_tree(L, 1);
  quadrant_shape s = quadrant_shape_ring(luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                         luaL_checknumber(L, 5));
  return finish_query(L, t, &s, 6);
}

static int l_query_ellipse(lua_State* L) {
  LTree* t = check_tree(L, 1);
  quadrant_shape s = quadrant_shape_ellipse(luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                            luaL_checknumber(L, 5), luaL_checknumber(L, 6));
  return finish_query(L, t, &s, 7);
}

static int l_query_sector(lua_State* L) {
  LTree* t = check_tree(L, 1);
  quadrant_shape s = quadrant_shape_sector(luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                           luaL_checknumber(L, 5), luaL_checknumber(L, 6), luaL_checknumber(L, 7));
  return finish_query(L, t, &s, 8);
}

static int l_query_oriented_box(lua_State* L) {
  LTree* t = check_tree(L, 1);
  quadrant_shape s = quadrant_shape_oriented_box(luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                                                 luaL_checknumber(L, 4), luaL_checknumber(L, 5),
                                                 luaL_checknumber(L, 6));
  return finish_query(L, t, &s, 7);
}

/* query_polygon({x1, y1, x2, y2, ...}) */
static int l_query_polygon(lua_State* L) {
  LTree* t = check_tree(L, 1);
  const lua_Integer n = luaL_len(L, 2);
  double* xy;
  quadrant_shape s;
  size_t count;
  uint32_t layers;
  int fn;
  if (n % 2 != 0) return luaL_error(L, "quadrant: a polygon needs x, y pairs (%d numbers given)", (int)n);
  fn = query_tail(L, 3, &layers); /* before the buffer goes on the stack */
  xy = (double*)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof(double), 0); /* freed by the GC */
  read_numbers(L, 2, xy, (int)n, "a polygon");
  s = quadrant_shape_polygon(xy, (size_t)(n / 2));
  count = run_query(L, t, &s, layers);
  return deliver(L, t, count, fn);
}

/* query_segment(a, b): points as arrays */
static int l_query_segment(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double a[3], b[3];
  quadrant_shape s;
  read_numbers(L, 2, a, t->dims, "a point");
  read_numbers(L, 3, b, t->dims, "a point");
  s = quadrant_shape_segment(t->dims, a, b);
  return finish_query(L, t, &s, 4);
}

/* pairs([layers]) -> array of {value_a, value_b}: collected into the scratch first (no Lua inside the walk). */
static int l_pairs(lua_State* L) {
  LTree* t = check_tree(L, 1);
  const uint32_t layers = opt_layers(L, 2);
  size_t count = 0, i;
  for (;;) {
    raise_status(L, quadrant_tree_pairs_into(t->tree, layers, t->handles, t->capacity / 2, &count));
    if (2 * count <= t->capacity) break;
    {
      quadrant_handle* h = (quadrant_handle*)realloc(t->handles, 4 * count * sizeof *h);
      uint64_t* k;
      if (h == NULL) return luaL_error(L, "quadrant: out of memory");
      t->handles = h;
      k = (uint64_t*)realloc(t->keys, 4 * count * sizeof *k);
      if (k == NULL) return luaL_error(L, "quadrant: out of memory");
      t->keys = k;
      t->capacity = 4 * count;
    }
  }
  push_values(L, 1);
  lua_createtable(L, (int)count, 0);
  for (i = 0; i < count; ++i) {
    int j;
    lua_createtable(L, 2, 0);
    for (j = 0; j < 2; ++j) {
      uint64_t key = 0;
      raise_status(L, quadrant_tree_value(t->tree, t->handles[2 * i + (size_t)j], &key));
      lua_geti(L, -3, (lua_Integer)key);
      lua_seti(L, -2, j + 1);
    }
    lua_seti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}

/* nearest(point, k[, max_distance[, layers]]) -> values, distances */
static int l_nearest(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double p[3];
  const lua_Integer k = luaL_checkinteger(L, 3);
  const double max_distance = (double)luaL_optnumber(L, 4, HUGE_VAL);
  const uint32_t layers = opt_layers(L, 5);
  quadrant_handle* hs;
  double* dist;
  size_t count = 0, i;
  read_numbers(L, 2, p, t->dims, "a point");
  if (k < 0) return luaL_error(L, "quadrant: nearest: k is negative");
  hs = (quadrant_handle*)lua_newuserdatauv(L, (size_t)(k > 0 ? k : 1) * sizeof *hs, 0);
  dist = (double*)lua_newuserdatauv(L, (size_t)(k > 0 ? k : 1) * sizeof *dist, 0);
  raise_status(L, quadrant_tree_nearest(t->tree, p, (size_t)k, max_distance, layers, hs, dist, &count));
  push_values(L, 1);
  lua_createtable(L, (int)count, 0);
  lua_createtable(L, (int)count, 0);
  for (i = 0; i < count; ++i) {
    uint64_t key = 0;
    raise_status(L, quadrant_tree_value(t->tree, hs[i], &key));
    lua_geti(L, -3, (lua_Integer)key);
    lua_seti(L, -3, (lua_Integer)(i + 1));
    lua_pushnumber(L, dist[i]);
    lua_seti(L, -2, (lua_Integer)(i + 1));
  }
  return 2;
}

static int l_stats(lua_State* L) {
  LTree* t = check_tree(L, 1);
  quadrant_stats s;
  raise_status(L, quadrant_tree_stats(t->tree, &s));
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)s.nodes), lua_setfield(L, -2, "nodes");
  lua_pushinteger(L, (lua_Integer)s.leaves), lua_setfield(L, -2, "leaves");
  lua_pushinteger(L, (lua_Integer)s.depth), lua_setfield(L, -2, "depth");
  lua_pushinteger(L, (lua_Integer)s.objects), lua_setfield(L, -2, "objects");
  lua_pushinteger(L, (lua_Integer)s.bytes), lua_setfield(L, -2, "bytes");
  return 1;
}

static int l_validate(lua_State* L) {
  LTree* t = check_tree(L, 1);
  raise_status(L, quadrant_tree_validate(t->tree));
  return 0;
}

static const luaL_Reg tree_methods[] = {
    {"insert", l_insert},
    {"erase", l_erase},
    {"move", l_move},
    {"set_layers", l_set_layers},
    {"contains", l_contains},
    {"size", l_size},
    {"bounds", l_bounds},
    {"value", l_value},
    {"clear", l_clear},
    {"query_box", l_query_box},
    {"query_point", l_query_point},
    {"query_circle", l_query_ball},
    {"query_sphere", l_query_ball},
    {"query_ring", l_query_ring},
    {"query_ellipse", l_query_ellipse},
    {"query_sector", l_query_sector},
    {"query_oriented_box", l_query_oriented_box},
    {"query_polygon", l_query_polygon},
    {"query_segment", l_query_segment},
    {"pairs", l_pairs},
    {"nearest", l_nearest},
    {"stats", l_stats},
    {"validate", l_validate},
    {"destroy", l_destroy},
    {NULL, NULL}};

int luaopen_quadrant(lua_State* L);
int luaopen_quadrant(lua_State* L) {
  static const luaL_Reg functions[] = {{"new", l_new}, {NULL, NULL}};
  luaL_newmetatable(L, TREE_META);
  luaL_newlib(L, tree_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_destroy);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, l_destroy);
  lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, l_size);
  lua_setfield(L, -2, "__len");
  lua_pop(L, 1);
  luaL_newlib(L, functions);
  lua_pushstring(L, quadrant_version());
  lua_setfield(L, -2, "version");
  return 1;
}
