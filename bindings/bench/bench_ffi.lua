-- SPDX-License-Identifier: MIT
-- quadrant.ffi (LuaJIT's FFI over libquadrant_c.so) against the C module under LuaJIT, on the same work:
--  * queries: 100,000 boxes (sides 1 to 6) in 1000 x 1000, 20,000 circles of radius 4 (about 12 hits each): ns per
--    query, the values of the hits in a Lua table (a new one, or one kept across queries), or a function per hit;
--    and, as the floor, the C call alone (quadrant_tree_query_into through the FFI, hits counted, no Lua values);
--  * a pairs frame: bench_pairs.lua's 10,000 boxes of sides 10 to 30 in 1200 x 1200, every pair's two values;
--  * a move frame: those 10,000 boxes each moved by one unit.
-- Each section runs its forms in turn, 9 rounds (so that a busy machine slows every form alike); medians by
-- os.clock; every form of a section must give the same checksum (the script fails otherwise). Park-Miller numbers: the same scenes as
-- bench_pairs.lua. Usage:
--   luajit bindings/bench/bench_ffi.lua <directory of quadrant.so built against LuaJIT> <path of libquadrant_c.so>
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
package.path = (arg[0]:match("^(.*)/bench/[^/]*$") or "bindings") .. "/lua/?.lua;" .. package.path
local quadrant = require "quadrant"
local qffi = require("quadrant.ffi").load(arg[2])

local state
local function rnd(n)  -- exact in doubles: 16807 * (2^31 - 1) < 2^53
  state = (state * 16807) % 2147483647
  return state % n
end
local REPS = 9
local forms = {}
local function measure(what, unit, scale, run) forms[#forms + 1] = {what = what, unit = unit, scale = scale, run = run} end
-- Runs the forms given since the last call, round after round; prints each one's median.
local function run_section()
  local times, results = {}, {}
  for r = 1, REPS do
    for f, form in ipairs(forms) do
      collectgarbage()
      local t0 = os.clock()
      results[f] = form.run()
      times[f] = times[f] or {}
      times[f][r] = (os.clock() - t0) * form.scale
    end
  end
  for f, form in ipairs(forms) do
    table.sort(times[f])
    print(string.format("  %-34s %9.1f %s  (checksum %s)", form.what, times[f][(REPS + 1) / 2], form.unit,
                        tostring(results[f])))
    if results[f] ~= results[1] then error("bench_ffi: " .. form.what .. " gave another checksum") end
  end
  forms = {}
end

print(string.format("%s, %s; quadrant %s", jit and jit.version or _VERSION, "quadrant.ffi over " .. (arg[2] or
                    "quadrant_c"), quadrant.version))

-- ---- queries ----
local BOXES, QUERIES, RADIUS = 100000, 20000, 4
state = 12345
local c_tree, f_tree = quadrant.new{world = {0, 0, 1000, 1000}}, qffi.new{world = {0, 0, 1000, 1000}}
for i = 1, BOXES do
  local x, y = rnd(100000) / 100, rnd(100000) / 100
  local box = {x, y, x + 1 + rnd(500) / 100, y + 1 + rnd(500) / 100}
  c_tree:insert(box, i)
  f_tree:insert(box, i)
end
local cx, cy = {}, {}
for q = 1, QUERIES do cx[q], cy[q] = rnd(100000) / 100, rnd(100000) / 100 end
local per_query = 1e9 / QUERIES
print(string.format("queries: %d boxes, %d circles of radius %g", BOXES, QUERIES, RADIUS))
measure("C module query_circle (array)", "ns", per_query, function()
  local sum = 0
  for q = 1, QUERIES do
    local hits = c_tree:query_circle(cx[q], cy[q], RADIUS)
    for i = 1, #hits do sum = sum + hits[i] end
  end
  return sum
end)
measure("C module query(circle) (array)", "ns", per_query, function()
  local sum, circle = 0, quadrant.circle
  for q = 1, QUERIES do
    local hits = c_tree:query(circle(cx[q], cy[q], RADIUS))
    for i = 1, #hits do sum = sum + hits[i] end
  end
  return sum
end)
measure("C module query_circle (function)", "ns", per_query, function()
  local sum = 0
  local function add(v) sum = sum + v end
  for q = 1, QUERIES do c_tree:query_circle(cx[q], cy[q], RADIUS, add) end
  return sum
end)
measure("ffi query_circle (new table)", "ns", per_query, function()
  local sum = 0
  for q = 1, QUERIES do
    local hits, n = f_tree:query_circle(cx[q], cy[q], RADIUS)
    for i = 1, n do sum = sum + hits[i] end
  end
  return sum
end)
local ffi = require "ffi"
local C = ffi.load(arg[2] or "quadrant_c")
measure("C call alone (query_into, count)", "ns", per_query, function()
  local shape, count, keys = ffi.new("quadrant_shape"), ffi.new("size_t[1]"), ffi.new("uint64_t[256]")
  local sum = 0
  for q = 1, QUERIES do
    shape.kind, shape.a[0], shape.a[1], shape.r0 = 2, cx[q], cy[q], RADIUS
    C.quadrant_tree_query_into(f_tree.ptr, shape, 0xffffffff, nil, keys, 256, count)
    for i = 0, tonumber(count[0]) - 1 do sum = sum + tonumber(keys[i]) end
  end
  return sum
end)
measure("ffi query_circle (table kept)", "ns", per_query, function()
  local sum, out, n = 0, {}, 0
  for q = 1, QUERIES do
    out, n = f_tree:query_circle(cx[q], cy[q], RADIUS, out)
    for i = 1, n do sum = sum + out[i] end
  end
  return sum
end)
run_section()
c_tree:destroy()
f_tree:destroy()

-- ---- a pairs frame and a move frame ----
local N = 10000
state = 12345
c_tree, f_tree = quadrant.new{world = {0, 0, 1200, 1200}}, qffi.new{world = {0, 0, 1200, 1200}}
local boxes, ch, fh = {}, {}, {}
for i = 1, N do
  local x, y = rnd(117000) / 100, rnd(117000) / 100
  boxes[i] = {x, y, x + 10 + rnd(2000) / 100, y + 10 + rnd(2000) / 100}
  ch[i] = c_tree:insert(boxes[i], i)
  fh[i] = f_tree:insert(boxes[i], i)
end
local _, _, npairs = f_tree:pairs_flat()
print(string.format("frames: %d boxes, %d pairs", N, npairs))
measure("C module pairs_flat()", "ms", 1e3, function()
  local sum = 0
  local as, bs = c_tree:pairs_flat()
  for i = 1, #as do sum = sum + as[i] + bs[i] end
  return sum
end)
measure("C module pairs(fn)", "ms", 1e3, function()
  local sum = 0
  c_tree:pairs(function(a, b) sum = sum + a + b end)
  return sum
end)
measure("ffi pairs_flat() (new tables)", "ms", 1e3, function()
  local sum = 0
  local as, bs, n = f_tree:pairs_flat()
  for i = 1, n do sum = sum + as[i] + bs[i] end
  return sum
end)
local keep_a, keep_b = {}, {}
measure("ffi pairs_flat() (tables kept)", "ms", 1e3, function()
  local sum = 0
  local as, bs, n = f_tree:pairs_flat(nil, keep_a, keep_b)
  for i = 1, n do sum = sum + as[i] + bs[i] end
  return sum
end)
run_section()
local step = 1
local moved = {}
for i = 1, N do moved[i] = {0, 0, 0, 0} end
local function move_frame(tree, handles)
  step = -step
  for i = 1, N do
    local b, m = boxes[i], moved[i]
    m[1], m[2], m[3], m[4] = b[1] + step, b[2], b[3] + step, b[4]
    tree:move(handles[i], m)
  end
  return N
end
measure("C module move x 10,000", "ms", 1e3, function() return move_frame(c_tree, ch) end)
measure("ffi move x 10,000", "ms", 1e3, function() return move_frame(f_tree, fh) end)
run_section()
c_tree:destroy()
f_tree:destroy()
