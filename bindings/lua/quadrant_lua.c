/* SPDX-License-Identifier: MIT */
/* The Lua module `quadrant` (Lua 5.1, 5.3, 5.4, LuaJIT 2.1) over the C API: `local quadrant = require "quadrant"`.
 * A tree is a full userdata with methods; boxes are arrays {minx, miny, maxx, maxy} (2D) or
 * {minx, miny, minz, maxx, maxy, maxz} (3D); values are any Lua values, kept in a table beside the tree (the C tree
 * stores a key into it) and released on erase and clear. Library errors are raised as Lua errors with the library's
 * message.
 *
 * Queries never call Lua from inside the C walk: they collect the results first, then return them as an array, or
 * call the function given for each (a Lua error in it then cannot cut a C++ walk short). While such a function
 * runs, its tree (both trees of pairs_with; the world of tick) is busy: every call that would change it raises, as
 * the C API and C# refuse a change from inside a callback. */
#include <limits.h>
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
/* The module's own tables (values, results) have no metamethods: raw access, the fastest. */
#define ql_rawgeti(L, at, i) ((void)lua_rawgeti(L, at, i))
#define ql_seti(L, at, i) lua_rawseti(L, at, i)
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
/* The module's own tables (values, results) have no metamethods: raw access, with an int key where it fits (5.1's
 * lua_rawgeti and lua_rawseti take an int). */
