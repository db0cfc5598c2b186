/* SPDX-License-Identifier: MIT */
/* The Lua module `quadrant` (Lua 5.1, 5.3, 5.4, LuaJIT 2.1) over the C API: `local quadrant = require "quadrant"`.
 * A tree is a full userdata with methods; boxes are arrays {minx, miny, maxx, maxy} (2D) or
 * {minx, miny, minz, maxx, maxy, maxz} (3D); values are any Lua values, kept in a table beside the tree (the C tree
 * stores a key into it) and released on erase and clear. Library errors are raised as Lua errors with the library's
 * message.
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

/* ---- compatibility: Lua 5.1, LuaJIT 2.1 (LUA_VERSION_NUM 501), 5.3 (503) and 5.4 (504) ----
 * The module is written against 5.4; below, the few calls the older versions lack. Every helper has a ql_ name of
 * its own (LuaJIT 2.1 already has some 5.2 calls, which must not be defined twice).
 *
 * Integers: 5.3 and 5.4 have 64-bit integers; 5.1 and LuaJIT have only doubles, exact up to 2^53. There,
 * ql_checkinteger refuses a number with a fraction (as 5.3's luaL_checkinteger does, where 5.1's truncates), and
 * handles are numbers below 2^53 (see push_handle). */
#if LUA_VERSION_NUM < 503
#define QL_INTEGERS 0 /* numbers are doubles */
#else
#define QL_INTEGERS 1
#endif
#ifndef LUA_OK
#define LUA_OK 0
#endif

#if LUA_VERSION_NUM >= 504
#define ql_newuserdata(L, size, nuv) lua_newuserdatauv(L, size, nuv)
#define ql_getuservalue(L, at) ((void)lua_getiuservalue(L, at, 1))
#define ql_setuservalue(L, at) ((void)lua_setiuservalue(L, at, 1))
#elif LUA_VERSION_NUM == 503
#define ql_newuserdata(L, size, nuv) lua_newuserdata(L, size)
#define ql_getuservalue(L, at) ((void)lua_getuservalue(L, at))
#define ql_setuservalue(L, at) lua_setuservalue(L, at)
#else /* 5.1, LuaJIT: a userdata's environment table holds what 5.4 keeps in its user value */
#define ql_newuserdata(L, size, nuv) lua_newuserdata(L, size)
#define ql_getuservalue(L, at) lua_getfenv(L, at)
#define ql_setuservalue(L, at) ((void)lua_setfenv(L, at))
#endif

