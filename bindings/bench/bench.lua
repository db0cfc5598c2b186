-- SPDX-License-Identifier: MIT
-- The Lua half of the bindings bench (see bench_bindings.cpp): the same scene and circles from the same LCG,
-- tree:query_circle returning an array, and the function form. Usage: lua5.4 bench.lua <directory of quadrant.so>
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
local quadrant = require "quadrant"

local state = 12345
local function rnd(n)
  state = state * 6364136223846793005 + 1442695040888963407   -- wraps, as uint64 does
  return (state >> 33) % n                                    -- >> is a logical shift in Lua 5.4
end
local BOXES, QUERIES, REPS, RADIUS = 10000, 2000, 9, 15
local tree = quadrant.new{world = {0, 0, 1000, 1000}}
for i = 0, BOXES - 1 do
  local x, y = rnd(100000) / 100, rnd(100000) / 100
  local w, h = 1 + rnd(500) / 100, 1 + rnd(500) / 100
  tree:insert({x, y, x + w, y + h}, i)
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
  print(string.format("%s %.1f %d", way, ns[(REPS + 1) // 2], hits))
end
measure("lua_array", function()
  local hits = 0
  for q = 1, QUERIES do hits = hits + #tree:query_circle(cx[q], cy[q], RADIUS) end
  return hits
end)
measure("lua_function", function()
  local hits = 0
  local function count() hits = hits + 1 end
  for q = 1, QUERIES do tree:query_circle(cx[q], cy[q], RADIUS, count) end
  return hits
end)
