-- SPDX-License-Identifier: MIT
-- The Lua half of the bindings bench (see bench_bindings.cpp): the same scene and circles from the same LCG,
-- tree:query_circle returning an array, and the function form. Under Lua 5.4 its ways are lua_array and
-- lua_function; under LuaJIT luajit_array and luajit_function, and, given the C API's shared library, luajit_ffi
-- (quadrant.ffi's query_circle into a table kept across queries). Usage:
--   lua5.4 bench.lua <directory of quadrant.so>
--   luajit bench.lua <directory of quadrant.so built against LuaJIT> [<path of libquadrant_c.so>]
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
local quadrant = require "quadrant"

-- The LCG of bench_bindings.cpp over unsigned 64-bit numbers: Lua 5.3+ integers wrap as uint64 does, and >> is a
-- logical shift; LuaJIT has 64-bit FFI numbers (ULL literals) instead. Each form is compiled only where it parses.
local rnd
if jit then
  rnd = assert(loadstring([[
    local state = 12345ULL
    return function(n)
      state = state * 6364136223846793005ULL + 1442695040888963407ULL
      return tonumber(state / 8589934592ULL % n)
    end]]))()
else
  rnd = assert(load([[
    local state = 12345
    return function(n)
      state = state * 6364136223846793005 + 1442695040888963407
      return (state >> 33) % n
    end]]))()
end
local BOXES, QUERIES, REPS, RADIUS = 10000, 2000, 9, 15
local prefix = jit and "luajit" or "lua"
local tree = quadrant.new{world = {0, 0, 1000, 1000}}
local ffi_tree
if jit and arg[2] then
  package.path = (arg[0]:match("^(.*)/bench/[^/]*$") or "bindings") .. "/lua/?.lua;" .. package.path
  ffi_tree = require("quadrant.ffi").load(arg[2]).new{world = {0, 0, 1000, 1000}}
end
for i = 0, BOXES - 1 do
  local x, y = rnd(100000) / 100, rnd(100000) / 100
  local w, h = 1 + rnd(500) / 100, 1 + rnd(500) / 100
  tree:insert({x, y, x + w, y + h}, i)
  if ffi_tree then ffi_tree:insert({x, y, x + w, y + h}, i) end
end
local cx, cy = {}, {}
for q = 1, QUERIES do
  cx[q] = rnd(100000) / 100
  cy[q] = rnd(100000) / 100
end

local function measure(way, run)
  local ns, hits = {}, 0
  for r = 1, REPS do
    local t0 = os.clock()
    hits = run()
    ns[r] = (os.clock() - t0) * 1e9 / QUERIES
  end
  table.sort(ns)
  print(string.format("%s %.1f %d", way, ns[(REPS + 1) / 2], hits))
end
measure(prefix .. "_array", function()
  local hits = 0
  for q = 1, QUERIES do hits = hits + #tree:query_circle(cx[q], cy[q], RADIUS) end
  return hits
end)
measure(prefix .. "_function", function()
  local hits = 0
  local function count() hits = hits + 1 end
  for q = 1, QUERIES do tree:query_circle(cx[q], cy[q], RADIUS, count) end
  return hits
end)
if ffi_tree then
  measure("luajit_ffi", function()
    local hits, out, n = 0, {}, 0
    for q = 1, QUERIES do
      out, n = ffi_tree:query_circle(cx[q], cy[q], RADIUS, out)
      hits = hits + n
    end
    return hits
  end)
end
