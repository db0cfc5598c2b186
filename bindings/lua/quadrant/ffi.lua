-- SPDX-License-Identifier: MIT
-- quadrant.ffi: LuaJIT's FFI over the C API's shared library (libquadrant_c.so) for the calls a game makes every
-- frame: insert, erase, move, box / circle / sphere queries into a table you may keep, nearest, and pairs into two
-- arrays. Under LuaJIT these cost less than through the C module (`require "quadrant"`), whose every call goes
-- through the Lua C API, which LuaJIT's compiler cannot see into (bindings/lua/README.md gives the figures). The C
-- module does everything else: every shape, ray casts, nodes, contacts, the layer matrix, AOI, the streamer, and
-- the forms that call a function of yours.
--
--   local qffi = require "quadrant.ffi"                  -- quadrant/ffi.lua on package.path
--   local tree = qffi.new{world = {0, 0, 1200, 1200}}    -- the settings of quadrant.new
--   local orc = tree:insert({10, 10, 40, 60}, "orc")     -- any Lua value but nil
--   local hits, n = tree:query_circle(20, 20, 15)        -- hits[1..n]: the values; pass a table to reuse it
--
-- The library: qffi.load(path) names it; otherwise the first new() loads libquadrant_c.so from package.cpath (where
-- `luarocks make` puts it, beside quadrant.so), else ffi.load("quadrant_c") (LD_LIBRARY_PATH, the system's
-- folders). Its version must be 0.3.x, the one these declarations copy (include/quadrant/c/quadrant.h).
--
-- Handles are whole numbers below 2^53, never reused, unique among every tree this module made in the Lua state:
-- a stale handle or another tree's is refused. Values live in a Lua table beside the tree. Errors are Lua errors
-- carrying a message "quadrant: ..." (the library's, or this module's for a wrong argument type, refused before
-- the library is called). Nothing here calls back into Lua, so nothing runs inside a walk. A tree belongs to one
-- Lua state; destroy() frees it at once, the garbage collector otherwise.
local ffi = require "ffi"
-- LuaJIT's table.new(narray, nhash): a result table made at its final size (a plain {} where it is missing).
local have_table_new, table_new = pcall(require, "table.new")
if not have_table_new then table_new = function() return {} end end

ffi.cdef [[
typedef uint64_t quadrant_handle;
typedef struct quadrant_tree quadrant_tree;
typedef struct quadrant_config {
  int dims; int scalar; double world_min[3]; double world_max[3];
  int max_depth; int split_threshold; double min_node_size; int placement;
} quadrant_config;
typedef struct quadrant_shape {
  int kind; double a[3], b[3]; double r0, r1, angle; const double* points; size_t count;
  int matrix_row_major; int clip_zero_to_one;
} quadrant_shape;
const char* quadrant_version(void);
const char* quadrant_last_error(void);
void quadrant_config_init(quadrant_config* config, int dims, int scalar);
int quadrant_tree_create(const quadrant_config* config, quadrant_tree** out);
void quadrant_tree_destroy(quadrant_tree* tree);
int quadrant_tree_insert(quadrant_tree* tree, const double* min, const double* max, uint64_t value, uint32_t layers,
                         quadrant_handle* handle);
int quadrant_tree_erase(quadrant_tree* tree, quadrant_handle handle);
int quadrant_tree_move(quadrant_tree* tree, quadrant_handle handle, const double* min, const double* max);
int quadrant_tree_clear(quadrant_tree* tree);
size_t quadrant_tree_size(const quadrant_tree* tree);
int quadrant_tree_bounds(const quadrant_tree* tree, quadrant_handle handle, double* min, double* max);
int quadrant_tree_query_into(const quadrant_tree* tree, const quadrant_shape* shape, uint32_t layers,
                             quadrant_handle* handles, uint64_t* values, size_t capacity, size_t* count);
int quadrant_tree_pairs_into(const quadrant_tree* tree, uint32_t layers, quadrant_handle* pairs, size_t capacity,
                             size_t* count);
int quadrant_tree_nearest(const quadrant_tree* tree, const double* point, size_t k, double max_distance,
                          uint32_t layers, quadrant_handle* handles, double* distances, size_t* count);
int quadrant_tree_validate(const quadrant_tree* tree);
]]

