-- SPDX-License-Identifier: MIT
-- What the Lua module's three forms of a tree's pairs cost: tree:pairs() (a table per pair), tree:pairs(fn) (a call
-- per pair, no table) and tree:pairs_flat() (two arrays), each consuming every pair (summing the two values), on
-- 10,000 boxes of sides 10 to 30 in 1200 x 1200 from a Park-Miller generator (the same scene on every Lua).
-- Medians of 9 runs by os.clock. Runs on Lua 5.1, 5.3, 5.4 and LuaJIT:
--   lua5.4 bindings/bench/bench_pairs.lua <directory of quadrant.so>
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
local quadrant = require "quadrant"

local state = 12345
local function rnd(n)  -- exact in doubles: 16807 * (2^31 - 1) < 2^53
  state = (state * 16807) % 2147483647
  return state % n
end
local BOXES, REPS = 10000, 9
local tree = quadrant.new{world = {0, 0, 1200, 1200}}
for i = 1, BOXES do
  local x, y = rnd(117000) / 100, rnd(117000) / 100
  tree:insert({x, y, x + 10 + rnd(2000) / 100, y + 10 + rnd(2000) / 100}, i)
end

local function measure(way, run)
  local ms, result = {}, 0
  for r = 1, REPS do
    collectgarbage()
    local t0 = os.clock()
    result = run()
    ms[r] = (os.clock() - t0) * 1e3
  end
  table.sort(ms)
  print(string.format("%-22s %8.2f ms  (checksum %d)", way, ms[(REPS + 1) / 2], result))
end
print(string.format("%s, %d boxes, %d pairs", _VERSION .. (jit and (" / " .. jit.version) or ""), BOXES,
                    #tree:pairs_flat()))
measure("pairs() tables", function()
  local sum = 0
  local list = tree:pairs()
  for i = 1, #list do
    local p = list[i]
    sum = sum + p[1] + p[2]
  end
  return sum
end)
measure("pairs(fn)", function()
  local sum = 0
  tree:pairs(function(a, b) sum = sum + a + b end)
  return sum
end)
measure("pairs_flat()", function()
  local sum = 0
  local as, bs = tree:pairs_flat()
  for i = 1, #as do sum = sum + as[i] + bs[i] end
  return sum
end)