static void ql_rawgeti(lua_State* L, int at, lua_Integer i) {
  if (i >= INT_MIN && i <= INT_MAX) {
    lua_rawgeti(L, at, (int)i);
    return;
  }
  at = ql_absindex(L, at);
  lua_pushnumber(L, (lua_Number)i);
  lua_rawget(L, at);
}
static void ql_seti(lua_State* L, int at, lua_Integer i) { /* t[i] = the value on top, popped (raw) */
  if (i >= INT_MIN && i <= INT_MAX) {
    lua_rawseti(L, at, (int)i);
    return;
  }
  at = ql_absindex(L, at);
  lua_pushnumber(L, (lua_Number)i);
  lua_insert(L, -2);
  lua_rawset(L, at);
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


/* luaL_testudata (5.2 on): the userdata at `at` when its metatable is the one registered as `name`, else NULL. */
static void* ql_testudata(lua_State* L, int at, const char* name) {
  void* p = lua_touserdata(L, at);
  if (p == NULL || !lua_getmetatable(L, at)) return NULL;
  luaL_getmetatable(L, name);
  if (!lua_rawequal(L, -1, -2)) p = NULL;
  lua_pop(L, 2);
  return p;
}

#define TREE_META "quadrant.Tree"

typedef struct {
  quadrant_tree* tree;
  int dims;
  lua_Integer next_key; /* the C value of the next object: a key into the values table */
  /* Scratch for query results, reused (grown as needed). */
  quadrant_handle* handles;
  uint64_t* keys;
  size_t capacity;
  int delivering; /* functions of the tree's running now: a nested query gets its own scratch, changes are refused */
  const char* busy_in; /* the method whose function runs innermost ("query", "pairs", ...), for the message */
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

/* The tree at `at` for a call that changes it (`what`): raises while a function of the tree's runs. */
static LTree* check_idle_tree(lua_State* L, int at, const char* what) {
  LTree* t = check_tree(L, at);
  if (t->delivering > 0)
    luaL_error(L, "quadrant: tree is busy: %s called from inside a %s function (make the change once %s has "
                  "returned)", what, t->busy_in, t->busy_in);
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

static int call_protected(lua_State* L, LTree* a, LTree* b, int fn_at, int n, const char* what);

/* The results of the query just run: an array of values, or, with a function at fn_at, fn(value, handle) for each
 * (stopping when it returns false); returns the number of Lua results. Each call is protected (call_protected), so
 * that an error in fn cannot leave the tree busy; a yield from fn is refused by Lua ("attempt to yield across a
 * C-call boundary"). */
static int deliver(lua_State* L, LTree* t, size_t count, int fn_at, const quadrant_handle* handles,
                   const uint64_t* keys) {
  size_t i;
  int values;
  push_values(L, 1);
  values = lua_gettop(L);
  if (fn_at != 0) {
    for (i = 0; i < count; ++i) {
      ql_rawgeti(L, values, (lua_Integer)keys[i]);
      push_handle(L, handles[i]);
      if (!call_protected(L, t, NULL, fn_at, 2, "query")) break;
    }
    lua_pushinteger(L, (lua_Integer)count);
    return 1;
  }
  lua_createtable(L, (int)count, 0);
  for (i = 0; i < count; ++i) {
    ql_rawgeti(L, values, (lua_Integer)keys[i]);
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
  /* The loop calling the function still reads the tree's scratch and values. */
  if (t->delivering > 0)
    return luaL_error(L, "quadrant: tree is busy: destroy called from inside a %s function (destroy it once %s has "
                         "returned)", t->busy_in, t->busy_in);
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
  LTree* t = check_idle_tree(L, 1, "insert");
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
  LTree* t = check_idle_tree(L, 1, "erase");
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
  LTree* t = check_idle_tree(L, 1, "move");
  double min[3], max[3];
  const quadrant_handle h = check_handle(L, t, 2);
  read_box(L, 3, t->dims, min, max);
  raise_status(L, quadrant_tree_move(t->tree, h, min, max));
  return 0;
}

static int l_set_layers(lua_State* L) {
  LTree* t = check_idle_tree(L, 1, "set_layers");
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
  ql_rawgeti(L, -1, (lua_Integer)key);
  return 1;
}

static int l_clear(lua_State* L) {
  LTree* t = check_idle_tree(L, 1, "clear");
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

/* ---- scratch, collected results and delivery to Lua functions ---- */

/* Room for n handles and n keys: the tree's scratch, grown as needed, or, inside a function of the tree's (whose
 * loop still reads the scratch), buffers of their own left on the stack (freed by the GC). */
static void scratch(lua_State* L, LTree* t, size_t n, quadrant_handle** handles, uint64_t** keys) {
  if (n == 0) n = 1;
  if (t->delivering > 0) {
    *handles = (quadrant_handle*)ql_newuserdata(L, n * sizeof **handles, 0);
    *keys = (uint64_t*)ql_newuserdata(L, n * sizeof **keys, 0);
    return;
  }
  if (n > t->capacity) {
    quadrant_handle* h = (quadrant_handle*)realloc(t->handles, n * sizeof *h);
    uint64_t* k;
    if (h == NULL) luaL_error(L, "quadrant: out of memory");
    t->handles = h;
    k = (uint64_t*)realloc(t->keys, n * sizeof *k);
    if (k == NULL) luaL_error(L, "quadrant: out of memory");
    t->keys = k;
    t->capacity = n;
  }
  *handles = t->handles;
  *keys = t->keys;
}

/* A growable array that C walks append to (no Lua runs inside a walk); collected_finish moves it into a userdata
 * on the stack, so that nothing leaks when Lua raises later. */
typedef struct {
  unsigned char* data;
  size_t item, count, cap;
  int out_of_memory;
} Collected;
static int collected_push(Collected* c, const void* item) {
  if (c->count == c->cap) {
    const size_t want = c->cap > 0 ? 2 * c->cap : 64;
    unsigned char* data = (unsigned char*)realloc(c->data, want * c->item);
    if (data == NULL) {
      c->out_of_memory = 1;
      return 0; /* stops the walk */
    }
    c->data = data;
    c->cap = want;
  }
  memcpy(c->data + c->count * c->item, item, c->item);
  ++c->count;
  return 1;
}
static void* collected_finish(lua_State* L, Collected* c, quadrant_status st) {
  void* out;
  if (st != QUADRANT_OK || c->out_of_memory) {
    free(c->data);
    if (c->out_of_memory) luaL_error(L, "quadrant: out of memory");
    raise_status(L, st);
  }
  out = ql_newuserdata(L, (c->count > 0 ? c->count : 1) * c->item, 0);
  if (c->count > 0) memcpy(out, c->data, c->count * c->item);
  free(c->data);
  return out;
}

/* Calls the function at fn_at with the n values on top of the stack (popped), protected, with the trees marked busy
 * in `what` (every change and destroy refused) for the call: an error in it, or a refused yield, is raised again
 * once the marks are gone. Returns 0 when the function returned false (stop), else 1. */
static int call_protected(lua_State* L, LTree* a, LTree* b, int fn_at, int n, const char* what) {
  int status, go_on;
  const char* const a_was = a->busy_in;
  const char* const b_was = b != NULL ? b->busy_in : NULL;
  lua_pushvalue(L, fn_at);
  lua_insert(L, -n - 1);
  ++a->delivering, a->busy_in = what;
  if (b != NULL) ++b->delivering, b->busy_in = what;
  status = lua_pcall(L, n, 1, 0);
  --a->delivering, a->busy_in = a_was;
  if (b != NULL) --b->delivering, b->busy_in = b_was;
  if (status != LUA_OK) lua_error(L);
  go_on = !(lua_isboolean(L, -1) && !lua_toboolean(L, -1));
  lua_pop(L, 1);
  return go_on;
}

/* The optional function argument at `at`: its index, or 0 when absent; anything else is an error. */
static int opt_function(lua_State* L, int at) {
  if (lua_isnoneornil(L, at)) return 0;
  luaL_checktype(L, at, LUA_TFUNCTION);
  return at;
}

/* ---- shapes as values: quadrant.box(...), quadrant.circle(x, y, r), ... ---- */

#define SHAPE_META "quadrant.Shape"
#define MATRIX_META "quadrant.LayerMatrix"

typedef struct {
  quadrant_shape shape;
  int dims;         /* the trees it fits: 2 or 3 */
  const char* name; /* "circle", ... */
  size_t n;         /* numbers in pts (polygon vertices' x, y; a frustum's matrix) */
  double pts[1];    /* n of them (at least room for one) */
} LShape;

static LShape* new_shape(lua_State* L, const char* name, int dims, size_t n) {
  LShape* s = (LShape*)ql_newuserdata(L, sizeof(LShape) + (n > 0 ? n - 1 : 0) * sizeof(double), 0);
  memset(s, 0, sizeof *s);
  s->name = name;
  s->dims = dims;
  s->n = n;
  ql_setmetatable(L, SHAPE_META);
  return s;
}
/* The shape at `at`, checked against a tree of `dims` dimensions (0: any); `what` names the call. */
static const quadrant_shape* check_shape(lua_State* L, int at, int dims, const char* what) {
  LShape* s = (LShape*)ql_testudata(L, at, SHAPE_META);
  if (s == NULL)
    luaL_error(L, "quadrant: %s: argument #%d is %s, not a shape (quadrant.box, quadrant.circle, ...)", what, at - 1,
               luaL_typename(L, at));
  if (dims != 0 && s->dims != dims)
    luaL_error(L, "quadrant: %s: a %dD %s given to a %dD tree", what, s->dims, s->name, dims);
  if (s->n > 0) s->shape.points = s->pts;
  return &s->shape;
}
/* n numbers from the arguments from `at` on, or from an array at `at`. */
static void read_args(lua_State* L, int at, double* out, int n, const char* what) {
  int i;
  if (lua_istable(L, at)) {
    read_numbers(L, at, out, n, what);
    return;
  }
  for (i = 0; i < n; ++i) out[i] = (double)luaL_checknumber(L, at + i);
}
/* box(minx, miny, maxx, maxy) or box{...}; 6 numbers for 3D */
static int shape_dims(lua_State* L, int per_dim, const char* what) {
  const lua_Integer n = lua_istable(L, 1) ? ql_len(L, 1) : lua_gettop(L);
  if (n != 2 * per_dim && n != 3 * per_dim)
    luaL_error(L, "quadrant: %s needs %d or %d numbers, not %d", what, 2 * per_dim, 3 * per_dim, (int)n);
  return n == 3 * per_dim ? 3 : 2;
}
static int l_shape_box(lua_State* L) {
  const int dims = shape_dims(L, 2, "a box");
  double v[6];
  read_args(L, 1, v, 2 * dims, "a box");
  new_shape(L, "box", dims, 0)->shape = quadrant_shape_box(dims, v, v + dims);
  return 1;
}
static int l_shape_point(lua_State* L) {
  const int dims = shape_dims(L, 1, "a point");
  double p[3];
  read_args(L, 1, p, dims, "a point");
  new_shape(L, "point", dims, 0)->shape = quadrant_shape_point(dims, p);
  return 1;
}
static int l_shape_circle(lua_State* L) {
  const double c[2] = {luaL_checknumber(L, 1), luaL_checknumber(L, 2)};
  new_shape(L, "circle", 2, 0)->shape = quadrant_shape_ball(2, c, luaL_checknumber(L, 3));
  return 1;
}
static int l_shape_sphere(lua_State* L) {
  const double c[3] = {luaL_checknumber(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3)};
  new_shape(L, "sphere", 3, 0)->shape = quadrant_shape_ball(3, c, luaL_checknumber(L, 4));
  return 1;
}
static int l_shape_ring(lua_State* L) {
  new_shape(L, "ring", 2, 0)->shape = quadrant_shape_ring(luaL_checknumber(L, 1), luaL_checknumber(L, 2),
                                                          luaL_checknumber(L, 3), luaL_checknumber(L, 4));
  return 1;
}
static int l_shape_ellipse(lua_State* L) {
  new_shape(L, "ellipse", 2, 0)->shape = quadrant_shape_ellipse(luaL_checknumber(L, 1), luaL_checknumber(L, 2),
                                                                luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                                                luaL_checknumber(L, 5));
  return 1;
}
static int l_shape_sector(lua_State* L) {
  new_shape(L, "sector", 2, 0)->shape =
      quadrant_shape_sector(luaL_checknumber(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                            luaL_checknumber(L, 4), luaL_checknumber(L, 5), luaL_checknumber(L, 6));
  return 1;
}
static int l_shape_oriented_box(lua_State* L) {
  new_shape(L, "oriented_box", 2, 0)->shape =
      quadrant_shape_oriented_box(luaL_checknumber(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                                  luaL_checknumber(L, 4), luaL_checknumber(L, 5));
  return 1;
}
/* polygon{x1, y1, x2, y2, ...} */
static int l_shape_polygon(lua_State* L) {
  lua_Integer n;
  LShape* s;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = ql_len(L, 1);
  if (n % 2 != 0) return luaL_error(L, "quadrant: a polygon needs x, y pairs (%d numbers given)", (int)n);
  if (n > 2000000) return luaL_error(L, "quadrant: a polygon of %d numbers is too large", (int)n);
  s = new_shape(L, "polygon", 2, (size_t)n);
  read_numbers(L, 1, s->pts, (int)n, "a polygon");
  s->shape = quadrant_shape_polygon(s->pts, (size_t)(n / 2));
  return 1;
}
/* segment({ax, ay[, az]}, {bx, by[, bz]}) */
static int l_shape_segment(lua_State* L) {
  double a[3], b[3];
  int dims;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  dims = ql_len(L, 1) == 3 ? 3 : 2;
  if (ql_len(L, 1) != ql_len(L, 2) || (ql_len(L, 1) != 2 && ql_len(L, 1) != 3))
    return luaL_error(L, "quadrant: a segment needs two points of 2 or 3 numbers each (%d and %d given)",
                      (int)ql_len(L, 1), (int)ql_len(L, 2));
  read_numbers(L, 1, a, dims, "a point");
  read_numbers(L, 2, b, dims, "a point");
  new_shape(L, "segment", dims, 0)->shape = quadrant_shape_segment(dims, a, b);
  return 1;
}
/* frustum(matrix16[, {row_major = false, clip_zero_to_one = false}]) */
static int l_shape_frustum(lua_State* L) {
  static const char* const keys[] = {"row_major", "clip_zero_to_one", NULL};
  int row_major = 0, zero_to_one = 0;
  LShape* s;
  luaL_checktype(L, 1, LUA_TTABLE);
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    check_keys(L, 2, keys, "frustum(matrix, ");
    lua_getfield(L, 2, "row_major");
    row_major = lua_toboolean(L, -1);
    lua_getfield(L, 2, "clip_zero_to_one");
    zero_to_one = lua_toboolean(L, -1);
    lua_pop(L, 2);
  }
  s = new_shape(L, "frustum", 3, 16);
  read_numbers(L, 1, s->pts, 16, "a frustum's matrix");
  s->shape = quadrant_shape_frustum(s->pts, row_major, zero_to_one);
  return 1;
}
static int l_shape_tostring(lua_State* L) {
  LShape* s = (LShape*)luaL_checkudata(L, 1, SHAPE_META);
  lua_pushfstring(L, "quadrant.%s (%dD)", s->name, s->dims);
  return 1;
}

/* query(shape[, layers][, fn]): the one query for every shape */
static int l_query(lua_State* L) {
  LTree* t = check_tree(L, 1);
  const quadrant_shape* s = check_shape(L, 2, t->dims, "query");
  return finish_query(L, t, s, 3);
}

/* query_stats(shape[, layers]) -> {nodes_visited, box_tests, hits}: what the walk did */
static int l_query_stats(lua_State* L) {
  LTree* t = check_tree(L, 1);
  const quadrant_shape* s = check_shape(L, 2, t->dims, "query_stats");
  const uint32_t layers = opt_layers(L, 3);
  quadrant_query_stats st;
  size_t count = 0;
  raise_status(L, quadrant_tree_query_into_stats(t->tree, s, layers, NULL, NULL, 0, &count, &st));
  lua_createtable(L, 0, 3);
  lua_pushinteger(L, (lua_Integer)st.nodes_visited), lua_setfield(L, -2, "nodes_visited");
  lua_pushinteger(L, (lua_Integer)st.box_tests), lua_setfield(L, -2, "box_tests");
  lua_pushinteger(L, (lua_Integer)count), lua_setfield(L, -2, "hits");
  return 1;
}

/* ---- layer matrix: quadrant.layer_matrix() ---- */

static quadrant_layer_matrix* check_matrix(lua_State* L, int at) {
  return (quadrant_layer_matrix*)luaL_checkudata(L, at, MATRIX_META);
}
static int l_matrix_new(lua_State* L) {
  quadrant_layer_matrix* m = (quadrant_layer_matrix*)ql_newuserdata(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  ql_setmetatable(L, MATRIX_META);
  return 1;
}
static int check_layer_index(lua_State* L, int at) {
  const lua_Integer v = ql_checkinteger(L, at);
  if (v < 0 || v > 31) luaL_error(L, "quadrant: layer " QL_INT_FMT " is outside 0 .. 31", QL_INT_ARG(v));
  return (int)v;
}
/* between(mask_a, mask_b) -> the matrix: every layer of a collides with every layer of b */
static int l_matrix_between(lua_State* L) {
  quadrant_layer_matrix* m = check_matrix(L, 1);
  const uint32_t a = check_layers(L, 2), b = check_layers(L, 3);
  quadrant_layer_matrix_between(m, a, b);
  lua_settop(L, 1);
  return 1;
}
/* set(a, b[, collide = true]) -> the matrix: layers a and b (0 .. 31) */
static int l_matrix_set(lua_State* L) {
  quadrant_layer_matrix* m = check_matrix(L, 1);
  const int a = check_layer_index(L, 2), b = check_layer_index(L, 3);
  const int collide = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
  raise_status(L, quadrant_layer_matrix_set(m, a, b, collide));
  lua_settop(L, 1);
  return 1;
}
/* collides(a, b) -> whether layers a and b (0 .. 31) collide */
static int l_matrix_collides(lua_State* L) {
  quadrant_layer_matrix* m = check_matrix(L, 1);
  const int a = check_layer_index(L, 2), b = check_layer_index(L, 3);
  lua_pushboolean(L, (m->partners[a] >> b) & 1u);
  return 1;
}
static const luaL_Reg matrix_methods[] = {
    {"between", l_matrix_between}, {"set", l_matrix_set}, {"collides", l_matrix_collides}, {NULL, NULL}};

/* ---- pairs ---- */

/* The pairs of one tree (b == NULL; by `layers`, or `matrix` when not NULL) or of two, into buffers of 2 * count
 * handles (a, b, a, b, ...) and the keys of their values; returns count. */
static size_t collect_pairs(lua_State* L, LTree* a, LTree* b, uint32_t layers_a, uint32_t layers_b,
                            const quadrant_layer_matrix* matrix, quadrant_handle** handles, uint64_t** keys) {
  size_t capacity, count = 0, i;
  int round;
  scratch(L, a, a->capacity > 2 ? a->capacity : 2, handles, keys);
  capacity = (a->delivering > 0 ? 2 : a->capacity) / 2;
  for (round = 0; round < 2; ++round) {
    quadrant_status st;
    if (b != NULL) st = quadrant_trees_pairs_into(a->tree, b->tree, layers_a, layers_b, *handles, capacity, &count);
    else if (matrix != NULL) st = quadrant_tree_pairs_filtered_into(a->tree, matrix, *handles, capacity, &count);
    else st = quadrant_tree_pairs_into(a->tree, layers_a, *handles, capacity, &count);
    raise_status(L, st);
    if (count <= capacity) break;
    scratch(L, a, 2 * count, handles, keys); /* room for them all: the second call fits */
    capacity = count;
  }
  for (i = 0; i < count; ++i) {
    raise_status(L, quadrant_tree_value(a->tree, (*handles)[2 * i], &(*keys)[2 * i]));
    raise_status(L, quadrant_tree_value(b != NULL ? b->tree : a->tree, (*handles)[2 * i + 1], &(*keys)[2 * i + 1]));
  }
  return count;
}

/* Pushes the pairs as Lua results. form 0: an array of {value_a, value_b}; 1: two arrays (a[i], b[i]); 2: fn(value_a,
 * value_b, handle_a, handle_b) for each, stopping when it returns false, then the count. The values tables are the
 * trees' user values (b_at = a_at for one tree). */
static int deliver_pairs(lua_State* L, LTree* a, LTree* b, int a_at, int b_at, size_t count,
                         const quadrant_handle* handles, const uint64_t* keys, int form, int fn_at) {
  size_t i;
  int va, vb;
  push_values(L, a_at);
  va = lua_gettop(L);
  push_values(L, b_at);
  vb = lua_gettop(L);
  if (form == 2) {
    for (i = 0; i < count; ++i) {
      ql_rawgeti(L, va, (lua_Integer)keys[2 * i]);
      ql_rawgeti(L, vb, (lua_Integer)keys[2 * i + 1]);
      push_handle(L, handles[2 * i]);
      push_handle(L, handles[2 * i + 1]);
      if (!call_protected(L, a, b, fn_at, 4, b != a ? "pairs_with" : "pairs")) break;
    }
    lua_pushinteger(L, (lua_Integer)count);
    return 1;
  }
  if (form == 1) {
    const int n = count > INT32_MAX ? INT32_MAX : (int)count;
    lua_createtable(L, n, 0);
    lua_createtable(L, n, 0);
    for (i = 0; i < count; ++i) {
      ql_rawgeti(L, va, (lua_Integer)keys[2 * i]);
      ql_seti(L, -3, (lua_Integer)(i + 1));
      ql_rawgeti(L, vb, (lua_Integer)keys[2 * i + 1]);
      ql_seti(L, -2, (lua_Integer)(i + 1));
    }
    return 2;
  }
  lua_createtable(L, count > INT32_MAX ? INT32_MAX : (int)count, 0);
  for (i = 0; i < count; ++i) {
    lua_createtable(L, 2, 0);
    ql_rawgeti(L, va, (lua_Integer)keys[2 * i]);
    ql_seti(L, -2, 1);
    ql_rawgeti(L, vb, (lua_Integer)keys[2 * i + 1]);
    ql_seti(L, -2, 2);
    ql_seti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}

/* The filter argument at `at`: nothing (every layer), a layer mask, or a quadrant.layer_matrix(). */
static const quadrant_layer_matrix* pairs_filter(lua_State* L, int at, uint32_t* layers) {
  *layers = 0xffffffffu;
  if (lua_isnoneornil(L, at)) return NULL;
  if (lua_isuserdata(L, at)) return check_matrix(L, at);
  *layers = check_layers(L, at);
  return NULL;
}

/* pairs([layers | matrix][, fn]) -> array of {value_a, value_b}, or fn(value_a, value_b, handle_a, handle_b) for
 * each (no table per pair) and the count. */
static int l_pairs(lua_State* L) {
  LTree* t = check_tree(L, 1);
  uint32_t layers;
  const quadrant_layer_matrix* m;
  int fn = 0;
  quadrant_handle* handles;
  uint64_t* keys;
  size_t count;
  if (lua_isfunction(L, 2)) {
    fn = 2;
    m = NULL, layers = 0xffffffffu;
  } else {
    m = pairs_filter(L, 2, &layers);
    fn = opt_function(L, 3);
  }
  count = collect_pairs(L, t, NULL, layers, 0, m, &handles, &keys);
  return deliver_pairs(L, t, t, 1, 1, count, handles, keys, fn != 0 ? 2 : 0, fn);
}
/* pairs_flat([layers | matrix]) -> as, bs: the i-th pair is as[i], bs[i] (two tables in all) */
static int l_pairs_flat(lua_State* L) {
  LTree* t = check_tree(L, 1);
  uint32_t layers;
  const quadrant_layer_matrix* m = pairs_filter(L, 2, &layers);
  quadrant_handle* handles;
  uint64_t* keys;
  const size_t count = collect_pairs(L, t, NULL, layers, 0, m, &handles, &keys);
  return deliver_pairs(L, t, t, 1, 1, count, handles, keys, 1, 0);
}
/* The other tree at `at`, of the same dims and not t itself. */
static LTree* check_other(lua_State* L, LTree* t, int at, const char* what) {
  LTree* o = check_tree(L, at);
  if (o == t) luaL_error(L, "quadrant: %s: the other tree is this tree (use pairs)", what);
  if (o->dims != t->dims) luaL_error(L, "quadrant: %s: a %dD tree and a %dD tree", what, t->dims, o->dims);
  return o;
}
/* pairs_with(other[, layers_a, layers_b][, fn]) -> array of {value_a, value_b} (a of this tree, b of the other), or
 * fn(value_a, value_b, handle_a, handle_b) for each and the count; pairs_with_flat(other[, layers_a, layers_b]) ->
 * as, bs. */
static int pairs_with(lua_State* L, int flat) {
  LTree* t = check_tree(L, 1);
  LTree* o = check_other(L, t, 2, flat ? "pairs_with_flat" : "pairs_with");
  uint32_t la = 0xffffffffu, lb = 0xffffffffu;
  int fn = 0;
  quadrant_handle* handles;
  uint64_t* keys;
  size_t count;
  if (!flat && lua_isfunction(L, 3)) fn = 3;
  else {
    la = opt_layers(L, 3);
    lb = opt_layers(L, 4);
    if (!flat) fn = opt_function(L, 5);
    else if (!lua_isnoneornil(L, 5)) luaL_argerror(L, 5, "pairs_with_flat takes no function");
  }
  count = collect_pairs(L, t, o, la, lb, NULL, &handles, &keys);
  return deliver_pairs(L, t, o, 1, 2, count, handles, keys, flat ? 1 : (fn != 0 ? 2 : 0), fn);
}
static int l_pairs_with(lua_State* L) { return pairs_with(L, 0); }
static int l_pairs_with_flat(lua_State* L) { return pairs_with(L, 1); }

/* ---- ray casts ---- */

typedef struct {
  quadrant_handle handle;
  uint64_t key;
  double t;
} RayHit;
static int collect_ray(void* user, quadrant_handle handle, uint64_t value, double t) {
  RayHit hit;
  hit.handle = handle, hit.key = value, hit.t = t;
  return collected_push((Collected*)user, &hit);
}
/* raycast(a, b[, layers][, fn]) -> array of {value = , handle = , t = } nearest first (t in [0, 1]: where the
 * segment from a to b enters the box), or fn(value, handle, t) for each (false stops) and the count. */
static int l_raycast(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double a[3], b[3];
  uint32_t layers;
  int fn;
  Collected c;
  const RayHit* hits;
  size_t i;
  read_numbers(L, 2, a, t->dims, "a point");
  read_numbers(L, 3, b, t->dims, "a point");
  fn = query_tail(L, 4, &layers);
  memset(&c, 0, sizeof c);
  c.item = sizeof(RayHit);
  hits = (const RayHit*)collected_finish(L, &c, quadrant_tree_raycast(t->tree, a, b, layers, collect_ray, &c));
  push_values(L, 1);
  if (fn != 0) {
    const int values = lua_gettop(L);
    for (i = 0; i < c.count; ++i) {
      ql_rawgeti(L, values, (lua_Integer)hits[i].key);
      push_handle(L, hits[i].handle);
      lua_pushnumber(L, hits[i].t);
      if (!call_protected(L, t, NULL, fn, 3, "raycast")) break;
    }
    lua_pushinteger(L, (lua_Integer)c.count);
    return 1;
  }
  lua_createtable(L, c.count > INT32_MAX ? INT32_MAX : (int)c.count, 0);
  for (i = 0; i < c.count; ++i) {
    lua_createtable(L, 0, 3);
    ql_rawgeti(L, -3, (lua_Integer)hits[i].key);
    lua_setfield(L, -2, "value");
    push_handle(L, hits[i].handle);
    lua_setfield(L, -2, "handle");
    lua_pushnumber(L, hits[i].t);
    lua_setfield(L, -2, "t");
    ql_seti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}
/* raycast_first(a, b[, layers]) -> value, handle, t of the nearest hit, or nil (the walk stops at it) */
static int l_raycast_first(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double a[3], b[3], ts = 0;
  quadrant_handle h = 0;
  uint64_t key = 0;
  size_t count = 0;
  uint32_t layers;
  read_numbers(L, 2, a, t->dims, "a point");
  read_numbers(L, 3, b, t->dims, "a point");
  layers = opt_layers(L, 4);
  raise_status(L, quadrant_tree_raycast_into(t->tree, a, b, layers, &h, &key, &ts, 1, &count));
  if (count == 0) {
    lua_pushnil(L);
    return 1;
  }
  push_values(L, 1);
  ql_rawgeti(L, -1, (lua_Integer)key);
  push_handle(L, h);
  lua_pushnumber(L, ts);
  return 3;
}

/* ---- nodes ---- */

/* A node as a table: {cell = box, bounds = box, depth, leaf, id, parent (-1 for the root), items, count, layers}. */
static void push_node(lua_State* L, int dims, const quadrant_node* n) {
  lua_createtable(L, 0, 9);
  push_box(L, dims, n->cell_min, n->cell_max);
  lua_setfield(L, -2, "cell");
  push_box(L, dims, n->bounds_min, n->bounds_max);
  lua_setfield(L, -2, "bounds");
  lua_pushinteger(L, n->depth), lua_setfield(L, -2, "depth");
  lua_pushboolean(L, n->leaf), lua_setfield(L, -2, "leaf");
  lua_pushinteger(L, (lua_Integer)n->id), lua_setfield(L, -2, "id");
  lua_pushinteger(L, n->parent == 0xffffffffu ? -1 : (lua_Integer)n->parent), lua_setfield(L, -2, "parent");
  lua_pushinteger(L, (lua_Integer)n->items), lua_setfield(L, -2, "items");
  lua_pushinteger(L, (lua_Integer)n->count), lua_setfield(L, -2, "count");
  lua_pushinteger(L, (lua_Integer)n->layers), lua_setfield(L, -2, "layers");
}
static int collect_node(void* user, const quadrant_node* node) { return collected_push((Collected*)user, node); }
/* The nodes collected: an array of them, or fn(node) for each (false stops) and the count. */
static int deliver_nodes(lua_State* L, LTree* t, const quadrant_node* nodes, size_t count, int fn,
                         const char* what) {
  size_t i;
  if (fn != 0) {
    for (i = 0; i < count; ++i) {
      push_node(L, t->dims, &nodes[i]);
      if (!call_protected(L, t, NULL, fn, 1, what)) break;
    }
    lua_pushinteger(L, (lua_Integer)count);
    return 1;
  }
  lua_createtable(L, count > INT32_MAX ? INT32_MAX : (int)count, 0);
  for (i = 0; i < count; ++i) {
    push_node(L, t->dims, &nodes[i]);
    ql_seti(L, -2, (lua_Integer)(i + 1));
  }
  return 1;
}
/* nodes() -> every node, parents before children; for_each_node(fn) -> fn(node) for each, the count */
static int walk_nodes(lua_State* L, int fn) {
  LTree* t = check_tree(L, 1);
  Collected c;
  const quadrant_node* nodes;
  memset(&c, 0, sizeof c);
  c.item = sizeof(quadrant_node);
  nodes = (const quadrant_node*)collected_finish(L, &c, quadrant_tree_for_each_node(t->tree, collect_node, &c));
  return deliver_nodes(L, t, nodes, c.count, fn, "for_each_node");
}
static int l_nodes(lua_State* L) {
  if (!lua_isnoneornil(L, 2)) luaL_argerror(L, 2, "nodes takes no argument (for_each_node takes a function)");
  return walk_nodes(L, 0);
}
static int l_for_each_node(lua_State* L) {
  check_tree(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  return walk_nodes(L, 2);
}
/* query_nodes(shape[, skip_empty = true][, fn]) -> the leaves whose cells the shape touches, in pre-order */
static int l_query_nodes(lua_State* L) {
  LTree* t = check_tree(L, 1);
  const quadrant_shape* s = check_shape(L, 2, t->dims, "query_nodes");
  int skip_empty = 1, fn = 0;
  Collected c;
  const quadrant_node* nodes;
  if (lua_isfunction(L, 3)) fn = 3;
  else {
    if (!lua_isnoneornil(L, 3)) {
      luaL_checktype(L, 3, LUA_TBOOLEAN);
      skip_empty = lua_toboolean(L, 3);
    }
    fn = opt_function(L, 4);
  }
  memset(&c, 0, sizeof c);
  c.item = sizeof(quadrant_node);
  nodes = (const quadrant_node*)collected_finish(L, &c,
                                                 quadrant_tree_query_nodes(t->tree, s, skip_empty, collect_node, &c));
  return deliver_nodes(L, t, nodes, c.count, fn, "query_nodes");
}
/* locate(x, y[, z]) -> the leaf whose cell holds the point */
static int l_locate(lua_State* L) {
  LTree* t = check_tree(L, 1);
  double p[3];
  quadrant_node n;
  int i;
  for (i = 0; i < t->dims; ++i) p[i] = (double)luaL_checknumber(L, 2 + i);
  raise_status(L, quadrant_tree_locate(t->tree, p, &n));
  push_node(L, t->dims, &n);
  return 1;
}

/* ---- batch changes ---- */

/* move_many(handles, boxes): handles[i] gets boxes[i]; checked whole first: on error nothing moved. */
static int l_move_many(lua_State* L) {
  LTree* t = check_idle_tree(L, 1, "move_many");
  lua_Integer n, i;
  quadrant_handle* hs;
  double* mins;
  double* maxs;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  n = ql_len(L, 2);
  if (ql_len(L, 3) != n)
    return luaL_error(L, "quadrant: move_many: %d handles and %d boxes", (int)n, (int)ql_len(L, 3));
  hs = (quadrant_handle*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * sizeof *hs, 0);
  mins = (double*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * 3 * sizeof *mins, 0);
  maxs = (double*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * 3 * sizeof *maxs, 0);
  for (i = 0; i < n; ++i) {
    ql_geti(L, 2, i + 1);
    hs[i] = to_handle(L, t, -1);
    if (hs[i] == 0) return luaL_error(L, "quadrant: move_many: handles[%d] is %s, not a handle", (int)(i + 1),
                                      luaL_typename(L, -1));
    lua_pop(L, 1);
    ql_geti(L, 3, i + 1);
    if (!lua_istable(L, -1))
      return luaL_error(L, "quadrant: move_many: boxes[%d] is %s, not a box", (int)(i + 1), luaL_typename(L, -1));
    read_box(L, lua_gettop(L), t->dims, mins + i * t->dims, maxs + i * t->dims);
    lua_pop(L, 1);
  }
  raise_status(L, quadrant_tree_move_many(t->tree, hs, mins, maxs, (size_t)n));
  return 0;
}

/* assign(boxes, values[, layers]) -> handles: replaces the contents with boxes[i] holding values[i] (layers[i]),
 * built at once; every old handle goes stale. On error the tree is as it was. */
static int l_assign(lua_State* L) {
  LTree* t = check_idle_tree(L, 1, "assign");
  lua_Integer n, i;
  double* mins;
  double* maxs;
  uint64_t* keys;
  uint32_t* layers = NULL;
  quadrant_handle* hs;
  const int has_layers = !lua_isnoneornil(L, 4); /* read before the buffers go on the stack */
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  if (has_layers) luaL_checktype(L, 4, LUA_TTABLE);
  n = ql_len(L, 2);
  if (has_layers && ql_len(L, 4) != n)
    return luaL_error(L, "quadrant: assign: %d boxes and %d layer masks", (int)n, (int)ql_len(L, 4));
  mins = (double*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * 3 * sizeof *mins, 0);
  maxs = (double*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * 3 * sizeof *maxs, 0);
  keys = (uint64_t*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * sizeof *keys, 0);
  hs = (quadrant_handle*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * sizeof *hs, 0);
  if (has_layers) layers = (uint32_t*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * sizeof *layers, 0);
  for (i = 0; i < n; ++i) {
    ql_geti(L, 2, i + 1);
    if (!lua_istable(L, -1))
      return luaL_error(L, "quadrant: assign: boxes[%d] is %s, not a box", (int)(i + 1), luaL_typename(L, -1));
    read_box(L, lua_gettop(L), t->dims, mins + i * t->dims, maxs + i * t->dims);
    lua_pop(L, 1);
    if (layers != NULL) {
      ql_geti(L, 4, i + 1);
      layers[i] = check_layers(L, lua_gettop(L));
      lua_pop(L, 1);
    }
    keys[i] = (uint64_t)(i + 1);
  }
  /* The new values table, key i + 1 holding values[i + 1], read before the tree changes (reading may run Lua: a
   * metamethod of the values table, a finalizer). */
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; ++i) {
    ql_geti(L, 3, i + 1);
    ql_seti(L, -2, i + 1);
  }
#if !QL_INTEGERS
  if (!reserve_slots(t, t->slots_used + (size_t)n + 1)) return luaL_error(L, "quadrant: out of memory");
#endif
  raise_status(L, quadrant_tree_assign(t->tree, mins, maxs, keys, layers, (size_t)n, hs));
  ql_setuservalue(L, 1);
  t->next_key = n + 1;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; ++i) {
#if !QL_INTEGERS
    const size_t slot = (size_t)(hs[i] & 0xffffffffu);
    if (!reserve_slots(t, slot)) return luaL_error(L, "quadrant: out of memory");
    t->slots[slot - 1] = hs[i];
    if (slot > t->slots_used) t->slots_used = slot;
#endif
    push_handle(L, hs[i]);
    ql_seti(L, -2, i + 1);
  }
  return 1;
}

/* rebuild(world): re-roots the tree over a new world, keeping every object and handle */
static int l_rebuild(lua_State* L) {
  LTree* t = check_idle_tree(L, 1, "rebuild");
  double min[3], max[3];
  read_box(L, 2, t->dims, min, max);
  raise_status(L, quadrant_tree_rebuild(t->tree, min, max));
  return 0;
}

/* config() -> {dims, scalar, world, max_depth, split_threshold, min_node_size, placement}, the keys quadrant.new
 * takes: a tree like this one is quadrant.new(t:config()). */
static int l_config(lua_State* L) {
  LTree* t = check_tree(L, 1);
  static const char* const placements[] = {"loose", "parent", "leaves"};
  quadrant_config c;
  raise_status(L, quadrant_tree_config(t->tree, &c));
  lua_createtable(L, 0, 7);
  lua_pushinteger(L, c.dims), lua_setfield(L, -2, "dims");
  lua_pushstring(L, c.scalar == QUADRANT_FLOAT ? "float" : "double"), lua_setfield(L, -2, "scalar");
  push_box(L, c.dims, c.world_min, c.world_max), lua_setfield(L, -2, "world");
  lua_pushinteger(L, c.max_depth), lua_setfield(L, -2, "max_depth");
  lua_pushinteger(L, c.split_threshold), lua_setfield(L, -2, "split_threshold");
  lua_pushnumber(L, c.min_node_size), lua_setfield(L, -2, "min_node_size");
  lua_pushstring(L, placements[(int)c.placement % 3]), lua_setfield(L, -2, "placement");
  return 1;
}
static int l_dims(lua_State* L) {
  lua_pushinteger(L, check_tree(L, 1)->dims);
  return 1;
}
/* layers(h) -> the object's layer mask */
static int l_layers(lua_State* L) {
  LTree* t = check_tree(L, 1);
  uint32_t layers = 0;
  raise_status(L, quadrant_tree_layers(t->tree, check_handle(L, t, 2), &layers));
  lua_pushinteger(L, (lua_Integer)layers);
  return 1;
}
/* set_value(h, value) */
static int l_set_value(lua_State* L) {
  LTree* t = check_idle_tree(L, 1, "set_value");
  uint64_t key = 0;
  luaL_checkany(L, 3);
  raise_status(L, quadrant_tree_value(t->tree, check_handle(L, t, 2), &key));
  push_values(L, 1);
  lua_pushvalue(L, 3);
  ql_seti(L, -2, (lua_Integer)key);
  return 0;
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
    ql_rawgeti(L, -3, (lua_Integer)key);
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
    {"query", l_query},
    {"query_stats", l_query_stats},
    {"pairs", l_pairs},
    {"pairs_flat", l_pairs_flat},
    {"pairs_with", l_pairs_with},
    {"pairs_with_flat", l_pairs_with_flat},
    {"raycast", l_raycast},
    {"raycast_first", l_raycast_first},
    {"nodes", l_nodes},
    {"for_each_node", l_for_each_node},
    {"query_nodes", l_query_nodes},
    {"locate", l_locate},
    {"move_many", l_move_many},
    {"assign", l_assign},
    {"rebuild", l_rebuild},
    {"dims", l_dims},
    {"config", l_config},
    {"layers", l_layers},
    {"set_value", l_set_value},
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
  int ticking; /* tick functions running now: every change, tick and destroy are refused */
} LAoi;

static LAoi* check_aoi(lua_State* L, int at) {
  LAoi* a = (LAoi*)luaL_checkudata(L, at, AOI_META);
  if (a->aoi == NULL) luaL_error(L, "quadrant: the aoi world was destroyed");
  return a;
}
/* The world at `at` for a call that changes it (`what`): raises while a tick function of the world's runs. */
static LAoi* check_idle_aoi(lua_State* L, int at, const char* what) {
  LAoi* a = check_aoi(L, at);
  if (a->ticking > 0)
    luaL_error(L, "quadrant: aoi world is busy: %s called from inside a tick function (make the change once tick "
                  "has returned)", what);
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
  if (a->ticking > 0)
    return luaL_error(L, "quadrant: aoi world is busy: destroy called from inside a tick function (destroy it once "
                         "tick has returned)");
  quadrant_aoi_destroy(a->aoi);
  a->aoi = NULL;
  free(a->ids);
  a->ids = NULL;
  a->capacity = 0;
  return 0;
}

/* add(id, x, y, view_radius [, mode = "both" | "watcher" | "marker" [, layers [, body_radius]]]) */
static int l_aoi_add(lua_State* L) {
  LAoi* a = check_idle_aoi(L, 1, "add");
  static const char* const modes[] = {"watcher", "marker", "both", NULL};
  const int mode = luaL_checkoption(L, 6, "both", modes) + 1;
  raise_status(L, quadrant_aoi_add(a->aoi, check_id(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                   luaL_checknumber(L, 5), (quadrant_aoi_mode)mode, opt_layers(L, 7),
                                   luaL_optnumber(L, 8, 0)));
  return 0;
}
static int l_aoi_move(lua_State* L) {
  LAoi* a = check_idle_aoi(L, 1, "move");
  raise_status(L, quadrant_aoi_move(a->aoi, check_id(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4)));
  return 0;
}
static int l_aoi_set_view_radius(lua_State* L) {
  LAoi* a = check_idle_aoi(L, 1, "set_view_radius");
  raise_status(L, quadrant_aoi_set_view_radius(a->aoi, check_id(L, 2), luaL_checknumber(L, 3)));
  return 0;
}
static int l_aoi_set_layers(lua_State* L) {
  LAoi* a = check_idle_aoi(L, 1, "set_layers");
  raise_status(L, quadrant_aoi_set_layers(a->aoi, check_id(L, 2), check_layers(L, 3)));
  return 0;
}
static int l_aoi_remove(lua_State* L) {
  LAoi* a = check_idle_aoi(L, 1, "remove");
  raise_status(L, quadrant_aoi_remove(a->aoi, check_id(L, 2)));
  return 0;
}

/* tick() -> array of {kind = "enter" | "leave", watcher = id, target = id}; tick(fn) calls fn(kind, watcher,
 * target) for each instead (no table per event) and returns the count. Ordered by (watcher, target). While fn runs
 * the world is busy: it may read the world (visible, queries, ...), but a change, a tick or destroy raises. Each
 * call is protected, so that an error in fn (or a refused yield) cannot leave the world busy. */
static int l_aoi_tick(lua_State* L) {
  LAoi* a = check_idle_aoi(L, 1, "tick");
  const quadrant_aoi_event* events;
  size_t count, i;
  const int fn = lua_isnoneornil(L, 2) ? 0 : 2;
  quadrant_aoi_event* copy;
  if (fn != 0) luaL_checktype(L, 2, LUA_TFUNCTION);
  raise_status(L, quadrant_aoi_tick(a->aoi, &events, &count));
  /* The events are copied out before any Lua runs: a finalizer run by an allocation below may use the world. */
  copy = (quadrant_aoi_event*)ql_newuserdata(L, (count > 0 ? count : 1) * sizeof *copy, 0);
  if (count > 0) memcpy(copy, events, count * sizeof *copy);
  if (fn == 0) lua_createtable(L, count > INT32_MAX ? INT32_MAX : (int)count, 0);
  for (i = 0; i < count; ++i) {
    const char* kind = copy[i].kind == QUADRANT_AOI_ENTER ? "enter" : "leave";
    if (fn != 0) {
      int status;
      lua_pushvalue(L, fn);
      lua_pushstring(L, kind);
      lua_pushinteger(L, (lua_Integer)copy[i].watcher);
      lua_pushinteger(L, (lua_Integer)copy[i].target);
      ++a->ticking;
      status = lua_pcall(L, 3, 0, 0);
      --a->ticking;
      if (status != LUA_OK) return lua_error(L);
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

static int l_aoi_move_many(lua_State* L);
static const luaL_Reg aoi_methods[] = {
    {"add", l_aoi_add},
    {"move", l_aoi_move},
    {"move_many", l_aoi_move_many},
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

/* move_many(ids, xy): entity ids[i] to (xy[2i - 1], xy[2i]) at the next tick; checked whole first: on error none
 * moved. */
static int l_aoi_move_many(lua_State* L) {
  LAoi* a = check_idle_aoi(L, 1, "move_many");
  lua_Integer n, i;
  uint64_t* ids;
  double* xy;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  n = ql_len(L, 2);
  if (ql_len(L, 3) != 2 * n)
    return luaL_error(L, "quadrant: aoi: move_many: %d ids need %d coordinates, not %d", (int)n, (int)(2 * n),
                      (int)ql_len(L, 3));
  ids = (uint64_t*)ql_newuserdata(L, (size_t)(n > 0 ? n : 1) * sizeof *ids, 0);
  xy = (double*)ql_newuserdata(L, (size_t)(n > 0 ? 2 * n : 1) * sizeof *xy, 0);
  for (i = 0; i < n; ++i) {
    ql_geti(L, 2, i + 1);
    ids[i] = check_id(L, lua_gettop(L));
    lua_pop(L, 1);
  }
  read_numbers(L, 3, xy, (int)(2 * n), "move_many's xy");
  raise_status(L, quadrant_aoi_move_many(a->aoi, ids, xy, (size_t)n));
  return 0;
}

/* ---- contacts: quadrant.contacts() ---- */

#define CONTACTS_META "quadrant.Contacts"

typedef struct {
  quadrant_contacts* contacts;
} LContacts;

static LContacts* check_contacts(lua_State* L, int at) {
  LContacts* c = (LContacts*)luaL_checkudata(L, at, CONTACTS_META);
  if (c->contacts == NULL) luaL_error(L, "quadrant: the contact tracker was destroyed");
  return c;
}
static int l_contacts_new(lua_State* L) {
  LContacts* c = (LContacts*)ql_newuserdata(L, sizeof *c, 1);
  c->contacts = NULL;
  ql_setmetatable(L, CONTACTS_META);
  lua_newtable(L); /* its user value: {tree = the tree it follows} */
  ql_setuservalue(L, -2);
  raise_status(L, quadrant_contacts_create(&c->contacts));
  return 1;
}
static int l_contacts_destroy(lua_State* L) {
  LContacts* c = (LContacts*)luaL_checkudata(L, 1, CONTACTS_META);
  quadrant_contacts_destroy(c->contacts);
  c->contacts = NULL;
  lua_newtable(L);
  ql_setuservalue(L, 1);
  return 0;
}
static void push_contacts(lua_State* L, const quadrant_contact* list, size_t n) {
  size_t i;
  lua_createtable(L, n > INT32_MAX ? INT32_MAX : (int)n, 0);
  for (i = 0; i < n; ++i) {
    lua_createtable(L, 0, 2);
    push_handle(L, list[i].a);
    lua_setfield(L, -2, "a");
    push_handle(L, list[i].b);
    lua_setfield(L, -2, "b");
    ql_seti(L, -2, (lua_Integer)(i + 1));
  }
}
/* update(tree[, layers | matrix]) -> begun, ended, count: arrays of {a = handle, b = handle} (a's slot the lower;
 * in ended a handle may be stale: its object was erased), and the number of contacts now. The tracker follows one
 * tree, by identity: another raises, until clear(). */
static int l_contacts_update(lua_State* L) {
  LContacts* c = check_contacts(L, 1);
  LTree* t = check_tree(L, 2);
  uint32_t layers;
  const quadrant_layer_matrix* m = pairs_filter(L, 3, &layers);
  quadrant_contact_step step;
  ql_getuservalue(L, 1);
  lua_getfield(L, -1, "tree");
  if (!lua_isnil(L, -1) && !lua_rawequal(L, -1, 2))
    return luaL_error(L, "quadrant: contacts: update: another tree than the previous steps' (clear first to switch "
                         "trees)");
  lua_pop(L, 1);
  raise_status(L, quadrant_contacts_update(c->contacts, t->tree, layers, m, &step));
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "tree");
  push_contacts(L, step.begun, step.begun_count);
  push_contacts(L, step.ended, step.ended_count);
  lua_pushinteger(L, (lua_Integer)step.contact_count);
  return 3;
}
/* clear(): forgets every contact and the tree */
static int l_contacts_clear(lua_State* L) {
  LContacts* c = check_contacts(L, 1);
  raise_status(L, quadrant_contacts_clear(c->contacts));
  lua_newtable(L);
  ql_setuservalue(L, 1);
  return 0;
}
static const luaL_Reg contacts_methods[] = {
    {"update", l_contacts_update}, {"clear", l_contacts_clear}, {"destroy", l_contacts_destroy}, {NULL, NULL}};

/* ---- streaming: quadrant.streamer{...} ---- */

#define STREAMER_META "quadrant.Streamer"

typedef struct {
  quadrant_streamer* streamer;
} LStreamer;

static LStreamer* check_streamer(lua_State* L, int at) {
  LStreamer* s = (LStreamer*)luaL_checkudata(L, at, STREAMER_META);
  if (s->streamer == NULL) luaL_error(L, "quadrant: the streamer was destroyed");
  return s;
}
static const char* const stream_states[] = {"unloaded", "queued", "loading", "loaded", NULL};
/* A count >= 0 (a cap). */
static size_t check_count(lua_State* L, int at, const char* what) {
  const lua_Integer v = ql_checkinteger(L, at);
  if (v < 0) luaL_error(L, "quadrant: streamer: %s is " QL_INT_FMT ", negative", what, QL_INT_ARG(v));
  return (size_t)v;
}

/* quadrant.streamer{world = {minx, miny, minz, maxx, maxy, maxz}, unload_margin = 0, max_loads_per_update = 16,
 * max_loads_in_flight = 64, scalar = "double", max_depth, split_threshold, min_node_size, placement} */
static int l_streamer_new(lua_State* L) {
  quadrant_streamer_config config;
  LStreamer* s;
  const char* placement;
  static const char* const keys[] = {"world", "unload_margin", "max_loads_per_update", "max_loads_in_flight",
                                     "scalar", "max_depth", "split_threshold", "min_node_size", "placement", NULL};
  luaL_checktype(L, 1, LUA_TTABLE);
  check_keys(L, 1, keys, "streamer");
  quadrant_streamer_config_init(&config, field_scalar(L, "double"));
  field_world(L, 3, config.tree.world_min, config.tree.world_max, "streamer");
  config.tree.max_depth = (int)field_integer(L, "max_depth", config.tree.max_depth);
  config.tree.split_threshold = (int)field_integer(L, "split_threshold", config.tree.split_threshold);
  config.tree.min_node_size = field_number(L, "min_node_size", config.tree.min_node_size);
  config.unload_margin = field_number(L, "unload_margin", config.unload_margin);
  lua_getfield(L, 1, "max_loads_per_update");
  if (!lua_isnil(L, -1)) config.max_loads_per_update = check_count(L, lua_gettop(L), "max_loads_per_update");
  lua_getfield(L, 1, "max_loads_in_flight");
  if (!lua_isnil(L, -1)) config.max_loads_in_flight = check_count(L, lua_gettop(L), "max_loads_in_flight");
  lua_getfield(L, 1, "placement");
  placement = luaL_optstring(L, -1, "loose");
  if (strcmp(placement, "loose") == 0) config.tree.placement = QUADRANT_LOOSE;
  else if (strcmp(placement, "parent") == 0) config.tree.placement = QUADRANT_PARENT;
  else if (strcmp(placement, "leaves") == 0) config.tree.placement = QUADRANT_LEAVES;
  else return luaL_error(L, "quadrant: placement is \"%s\", not \"loose\", \"parent\" or \"leaves\"", placement);
  lua_pop(L, 3);
  s = (LStreamer*)ql_newuserdata(L, sizeof *s, 0);
  s->streamer = NULL;
  ql_setmetatable(L, STREAMER_META);
  raise_status(L, quadrant_streamer_create(&config, &s->streamer));
  return 1;
}
static int l_streamer_destroy(lua_State* L) {
  LStreamer* s = (LStreamer*)luaL_checkudata(L, 1, STREAMER_META);
  quadrant_streamer_destroy(s->streamer);
  s->streamer = NULL;
  return 0;
}
/* add(id, box), move(id, box): 3D boxes {minx, miny, minz, maxx, maxy, maxz} */
static int l_streamer_add(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  const uint64_t id = check_id(L, 2);
  double min[3], max[3];
  read_box(L, 3, 3, min, max);
  raise_status(L, quadrant_streamer_add(s->streamer, id, min, max));
  return 0;
}
static int l_streamer_move(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  const uint64_t id = check_id(L, 2);
  double min[3], max[3];
  read_box(L, 3, 3, min, max);
  raise_status(L, quadrant_streamer_move(s->streamer, id, min, max));
  return 0;
}
/* remove(id) -> the state it was in ("loading": abandon that load; "loaded": release it) */
static int l_streamer_remove(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  quadrant_stream_state was = QUADRANT_STREAM_UNLOADED;
  raise_status(L, quadrant_streamer_remove(s->streamer, check_id(L, 2), &was));
  lua_pushstring(L, stream_states[was]);
  return 1;
}
/* mark_loaded(id) -> true for Loading -> Loaded, false for a completion that came too late */
static int l_streamer_mark_loaded(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  int accepted = 0;
  raise_status(L, quadrant_streamer_mark_loaded(s->streamer, check_id(L, 2), &accepted));
  lua_pushboolean(L, accepted);
  return 1;
}
/* mark_failed(id) -> true for Loading -> Unloaded (asked again later while wanted) */
static int l_streamer_mark_failed(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  int accepted = 0;
  raise_status(L, quadrant_streamer_mark_failed(s->streamer, check_id(L, 2), &accepted));
  lua_pushboolean(L, accepted);
  return 1;
}
static int l_streamer_set_limits(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  const size_t per_update = check_count(L, 2, "max_loads_per_update");
  const size_t in_flight = check_count(L, 3, "max_loads_in_flight");
  raise_status(L, quadrant_streamer_set_limits(s->streamer, per_update, in_flight));
  return 0;
}
/* One source from the table at `at`: {position = {x, y, z}, prefetch_radius = 0, frustum = quadrant.frustum(...)
 * or {16 numbers}, row_major = false, clip_zero_to_one = false} (the last two for a frustum given as numbers). */
static void read_source(lua_State* L, int at, quadrant_stream_source* src) {
  static const char* const keys[] = {"position", "prefetch_radius", "frustum", "row_major", "clip_zero_to_one", NULL};
  int isnum = 0;
  memset(src, 0, sizeof *src);
  check_keys(L, at, keys, "update: source");
  lua_getfield(L, at, "position");
  if (!lua_istable(L, -1)) luaL_error(L, "quadrant: streamer: update: a source needs position = {x, y, z}");
  read_numbers(L, lua_gettop(L), src->position, 3, "a source's position");
  lua_pop(L, 1);
  lua_getfield(L, at, "prefetch_radius");
  if (!lua_isnil(L, -1)) {
    src->prefetch_radius = (double)ql_tonumberx(L, -1, &isnum);
    if (!isnum) luaL_error(L, "quadrant: streamer: update: prefetch_radius is %s, not a number", luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  lua_getfield(L, at, "frustum");
  if (lua_isuserdata(L, -1)) {
    LShape* f = (LShape*)ql_testudata(L, -1, SHAPE_META);
    if (f == NULL || f->shape.kind != QUADRANT_SHAPE_FRUSTUM)
      luaL_error(L, "quadrant: streamer: update: a source's frustum is not a quadrant.frustum");
    src->has_frustum = 1;
    memcpy(src->matrix, f->pts, sizeof src->matrix);
    src->matrix_row_major = f->shape.matrix_row_major;
    src->clip_zero_to_one = f->shape.clip_zero_to_one;
  } else if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1)) luaL_error(L, "quadrant: streamer: update: a source's frustum is %s", luaL_typename(L, -1));
    src->has_frustum = 1;
    read_numbers(L, lua_gettop(L), src->matrix, 16, "a frustum's matrix");
    lua_getfield(L, at, "row_major");
    src->matrix_row_major = lua_toboolean(L, -1);
    lua_getfield(L, at, "clip_zero_to_one");
    src->clip_zero_to_one = lua_toboolean(L, -1);
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
}
static void push_ids_array(lua_State* L, const uint64_t* ids, size_t n) { (void)push_ids(L, ids, n); }
/* update([sources]) -> loads, unloads, cancels, stats: sources is one source table or an array of them (none: no
 * source, everything resident unloads); loads = array of {id = , distance = }, nearest first; unloads and cancels
 * arrays of ids, ascending; stats = {nodes_visited, box_tests, kept_tests, wanted, dequeued, queued, loading,
 * loaded}. */
static int l_streamer_update(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  quadrant_stream_source* sources = NULL;
  size_t count = 0, i;
  quadrant_stream_update u;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "position");
    if (!lua_isnil(L, -1)) { /* one source */
      lua_pop(L, 1);
      count = 1;
      sources = (quadrant_stream_source*)ql_newuserdata(L, sizeof *sources, 0);
      read_source(L, 2, sources);
    } else {
      lua_pop(L, 1);
      count = (size_t)ql_len(L, 2);
      sources = (quadrant_stream_source*)ql_newuserdata(L, (count > 0 ? count : 1) * sizeof *sources, 0);
      for (i = 0; i < count; ++i) {
        ql_geti(L, 2, (lua_Integer)(i + 1));
        if (!lua_istable(L, -1))
          luaL_error(L, "quadrant: streamer: update: sources[%d] is %s, not a source", (int)(i + 1),
                     luaL_typename(L, -1));
        read_source(L, lua_gettop(L), &sources[i]);
        lua_pop(L, 1);
      }
    }
  }
  raise_status(L, quadrant_streamer_update(s->streamer, sources, count, &u));
  lua_createtable(L, u.load_count > INT32_MAX ? INT32_MAX : (int)u.load_count, 0);
  for (i = 0; i < u.load_count; ++i) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, (lua_Integer)u.loads[i].id);
    lua_setfield(L, -2, "id");
    lua_pushnumber(L, u.loads[i].distance);
    lua_setfield(L, -2, "distance");
    ql_seti(L, -2, (lua_Integer)(i + 1));
  }
  push_ids_array(L, u.unloads, u.unload_count);
  push_ids_array(L, u.cancels, u.cancel_count);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)u.stats.nodes_visited), lua_setfield(L, -2, "nodes_visited");
  lua_pushinteger(L, (lua_Integer)u.stats.box_tests), lua_setfield(L, -2, "box_tests");
  lua_pushinteger(L, (lua_Integer)u.stats.kept_tests), lua_setfield(L, -2, "kept_tests");
  lua_pushinteger(L, (lua_Integer)u.stats.wanted), lua_setfield(L, -2, "wanted");
  lua_pushinteger(L, (lua_Integer)u.stats.dequeued), lua_setfield(L, -2, "dequeued");
  lua_pushinteger(L, (lua_Integer)u.stats.queued), lua_setfield(L, -2, "queued");
  lua_pushinteger(L, (lua_Integer)u.stats.loading), lua_setfield(L, -2, "loading");
  lua_pushinteger(L, (lua_Integer)u.stats.loaded), lua_setfield(L, -2, "loaded");
  return 4;
}
static int l_streamer_contains(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  lua_pushboolean(L, quadrant_streamer_contains(s->streamer, check_id(L, 2)));
  return 1;
}
/* state(id) -> "unloaded", "queued", "loading" or "loaded" */
static int l_streamer_state(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  quadrant_stream_state st = QUADRANT_STREAM_UNLOADED;
  raise_status(L, quadrant_streamer_state(s->streamer, check_id(L, 2), &st));
  lua_pushstring(L, stream_states[st]);
  return 1;
}
static int l_streamer_bounds(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  double min[3], max[3];
  raise_status(L, quadrant_streamer_bounds(s->streamer, check_id(L, 2), min, max));
  push_box(L, 3, min, max);
  return 1;
}
static int l_streamer_size(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  lua_pushinteger(L, (lua_Integer)quadrant_streamer_size(s->streamer));
  return 1;
}
static int l_streamer_validate(lua_State* L) {
  LStreamer* s = check_streamer(L, 1);
  raise_status(L, quadrant_streamer_validate(s->streamer));
  return 0;
}
static const luaL_Reg streamer_methods[] = {
    {"add", l_streamer_add},
    {"remove", l_streamer_remove},
    {"move", l_streamer_move},
    {"mark_loaded", l_streamer_mark_loaded},
    {"mark_failed", l_streamer_mark_failed},
    {"set_limits", l_streamer_set_limits},
    {"update", l_streamer_update},
    {"contains", l_streamer_contains},
    {"state", l_streamer_state},
    {"bounds", l_streamer_bounds},
    {"size", l_streamer_size},
    {"validate", l_streamer_validate},
    {"destroy", l_streamer_destroy},
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
  static const luaL_Reg functions[] = {{"new", l_new},
                                       {"aoi", l_aoi_new},
                                       {"streamer", l_streamer_new},
                                       {"contacts", l_contacts_new},
                                       {"layer_matrix", l_matrix_new},
                                       {"box", l_shape_box},
                                       {"point", l_shape_point},
                                       {"circle", l_shape_circle},
                                       {"sphere", l_shape_sphere},
                                       {"ring", l_shape_ring},
                                       {"ellipse", l_shape_ellipse},
                                       {"sector", l_shape_sector},
                                       {"oriented_box", l_shape_oriented_box},
                                       {"polygon", l_shape_polygon},
                                       {"segment", l_shape_segment},
                                       {"frustum", l_shape_frustum},
                                       {NULL, NULL}};
  new_class(L, TREE_META, tree_methods, l_destroy, l_size);
  new_class(L, AOI_META, aoi_methods, l_aoi_destroy, l_aoi_size);
  new_class(L, STREAMER_META, streamer_methods, l_streamer_destroy, l_streamer_size);
  /* Contact trackers: methods, __gc and __close. Layer matrices and shapes: plain values (methods; __tostring). */
  luaL_newmetatable(L, CONTACTS_META);
  lua_newtable(L);
  ql_setfuncs(L, contacts_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_contacts_destroy);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, l_contacts_destroy);
  lua_setfield(L, -2, "__close");
  luaL_newmetatable(L, MATRIX_META);
  lua_newtable(L);
  ql_setfuncs(L, matrix_methods);
  lua_setfield(L, -2, "__index");
  luaL_newmetatable(L, SHAPE_META);
  lua_pushcfunction(L, l_shape_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 3);
  ql_newlib(L, functions);
  lua_pushstring(L, quadrant_version());
  lua_setfield(L, -2, "version");
  return 1;
}