local M = {}
local C, loaded_from  -- the library, and where it came from
local SHAPE_BOX, SHAPE_BALL = 0, 2  -- quadrant_shape_kind
local ALL_LAYERS = 0xffffffff
local next_key = 1    -- every tree's handles come from here: one tree's handle is never another's

-- Errors carry the message alone, as the C module's do (no file and line of this module).
local function fail(what, message) error("quadrant: " .. what .. ": " .. message, 0) end
local function raise() error(ffi.string(C.quadrant_last_error()), 0) end

--- load([path]) -> the module: loads the C API's shared library from path, else as the header above says. Once
--- loaded, the library stays; naming another raises.
function M.load(path)
  if path ~= nil and type(path) ~= "string" then fail("load", "path is " .. type(path) .. ", not a string") end
  if C ~= nil then
    if path ~= nil and path ~= loaded_from then fail("load", "already loaded from " .. loaded_from) end
    return M
  end
  local where = path or (package.searchpath and package.searchpath("libquadrant_c", package.cpath)) or "quadrant_c"
  local ok, lib = pcall(ffi.load, where)
  if not ok then fail("load", "cannot load the C API's library " .. where .. ": " .. tostring(lib)) end
  local version = ffi.string(lib.quadrant_version())
  if not version:match("^0%.3%.") then
    fail("load", "quadrant.ffi declares the C API of quadrant 0.3, and " .. where .. " is " .. version)
  end
  C, loaded_from, M.version = lib, where, version
  return M
end

local Tree = {}
Tree.__index = Tree

local function number(v, what, name)
  if type(v) ~= "number" then fail(what, name .. " is " .. type(v) .. ", not a number") end
  return v
end
local function integer(v, what, name, lo, hi)
  number(v, what, name)
  if v ~= math.floor(v) or v < lo or v > hi then fail(what, name .. " is " .. tostring(v) .. ", not an integer") end
  return v
end
local function layers_of(v, what)
  if v == nil then return ALL_LAYERS end
  if type(v) ~= "number" or v ~= math.floor(v) or v < -1 or v > ALL_LAYERS then
    fail(what, "layer mask " .. tostring(v) .. " is outside 32 bits (0 .. 0xffffffff, or -1 for every layer)")
  end
  return v == -1 and ALL_LAYERS or v
end
local function live(self, what)
  local ptr = self.ptr
  if ptr == nil then fail(what, "the tree was destroyed") end
  return ptr
end
-- Reads the box {minx, miny[, minz], maxx, maxy[, maxz]} into the tree's min and max scratch.
local function read_box(self, box, what)
  if type(box) ~= "table" then fail(what, "the box is " .. type(box) .. ", not a table") end
  local d, mn, mx = self.dims, self.min, self.max
  for i = 1, d do
    local lo, hi = box[i], box[d + i]
    if type(lo) ~= "number" then
      fail(what, "a box needs " .. 2 * d .. " numbers; element " .. i .. " is " .. type(lo))
    end
    if type(hi) ~= "number" then
      fail(what, "a box needs " .. 2 * d .. " numbers; element " .. d + i .. " is " .. type(hi))
    end
    mn[i - 1], mx[i - 1] = lo, hi
  end
end
-- The C handle of the Lua handle h (nil for a stale or foreign one).
local function c_handle(self, h, what)
  local slot = self.slot_of[h]
  if slot == nil then fail(what, "the handle names no object of this tree (stale or foreign)") end
  return self.full[slot]
end