#if LUA_VERSION_NUM >= 503
#define ql_geti(L, at, i) ((void)lua_geti(L, at, i))
#define ql_seti(L, at, i) lua_seti(L, at, i)
#define ql_tonumberx(L, at, isnum) lua_tonumberx(L, at, isnum)
#define ql_setfuncs(L, funcs) luaL_setfuncs(L, funcs, 0)
#define ql_newlib(L, funcs) luaL_newlib(L, funcs)
#define ql_setmetatable(L, name) luaL_setmetatable(L, name)
#define ql_tolstring(L, at) luaL_tolstring(L, at, NULL)
#define ql_len(L, at) luaL_len(L, at)
#define ql_checkinteger(L, at) luaL_checkinteger(L, at)
#define ql_optinteger(L, at, def) luaL_optinteger(L, at, def)
#define QL_INT_FMT "%I"
#define QL_INT_ARG(v) ((LUAI_UACINT)(v))
#else
static int ql_absindex(lua_State* L, int at) { return at > 0 || at <= LUA_REGISTRYINDEX ? at : lua_gettop(L) + at + 1; }
/* t[i] with t at `at`; i as a number (exact below 2^53), so keys beyond an int work too. */
static void ql_geti(lua_State* L, int at, lua_Integer i) {
  at = ql_absindex(L, at);
  lua_pushnumber(L, (lua_Number)i);
  lua_gettable(L, at);
}
static void ql_seti(lua_State* L, int at, lua_Integer i) { /* t[i] = the value on top, popped */
  at = ql_absindex(L, at);
  lua_pushnumber(L, (lua_Number)i);
  lua_insert(L, -2);
  lua_settable(L, at);
}
static lua_Number ql_tonumberx(lua_State* L, int at, int* isnum) {
  *isnum = lua_isnumber(L, at);
  return *isnum ? lua_tonumber(L, at) : 0;
}
static void ql_setfuncs(lua_State* L, const luaL_Reg* funcs) {
  for (; funcs->name != NULL; ++funcs) {
    lua_pushcfunction(L, funcs->func);
    lua_setfield(L, -2, funcs->name);
  }
}
#define ql_newlib(L, funcs) (lua_newtable(L), ql_setfuncs(L, funcs))
static void ql_setmetatable(lua_State* L, const char* name) {
  luaL_getmetatable(L, name);
  lua_setmetatable(L, -2);
}
/* Enough of 5.2's luaL_tolstring for messages: strings and numbers as themselves, else the type's name. */
static const char* ql_tolstring(lua_State* L, int at) {
  const int type = lua_type(L, at);
  if (type == LUA_TSTRING || type == LUA_TNUMBER) {
    lua_pushvalue(L, at);
    return lua_tostring(L, -1);
  }
  if (type == LUA_TBOOLEAN) return lua_pushstring(L, lua_toboolean(L, at) ? "true" : "false"), lua_tostring(L, -1);
  return lua_pushfstring(L, "%s: %p", luaL_typename(L, at), lua_topointer(L, at));
}
#define ql_len(L, at) ((lua_Integer)lua_objlen(L, at))
/* 5.3's luaL_checkinteger over doubles: a number with a fraction, or beyond +-2^63, is an error, not truncated. */
static lua_Integer ql_checkinteger(lua_State* L, int at) {
  const lua_Number v = luaL_checknumber(L, at);
  if (floor(v) != v || !(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
    luaL_argerror(L, at, "number has no integer representation");
  return (lua_Integer)v;
}
static lua_Integer ql_optinteger(lua_State* L, int at, lua_Integer def) {
  return lua_isnoneornil(L, at) ? def : ql_checkinteger(L, at);
}
#define QL_INT_FMT "%f" /* 5.1's lua_pushfstring has no %I; its %f prints a whole number without a fraction */
#define QL_INT_ARG(v) ((lua_Number)(v))
#endif

#define TREE_META "quadrant.Tree"

typedef struct {
  quadrant_tree* tree;
  int dims;
  lua_Integer next_key; /* the C value of the next object: a key into the values table */
  /* Scratch for query results, reused (grown as needed). */
  quadrant_handle* handles;
  uint64_t* keys;
  size_t capacity;
  int delivering; /* query functions running now: a nested query gets its own scratch, destroy is refused */
#if !QL_INTEGERS
  quadrant_handle* slots; /* each slot's latest C handle, indexed by slot (the handle's low 32 bits - 1) */
  size_t slot_count;      /* the table's size */
  size_t slots_used;      /* 1 + the highest slot seen */
#endif
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
    ql_geti(L, at, i + 1);
    out[i] = (double)ql_tonumberx(L, -1, &isnum);
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
    ql_seti(L, -2, i + 1);
    lua_pushnumber(L, max[i]);
    ql_seti(L, -2, dims + i + 1);
  }
}
/* A layer mask: 32 bits (0 .. 0xffffffff), or -1 for every layer. */
static uint32_t check_layers(lua_State* L, int at) {
  const lua_Integer v = ql_checkinteger(L, at);
  if (v < -1 || v > (lua_Integer)0xffffffffu)
    luaL_error(L, "quadrant: layer mask " QL_INT_FMT " is outside 32 bits (0 .. 0xffffffff, or -1 for every layer)",
               QL_INT_ARG(v));
  return (uint32_t)(v & 0xffffffff);
}
static uint32_t opt_layers(lua_State* L, int at) { return lua_isnoneornil(L, at) ? 0xffffffffu : check_layers(L, at); }

/* Raises for a key of the settings table at `at` that is not in `known` (a misspelt key would otherwise be
 * ignored and its setting silently lost). */
static void check_keys(lua_State* L, int at, const char* const* known, const char* what) {
  lua_pushnil(L);
  while (lua_next(L, at) != 0) {
    int i, ok = 0;
    if (lua_type(L, -2) == LUA_TSTRING)
      for (i = 0; known[i] != NULL && !ok; ++i) ok = strcmp(lua_tostring(L, -2), known[i]) == 0;
    if (!ok) {
      lua_pop(L, 1);
      luaL_error(L, "quadrant: %s{...}: unknown key %s", what, ql_tolstring(L, -1));
    }
    lua_pop(L, 1);
  }
}

/* The tree's values table (its user value) onto the stack. */
static void push_values(lua_State* L, int tree_at) { ql_getuservalue(L, tree_at); }

/* Handles. Lua 5.3 and 5.4: the C handle itself, a 64-bit integer. Lua 5.1 and LuaJIT, whose numbers are doubles:
 * a number below 2^53, exact: the C handle's low 53 bits, that is the slot + 1 (low 32 bits) and the low 21 bits of
 * the slot's generation plus the tree's key. The tree keeps each slot's latest C handle to give the library back.
 * As in the JavaScript binding, a handle kept while its slot is reused 2^21 times would name the new object, and
 * another tree's handle is told apart by 21 bits of its key, not 32. */
#define QL_HANDLE_BITS ((((uint64_t)1) << 53) - 1)
static void push_handle(lua_State* L, quadrant_handle h) {
#if QL_INTEGERS
  lua_pushinteger(L, (lua_Integer)h);
#else
  lua_pushnumber(L, (lua_Number)(h & QL_HANDLE_BITS));
#endif
}
#if !QL_INTEGERS
/* The C handle for the Lua handle `bits`: the slot's latest when its low 53 bits match, else bits itself (which
 * names no object then: the library refuses it as stale or foreign). */
static quadrant_handle full_handle(const LTree* t, uint64_t bits) {
  const uint64_t slot = (bits & 0xffffffffu) - 1;
  if ((bits & 0xffffffffu) != 0 && slot < t->slot_count && (t->slots[slot] & QL_HANDLE_BITS) == bits)
    return t->slots[slot];
  return bits;
}
/* Grows the slot table to hold n slots (new ones name nothing). */
static int reserve_slots(LTree* t, size_t n) {
  quadrant_handle* slots;
  size_t want = t->slot_count > 0 ? t->slot_count : 16;
  if (n <= t->slot_count) return 1;
  while (want < n) want *= 2;
  slots = (quadrant_handle*)realloc(t->slots, want * sizeof *slots);
  if (slots == NULL) return 0;
  memset(slots + t->slot_count, 0, (want - t->slot_count) * sizeof *slots);
  t->slots = slots;
  t->slot_count = want;
  return 1;
}
#endif
/* The handle a Lua value names, or 0 (no object) for a value that is no handle. */
static quadrant_handle to_handle(lua_State* L, const LTree* t, int at) {
#if QL_INTEGERS
  (void)t;
  return lua_isinteger(L, at) ? (quadrant_handle)lua_tointeger(L, at) : 0;
#else
  const lua_Number v = lua_type(L, at) == LUA_TNUMBER ? lua_tonumber(L, at) : 0;
  if (!(v >= 1 && v <= (lua_Number)QL_HANDLE_BITS) || floor(v) != v) return 0;
  return full_handle(t, (uint64_t)v);
#endif
}
static quadrant_handle check_handle(lua_State* L, const LTree* t, int at) {
#if QL_INTEGERS
  (void)t;
  return (quadrant_handle)ql_checkinteger(L, at);
#else
  const lua_Integer v = ql_checkinteger(L, at);
  return v >= 1 && (uint64_t)v <= QL_HANDLE_BITS ? full_handle(t, (uint64_t)v) : (quadrant_handle)v;
#endif
}

/* Runs the query into the tree's scratch, growing it until everything fits; returns the count. Inside a query
 * function of the same tree (t->delivering), whose loop still reads the scratch, the results go to a buffer of
 * their own instead, left on the stack (freed by the GC, also when a Lua error ends the query). */
static size_t run_query(lua_State* L, LTree* t, const quadrant_shape* shape, uint32_t layers,
                        quadrant_handle** handles, uint64_t** keys) {
  size_t count = 0;
  if (t->delivering > 0) {
    raise_status(L, quadrant_tree_query_into(t->tree, shape, layers, NULL, NULL, 0, &count));
    *handles = (quadrant_handle*)ql_newuserdata(L, (count > 0 ? count : 1) * sizeof **handles, 0);
    *keys = (uint64_t*)ql_newuserdata(L, (count > 0 ? count : 1) * sizeof **keys, 0);
    raise_status(L, quadrant_tree_query_into(t->tree, shape, layers, *handles, *keys, count, &count));
    return count;
  }
  for (;;) {
    raise_status(L, quadrant_tree_query_into(t->tree, shape, layers, t->handles, t->keys, t->capacity, &count));
    if (count <= t->capacity) break;
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
  *handles = t->handles;
  *keys = t->keys;
  return count;
}

/* The results of the query just run: an array of values, or, with a function at fn_at, fn(value, handle) for each
 * (stopping when it returns false); returns the number of Lua results. Each call is protected, so that an error in
 * fn (raised again here) cannot leave the tree marked as delivering; a yield from fn is refused by Lua ("attempt
 * to yield across a C-call boundary"). */
static int deliver(lua_State* L, LTree* t, size_t count, int fn_at, const quadrant_handle* handles,
                   const uint64_t* keys) {
  size_t i;
  push_values(L, 1);
  if (fn_at != 0) {
    ++t->delivering;
    for (i = 0; i < count; ++i) {
      lua_pushvalue(L, fn_at);
      ql_geti(L, -2, (lua_Integer)keys[i]);
      push_handle(L, handles[i]);
      if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        --t->delivering;
        return lua_error(L);
      }
      if (lua_isboolean(L, -1) && !lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      lua_pop(L, 1);
    }
    --t->delivering;
    lua_pop(L, 1);
    lua_pushinteger(L, (lua_Integer)count);
    return 1;
  }
  lua_createtable(L, (int)count, 0);
  for (i = 0; i < count; ++i) {
    ql_geti(L, -2, (lua_Integer)keys[i]);
    ql_seti(L, -2, (lua_Integer)(i + 1));
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
  quadrant_handle* handles;
  uint64_t* keys;
  const size_t count = run_query(L, t, shape, layers, &handles, &keys);
  return deliver(L, t, count, fn, handles, keys);
}

/* ---- the module ---- */

/* The settings table's fields (the table is argument 1): a key's value, or `def` when it is absent. */
static lua_Integer field_integer(lua_State* L, const char* key, lua_Integer def) {
  lua_Integer v;
  lua_getfield(L, 1, key);
  v = ql_optinteger(L, -1, def);
  lua_pop(L, 1);
  return v;
}
static double field_number(lua_State* L, const char* key, double def) {
  double v;
  lua_getfield(L, 1, key);
  v = (double)luaL_optnumber(L, -1, def);
  lua_pop(L, 1);
  return v;
}
/* The `scalar` field: "float" or "double", `fallback` when absent (trees: double; worlds: float, as in C++). */
static quadrant_scalar field_scalar(lua_State* L, const char* fallback) {
  const char* scalar;
  int is_float;
  lua_getfield(L, 1, "scalar");
  scalar = luaL_optstring(L, -1, fallback);
  is_float = strcmp(scalar, "float") == 0;
  if (!is_float && strcmp(scalar, "double") != 0)
    luaL_error(L, "quadrant: scalar is \"%s\", not \"float\" or \"double\"", scalar);
  lua_pop(L, 1);
  return is_float ? QUADRANT_FLOAT : QUADRANT_DOUBLE;
}
/* The `world` field: a box of `dims` dimensions; `what` names the constructor in the message. */
static void field_world(lua_State* L, int dims, double* min, double* max, const char* what) {
  lua_getfield(L, 1, "world");
  if (lua_isnil(L, -1))
    luaL_error(L, "quadrant: %s{...} needs world = {minx, miny, %smaxx, maxy%s}", what, dims == 3 ? "minz, " : "",
               dims == 3 ? ", maxz" : "");
  read_box(L, lua_gettop(L), dims, min, max);
  lua_pop(L, 1);
}

static int l_new(lua_State* L) {
  quadrant_config config;
  LTree* t;
  int dims = 2;
  const char* placement;
  static const char* const keys[] = {"dims", "scalar", "world", "max_depth", "split_threshold", "min_node_size",
                                     "placement", NULL};
  luaL_checktype(L, 1, LUA_TTABLE);
  check_keys(L, 1, keys, "new");
  dims = (int)field_integer(L, "dims", 2);
  if (dims != 2 && dims != 3) return luaL_error(L, "quadrant: dims is %d, not 2 or 3", dims);
  quadrant_config_init(&config, dims, field_scalar(L, "double"));
  field_world(L, dims, config.world_min, config.world_max, "new");
  config.max_depth = (int)field_integer(L, "max_depth", config.max_depth);
  config.split_threshold = (int)field_integer(L, "split_threshold", config.split_threshold);
  config.min_node_size = field_number(L, "min_node_size", 0);
  lua_getfield(L, 1, "placement");
  placement = luaL_optstring(L, -1, "loose");
  lua_pop(L, 1);
  if (strcmp(placement, "loose") == 0) config.placement = QUADRANT_LOOSE;
  else if (strcmp(placement, "parent") == 0) config.placement = QUADRANT_PARENT;
  else if (strcmp(placement, "leaves") == 0) config.placement = QUADRANT_LEAVES;
  else return luaL_error(L, "quadrant: placement is \"%s\", not \"loose\", \"parent\" or \"leaves\"", placement);

  t = (LTree*)ql_newuserdata(L, sizeof(LTree), 1);
  memset(t, 0, sizeof *t);
  t->dims = dims;
  t->next_key = 1;
  ql_setmetatable(L, TREE_META);
  lua_newtable(L);
  ql_setuservalue(L, -2);
  raise_status(L, quadrant_tree_create(&config, &t->tree));
  return 1;
}

static int l_destroy(lua_State* L) {
  LTree* t = (LTree*)luaL_checkudata(L, 1, TREE_META);
  /* The query function's loop still reads the tree's scratch and values. */
  if (t->delivering > 0)
    return luaL_error(L, "quadrant: destroy: called from inside a query function of the same tree; destroy it "
                         "once the query has returned");
  quadrant_tree_destroy(t->tree);
  t->tree = NULL;
  free(t->handles);
  free(t->keys);
  t->handles = NULL, t->keys = NULL, t->capacity = 0;
#if !QL_INTEGERS
  free(t->slots);
  t->slots = NULL, t->slot_count = 0, t->slots_used = 0;
#endif
  lua_newtable(L); /* the values go */
  ql_setuservalue(L, 1);
  return 0;
}

static int l_insert(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double min[3], max[3];
  quadrant_handle h = 0;
  const lua_Integer key = t->next_key;
  const uint32_t layers = opt_layers(L, 4);
  read_box(L, 2, t->dims, min, max);
  luaL_checkany(L, 3);
#if !QL_INTEGERS
  /* A new object's slot is a free one or the next after the last: room for it before the library is called. */
  if (!reserve_slots(t, t->slots_used + 1)) return luaL_error(L, "quadrant: out of memory");
#endif
  raise_status(L, quadrant_tree_insert(t->tree, min, max, (uint64_t)key, layers, &h));
#if !QL_INTEGERS
  if (!reserve_slots(t, (size_t)(h & 0xffffffffu))) {
    quadrant_tree_erase(t->tree, h);
    return luaL_error(L, "quadrant: out of memory");
  }
  t->slots[(h & 0xffffffffu) - 1] = h;
  if ((size_t)(h & 0xffffffffu) > t->slots_used) t->slots_used = (size_t)(h & 0xffffffffu);
#endif
  ++t->next_key;
  push_values(L, 1);
  lua_pushvalue(L, 3);
  ql_seti(L, -2, key);
  push_handle(L, h);
  return 1;
}

static int l_erase(lua_State* L) {
  LTree* t = check_tree(L, 1);
  const quadrant_handle h = check_handle(L, t, 2);
  uint64_t key = 0;
  if (!quadrant_tree_contains(t->tree, h))
    return luaL_error(L, "quadrant: erase: the handle names no object of this tree (stale or foreign)");
  raise_status(L, quadrant_tree_value(t->tree, h, &key));
  raise_status(L, quadrant_tree_erase(t->tree, h));
  push_values(L, 1);
  lua_pushnil(L);
  ql_seti(L, -2, (lua_Integer)key);
  return 0;
}

static int l_move(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double min[3], max[3];
  const quadrant_handle h = check_handle(L, t, 2);
  read_box(L, 3, t->dims, min, max);
  raise_status(L, quadrant_tree_move(t->tree, h, min, max));
  return 0;
}

static int l_set_layers(lua_State* L) {
  LTree* t = check_tree(L, 1);
  raise_status(L, quadrant_tree_set_layers(t->tree, check_handle(L, t, 2), check_layers(L, 3)));
  return 0;
}

static int l_contains(lua_State* L) {
  LTree* t = check_tree(L, 1);
  lua_pushboolean(L, quadrant_tree_contains(t->tree, to_handle(L, t, 2)));
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
  raise_status(L, quadrant_tree_bounds(t->tree, check_handle(L, t, 2), min, max));
  push_box(L, t->dims, min, max);
  return 1;
}

static int l_value(lua_State* L) {
  LTree* t = check_tree(L, 1);
  uint64_t key = 0;
  raise_status(L, quadrant_tree_value(t->tree, check_handle(L, t, 2), &key));
  push_values(L, 1);
  ql_geti(L, -1, (lua_Integer)key);
  return 1;
}

static int l_clear(lua_State* L) {
  LTree* t = check_tree(L, 1);
  raise_status(L, quadrant_tree_clear(t->tree));
  lua_newtable(L);
  ql_setuservalue(L, 1);
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
  const lua_Integer n = ql_len(L, 2);
  double* xy;
  quadrant_shape s;
  size_t count;
  uint32_t layers;
  int fn;
  quadrant_handle* handles;
  uint64_t* keys;
  if (n % 2 != 0) return luaL_error(L, "quadrant: a polygon needs x, y pairs (%d numbers given)", (int)n);
  fn = query_tail(L, 3, &layers); /* before the buffer goes on the stack */
  xy = (double*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * sizeof(double), 0); /* freed by the GC */
  read_numbers(L, 2, xy, (int)n, "a polygon");
  s = quadrant_shape_polygon(xy, (size_t)(n / 2));
  count = run_query(L, t, &s, layers, &handles, &keys);
  return deliver(L, t, count, fn, handles, keys);
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
      ql_geti(L, -3, (lua_Integer)key);
      ql_seti(L, -2, j + 1);
    }
    ql_seti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}

/* nearest(point, k[, max_distance[, layers]]) -> values, distances */
static int l_nearest(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double p[3];
  lua_Integer k = ql_checkinteger(L, 3);
  const double max_distance = (double)luaL_optnumber(L, 4, HUGE_VAL);
  const uint32_t layers = opt_layers(L, 5);
  quadrant_handle* hs;
  double* dist;
  size_t count = 0, i;
  read_numbers(L, 2, p, t->dims, "a point");
  if (k < 0) return luaL_error(L, "quadrant: nearest: k is negative");
  /* No more results than objects: the buffers are sized by what the tree holds, not by what was asked. */
  if ((size_t)k > quadrant_tree_size(t->tree)) k = (lua_Integer)quadrant_tree_size(t->tree);
  hs = (quadrant_handle*)ql_newuserdata(L, (size_t)(k > 0 ? k : 1) * sizeof *hs, 0);
  dist = (double*)ql_newuserdata(L, (size_t)(k > 0 ? k : 1) * sizeof *dist, 0);
  raise_status(L, quadrant_tree_nearest(t->tree, p, (size_t)k, max_distance, layers, hs, dist, &count));
  push_values(L, 1);
  lua_createtable(L, (int)count, 0);
  lua_createtable(L, (int)count, 0);
  for (i = 0; i < count; ++i) {
    uint64_t key = 0;
    raise_status(L, quadrant_tree_value(t->tree, hs[i], &key));
    ql_geti(L, -3, (lua_Integer)key);
    ql_seti(L, -3, (lua_Integer)(i + 1));
    lua_pushnumber(L, dist[i]);
    ql_seti(L, -2, (lua_Integer)(i + 1));
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

/* ---- area of interest: quadrant.aoi{...} ---- */

#define AOI_META "quadrant.Aoi"

typedef struct {
  quadrant_aoi* aoi;
  uint64_t* ids; /* scratch for visible / watchers / queries, grown as needed */
  size_t capacity;
} LAoi;

static LAoi* check_aoi(lua_State* L, int at) {
  LAoi* a = (LAoi*)luaL_checkudata(L, at, AOI_META);
  if (a->aoi == NULL) luaL_error(L, "quadrant: the aoi world was destroyed");
  return a;
}
/* An id: a non-negative integer (the library orders ids as unsigned 64-bit values). */
static uint64_t check_id(lua_State* L, int at) {
  const lua_Integer id = ql_checkinteger(L, at);
  if (id < 0) luaL_error(L, "quadrant: aoi: id " QL_INT_FMT " is negative (ids are integers >= 0)", QL_INT_ARG(id));
  return (uint64_t)id;
}

/* quadrant.aoi{world = {minx, miny, maxx, maxy}, hysteresis = 0, skin = 0, scalar = "float", max_depth = 8,
 * split_threshold = 16} */
static int l_aoi_new(lua_State* L) {
  quadrant_aoi_settings settings;
  LAoi* a;
  static const char* const keys[] = {"world", "hysteresis", "skin", "scalar", "max_depth", "split_threshold", NULL};
  luaL_checktype(L, 1, LUA_TTABLE);
  check_keys(L, 1, keys, "aoi");
  quadrant_aoi_settings_init(&settings, field_scalar(L, "float"));
  field_world(L, 2, settings.world_min, settings.world_max, "aoi");
  settings.hysteresis = field_number(L, "hysteresis", settings.hysteresis);
  settings.skin = field_number(L, "skin", settings.skin);
  settings.max_depth = (int)field_integer(L, "max_depth", settings.max_depth);
  settings.split_threshold = (int)field_integer(L, "split_threshold", settings.split_threshold);
  a = (LAoi*)ql_newuserdata(L, sizeof(LAoi), 0);
  memset(a, 0, sizeof *a);
  ql_setmetatable(L, AOI_META);
  raise_status(L, quadrant_aoi_create(&settings, &a->aoi));
  return 1;
}
static int l_aoi_destroy(lua_State* L) {
  LAoi* a = (LAoi*)luaL_checkudata(L, 1, AOI_META);
  quadrant_aoi_destroy(a->aoi);
  a->aoi = NULL;
  free(a->ids);
  a->ids = NULL;
  a->capacity = 0;
  return 0;
}

/* add(id, x, y, view_radius [, mode = "both" | "watcher" | "marker" [, layers [, body_radius]]]) */
static int l_aoi_add(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  static const char* const modes[] = {"watcher", "marker", "both", NULL};
  const int mode = luaL_checkoption(L, 6, "both", modes) + 1;
  raise_status(L, quadrant_aoi_add(a->aoi, check_id(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                   luaL_checknumber(L, 5), (quadrant_aoi_mode)mode, opt_layers(L, 7),
                                   luaL_optnumber(L, 8, 0)));
  return 0;
}
static int l_aoi_move(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  raise_status(L, quadrant_aoi_move(a->aoi, check_id(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4)));
  return 0;
}
static int l_aoi_set_view_radius(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  raise_status(L, quadrant_aoi_set_view_radius(a->aoi, check_id(L, 2), luaL_checknumber(L, 3)));
  return 0;
}
static int l_aoi_set_layers(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  raise_status(L, quadrant_aoi_set_layers(a->aoi, check_id(L, 2), check_layers(L, 3)));
  return 0;
}
static int l_aoi_remove(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  raise_status(L, quadrant_aoi_remove(a->aoi, check_id(L, 2)));
  return 0;
}

/* tick() -> array of {kind = "enter" | "leave", watcher = id, target = id}; tick(fn) calls fn(kind, watcher,
 * target) for each instead (no table per event) and returns the count. Ordered by (watcher, target). The events
 * are copied out before any Lua runs, so fn may mutate the world (recorded for the next tick). */
static int l_aoi_tick(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  const quadrant_aoi_event* events;
  size_t count, i;
  const int fn = lua_isnoneornil(L, 2) ? 0 : 2;
  quadrant_aoi_event* copy;
  if (fn != 0) luaL_checktype(L, 2, LUA_TFUNCTION);
  raise_status(L, quadrant_aoi_tick(a->aoi, &events, &count));
  /* A callback may tick again (refused by nothing here: the C array would be overwritten), so keep a copy. */
  copy = (quadrant_aoi_event*)ql_newuserdata(L, (count > 0 ? count : 1) * sizeof *copy, 0);
  if (count > 0) memcpy(copy, events, count * sizeof *copy);
  if (fn == 0) lua_createtable(L, count > INT32_MAX ? INT32_MAX : (int)count, 0);
  for (i = 0; i < count; ++i) {
    const char* kind = copy[i].kind == QUADRANT_AOI_ENTER ? "enter" : "leave";
    if (fn != 0) {
      lua_pushvalue(L, fn);
      lua_pushstring(L, kind);
      lua_pushinteger(L, (lua_Integer)copy[i].watcher);
      lua_pushinteger(L, (lua_Integer)copy[i].target);
      lua_call(L, 3, 0);
    } else {
      lua_createtable(L, 0, 3);
      lua_pushstring(L, kind);
      lua_setfield(L, -2, "kind");
      lua_pushinteger(L, (lua_Integer)copy[i].watcher);
      lua_setfield(L, -2, "watcher");
      lua_pushinteger(L, (lua_Integer)copy[i].target);
      lua_setfield(L, -2, "target");
      ql_seti(L, -2, (lua_Integer)i + 1);
    }
  }
  if (fn != 0) lua_pushinteger(L, (lua_Integer)count);
  return 1;
}

/* Grows the scratch to hold n ids. */
static void aoi_reserve(lua_State* L, LAoi* a, size_t n) {
  uint64_t* ids;
  if (n <= a->capacity) return;
  ids = (uint64_t*)realloc(a->ids, n * sizeof *ids);
  if (ids == NULL) luaL_error(L, "quadrant: out of memory");
  a->ids = ids;
  a->capacity = n;
}
/* The ids just read into the scratch as a Lua array. */
static int push_ids(lua_State* L, const uint64_t* ids, size_t n) {
  size_t i;
  lua_createtable(L, n > INT32_MAX ? INT32_MAX : (int)n, 0);
  for (i = 0; i < n; ++i) {
    lua_pushinteger(L, (lua_Integer)ids[i]);
    ql_seti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}
typedef quadrant_status (*IdReader)(const quadrant_aoi*, uint64_t, uint64_t*, size_t, size_t*);
static int read_ids(lua_State* L, IdReader read) {
  LAoi* a = check_aoi(L, 1);
  const uint64_t id = check_id(L, 2);
  size_t count = 0;
  for (;;) {
    raise_status(L, read(a->aoi, id, a->ids, a->capacity, &count));
    if (count <= a->capacity) return push_ids(L, a->ids, count);
    aoi_reserve(L, a, 2 * count);
  }
}
/* visible(id) -> the ids it saw at the last tick, ascending; watchers(id) -> the ids that saw it. */
static int l_aoi_visible(lua_State* L) { return read_ids(L, quadrant_aoi_visible); }
static int l_aoi_watchers(lua_State* L) { return read_ids(L, quadrant_aoi_watchers); }

static int aoi_query(lua_State* L, LAoi* a, const quadrant_shape* shape, int layers_at) {
  const uint32_t layers = opt_layers(L, layers_at);
  size_t count = 0;
  for (;;) {
    raise_status(L, quadrant_aoi_query_into(a->aoi, shape, layers, a->ids, a->capacity, &count));
    if (count <= a->capacity) return push_ids(L, a->ids, count);
    aoi_reserve(L, a, 2 * count);
  }
}
/* Skill areas: the ids whose body boxes the shape touches, ascending. query_circle(x, y, r [, layers]),
 * query_box({minx, miny, maxx, maxy} [, layers]), query_sector(x, y, dx, dy, r, half_angle [, layers]),
 * query_oriented_box(x, y, hx, hy, angle [, layers]). */
static int l_aoi_query_circle(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  const double c[2] = {luaL_checknumber(L, 2), luaL_checknumber(L, 3)};
  const quadrant_shape s = quadrant_shape_ball(2, c, luaL_checknumber(L, 4));
  return aoi_query(L, a, &s, 5);
}
static int l_aoi_query_box(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  double min[2], max[2];
  quadrant_shape s;
  read_box(L, 2, 2, min, max);
  s = quadrant_shape_box(2, min, max);
  return aoi_query(L, a, &s, 3);
}
static int l_aoi_query_sector(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  const quadrant_shape s = quadrant_shape_sector(luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                                 luaL_checknumber(L, 5), luaL_checknumber(L, 6), luaL_checknumber(L, 7));
  return aoi_query(L, a, &s, 8);
}
static int l_aoi_query_oriented_box(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  const quadrant_shape s = quadrant_shape_oriented_box(luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                                                       luaL_checknumber(L, 4), luaL_checknumber(L, 5),
                                                       luaL_checknumber(L, 6));
  return aoi_query(L, a, &s, 7);
}
static int l_aoi_contains(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  lua_pushboolean(L, quadrant_aoi_contains(a->aoi, check_id(L, 2)));
  return 1;
}
static int l_aoi_size(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  lua_pushinteger(L, (lua_Integer)quadrant_aoi_size(a->aoi));
  return 1;
}
static int l_aoi_pair_count(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  lua_pushinteger(L, (lua_Integer)quadrant_aoi_pair_count(a->aoi));
  return 1;
}
/* position(id) -> x, y as of the last tick */
static int l_aoi_position(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  double xy[2];
  raise_status(L, quadrant_aoi_position(a->aoi, check_id(L, 2), xy));
  lua_pushnumber(L, xy[0]);
  lua_pushnumber(L, xy[1]);
  return 2;
}
static int l_aoi_validate(lua_State* L) {
  LAoi* a = check_aoi(L, 1);
  raise_status(L, quadrant_aoi_validate(a->aoi));
  return 0;
}

static const luaL_Reg aoi_methods[] = {
    {"add", l_aoi_add},
    {"move", l_aoi_move},
    {"set_view_radius", l_aoi_set_view_radius},
    {"set_layers", l_aoi_set_layers},
    {"remove", l_aoi_remove},
    {"tick", l_aoi_tick},
    {"visible", l_aoi_visible},
    {"watchers", l_aoi_watchers},
    {"query_circle", l_aoi_query_circle},
    {"query_box", l_aoi_query_box},
    {"query_sector", l_aoi_query_sector},
    {"query_oriented_box", l_aoi_query_oriented_box},
    {"contains", l_aoi_contains},
    {"size", l_aoi_size},
    {"pair_count", l_aoi_pair_count},
    {"position", l_aoi_position},
    {"validate", l_aoi_validate},
    {"destroy", l_aoi_destroy},
    {NULL, NULL}};

/* A metatable with methods, __gc, __close and __len. */
static void new_class(lua_State* L, const char* name, const luaL_Reg* methods, lua_CFunction destroy,
                      lua_CFunction len) {
  luaL_newmetatable(L, name);
  lua_newtable(L);
  ql_setfuncs(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, destroy);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, destroy);
  lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, len);
  lua_setfield(L, -2, "__len");
  lua_pop(L, 1);
}

int luaopen_quadrant(lua_State* L);
int luaopen_quadrant(lua_State* L) {
  static const luaL_Reg functions[] = {{"new", l_new}, {"aoi", l_aoi_new}, {NULL, NULL}};
  new_class(L, TREE_META, tree_methods, l_destroy, l_size);
  new_class(L, AOI_META, aoi_methods, l_aoi_destroy, l_aoi_size);
  ql_newlib(L, functions);
  lua_pushstring(L, quadrant_version());
  lua_setfield(L, -2, "version");
  return 1;
}