--- new{world = {minx, miny[, minz], maxx, maxy[, maxz]}, dims = 2, scalar = "double", max_depth, split_threshold,
--- min_node_size, placement = "loose" | "parent" | "leaves"} -> a tree (the keys of quadrant.new)
function M.new(settings)
  if C == nil then M.load() end
  if type(settings) ~= "table" then fail("new", "settings is " .. type(settings) .. ", not a table") end
  local known = {dims = true, scalar = true, world = true, max_depth = true, split_threshold = true,
                 min_node_size = true, placement = true}
  for k in pairs(settings) do
    if not known[k] then fail("new{...}", "unknown key " .. tostring(k)) end
  end
  local dims = settings.dims == nil and 2 or settings.dims
  if dims ~= 2 and dims ~= 3 then fail("new", "dims is " .. tostring(dims) .. ", not 2 or 3") end
  local scalar = settings.scalar == nil and "double" or settings.scalar
  if scalar ~= "float" and scalar ~= "double" then
    fail("new", "scalar is " .. tostring(scalar) .. ", not \"float\" or \"double\"")
  end
  local config = ffi.new("quadrant_config")
  C.quadrant_config_init(config, dims, scalar == "float" and 0 or 1)
  local world = settings.world
  if type(world) ~= "table" then fail("new{...}", "needs world = {minx, miny, " .. (dims == 3 and "minz, " or "") ..
                                                  "maxx, maxy" .. (dims == 3 and ", maxz" or "") .. "}") end
  for i = 1, dims do
    config.world_min[i - 1] = number(world[i], "new", "world[" .. i .. "]")
    config.world_max[i - 1] = number(world[dims + i], "new", "world[" .. dims + i .. "]")
  end
  -- Whole numbers in int's range: the library refuses what is out of its own range, with its message.
  if settings.max_depth ~= nil then
    config.max_depth = integer(settings.max_depth, "new", "max_depth", -2147483648, 2147483647)
  end
  if settings.split_threshold ~= nil then
    config.split_threshold = integer(settings.split_threshold, "new", "split_threshold", -2147483648, 2147483647)
  end
  if settings.min_node_size ~= nil then
    config.min_node_size = number(settings.min_node_size, "new", "min_node_size")
  end
  if settings.placement ~= nil then
    local placement = ({loose = 0, parent = 1, leaves = 2})[settings.placement]
    if placement == nil then
      fail("new", "placement is " .. tostring(settings.placement) .. ", not \"loose\", \"parent\" or \"leaves\"")
    end
    config.placement = placement
  end
  local out = ffi.new("quadrant_tree*[1]")
  if C.quadrant_tree_create(config, out) ~= 0 then raise() end
  return setmetatable({
    ptr = ffi.gc(out[0], C.quadrant_tree_destroy), dims = dims,
    values = {},       -- handle -> value
    slot_of = {},      -- handle -> the C handle's slot (its low 32 bits - 1)
    key_of_slot = {},  -- slot -> handle
    full = ffi.new("uint64_t[?]", 16), full_cap = 16,   -- slot -> the C handle
    min = ffi.new("double[3]"), max = ffi.new("double[3]"), point = ffi.new("double[3]"),
    shape = ffi.new("quadrant_shape"), count = ffi.new("size_t[1]"), handle = ffi.new("uint64_t[1]"),
    keys = ffi.new("uint64_t[?]", 64), keys_cap = 64,                   -- query results
    pair_handles = ffi.new("uint64_t[?]", 128), pairs_cap = 64,        -- pairs: 2 handles each
  }, Tree)
end

--- insert(box, value[, layers]) -> handle. value: any Lua value but nil.
function Tree:insert(box, value, layers)
  local ptr = live(self, "insert")
  read_box(self, box, "insert")
  if value == nil then fail("insert", "the value is nil (a query could not return it)") end
  local key = next_key
  if C.quadrant_tree_insert(ptr, self.min, self.max, key, layers_of(layers, "insert"), self.handle) ~= 0 then
    raise()
  end
  next_key = key + 1
  local h = self.handle[0]
  local slot = tonumber(ffi.cast("uint32_t", h)) - 1  -- a C handle's low 32 bits are its slot + 1
  if slot >= self.full_cap then
    local cap = self.full_cap
    while cap <= slot do cap = cap * 2 end
    local full = ffi.new("uint64_t[?]", cap)
    ffi.copy(full, self.full, self.full_cap * 8)
    self.full, self.full_cap = full, cap
  end
  self.full[slot] = h
  self.slot_of[key], self.key_of_slot[slot], self.values[key] = slot, key, value
  return key
end

--- erase(h)
function Tree:erase(h)
  local ptr = live(self, "erase")
  if C.quadrant_tree_erase(ptr, c_handle(self, h, "erase")) ~= 0 then raise() end
  self.key_of_slot[self.slot_of[h]] = nil
  self.slot_of[h], self.values[h] = nil, nil
end

--- move(h, box)
function Tree:move(h, box)
  local ptr = live(self, "move")
  local ch = c_handle(self, h, "move")
  read_box(self, box, "move")
  if C.quadrant_tree_move(ptr, ch, self.min, self.max) ~= 0 then raise() end
end

--- contains(h) -> whether h names an object of this tree
function Tree:contains(h) return self.ptr ~= nil and self.slot_of[h] ~= nil end
--- size() -> the number of objects
function Tree:size() return tonumber(C.quadrant_tree_size(live(self, "size"))) end
--- value(h) -> the object's value
function Tree:value(h)
  live(self, "value")
  c_handle(self, h, "value")
  return self.values[h]
end
--- bounds(h) -> the object's box
function Tree:bounds(h)
  local ptr = live(self, "bounds")
  if C.quadrant_tree_bounds(ptr, c_handle(self, h, "bounds"), self.min, self.max) ~= 0 then raise() end
  local box, d = {}, self.dims
  for i = 1, d do box[i], box[d + i] = self.min[i - 1], self.max[i - 1] end
  return box
end
--- clear(): removes every object; every handle goes stale
function Tree:clear()
  if C.quadrant_tree_clear(live(self, "clear")) ~= 0 then raise() end
  self.values, self.slot_of, self.key_of_slot = {}, {}, {}
end
--- validate(): raises naming the first broken invariant
function Tree:validate()
  if C.quadrant_tree_validate(live(self, "validate")) ~= 0 then raise() end
end
--- destroy(): frees the tree now (the garbage collector does it otherwise); later calls raise
function Tree:destroy()
  if self.ptr ~= nil then
    C.quadrant_tree_destroy(ffi.gc(self.ptr, nil))
    self.ptr, self.values, self.slot_of, self.key_of_slot = nil, {}, {}, {}
  end
end

-- Runs the query in self.shape into the keys scratch (grown until everything fits), then writes the values to
-- out[1..n] (a new table when out is nil) and clears what out held beyond n. Returns out, n.
local function finish_query(self, ptr, out, layers, what)
  if out ~= nil and type(out) ~= "table" then fail(what, "out is " .. type(out) .. ", not a table") end
  local l, count = layers_of(layers, what), self.count
  if C.quadrant_tree_query_into(ptr, self.shape, l, nil, self.keys, self.keys_cap, count) ~= 0 then raise() end
  local n = tonumber(count[0])
  if n > self.keys_cap then
    self.keys, self.keys_cap = ffi.new("uint64_t[?]", 2 * n), 2 * n
    if C.quadrant_tree_query_into(ptr, self.shape, l, nil, self.keys, self.keys_cap, count) ~= 0 then raise() end
  end
  local keys, values = self.keys, self.values
  if out == nil then out = table_new(n, 0) end
  for i = 1, n do out[i] = values[tonumber(keys[i - 1])] end
  local i = n + 1
  while out[i] ~= nil do
    out[i] = nil
    i = i + 1
  end
  return out, n
end

--- query_box(box[, out[, layers]]) -> out, n: out[1..n] are the values of the objects whose boxes touch the box
function Tree:query_box(box, out, layers)
  local ptr = live(self, "query_box")
  read_box(self, box, "query_box")
  local s = self.shape
  s.kind = SHAPE_BOX
  for i = 0, self.dims - 1 do s.a[i], s.b[i] = self.min[i], self.max[i] end
  return finish_query(self, ptr, out, layers, "query_box")
end

--- query_circle(x, y, r[, out[, layers]]) -> out, n (2D)
function Tree:query_circle(x, y, r, out, layers)
  local ptr = live(self, "query_circle")
  if self.dims ~= 2 then fail("query_circle", "a 2D circle given to a 3D tree (query_sphere)") end
  local s = self.shape
  s.kind = SHAPE_BALL
  s.a[0], s.a[1], s.r0 = number(x, "query_circle", "x"), number(y, "query_circle", "y"), number(r, "query_circle", "r")
  return finish_query(self, ptr, out, layers, "query_circle")
end

--- query_sphere(x, y, z, r[, out[, layers]]) -> out, n (3D)
function Tree:query_sphere(x, y, z, r, out, layers)
  local ptr = live(self, "query_sphere")
  if self.dims ~= 3 then fail("query_sphere", "a 3D sphere given to a 2D tree (query_circle)") end
  local s = self.shape
  s.kind = SHAPE_BALL
  s.a[0], s.a[1] = number(x, "query_sphere", "x"), number(y, "query_sphere", "y")
  s.a[2], s.r0 = number(z, "query_sphere", "z"), number(r, "query_sphere", "r")
  return finish_query(self, ptr, out, layers, "query_sphere")
end

--- nearest(point, k[, max_distance[, layers]]) -> values, distances: the k nearest objects to the point
--- {x, y[, z]} within max_distance, nearest first (distance to the box, 0 inside)
function Tree:nearest(point, k, max_distance, layers)
  local ptr = live(self, "nearest")
  if type(point) ~= "table" then fail("nearest", "the point is " .. type(point) .. ", not a table") end
  for i = 1, self.dims do self.point[i - 1] = number(point[i], "nearest", "point[" .. i .. "]") end
  integer(k, "nearest", "k", 0, 2 ^ 63)
  if max_distance ~= nil then number(max_distance, "nearest", "max_distance") end
  local l = layers_of(layers, "nearest")
  -- No more results than objects: the buffers are sized by what the tree holds, not by what was asked.
  local size = tonumber(C.quadrant_tree_size(ptr))
  if k > size then k = size end
  local hs, dist = ffi.new("uint64_t[?]", k + 1), ffi.new("double[?]", k + 1)
  if C.quadrant_tree_nearest(ptr, self.point, k, max_distance or math.huge, l, hs, dist, self.count) ~= 0 then
    raise()
  end
  local n = tonumber(self.count[0])
  local values, distances, key_of_slot, all = table_new(n, 0), table_new(n, 0), self.key_of_slot, self.values
  for i = 1, n do
    values[i] = all[key_of_slot[tonumber(ffi.cast("uint32_t", hs[i - 1])) - 1]]
    distances[i] = dist[i - 1]
  end
  return values, distances
end

--- pairs_flat([layers[, as, bs]]) -> as, bs, n: every pair of objects (both in layers) whose boxes overlap, once:
--- the i-th is as[i], bs[i] (values). Pass as and bs to reuse them (cleared beyond n).
function Tree:pairs_flat(layers, as, bs)
  local ptr = live(self, "pairs_flat")
  local l = layers_of(layers, "pairs_flat")
  if (as ~= nil and type(as) ~= "table") or (bs ~= nil and type(bs) ~= "table") then
    fail("pairs_flat", "as and bs must be tables")
  end
  local count = self.count
  if C.quadrant_tree_pairs_into(ptr, l, self.pair_handles, self.pairs_cap, count) ~= 0 then raise() end
  local n = tonumber(count[0])
  if n > self.pairs_cap then
    self.pair_handles, self.pairs_cap = ffi.new("uint64_t[?]", 4 * n), 2 * n
    if C.quadrant_tree_pairs_into(ptr, l, self.pair_handles, self.pairs_cap, count) ~= 0 then raise() end
  end
  as, bs = as or table_new(n, 0), bs or table_new(n, 0)
  -- A C handle's low 32 bits are its slot + 1: the slot names the handle, the handle the value.
  local ph, values, key_of_slot = self.pair_handles, self.values, self.key_of_slot
  for i = 1, n do
    as[i] = values[key_of_slot[tonumber(ffi.cast("uint32_t", ph[2 * i - 2])) - 1]]
    bs[i] = values[key_of_slot[tonumber(ffi.cast("uint32_t", ph[2 * i - 1])) - 1]]
  end
  local i = n + 1
  while as[i] ~= nil or bs[i] ~= nil do
    as[i], bs[i] = nil, nil
    i = i + 1
  end
  return as, bs, n
end

return M
