-- SPDX-License-Identifier: MIT
-- Tests of the Lua module, run by lua5.4: the Lua article's 500-rectangle scene (rect i gets a width of
-- math.random(10, i > 10 and i or 15), a height of math.random(15, i > 15 and i or 20) and a corner in
-- [1, 1200]^2) against brute force, under each placement, then moved; other shapes against brute force or against
-- the box they equal; nearest; values released on erase; bad input raising the library's message; the area of
-- interest against a brute-force Lua reference.
-- Usage: lua5.4 test.lua <directory holding quadrant.so>
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
package.path = package.path .. ";" .. (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua"
local quadrant = require "quadrant"
local T = require "test_support"
local check, raises, masks_meet = T.check, T.raises, T.masks_meet
local overlaps_d, gap2_d = T.overlaps, T.gap2

local function overlaps(a, b) return overlaps_d(a, b, 2) end
local function dist2(x, y, b) return gap2_d({x, y}, b, 2) end
-- A set of the values in an array, and whether two such arrays hold the same values once each.
local function same_set(got, want)
  if #got ~= #want then return false end
  local seen = {}
  for _, v in ipairs(got) do
    if seen[v] then return false end
    seen[v] = true
  end
  for _, v in ipairs(want) do
    if not seen[v] then return false end
  end
  return true
end

local function scene(n)
  local rects = {}
  for i = 1, n do
    local w = math.random(10, i > 10 and i or 15)
    local h = math.random(15, i > 15 and i or 20)
    local x, y = math.random(1, 1200), math.random(1, 1200)
    rects[i] = {x, y, x + w, y + h}
  end
  return rects
end

local function check_scene(placement)
  math.randomseed(7)
  local rects = scene(500)
  local tree = quadrant.new{world = {0, 0, 1200, 1200}, placement = placement, split_threshold = 9, max_depth = 8}
  local handles = {}
  for i, r in ipairs(rects) do handles[i] = tree:insert(r, i) end
  check(#tree == 500, placement .. ": size")
  for round = 1, 3 do
    -- Every colliding pair, once, against brute force.
    local want = 0
    for i = 1, #rects do
      for j = i + 1, #rects do
        if overlaps(rects[i], rects[j]) then want = want + 1 end
      end
    end
    local pairs_found = tree:pairs()
    check(#pairs_found == want, placement .. ": " .. #pairs_found .. " pairs, brute force " .. want)
    local seen = {}
    for _, p in ipairs(pairs_found) do
      local a, b = math.min(p[1], p[2]), math.max(p[1], p[2])
      check(overlaps(rects[a], rects[b]), placement .. ": a reported pair does not overlap")
      local key = a * 1000 + b
      check(not seen[key], placement .. ": a pair reported twice")
      seen[key] = true
    end
    if round == 1 then
      print(string.format("  %-6s 500 rectangles: %d colliding pairs (brute force: %d)", placement, #pairs_found, want))
    end
    -- Each rectangle's box query, and circles, points and rings, against brute force.
    for q = 1, 60 do
      local x, y = math.random(0, 1200), math.random(0, 1200)
      local box = {x, y, x + math.random(0, 200), y + math.random(0, 200)}
      local r, inner = math.random(0, 150), math.random(0, 60)
      local wb, wc, wp, wr = {}, {}, {}, {}
      for i, rect in ipairs(rects) do
        if overlaps(rect, box) then wb[#wb + 1] = i end
        local d2 = dist2(x, y, rect)
        if d2 <= r * r then wc[#wc + 1] = i end
        if overlaps(rect, {x, y, x, y}) then wp[#wp + 1] = i end
        -- A ring meets a box when the box comes within the outer radius and reaches out to the inner one.
        local fx = math.max(math.abs(x - rect[1]), math.abs(x - rect[3]))
        local fy = math.max(math.abs(y - rect[2]), math.abs(y - rect[4]))
        if d2 <= r * r and fx * fx + fy * fy >= inner * inner then wr[#wr + 1] = i end
      end
      check(same_set(tree:query_box(box), wb), placement .. ": query_box")
      check(same_set(tree:query_circle(x, y, r), wc), placement .. ": query_circle")
      check(same_set(tree:query_point(x, y), wp), placement .. ": query_point")
      if inner <= r then check(same_set(tree:query_ring(x, y, inner, r), wr), placement .. ": query_ring") end
      -- Shapes that equal the box: an unrotated oriented box and the box's outline as a polygon.
      local cx, cy = (box[1] + box[3]) / 2, (box[2] + box[4]) / 2
      check(same_set(tree:query_oriented_box(cx, cy, (box[3] - box[1]) / 2, (box[4] - box[2]) / 2, 0), wb),
            placement .. ": query_oriented_box")
      if box[3] > box[1] and box[4] > box[2] then
        check(same_set(tree:query_polygon({box[1], box[2], box[3], box[2], box[3], box[4], box[1], box[4]}), wb),
              placement .. ": query_polygon")
      end
      -- The callback form: the same values, and false stops.
      local calls = 0
      local n = tree:query_box(box, function(v, h)
        calls = calls + 1
        check(tree:value(h) == v, "the handle passed with a value names it")
      end)
      check(n == #wb and calls == #wb, placement .. ": query_box with a function")
      if #wb >= 2 then
        calls = 0
        tree:query_box(box, function() calls = calls + 1; return calls < 2 end)
        check(calls == 2, placement .. ": a function returning false stops")
      end
    end
    -- The 3 nearest to a point.
    local px, py = math.random(0, 1200), math.random(0, 1200)
    local values, distances = tree:nearest({px, py}, 3)
    check(#values == 3, "nearest: three found")
    for k = 1, #values do
      check(math.abs(math.sqrt(dist2(px, py, rects[values[k]])) - distances[k]) < 1e-3, "nearest: the distance")
      local closer = 0
      for _, rect in ipairs(rects) do
        if math.sqrt(dist2(px, py, rect)) < distances[k] - 1e-3 then closer = closer + 1 end
      end
      check(closer <= k - 1, "nearest: nothing nearer left out")
    end
    -- The moving part: every rectangle steps (the article's to-do list), then the same checks again.
    for i, rect in ipairs(rects) do
      local dx, dy = math.random(-20, 20), math.random(-20, 20)
      rects[i] = {rect[1] + dx, rect[2] + dy, rect[3] + dx, rect[4] + dy}
      tree:move(handles[i], rects[i])
    end
    tree:validate()
  end
  tree:destroy()
end

print("quadrant " .. quadrant.version .. ": the Lua article's scene against brute force")
for _, placement in ipairs{"loose", "parent", "leaves"} do check_scene(placement) end

-- 3D, double: a few boxes, a sphere and a segment.
do
  local t = quadrant.new{dims = 3, world = {0, 0, 0, 10, 10, 10}}
  local a = t:insert({1, 1, 1, 2, 2, 2}, "a")
  t:insert({5, 5, 5, 6, 6, 6}, "b")
  check(same_set(t:query_sphere(0, 0, 0, 1.8), {"a"}), "3D: query_sphere")
  check(same_set(t:query_segment({0, 0, 0}, {10, 10, 10}), {"a", "b"}), "3D: query_segment")
  local b = t:bounds(a)
  check(#b == 6 and b[1] == 1 and b[6] == 2, "3D: bounds")
  check(not pcall(t.query_ring, t, 0, 0, 1, 2), "3D: a ring is a 2D shape")
end

-- Values are any Lua value, released on erase and clear.
do
  local t = quadrant.new{world = {0, 0, 10, 10}}
  local weak = setmetatable({}, {__mode = "v"})
  local h
  do
    local value = {name = "a table"}
    weak[1] = value
    h = t:insert({1, 1, 2, 2}, value)
  end
  collectgarbage()
  check(weak[1] ~= nil and t:value(h).name == "a table", "a value is kept while its object lives")
  t:erase(h)
  collectgarbage()
  check(weak[1] == nil, "a value is released on erase")
  check(not t:contains(h), "an erased handle is stale")
  t:insert({1, 1, 2, 2}, function() return 1 end)
  t:insert({1, 1, 2, 2}, false)
  check(#t:query_point(1.5, 1.5) == 2, "functions and false are values too")
  t:clear()
  check(#t == 0, "clear")
end

-- Bad input raises the library's message and changes nothing.
do
  local t = quadrant.new{world = {0, 0, 10, 10}, placement = "parent"}
  local h = t:insert({1, 1, 2, 2}, 1)
  raises("min > max", t.insert, t, {5, 5, 1, 1}, 2)
  raises("NaN", t.insert, t, {0 / 0, 0, 1, 1}, 2)
  raises("needs 4 numbers", t.insert, t, {1, 2, 3}, 2)
  raises("radius", t.query_circle, t, 0, 0, -1)
  raises("placement", quadrant.new, {world = {0, 0, 1, 1}, placement = "nowhere"})
  raises("world", quadrant.new, {world = {0, 0, 0, 1}})
  raises("dims", quadrant.new, {dims = 4, world = {0, 0, 1, 1}})
  raises("unknown key splt_threshold", quadrant.new, {world = {0, 0, 1, 1}, splt_threshold = 3})
  raises("outside 32 bits", t.insert, t, {1, 1, 2, 2}, 3, 2 ^ 40)
  raises("outside 32 bits", t.set_layers, t, h, -2)
  t:erase(h)
  raises("erase: the handle names no object", t.erase, t, h)
  raises("stale", t.move, t, h, {1, 1, 2, 2})
  check(#t == 0, "bad input changed nothing")
  t:validate()
  t:destroy()
  raises("destroyed", t.size, t)
end

-- Area of interest: a random run (players and monsters of every mode, moves, radius and layer changes, removals and
-- re-adds, hysteresis) whose every tick's events equal a brute-force Lua reference of docs/aoi.md's rule, in
-- order; visible, watchers and a sword swing's sector against brute force; bad input raises. Integer coordinates,
-- so every square is exact.
local function check_aoi(scalar)
  math.randomseed(11)
  local hysteresis = 3
  local world = quadrant.aoi{world = {0, 0, 300, 300}, hysteresis = hysteresis, scalar = scalar}
  local modes = {"watcher", "marker", "both"}
  local layer_choices = {0xffffffff, 1, 2, 3}
  local ents, sees = {}, {}   -- ents[id]: recorded values; sees[w][t]: the relation at the last tick
  local live = {}             -- live[id]: the values as of the last tick
  local function key_sort(list) table.sort(list) return list end
  local total = 0
  for tick = 1, 60 do
    for i = 1, 150 do
      local id = i * 7919
      local e = ents[id]
      local roll = math.random(100)
      if not e then
        if roll <= (tick == 1 and 90 or 10) then
          e = {x = math.random(0, 299), y = math.random(0, 299), r = math.random(5, 35),
               mode = modes[math.random(3)], layers = layer_choices[math.random(4)]}
          world:add(id, e.x, e.y, e.r, e.mode, e.layers)
          ents[id] = e
        end
      elseif roll <= 40 then
        e.x, e.y = e.x + math.random(-4, 4), e.y + math.random(-4, 4)
        world:move(id, e.x, e.y)
      elseif roll <= 44 then
        e.r = math.random(0, 40)
        world:set_view_radius(id, e.r)
      elseif roll <= 47 then
        e.layers = layer_choices[math.random(4)]
        world:set_layers(id, e.layers)
      elseif roll <= 50 then
        world:remove(id)
        ents[id] = nil
      end
    end
    -- The reference: the new relation, and its diff sorted by (watcher, target).
    local now, want = {}, {}
    for w, a in pairs(ents) do
      now[w] = {}
      for t, b in pairs(ents) do
        local dx, dy = a.x - b.x, a.y - b.y
        local was = sees[w] and sees[w][t]
        local reach = was and a.r + hysteresis or a.r
        if w ~= t and a.mode ~= "marker" and b.mode ~= "watcher" and masks_meet(a.layers, b.layers) and
            dx * dx + dy * dy <= reach * reach then
          now[w][t] = true
        end
      end
    end
    for w, row in pairs(now) do
      for t in pairs(row) do
        if not (sees[w] and sees[w][t]) then want[#want + 1] = {"enter", w, t} end
      end
    end
    for w, row in pairs(sees) do
      for t in pairs(row) do
        if not (now[w] and now[w][t]) then want[#want + 1] = {"leave", w, t} end
      end
    end
    table.sort(want, function(p, q) return p[2] < q[2] or (p[2] == q[2] and p[3] < q[3]) end)
    local got = (tick % 2 == 0) and world:tick() or {}
    if tick % 2 == 1 then   -- the callback form on odd ticks
      local n = world:tick(function(kind, w, t) got[#got + 1] = {kind = kind, watcher = w, target = t} end)
      check(n == #got, scalar .. ": tick(fn) returns the count")
    end
    check(#got == #want, scalar .. ": tick " .. tick .. ": " .. #got .. " events, reference " .. #want)
    for k = 1, math.min(#got, #want) do
      local g, w = got[k], want[k]
      check(g.kind == w[1] and g.watcher == w[2] and g.target == w[3],
            string.format("%s: tick %d event %d: %s %d %d, reference %s %d %d", scalar, tick, k, g.kind, g.watcher,
                          g.target, w[1], w[2], w[3]))
    end
    total = total + #got
    sees, live = now, {}
    local pair_total = 0
    for id, e in pairs(ents) do
      live[id] = {x = e.x, y = e.y, layers = e.layers}
      for _ in pairs(now[id]) do pair_total = pair_total + 1 end
    end
    check(world:pair_count() == pair_total, scalar .. ": pair_count")
    check(#world == (function() local n = 0 for _ in pairs(ents) do n = n + 1 end return n end)(), scalar .. ": size")
    -- visible and watchers of some entities; a sword swing (a sector) against brute force.
    for id in pairs(ents) do
      if id % 5 == tick % 5 then
        local v, ws = {}, {}
        for t in pairs(now[id]) do v[#v + 1] = t end
        for w, row in pairs(now) do if row[id] then ws[#ws + 1] = w end end
        local gv, gw = world:visible(id), world:watchers(id)
        check(#gv == #v and table.concat(gv, ",") == table.concat(key_sort(v), ","), scalar .. ": visible")
        check(#gw == #ws and table.concat(gw, ",") == table.concat(key_sort(ws), ","), scalar .. ": watchers")
      end
    end
    local hx, hy = math.random(0, 299), math.random(0, 299)
    local hits, inside = world:query_sector(hx, hy, 1, 0, 30, math.pi / 4), {}
    for _, id in ipairs(hits) do inside[id] = true end
    for id, e in pairs(live) do
      -- Points (body radius 0) within 30 of the apex and within 45 degrees of +x: x - hx >= |y - hy|. Points on
      -- the 45-degree edges may go either way (the angle is not exact in floating point); all others must agree.
      local dx, dy = e.x - hx, e.y - hy
      if dx * dx + dy * dy <= 900 and dx ~= math.abs(dy) then
        check((dx > math.abs(dy)) == (inside[id] == true), scalar .. ": the sword swing and brute force differ")
      end
    end
    for k = 2, #hits do check(hits[k - 1] < hits[k], scalar .. ": query ids ascend") end
    local circle, expect = world:query_circle(hx, hy, 25), {}
    for id, e in pairs(live) do
      local dx, dy = e.x - hx, e.y - hy
      if dx * dx + dy * dy <= 625 then expect[#expect + 1] = id end
    end
    check(table.concat(circle, ",") == table.concat(key_sort(expect), ","),
          scalar .. ": a circle finds " .. #circle .. ", brute force " .. #expect)
  end
  check(total > 300, scalar .. ": the run exercised the relation (" .. total .. " events)")
  world:validate()
  print(string.format("  aoi %-6s 60 ticks, %d events, all as the Lua reference", scalar, total))
  -- Bad input raises and changes nothing.
  local some
  for id in pairs(ents) do some = id break end
  local ok, message = pcall(world.add, world, some, 1, 1, 5)
  check(not ok and tostring(message):find("already", 1, true), "aoi: a duplicate id raises: " .. tostring(message))
  ok, message = pcall(world.add, world, 1, 0 / 0, 1, 5)
  check(not ok and tostring(message):find("quadrant", 1, true), "aoi: a NaN position raises")
  ok, message = pcall(world.add, world, 1, 1, 1, 5, "ghost")
  check(not ok and tostring(message):find("ghost", 1, true), "aoi: a bad mode raises")
  ok = pcall(world.move, world, 123456789, 1, 1)
  check(not ok, "aoi: moving an unknown id raises")
  ok = pcall(world.query_circle, world, 0, 0, -1)
  check(not ok, "aoi: a negative radius raises")
  check(#world:tick() == 0 and not world:contains(1), "aoi: bad input changed nothing")
  ok, message = pcall(world.add, world, -5, 1, 1, 5)
  check(not ok and tostring(message):find("negative", 1, true), "aoi: a negative id raises: " .. tostring(message))
  ok, message = pcall(quadrant.aoi, {world = {0, 0, 1, 1}, hysterisis = 3})
  check(not ok and tostring(message):find("unknown key hysterisis", 1, true), "aoi: a misspelt key raises: " .. tostring(message))
  ok, message = pcall(quadrant.aoi, {world = {0, 0, 1, 1}, hysteresis = -1})
  check(not ok and tostring(message):find("hysteresis", 1, true), "aoi: bad settings raise: " .. tostring(message))
  -- A world stores floats unless asked for doubles, as in C++, C# and JavaScript: 0.1 comes back rounded.
  local plain, wide = quadrant.aoi{world = {0, 0, 10, 10}}, quadrant.aoi{world = {0, 0, 10, 10}, scalar = "double"}
  plain:add(1, 0.1, 0.1, 1)
  wide:add(1, 0.1, 0.1, 1)
  plain:tick()
  wide:tick()
  local px, wx = plain:position(1), wide:position(1)
  check(px ~= 0.1 and math.abs(px - 0.1) < 1e-7, "aoi: the default scalar is float (0.1 -> " .. px .. ")")
  check(wx == 0.1, "aoi: scalar = \"double\" keeps 0.1 (got " .. wx .. ")")
  plain:destroy()
  wide:destroy()
  world:destroy()
  check(not pcall(world.size, world), "aoi: a destroyed world raises")
end
check_aoi("double")
check_aoi("float")

-- Abuse: another tree's handle, a Lua error or a yield inside a query function, destroy from inside one, nested
-- queries, a huge k. Each is refused with a Lua error or works as documented, and the tree stays usable.
do
  local a = quadrant.new{world = {0, 0, 100, 100}}
  local b = quadrant.new{world = {0, 0, 100, 100}}
  local ha = a:insert({1, 1, 2, 2}, "a1")
  local hb = b:insert({1, 1, 2, 2}, "b1")
  check(not b:contains(ha) and not a:contains(hb), "abuse: a tree does not contain another's handle")
  raises("stale or foreign", b.erase, b, ha)
  raises("stale or foreign", b.move, b, ha, {3, 3, 4, 4})
  raises("stale or foreign", b.value, b, ha)
  raises("stale or foreign", b.bounds, b, ha)
  raises("stale or foreign", b.set_layers, b, ha, 1)
  check(#b == 1 and b:value(hb) == "b1" and a:value(ha) == "a1", "abuse: foreign handles changed nothing")

  for i = 2, 20 do a:insert({i * 4, i * 4, i * 4 + 1, i * 4 + 1}, "a" .. i) end
  local everything = {0, 0, 100, 100}
  -- An error inside the function reaches the caller; the tree can then be queried, changed and destroyed.
  local ok, message = pcall(a.query_box, a, everything, function() error("boom from the callback") end)
  check(not ok and tostring(message):find("boom from the callback", 1, true), "abuse: the callback's error: " .. tostring(message))
  local h = a:insert({50, 50, 51, 51}, "after the error")
  a:erase(h)
  check(#a:query_box(everything) == 20, "abuse: the tree answers after an error in a callback")
  -- A yield from the function is refused cleanly.
  local co = coroutine.create(function() return a:query_box(everything, function() coroutine.yield(1) end) end)
  local resumed, why = coroutine.resume(co)
  check(not resumed and tostring(why):find("yield", 1, true), "abuse: a yield across the callback is refused: " .. tostring(why))
  check(#a:query_box(everything) == 20, "abuse: the tree answers after a refused yield")
  -- Nested queries: each gets its own results.
  local outer, inner_total, inner_fn_total = 0, 0, 0
  a:query_box(everything, function()
    outer = outer + 1
    inner_total = inner_total + #a:query_box({0, 0, 10, 10})
    inner_fn_total = inner_fn_total + a:query_box({60, 60, 100, 100}, function() end)
    return true
  end)
  local got = {}
  a:query_box(everything, function(v)
    a:query_box({70, 70, 100, 100}, function() end)
    got[#got + 1] = v
  end)
  check(outer == 20 and same_set(got, a:query_box(everything)), "abuse: a nested query leaves the outer results alone")
  check(inner_total == 20 * #a:query_box({0, 0, 10, 10}) and inner_fn_total == 20 * #a:query_box({60, 60, 100, 100}),
        "abuse: nested queries see their own results")
  -- Destroy from inside a query function is refused; the outer query goes on; destroy works afterwards.
  local delivered = 0
  a:query_box(everything, function()
    delivered = delivered + 1
    if delivered == 1 then raises("inside a query function", a.destroy, a) end
  end)
  check(delivered == 20 and #a == 20, "abuse: destroy inside the callback was refused and the query went on")
  -- k far beyond the object count: no buffer sized by k.
  -- (Lua 5.1 and LuaJIT have no integers: there the largest k is 2^63 - 1024, the largest double below 2^63, and
  -- 2^61 + 1 is the double 2^61; the integer form is compiled only where the syntax exists.)
  local values, distances = a:nearest({0, 0}, math.maxinteger or 2 ^ 63 - 1024)
  check(#values == 20 and #distances == 20, "abuse: nearest with a huge k answers every object")
  values = a:nearest({0, 0}, math.type and load("return (1 << 61) + 1")() or 2 ^ 61)
  check(#values == 20, "abuse: nearest with k = 2^61 + 1")
  a:destroy()
  raises("destroyed", a.size, a)
  b:destroy()
end

-- ---- Parity with the C API: shapes as values, ray casts, nodes, pairs forms, two trees, the layer matrix,
-- contacts, batch moves, assign, the streamer and aoi:move_many, each against brute force in Lua on random scenes
-- (fixed seeds; 2D and 3D, float and double, each placement), then bad input and abuse of every new callback.
-- Integer coordinates, and shapes centered on halves, so every answer is exact and nothing touches by rounding.

local unpack_ = table.unpack or unpack
-- Where the segment from a to b enters the box, as a fraction in [0, 1], or nil; `margin` is how far inside the
-- slabs the answer lies (near 0: a touching case rounding may decide either way).
local function slab(a, b, box, d)
  local t0, t1 = 0, 1
  for k = 1, d do
    local dir = b[k] - a[k]
    if dir == 0 then
      if a[k] < box[k] or a[k] > box[d + k] then return nil, math.min(box[k] - a[k], a[k] - box[d + k]) end
    else
      local u, v = (box[k] - a[k]) / dir, (box[d + k] - a[k]) / dir
      if u > v then u, v = v, u end
      if u > t0 then t0 = u end
      if v < t1 then t1 = v end
    end
  end
  if t0 > t1 then return nil, t0 - t1 end
  return t0, t1 - t0
end
-- Separating-axis test of a convex polygon (x1, y1, ...) and a box: the largest gap along an axis (> 0: apart).
local function polygon_gap(xy, box)
  local n = #xy / 2
  local best = -math.huge
  local function axis(ax, ay)
    local pmin, pmax = math.huge, -math.huge
    for i = 1, n do
      local p = xy[2 * i - 1] * ax + xy[2 * i] * ay
      pmin, pmax = math.min(pmin, p), math.max(pmax, p)
    end
    local bmin, bmax = math.huge, -math.huge
    for _, c in ipairs{{box[1], box[2]}, {box[3], box[2]}, {box[3], box[4]}, {box[1], box[4]}} do
      local p = c[1] * ax + c[2] * ay
      bmin, bmax = math.min(bmin, p), math.max(bmax, p)
    end
    local len = math.sqrt(ax * ax + ay * ay)
    best = math.max(best, math.max(bmin - pmax, pmin - bmax) / len)
  end
  axis(1, 0)
  axis(0, 1)
  for i = 1, n do
    local j = i % n + 1
    axis(xy[2 * j] - xy[2 * i], xy[2 * i - 1] - xy[2 * j - 1])
  end
  return best
end
-- Layers i and j collide under the test's matrix: 0 with 2, 1 with itself.
local function matrix_allows(a, b)
  local function has(mask, bit) return math.floor(mask / 2 ^ bit) % 2 == 1 end
  return (has(a, 0) and has(b, 2)) or (has(a, 2) and has(b, 0)) or (has(a, 1) and has(b, 1))
end
-- Exact text of a value (5.1's tostring rounds a handle of 53 bits to 14 digits).
local function exact(v)
  if type(v) == "number" and not math.type then return string.format("%.0f", v) end
  return tostring(v)
end
local function pair_key(x, y)
  x, y = exact(x), exact(y)
  if x > y then x, y = y, x end
  return x .. ":" .. y
end
local function key_set(list, fa, fb)
  local s, n = {}, 0
  for i = 1, #list do
    local k = pair_key(fa(i), fb(i))
    if not s[k] then n = n + 1 end
    s[k] = true
  end
  return s, n
end
local function same_keys(a, na, b, nb)
  if na ~= nb then return false end
  for k in pairs(a) do if not b[k] then return false end end
  return true
end

local LAYER_CHOICES = {1, 2, 4, 3, 5}
local function random_scene(d, n, extent)
  local boxes, layers = {}, {}
  for i = 1, n do
    local b = {}
    for k = 1, d do
      b[k] = math.random(-5, extent)
      b[d + k] = b[k] + math.random(0, 12)
    end
    boxes[i], layers[i] = b, LAYER_CHOICES[math.random(#LAYER_CHOICES)]
  end
  return boxes, layers
end

local function check_parity(d, scalar, placement, build)
  local name = string.format("parity %dD %s %s %s", d, scalar, placement, build)
  local world = d == 2 and {0, 0, 100, 100} or {0, 0, 0, 100, 100, 100}
  local tree = quadrant.new{dims = d, scalar = scalar, placement = placement, world = world, split_threshold = 6,
                            max_depth = 6}
  local boxes, layers = random_scene(d, 250, 100)
  local handles
  if build == "assign" then
    tree:insert(world, "gone")  -- assign replaces it
    local values = {}
    for i = 1, #boxes do values[i] = i end
    handles = tree:assign(boxes, values, layers)
    check(#handles == #boxes and #tree == #boxes, name .. ": assign's handles and size")
  else
    handles = {}
    for i, b in ipairs(boxes) do handles[i] = tree:insert(b, i, layers[i]) end
  end
  for i = 1, #boxes, 17 do
    check(tree:value(handles[i]) == i and tree:layers(handles[i]) == layers[i], name .. ": value and layers")
  end
  tree:validate()
  local function want_where(mask, hit)
    local w = {}
    for i, b in ipairs(boxes) do
      if (mask == nil or masks_meet(layers[i], mask)) and hit(b) then w[#w + 1] = i end
    end
    return w
  end
  local other = quadrant.new{dims = d, scalar = scalar, placement = placement == "loose" and "leaves" or "loose",
                             world = world, split_threshold = 4}
  local oboxes, olayers = random_scene(d, 120, 100)
  for i, b in ipairs(oboxes) do other:insert(b, -i, olayers[i]) end
  local tracker, mtracker = quadrant.contacts(), quadrant.contacts()
  local matrix = quadrant.layer_matrix():set(0, 2):set(1, 1)
  local before, mbefore, nbefore, mnbefore = {}, {}, 0, 0

  for round = 1, 3 do
    -- query(shape) for every shape, with a layer mask now and then, against brute force.
    for q = 1, 25 do
      local mask = ({nil, 1, 2, 5, -1})[math.random(5)]
      local c = {}
      for k = 1, d do c[k] = math.random(0, 100) + 0.5 end
      local r = math.random(0, 30)
      local lo = {}
      for k = 1, d do lo[k] = math.random(-5, 100) end
      local box = {}
      for k = 1, d do box[k], box[d + k] = lo[k], lo[k] + math.random(0, 40) end
      local mm = mask == -1 and nil or mask
      local tests = {
        {quadrant.box(box), function(b) return overlaps_d(b, box, d) end},
        {quadrant.point(unpack_(c)),
         function(b) return gap2_d(c, b, d) == 0 end},
        {d == 2 and quadrant.circle(c[1], c[2], r) or quadrant.sphere(c[1], c[2], c[3], r),
         function(b) return gap2_d(c, b, d) <= r * r end},
      }
      if d == 2 then
        local inner = math.random(0, r)
        tests[#tests + 1] = {quadrant.ring(c[1], c[2], inner, r), function(b)
          local fx = math.max(math.abs(c[1] - b[1]), math.abs(c[1] - b[3]))
          local fy = math.max(math.abs(c[2] - b[2]), math.abs(c[2] - b[4]))
          return gap2_d(c, b, 2) <= r * r and fx * fx + fy * fy >= inner * inner
        end}
        -- An ellipse with equal radii is the circle, at any angle.
        tests[#tests + 1] = {quadrant.ellipse(c[1], c[2], r, r, math.random() * 3),
                             function(b) return gap2_d(c, b, 2) <= r * r end}
        -- A sector of half angle pi/2 facing +x is the half disc x >= apex.
        tests[#tests + 1] = {quadrant.sector(c[1], c[2], 3, 0, r, math.pi / 2), function(b)
          if b[3] < c[1] then return false end
          return gap2_d(c, {math.max(b[1], c[1]), b[2], b[3], b[4]}, 2) <= r * r
        end}
        -- A rotated box and a triangle against the separating-axis test (skipped within rounding of touching).
        local hx, hy, angle = math.random(1, 20), math.random(1, 20), math.random() * 6
        local ca, sa = math.cos(angle), math.sin(angle)
        local corners = {}
        for _, s in ipairs{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} do
          corners[#corners + 1] = c[1] + s[1] * hx * ca - s[2] * hy * sa
          corners[#corners + 1] = c[2] + s[1] * hx * sa + s[2] * hy * ca
        end
        local obox = quadrant.oriented_box(c[1], c[2], hx, hy, angle)
        local tri
        repeat  -- a triangle of nonzero area
          tri = {c[1], c[2], c[1] + math.random(1, 30), c[2] + math.random(0, 10), c[1] + math.random(-10, 10),
                 c[2] + math.random(5, 30)}
        until (tri[3] - tri[1]) * (tri[6] - tri[2]) - (tri[4] - tri[2]) * (tri[5] - tri[1]) ~= 0
        local got_o, got_t = {}, {}
        for _, v in ipairs(tree:query(obox, mm)) do got_o[v] = true end
        for _, v in ipairs(tree:query(quadrant.polygon(tri), mm)) do got_t[v] = true end
        for i, b in ipairs(boxes) do
          if mm == nil or masks_meet(layers[i], mm) then
            local go, gt = polygon_gap(corners, b), polygon_gap(tri, b)
            if math.abs(go) > 1e-6 then check((go <= 0) == (got_o[i] == true), name .. ": oriented_box") end
            if math.abs(gt) > 1e-9 then check((gt <= 0) == (got_t[i] == true), name .. ": polygon") end
          else
            check(not got_o[i] and not got_t[i], name .. ": a shape query found another layer")
          end
        end
      else
        -- An orthographic frustum over a box with half-integer faces is that box.
        local fl, fh = {}, {}
        for k = 1, 3 do fl[k] = math.random(-5, 80) + 0.5; fh[k] = fl[k] + math.random(1, 40) end
        local s, t = {}, {}
        local zero_to_one = q % 2 == 0
        for k = 1, 3 do
          s[k] = 2 / (fh[k] - fl[k])
          t[k] = -(fh[k] + fl[k]) / (fh[k] - fl[k])
        end
        if zero_to_one then s[3], t[3] = 1 / (fh[3] - fl[3]), -fl[3] / (fh[3] - fl[3]) end
        local m = {s[1], 0, 0, 0, 0, s[2], 0, 0, 0, 0, s[3], 0, t[1], t[2], t[3], 1}
        local row_major = q % 3 == 0
        if row_major then  -- the same matrix, transposed
          m = {m[1], m[5], m[9], m[13], m[2], m[6], m[10], m[14], m[3], m[7], m[11], m[15], m[4], m[8], m[12], m[16]}
        end
        local fbox = {fl[1], fl[2], fl[3], fh[1], fh[2], fh[3]}
        tests[#tests + 1] = {quadrant.frustum(m, {row_major = row_major, clip_zero_to_one = zero_to_one}),
                             function(b) return overlaps_d(b, fbox, 3) end}
      end
      -- A segment against the slab test (skipped within rounding of touching).
      local a, b2 = {}, {}
      for k = 1, d do a[k], b2[k] = math.random(-10, 110) + 0.25, math.random(-10, 110) + 0.75 end
      local seg = {}
      for _, t in ipairs(tests) do
        local got = tree:query(t[1], mm)
        check(same_set(got, want_where(mm, t[2])), name .. ": query(" .. tostring(t[1]) .. ")")
        -- The function form: the same values with their handles; false stops.
        local calls, ok = 0, true
        local n = tree:query(t[1], mm, function(v, h)
          calls = calls + 1
          ok = ok and tree:value(h) == v
        end)
        check(n == #got and calls == #got and ok, name .. ": query with a function")
        if #got >= 2 then
          calls = 0
          tree:query(t[1], mm, function() calls = calls + 1; return false end)
          check(calls == 1, name .. ": a query function returning false stops")
        end
        if mm == nil then check(tree:query(t[1], function() end) == #got, name .. ": query(shape, fn)") end
      end
      local got = {}
      for _, v in ipairs(tree:query(quadrant.segment(a, b2), mm)) do got[v] = true end
      -- raycast: the same objects, nearest first, each t where the segment enters its box.
      local hits = tree:raycast(a, b2, mm)
      local by_ray, last_t = {}, -1
      for _, h in ipairs(hits) do
        by_ray[h.value] = true
        check(h.t >= last_t and h.t >= 0 and h.t <= 1, name .. ": raycast nearest first")
        last_t = h.t
        check(tree:value(h.handle) == h.value, name .. ": raycast's handle")
        local t0 = slab(a, b2, boxes[h.value], d)
        if t0 then check(math.abs(t0 - h.t) <= 1e-4, name .. ": raycast's t " .. h.t .. " vs " .. t0) end
      end
      for i, bx in ipairs(boxes) do
        local t0, margin = slab(a, b2, bx, d)
        local wanted = (mm == nil or masks_meet(layers[i], mm))
        if margin > 1e-6 or not wanted then
          check((t0 ~= nil and wanted) == (got[i] == true), name .. ": query(segment)")
          check((t0 ~= nil and wanted) == (by_ray[i] == true), name .. ": raycast against the slab test")
        end
      end
      local fv, fh, ft = tree:raycast_first(a, b2, mm)
      if #hits == 0 then check(fv == nil, name .. ": raycast_first of nothing")
      else check(ft == hits[1].t and tree:value(fh) == fv, name .. ": raycast_first is the nearest") end
      local calls = 0
      local n = tree:raycast(a, b2, mm, function(v, h, t)
        calls = calls + 1
        check(v == hits[calls].value and t == hits[calls].t and tree:value(h) == v, name .. ": raycast(fn)")
        return calls < 2
      end)
      check(n == #hits and calls == math.min(2, #hits), name .. ": raycast's function and its stop")
    end

    -- pairs in every form, filtered by a mask and by the matrix, against brute force.
    local want_all, want_mask, want_matrix = {}, {}, {}
    local n_all, n_mask, n_matrix = 0, 0, 0
    for i = 1, #boxes do
      for j = i + 1, #boxes do
        if overlaps_d(boxes[i], boxes[j], d) then
          local k = pair_key(i, j)
          want_all[k], n_all = true, n_all + 1
          if masks_meet(layers[i], 2) and masks_meet(layers[j], 2) then want_mask[k], n_mask = true, n_mask + 1 end
          if matrix_allows(layers[i], layers[j]) then want_matrix[k], n_matrix = true, n_matrix + 1 end
        end
      end
    end
    local p = tree:pairs()
    local s, n = key_set(p, function(i) return p[i][1] end, function(i) return p[i][2] end)
    check(#p == n_all and same_keys(s, n, want_all, n_all), name .. ": pairs() " .. #p .. " vs " .. n_all)
    local as, bs = tree:pairs_flat()
    s, n = key_set(as, function(i) return as[i] end, function(i) return bs[i] end)
    check(#as == n_all and #bs == n_all and same_keys(s, n, want_all, n_all), name .. ": pairs_flat()")
    local fa, fb, calls = {}, {}, 0
    local count = tree:pairs(function(va, vb, ha, hb)
      calls = calls + 1
      fa[calls], fb[calls] = va, vb
      check(tree:value(ha) == va and tree:value(hb) == vb, name .. ": pairs(fn)'s handles")
    end)
    s, n = key_set(fa, function(i) return fa[i] end, function(i) return fb[i] end)
    check(count == n_all and calls == n_all and same_keys(s, n, want_all, n_all), name .. ": pairs(fn)")
    if n_all >= 2 then
      calls = 0
      tree:pairs(function() calls = calls + 1; return false end)
      check(calls == 1, name .. ": pairs(fn) stops at false")
    end
    as, bs = tree:pairs_flat(2)
    s, n = key_set(as, function(i) return as[i] end, function(i) return bs[i] end)
    check(same_keys(s, n, want_mask, n_mask), name .. ": pairs_flat(mask)")
    p = tree:pairs(matrix)
    s, n = key_set(p, function(i) return p[i][1] end, function(i) return p[i][2] end)
    check(#p == n_matrix and same_keys(s, n, want_matrix, n_matrix), name .. ": pairs(matrix)")
    fa, fb, calls = {}, {}, 0
    tree:pairs(matrix, function(va, vb) calls = calls + 1; fa[calls], fb[calls] = va, vb end)
    s, n = key_set(fa, function(i) return fa[i] end, function(i) return fb[i] end)
    check(same_keys(s, n, want_matrix, n_matrix), name .. ": pairs(matrix, fn)")
    as, bs = tree:pairs_flat(matrix)
    s, n = key_set(as, function(i) return as[i] end, function(i) return bs[i] end)
    check(same_keys(s, n, want_matrix, n_matrix), name .. ": pairs_flat(matrix)")

    -- Two trees: every pair of one of this tree and one of the other.
    for _, masks in ipairs{{nil, nil}, {1, 2}, {-1, 4}} do
      local la, lb = masks[1], masks[2]
      local want, nw = {}, 0
      for i, bi in ipairs(boxes) do
        for j, bj in ipairs(oboxes) do
          if overlaps_d(bi, bj, d) and (la == nil or la == -1 or masks_meet(layers[i], la))
             and (lb == nil or masks_meet(olayers[j], lb)) then
            want[pair_key(i, -j)], nw = true, nw + 1
          end
        end
      end
      local pw = la == nil and tree:pairs_with(other) or tree:pairs_with(other, la, lb)
      s, n = key_set(pw, function(i) return pw[i][1] end, function(i) return pw[i][2] end)
      check(#pw == nw and same_keys(s, n, want, nw), name .. ": pairs_with " .. #pw .. " vs " .. nw)
      for _, q in ipairs(pw) do check(q[1] > 0 and q[2] < 0, name .. ": pairs_with: this tree's value first") end
      as, bs = tree:pairs_with_flat(other, la, lb)
      s, n = key_set(as, function(i) return as[i] end, function(i) return bs[i] end)
      check(same_keys(s, n, want, nw), name .. ": pairs_with_flat")
      fa, fb, calls = {}, {}, 0
      local c2 = la == nil and tree:pairs_with(other, function(va, vb, ha, hb)
        calls = calls + 1
        fa[calls], fb[calls] = va, vb
        check(tree:value(ha) == va and other:value(hb) == vb, name .. ": pairs_with(fn)'s handles")
      end) or tree:pairs_with(other, la, lb, function(va, vb) calls = calls + 1; fa[calls], fb[calls] = va, vb end)
      s, n = key_set(fa, function(i) return fa[i] end, function(i) return fb[i] end)
      check(c2 == nw and same_keys(s, n, want, nw), name .. ": pairs_with(fn)")
    end

    -- Contacts: begun and ended since the last step, by mask and by matrix, against the brute-force pairs.
    local function contact_keys(list)
      return key_set(list, function(i) return list[i].a end, function(i) return list[i].b end)
    end
    local function by_handle(set)
      local out, n2 = {}, 0
      for k in pairs(set) do
        local i, j = k:match("^(%-?%d+):(%-?%d+)$")
        out[pair_key(handles[tonumber(i)], handles[tonumber(j)])], n2 = true, n2 + 1
      end
      return out, n2
    end
    local now, nnow = by_handle(want_all)
    local mnow, mnnow = by_handle(want_matrix)
    local begun, ended, current = tracker:update(tree)
    local bs2, nb = contact_keys(begun)
    local es2, ne = contact_keys(ended)
    local wb, nwb, we, nwe = {}, 0, {}, 0
    for k in pairs(now) do if not before[k] then wb[k], nwb = true, nwb + 1 end end
    for k in pairs(before) do if not now[k] then we[k], nwe = true, nwe + 1 end end
    check(current == nnow and same_keys(bs2, nb, wb, nwb) and same_keys(es2, ne, we, nwe),
          name .. ": contacts begun " .. nb .. " vs " .. nwb .. ", ended " .. ne .. " vs " .. nwe)
    begun, ended, current = mtracker:update(tree, matrix)
    bs2, nb = contact_keys(begun)
    es2, ne = contact_keys(ended)
    wb, nwb, we, nwe = {}, 0, {}, 0
    for k in pairs(mnow) do if not mbefore[k] then wb[k], nwb = true, nwb + 1 end end
    for k in pairs(mbefore) do if not mnow[k] then we[k], nwe = true, nwe + 1 end end
    check(current == mnnow and same_keys(bs2, nb, wb, nwb) and same_keys(es2, ne, we, nwe),
          name .. ": contacts through the matrix")
    before, mbefore, nbefore, mnbefore = now, mnow, nnow, mnnow

    -- Nodes: the walk, the leaves a shape touches, locate.
    local nodes = tree:nodes()
    local st = tree:stats()
    local by_id, leaves = {}, {}
    for _, node in ipairs(nodes) do
      by_id[node.id] = node
      if node.leaf then leaves[#leaves + 1] = node end
    end
    check(#nodes == st.nodes and #leaves == st.leaves, name .. ": nodes() and stats agree")
    check(nodes[1].id == 0 and nodes[1].parent == -1 and nodes[1].count == (placement == "leaves" and nodes[1].count or #tree),
          name .. ": the root first")
    local sums = {}
    for _, node in ipairs(nodes) do
      if node.parent ~= -1 then
        check(by_id[node.parent] ~= nil and by_id[node.parent].depth == node.depth - 1, name .. ": parent before child")
        sums[node.parent] = (sums[node.parent] or 0) + node.count
        local pc = by_id[node.parent].cell
        for k = 1, d do check(node.cell[k] >= pc[k] and node.cell[d + k] <= pc[d + k], name .. ": child cell inside") end
      end
    end
    for _, node in ipairs(nodes) do
      check(node.count == node.items + (sums[node.id] or 0), name .. ": a node's count is its items and its children's")
    end
    local walked = 0
    check(tree:for_each_node(function(node)
      walked = walked + 1
      check(node.id == nodes[walked].id and node.items == nodes[walked].items, name .. ": for_each_node's order")
    end) == #nodes and walked == #nodes, name .. ": for_each_node")
    for q = 1, 8 do
      local lo = {}
      for k = 1, d do lo[k] = math.random(-5, 100) + 0.5 end
      local qb = {}
      for k = 1, d do qb[k], qb[d + k] = lo[k], lo[k] + math.random(0, 40) end
      for _, skip in ipairs{true, false} do
        local want, got = {}, {}
        for _, leaf in ipairs(leaves) do
          if overlaps_d(leaf.cell, qb, d) and (not skip or leaf.count > 0) then want[#want + 1] = leaf.id end
        end
        for _, node in ipairs(tree:query_nodes(quadrant.box(qb), skip)) do got[#got + 1] = node.id end
        check(same_set(got, want), name .. ": query_nodes (skip_empty " .. tostring(skip) .. ")")
      end
      local pt = {}
      for k = 1, d do pt[k] = math.random(0, 99) + 0.3 end
      local leaf = tree:locate(unpack_(pt))
      check(leaf.leaf and by_id[leaf.id] ~= nil and gap2_d(pt, leaf.cell, d) == 0, name .. ": locate")
    end

    -- move_many: a third of the objects move at once; the others keep their boxes.
    local mh, mb = {}, {}
    for i = 1, #boxes do
      if math.random(3) == 1 then
        local b = {}
        for k = 1, d do
          local delta = math.random(-8, 8)
          b[k], b[d + k] = boxes[i][k] + delta, boxes[i][d + k] + delta
        end
        boxes[i] = b
        mh[#mh + 1], mb[#mb + 1] = handles[i], b
      end
    end
    tree:move_many(mh, mb)
    tree:validate()
    for i = 1, #boxes do
      local b = tree:bounds(handles[i])
      local same = true
      for k = 1, 2 * d do same = same and b[k] == boxes[i][k] end
      check(same, name .. ": move_many gave every object its box")
    end
  end
  tracker:destroy()
  mtracker:destroy()
  other:destroy()
  tree:destroy()
end

print("quadrant: parity with the C API against brute force")
math.randomseed(2026)
for _, d in ipairs{2, 3} do
  for _, scalar in ipairs{"float", "double"} do
    for _, placement in ipairs{"loose", "parent", "leaves"} do
      check_parity(d, scalar, placement, placement == "parent" and "assign" or "insert")
    end
  end
end

-- The streamer against a model of docs/streaming.md's rules (as bindings/c/test_c_world.c): two drifting sources,
-- caps on loads, completions, failures, late completions, removals and moves; every state, every load (nearest
-- first, with its distance), unload and cancel as the model says.
local function check_streamer(scalar)
  math.randomseed(5)
  local name = "streamer " .. scalar
  local margin, per_update, in_flight, N = 4, 6, 10, 300
  local st = quadrant.streamer{world = {0, 0, 0, 100, 100, 100}, scalar = scalar, split_threshold = 4,
                               unload_margin = margin, max_loads_per_update = per_update,
                               max_loads_in_flight = in_flight}
  local objs = {}
  for i = 1, N do
    local b = {}
    for k = 1, 3 do b[k] = math.random(0, 94); b[k + 3] = b[k] + math.random(0, 4) end
    objs[i] = {present = true, state = "unloaded", box = b}
    st:add(i, b)
  end
  check(#st == N and st:size() == N, name .. ": size")
  local src = {}
  for k = 1, 2 do
    src[k] = {position = {math.random(0, 100), math.random(0, 100), math.random(0, 100)}, prefetch_radius = 25 + 10 * k}
  end
  local seen = {loads = 0, unloads = 0, cancels = 0, queued = 0}
  for frame = 1, 60 do
    for k = 1, 2 do
      for i = 1, 3 do src[k].position[i] = math.max(0, math.min(100, src[k].position[i] + math.random(0, 12) - 6)) end
    end
    local loads, unloads, cancels, stats = st:update(src)
    local unload_set, cancel_set = {}, {}
    for i, id in ipairs(unloads) do
      unload_set[id] = true
      check(i == 1 or unloads[i - 1] < id, name .. ": unloads ascending")
    end
    for i, id in ipairs(cancels) do
      cancel_set[id] = true
      check(i == 1 or cancels[i - 1] < id, name .. ": cancels ascending")
    end
    local cand, loading, n_unloads, n_cancels = {}, 0, 0, 0
    for i = 1, N do
      local o = objs[i]
      if o.present then
        local best, keep = math.huge, false
        for k = 1, 2 do
          local d2, r = gap2_d(src[k].position, o.box, 3), src[k].prefetch_radius
          best = math.min(best, d2)
          if d2 <= (r + margin) * (r + margin) then keep = true end
        end
        if (o.state == "loading" or o.state == "loaded") and not keep then
          if o.state == "loading" then
            check(cancel_set[i] == true, name .. ": a cancel")
            n_cancels = n_cancels + 1
          else
            check(unload_set[i] == true, name .. ": an unload")
            n_unloads = n_unloads + 1
          end
          o.state = "unloaded"
        end
        if o.state == "queued" then o.state = "unloaded" end
        if o.state == "loading" then loading = loading + 1 end
        for k = 1, 2 do
          local r = src[k].prefetch_radius
          if o.state == "unloaded" and gap2_d(src[k].position, o.box, 3) <= r * r then
            cand[#cand + 1] = {d2 = best, i = i}
            break
          end
        end
      end
    end
    check(#unloads == n_unloads and #cancels == n_cancels, name .. ": no other unloads or cancels")
    table.sort(cand, function(a, b) if a.d2 ~= b.d2 then return a.d2 < b.d2 end return a.i < b.i end)
    local take = math.min(in_flight - loading, per_update, #cand)
    check(#loads == take, name .. ": " .. #loads .. " loads, the model " .. take)
    for j, c in ipairs(cand) do
      if j <= take then
        if loads[j] then
          check(loads[j].id == c.i, name .. ": loads nearest first")
          check(math.abs(loads[j].distance - math.sqrt(c.d2)) <= 1e-4 * (1 + math.sqrt(c.d2)), name .. ": a load's distance")
        end
        objs[c.i].state = "loading"
      else
        objs[c.i].state = "queued"
      end
    end
    seen.loads, seen.unloads, seen.cancels = seen.loads + #loads, seen.unloads + #unloads, seen.cancels + #cancels
    seen.queued = seen.queued + stats.queued
    for i = 1, N do
      if objs[i].present then check(st:state(i) == objs[i].state, name .. ": state of " .. i)
      else check(not st:contains(i), name .. ": removed") end
    end
    for i = 1, N do
      local o = objs[i]
      if o.present then
        local roll = math.random(0, 99)
        if roll < 50 then
          check(st:mark_loaded(i) == (o.state == "loading"), name .. ": mark_loaded's answer")
          if o.state == "loading" then o.state = "loaded" end
        elseif roll < 55 then
          check(st:mark_failed(i) == (o.state == "loading"), name .. ": mark_failed's answer")
          if o.state == "loading" then o.state = "unloaded" end
        elseif roll < 56 then
          check(st:remove(i) == o.state, name .. ": remove returns the state")
          o.present = false
        elseif roll < 58 then
          for k = 1, 3 do o.box[k] = math.random(0, 94); o.box[k + 3] = o.box[k] + math.random(0, 4) end
          st:move(i, o.box)
          local b = st:bounds(i)
          check(b[1] == o.box[1] and b[6] == o.box[6], name .. ": bounds after move")
        end
      end
    end
    if frame % 20 == 0 then st:validate() end
  end
  check(seen.loads > 100 and seen.unloads > 10 and seen.cancels > 0 and seen.queued > 0,
        name .. ": the run exercised loads, unloads, cancels and the queue")
  -- Bad sources change nothing; a frustum over the whole world wants everything.
  local function states()
    local s = {}
    for i = 1, N do if objs[i].present then s[i] = st:state(i) end end
    return s
  end
  local s0 = states()
  local whole = {0.02, 0, 0, 0, 0, 0.02, 0, 0, 0, 0, 0.02, 0, -1, -1, -1, 1}
  raises("radius", st.update, st, {position = {1, 1, 1}, prefetch_radius = 0 / 0})
  raises("quadrant", st.update, st, {position = {1, 1 / 0, 1}})
  local bad = {}
  for i = 1, 16 do bad[i] = whole[i] end
  bad[6] = 0 / 0
  raises("quadrant", st.update, st, {position = {1, 1, 1}, frustum = bad})
  raises("needs position", st.update, st, {{prefetch_radius = 3}})
  raises("unknown key radius", st.update, st, {position = {1, 1, 1}, radius = 3})
  raises("not a quadrant.frustum", st.update, st, {position = {1, 1, 1}, frustum = quadrant.circle(0, 0, 1)})
  raises("needs 16 numbers", st.update, st, {position = {1, 1, 1}, frustum = {1, 2, 3}})
  raises("sources[2]", st.update, st, {src[1], 5})
  local s1 = states()
  for i in pairs(s0) do check(s1[i] == s0[i], name .. ": a bad update changed nothing") end
  st:set_limits(1000, 1000)
  st:update{position = {50, 50, 50}, frustum = quadrant.frustum(whole)}
  for i = 1, N do
    if objs[i].present then
      local s = st:state(i)
      check(s == "loading" or s == "loaded", name .. ": the frustum wants the whole world")
    end
  end
  local loads = st:update{position = {50, 50, 50}, frustum = whole}
  check(#loads == 0, name .. ": the frustum as 16 numbers too")
  raises("min > max", st.add, st, 100000, {5, 5, 5, 4, 4, 4})
  raises("needs 6 numbers", st.add, st, 100000, {1, 1, 1, 2})
  check(not st:contains(100000), name .. ": a bad add added nothing")
  raises("quadrant", st.remove, st, 100000)
  raises("quadrant", st.mark_loaded, st, 100000)
  raises("quadrant", st.state, st, 100000)
  raises("quadrant", st.bounds, st, 100000)
  raises("negative", st.set_limits, st, -1, 3)
  raises("negative (ids are integers >= 0)", st.add, st, -4, {1, 1, 1, 2, 2, 2})
  local first = 1
  while not objs[first].present do first = first + 1 end
  raises("quadrant", st.add, st, first, {1, 1, 1, 2, 2, 2})
  check(st:bounds(first)[1] == objs[first].box[1], name .. ": a duplicate add changed nothing")
  st:validate()
  st:destroy()
  raises("destroyed", st.size, st)
  raises("a box needs 6 numbers", quadrant.streamer, {world = {0, 0, 1, 1}})
  raises("unknown key margin", quadrant.streamer, {world = {0, 0, 0, 1, 1, 1}, margin = 3})
  raises("quadrant", quadrant.streamer, {world = {0, 0, 0, 1, 1, 1}, unload_margin = -1})
  raises("negative", quadrant.streamer, {world = {0, 0, 0, 1, 1, 1}, max_loads_in_flight = -1})
end
check_streamer("float")
check_streamer("double")
-- A source's frustum as 16 numbers in row-major order, with a Direct3D clip depth: the matrix maps [0, 100] x
-- [0, 100] x [50, 100] to the clip volume, so it wants the 8 objects above z = 50 (read with OpenGL's depth, all 20;
-- read as column-major, it is refused: no camera's matrix).
do
  local function fresh()
    local st = quadrant.streamer{world = {0, 0, 0, 100, 100, 100}, max_loads_per_update = 100,
                                 max_loads_in_flight = 100}
    for i = 1, 20 do st:add(i, {i * 4 + 0.5, i * 4 + 0.5, i * 4 + 0.5, i * 4 + 1.5, i * 4 + 1.5, i * 4 + 1.5}) end
    return st
  end
  local far = {position = {1000, 1000, 1000}, row_major = true, clip_zero_to_one = true,
               frustum = {0.02, 0, 0, -1, 0, 0.02, 0, -1, 0, 0, 0.02, -1, 0, 0, 0, 1}}
  local st = fresh()
  local loads = st:update(far)
  check(#loads == 8 and st:state(13) == "loading" and st:state(12) == "unloaded",
        "streamer: a row-major frustum of numbers with Direct3D's depth: " .. #loads)
  st:destroy()
  st = fresh()
  far.clip_zero_to_one = false
  check(#st:update(far) == 20, "streamer: the same matrix with OpenGL's depth")
  st:destroy()
  st = fresh()
  far.row_major = false
  raises("transposed?", st.update, st, far)
  check(st:state(1) == "unloaded" and st:state(20) == "unloaded", "streamer: a refused frustum changed nothing")
  st:destroy()
end
print("  streamer: float and double as the model of docs/streaming.md")

-- aoi:move_many equals one move per entity; bad input moves nothing.
do
  math.randomseed(9)
  local a = quadrant.aoi{world = {0, 0, 200, 200}}
  local b = quadrant.aoi{world = {0, 0, 200, 200}}
  for id = 1, 60 do
    local x, y, r = math.random(0, 200), math.random(0, 200), math.random(5, 40)
    a:add(id, x, y, r)
    b:add(id, x, y, r)
  end
  a:tick(); b:tick()
  local function same_events(ea, eb)
    if #ea ~= #eb then return false end
    for i = 1, #ea do
      if ea[i].kind ~= eb[i].kind or ea[i].watcher ~= eb[i].watcher or ea[i].target ~= eb[i].target then return false end
    end
    return true
  end
  for _ = 1, 10 do
    local ids, xy = {}, {}
    for id = 1, 60 do
      if math.random(2) == 1 then
        local x, y = math.random(0, 200), math.random(0, 200)
        ids[#ids + 1], xy[#xy + 1], xy[#xy + 2] = id, x, y
        b:move(id, x, y)
      end
    end
    a:move_many(ids, xy)
    local ea, eb = a:tick(), b:tick()
    check(#ea > 0 and same_events(ea, eb), "aoi move_many: the same events as single moves")
  end
  local x0, y0 = a:position(1)
  raises("need 4 coordinates", a.move_many, a, {1, 2}, {1, 1, 1})
  raises("quadrant", a.move_many, a, {1, 999}, {7, 7, 8, 8})
  raises("quadrant", a.move_many, a, {1, 2}, {7, 7, 0 / 0, 8})
  raises("negative", a.move_many, a, {1, -2}, {7, 7, 8, 8})
  raises("needs 4 numbers", a.move_many, a, {1, 2}, {7, 7, "x", 8})
  check(#a:tick() == 0 and select(1, a:position(1)) == x0 and select(2, a:position(1)) == y0,
        "aoi move_many: bad input moved nothing")
  a:validate()
  a:destroy(); b:destroy()
end

-- Bad input to the new calls: an error naming the problem, and nothing changed.
do
  local t = quadrant.new{world = {0, 0, 100, 100}}
  local t3 = quadrant.new{dims = 3, world = {0, 0, 0, 100, 100, 100}}
  local hs = {}
  for i = 1, 20 do hs[i] = t:insert({i * 4, i * 4, i * 4 + 6, i * 4 + 6}, i, i % 2 + 1) end
  local function unchanged(what)
    t:validate()
    check(#t == 20 and #t:query(quadrant.box(0, 0, 100, 100)) == 20, "bad input: " .. what .. " changed nothing")
    for i = 1, 20 do
      local b = t:bounds(hs[i])
      check(b[1] == i * 4 and t:value(hs[i]) == i and t:layers(hs[i]) == i % 2 + 1, "bad input: " .. what .. " kept objects")
    end
  end
  raises("a box needs 4 or 6 numbers, not 3", quadrant.box, 1, 2, 3)
  raises("a box needs 4 or 6 numbers, not 5", quadrant.box, {1, 2, 3, 4, 5})
  raises("a point needs 2 or 3 numbers", quadrant.point, 1)
  raises("number expected", quadrant.circle, 1, "y", 3)
  raises("x, y pairs", quadrant.polygon, {1, 2, 3})
  raises("two points of 2 or 3 numbers", quadrant.segment, {1, 2}, {1, 2, 3})
  raises("needs 16 numbers", quadrant.frustum, {1, 2, 3})
  raises("unknown key rowmajor", quadrant.frustum, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, {rowmajor = true})
  raises("not a shape", t.query, t, {0, 0, 1, 1})
  raises("not a shape", t.query_nodes, t, 5)
  raises("a 3D sphere given to a 2D tree", t.query, t, quadrant.sphere(1, 1, 1, 1))
  raises("a 2D circle given to a 3D tree", t3.query, t3, quadrant.circle(1, 1, 1))
  raises("a 3D frustum given to a 2D tree", t.query_nodes, t, quadrant.frustum({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}))
  raises("radius", t.query, t, quadrant.circle(1, 1, -1))
  raises("NaN", t.query, t, quadrant.box(0 / 0, 0, 1, 1))
  raises("convex", t.query, t, quadrant.polygon{0, 0, 10, 0, 1, 1, 0, 10, 10, 10})
  raises("outside 32 bits", t.query, t, quadrant.box(0, 0, 1, 1), 2 ^ 40)
  raises("a function expected", t.query, t, quadrant.box(0, 0, 1, 1), 1, "fn")
  unchanged("bad queries")
  local m = quadrant.layer_matrix()
  raises("outside 0 .. 31", m.set, m, 32, 0)
  raises("outside 0 .. 31", m.set, m, 0, -1)
  raises("outside 32 bits", m.between, m, 2 ^ 40, 1)
  check(not m:collides(0, 0) and m:set(3, 5):collides(5, 3) and not m:set(3, 5, false):collides(3, 5),
        "layer matrix: set both ways, and unset")
  check(m:between(1, 6):collides(0, 1) and m:collides(2, 0) and not m:collides(1, 2), "layer matrix: between masks")
  raises("LayerMatrix expected", t.pairs, t, quadrant.box(0, 0, 1, 1))
  raises("outside 32 bits", t.pairs_flat, t, -5)
  raises("function expected", t.pairs, t, 1, 7)
  raises("the other tree is this tree", t.pairs_with, t, t)
  raises("a 2D tree and a 3D tree", t.pairs_with, t, t3)
  raises("quadrant.Tree expected", t.pairs_with, t, {})
  raises("outside 32 bits", t.pairs_with, t, quadrant.new{world = {0, 0, 1, 1}}, 2 ^ 33)
  raises("needs 2 numbers", t.raycast, t, {0}, {1, 1})
  raises("quadrant", t.raycast, t, {0, 0 / 0}, {1, 1})
  raises("table expected", t.raycast_first, t, {0, 0}, "b")
  raises("nodes takes no argument", t.nodes, t, print)
  raises("function expected", t.for_each_node, t)
  raises("boolean expected", t.query_nodes, t, quadrant.box(0, 0, 1, 1), "yes")
  raises("outside the world", t.locate, t, 200, 5)
  raises("number expected", t.locate, t, 5)
  unchanged("bad pairs, rays and nodes")
  -- move_many and assign check everything first: on error nothing moved, nothing replaced.
  raises("2 handles and 1 boxes", t.move_many, t, {hs[1], hs[2]}, {{0, 0, 1, 1}})
  raises("handles[2] is string", t.move_many, t, {hs[1], "x"}, {{0, 0, 1, 1}, {0, 0, 1, 1}})
  raises("boxes[2] is number", t.move_many, t, {hs[1], hs[2]}, {{0, 0, 1, 1}, 4})
  raises("min > max", t.move_many, t, {hs[1], hs[2]}, {{0, 0, 1, 1}, {5, 5, 1, 1}})
  raises("NaN", t.move_many, t, {hs[1], hs[2]}, {{0, 0, 1, 1}, {0 / 0, 5, 1, 1}})
  local gone = t3:insert({1, 1, 1, 2, 2, 2}, "x")
  raises("stale or foreign", t.move_many, t, {hs[1], gone}, {{0, 0, 1, 1}, {0, 0, 1, 1}})
  raises("min > max", t.assign, t, {{0, 0, 1, 1}, {5, 5, 1, 1}}, {1, 2})
  raises("boxes[2] is boolean", t.assign, t, {{0, 0, 1, 1}, true}, {1, 2})
  raises("2 boxes and 1 layer masks", t.assign, t, {{0, 0, 1, 1}, {0, 0, 1, 1}}, {1, 2}, {1})
  raises("outside 32 bits", t.assign, t, {{0, 0, 1, 1}, {0, 0, 1, 1}}, {1, 2}, {1, 2 ^ 40})
  raises("table expected", t.assign, t, {{0, 0, 1, 1}}, nil)
  raises("world", t.rebuild, t, {0, 0, 0, 0})
  raises("stale or foreign", t.layers, t, gone)
  raises("stale or foreign", t.set_value, t, gone, 3)
  unchanged("bad move_many, assign, rebuild")
  -- rebuild keeps every object and handle; set_value replaces a value.
  t:rebuild({-50, -50, 150, 150})
  local cell = t:locate(-20, -20).cell
  check(cell[1] >= -50 and cell[1] <= -20, "rebuild: the new world holds (-20, -20)")
  local qs = t:query_stats(quadrant.box(0, 0, 30, 30))
  check(qs.hits == #t:query(quadrant.box(0, 0, 30, 30)) and qs.hits > 0 and qs.nodes_visited > 0 and qs.box_tests > 0,
        "query_stats counts the hits")
  check(t:query_stats(quadrant.box(0, 0, 30, 30), 1).hits == #t:query(quadrant.box(0, 0, 30, 30), 1),
        "query_stats with a layer mask")
  t:set_value(hs[3], "three")
  check(t:value(hs[3]) == "three", "set_value")
  t:set_value(hs[3], 3)
  unchanged("rebuild")
  check(t:dims() == 2 and t3:dims() == 3, "dims")
  do  -- config() gives back what quadrant.new took, and makes a tree like it
    local settings = {dims = 3, scalar = "float", world = {-1, -2, -3, 4, 5, 6}, max_depth = 5, split_threshold = 7,
                      min_node_size = 0.5, placement = "leaves"}
    local c = quadrant.new(settings):config()
    for k, v in pairs(settings) do
      if k ~= "world" then check(c[k] == v, "config: " .. k) end
    end
    for i = 1, 6 do check(c.world[i] == settings.world[i], "config: world") end
    check(quadrant.new(t:config()):config().placement == "loose", "config: a tree like another")
  end
  do  -- assign without layer masks: every layer
    local a = quadrant.new{world = {0, 0, 10, 10}}
    local old = a:insert({1, 1, 2, 2}, "old")
    local ah = a:assign({{1, 1, 2, 2}, {3, 3, 4, 4}}, {"p", "q"})
    check(#a == 2 and a:value(ah[2]) == "q" and a:layers(ah[1]) == 0xffffffff and not a:contains(old),
          "assign without layers; the old handles go stale")
    check(#a:assign({}, {}) == 0 and #a == 0, "assign of nothing empties the tree")
    a:destroy()
  end
  -- Contacts: another tree is refused until clear; a destroyed tracker raises.
  local c = quadrant.contacts()
  local begun = c:update(t)
  check(#begun > 0, "contacts: the first step begins every pair")
  raises("another tree than the previous steps'", c.update, c, quadrant.new{world = {0, 0, 1, 1}})
  raises("quadrant.Tree expected", c.update, c, {})
  raises("outside 32 bits", c.update, c, t, 2 ^ 40)
  local again, ended = c:update(t)
  check(#again == 0 and #ended == 0, "contacts: a refused step changed nothing")
  c:clear()
  check(#c:update(t3) == 0 and #c:update(t3) == 0, "contacts: clear, then another tree")
  -- A tracker follows its tree by identity: a tree created after the first was destroyed (perhaps at the same
  -- address) is another tree.
  do
    local c2 = quadrant.contacts()
    local first = quadrant.new{world = {0, 0, 10, 10}}
    first:insert({1, 1, 3, 3}, 1)
    first:insert({2, 2, 4, 4}, 2)
    check(#c2:update(first) == 1, "contacts: the first tree's pair")
    first:destroy()
    raises("destroyed", c2.update, c2, first)
    local second = quadrant.new{world = {0, 0, 10, 10}}
    second:insert({5, 5, 6, 6}, 1)
    raises("another tree than the previous steps'", c2.update, c2, second)
    c2:clear()
    local b2, e2 = c2:update(second)
    check(#b2 == 0 and #e2 == 0, "contacts: after clear the second tree is followed")
    c2:destroy()
    second:destroy()
  end
  c:destroy()
  raises("destroyed", c.update, c, t)
  t:destroy()
  t3:destroy()
end

-- Abuse of every new function argument: error() reaches the caller and leaves the tree usable; coroutine.yield is
-- refused; destroy and changes from inside are refused and the walk goes on; a nested call gets buffers of its own.
do
  local t = quadrant.new{world = {0, 0, 100, 100}, split_threshold = 2}
  local o = quadrant.new{world = {0, 0, 100, 100}}
  for i = 1, 30 do
    t:insert({i * 3, i * 3, i * 3 + 5, i * 3 + 5}, i)
    o:insert({i * 3, i * 3, i * 3 + 1, i * 3 + 1}, -i)
  end
  local everything = quadrant.box(0, 0, 100, 100)
  local npairs = #t:pairs()
  local calls = {
    {"query", function(fn) return t:query(everything, fn) end},
    {"pairs", function(fn) return t:pairs(fn) end},
    {"pairs(matrix)", function(fn) return t:pairs(quadrant.layer_matrix():between(-1, -1), fn) end},
    {"pairs_with", function(fn) return t:pairs_with(o, fn) end},
    {"raycast", function(fn) return t:raycast({0, 0}, {100, 100}, fn) end},
    {"for_each_node", function(fn) return t:for_each_node(fn) end},
    {"query_nodes", function(fn) return t:query_nodes(everything, fn) end},
  }
  local function usable(what)
    t:validate()
    check(#t == 30 and #t:query(everything) == 30 and #t:pairs() == npairs, "abuse: " .. what .. ": the tree works")
    local h = t:insert({1, 1, 2, 2}, "extra")
    t:erase(h)
  end
  for _, c in ipairs(calls) do
    local what = c[1]
    local ok, message = pcall(c[2], function() error("boom in " .. what) end)
    check(not ok and tostring(message):find("boom in " .. what, 1, true), "abuse: " .. what .. ": the error reaches the caller")
    usable(what .. " after an error")
    local co = coroutine.create(function() return c[2](function() coroutine.yield(1) end) end)
    local resumed, why = coroutine.resume(co)
    check(not resumed and tostring(why):find("yield", 1, true), "abuse: " .. what .. ": a yield is refused: " .. tostring(why))
    usable(what .. " after a yield")
    local n, refused = 0, 0
    c[2](function()
      n = n + 1
      if not pcall(t.destroy, t) then refused = refused + 1 end
      if what == "pairs_with" and not pcall(o.destroy, o) then refused = refused + 1 end
    end)
    check(n > 0 and refused == (what == "pairs_with" and 2 * n or n), "abuse: " .. what .. ": destroy inside refused")
    usable(what .. " after a refused destroy")
    -- A nested call with many results inside the function (the outer results must survive it).
    local outer = {}
    local total = c[2](function(v)
      outer[#outer + 1] = v
      local as = t:pairs_flat()
      check(#as == npairs and #t:pairs() == npairs and #t:query(everything) == 30, "abuse: " .. what .. ": nested calls")
    end)
    check(#outer == total, "abuse: " .. what .. ": the outer walk delivered everything after nested calls")
  end
  -- A change inside is refused (the next section tries every one): erasing what a pair names raises.
  local seen = 0
  local n = t:pairs(function(_, _, ha)
    seen = seen + 1
    check(not pcall(t.erase, t, ha), "abuse: erase inside pairs(fn) is refused")
  end)
  check(seen == npairs and n == npairs and #t:pairs() == npairs, "abuse: a refused erase inside pairs(fn)")
  t:validate()
  -- A pairs() from inside a query function no longer frees the query's buffer under it.
  local q = quadrant.new{world = {0, 0, 100, 100}}
  for i = 1, 40 do q:insert({0, 0, 10 + i, 10 + i}, i) end
  local got = {}
  q:query(quadrant.box(0, 0, 100, 100), function(v) got[#got + 1] = v; q:pairs(); q:pairs_flat() end)
  local want = {}
  for i = 1, 40 do want[i] = i end
  check(same_set(got, want), "abuse: a pairs() inside a query function leaves the query's results alone")
  q:destroy()
  t:destroy()
  o:destroy()
end

-- Changes from inside a function: while a function given to a walk of a tree runs (every query form, pairs in each
-- filter form, pairs_with, raycast, for_each_node, query_nodes), every call that would change that tree (both trees
-- of pairs_with) raises "tree is busy", naming the call and the walk, and changes nothing: afterwards the size, every
-- object's box, value and layers, and queries equal a model kept in Lua. Reads stay allowed inside, and so do
-- changes to another tree. Nested walks name the innermost. After an error or a refused yield inside, changes work
-- again. The same for an AOI world's tick(fn): every change, tick and destroy refused; visible lists equal brute
-- force afterwards.
do
  math.randomseed(60)
  local function new_scene(n, extent)
    local tree = quadrant.new{world = {0, 0, 100, 100}, split_threshold = 3}
    -- One box over everything: every walk below calls its function.
    local model = {[tree:insert({0, 0, 100, 100}, "all", 1)] = {box = {0, 0, 100, 100}, value = "all", layers = 1}}
    for i = 1, n do
      local x, y = math.random(0, extent), math.random(0, extent)
      local box, layers = {x, y, x + math.random(0, 12), y + math.random(0, 12)}, LAYER_CHOICES[math.random(5)]
      model[tree:insert(box, "v" .. i, layers)] = {box = box, value = "v" .. i, layers = layers}
    end
    return tree, model
  end
  local t, tm = new_scene(40, 90)
  local o, om = new_scene(25, 90)
  local function some_handle(model)
    local best
    for h in pairs(model) do
      if best == nil or h < best then best = h end
    end
    return best
  end
  local function unchanged(tree, model, what)
    tree:validate()
    local n = 0
    for h, m in pairs(model) do
      n = n + 1
      local b = tree:bounds(h)
      check(tree:contains(h) and tree:value(h) == m.value and tree:layers(h) == m.layers and b[1] == m.box[1] and
            b[2] == m.box[2] and b[3] == m.box[3] and b[4] == m.box[4], what .. ": an object changed")
    end
    check(#tree == n, what .. ": size " .. #tree .. ", model " .. n)
    for _, q in ipairs{{0, 0, 100, 100}, {20, 20, 45, 60}, {70, 10, 71, 90}} do
      local want = {}
      for _, m in pairs(model) do
        if overlaps(m.box, q) then want[#want + 1] = m.value end
      end
      check(same_set(tree:query(quadrant.box(q)), want), what .. ": a query against brute force")
    end
  end
  -- Every call that changes a tree, with arguments that would succeed outside a walk.
  local changes = {
    {"insert", function(tree) return tree:insert({1, 1, 2, 2}, "new") end},
    {"erase", function(tree, h) return tree:erase(h) end},
    {"move", function(tree, h) return tree:move(h, {50, 50, 60, 60}) end},
    {"set_layers", function(tree, h) return tree:set_layers(h, 16) end},
    {"set_value", function(tree, h) return tree:set_value(h, "changed") end},
    {"clear", function(tree) return tree:clear() end},
    {"move_many", function(tree, h) return tree:move_many({h}, {{50, 50, 60, 60}}) end},
    {"assign", function(tree) return tree:assign({{1, 1, 2, 2}}, {"only"}) end},
    {"rebuild", function(tree) return tree:rebuild({-10, -10, 200, 200}) end},
    {"destroy", function(tree) return tree:destroy() end},
  }
  local everything = quadrant.box(0, 0, 100, 100)
  local walks = {  -- name, the walk's name in the message, a call running fn inside
    {"query", "query", function(fn) return t:query(everything, fn) end},
    {"query(layers)", "query", function(fn) return t:query(everything, 3, fn) end},
    {"query_box", "query", function(fn) return t:query_box({0, 0, 100, 100}, fn) end},
    {"query_point", "query", function(fn) return t:query_point(50, 50, fn) end},
    {"query_circle", "query", function(fn) return t:query_circle(50, 50, 40, fn) end},
    {"query_ring", "query", function(fn) return t:query_ring(50, 50, 5, 40, fn) end},
    {"query_ellipse", "query", function(fn) return t:query_ellipse(50, 50, 40, 30, 0.5, fn) end},
    {"query_sector", "query", function(fn) return t:query_sector(50, 50, 1, 0, 50, 2, fn) end},
    {"query_oriented_box", "query", function(fn) return t:query_oriented_box(50, 50, 40, 30, 0.5, fn) end},
    {"query_polygon", "query", function(fn) return t:query_polygon({0, 0, 100, 0, 50, 100}, fn) end},
    {"query_segment", "query", function(fn) return t:query_segment({0, 0}, {100, 100}, fn) end},
    {"pairs", "pairs", function(fn) return t:pairs(fn) end},
    {"pairs(mask)", "pairs", function(fn) return t:pairs(-1, fn) end},
    {"pairs(matrix)", "pairs", function(fn) return t:pairs(quadrant.layer_matrix():between(-1, -1), fn) end},
    {"pairs_with", "pairs_with", function(fn) return t:pairs_with(o, fn) end},
    {"pairs_with(masks)", "pairs_with", function(fn) return t:pairs_with(o, -1, -1, fn) end},
    {"raycast", "raycast", function(fn) return t:raycast({0, 0}, {100, 100}, fn) end},
    {"for_each_node", "for_each_node", function(fn) return t:for_each_node(fn) end},
    {"query_nodes", "query_nodes", function(fn) return t:query_nodes(everything, fn) end},
  }
  local scratch = quadrant.new{world = {0, 0, 100, 100}}
  for _, walk in ipairs(walks) do
    local name, kind, run = walk[1], walk[2], walk[3]
    local both = kind == "pairs_with"
    local calls, refused, reads = 0, 0, 0
    run(function()
      calls = calls + 1
      if calls > 3 then return end   -- every change in the first three calls
      for _, change in ipairs(changes) do
        for _, target in ipairs(both and {{t, tm}, {o, om}} or {{t, tm}}) do
          local ok, message = pcall(change[2], target[1], some_handle(target[2]))
          local want = "quadrant: tree is busy: " .. change[1] .. " called from inside a " .. kind .. " function"
          if not ok and tostring(message):find(want, 1, true) then
            refused = refused + 1
          else
            check(false, "busy: " .. name .. ": " .. change[1] .. " inside: " .. tostring(message))
          end
        end
      end
      -- Reads stay allowed, and so do changes to another tree.
      if #t:query(everything) == #t and t:contains(some_handle(tm)) and #t:pairs() >= 0 and #t:nodes() > 0 then
        reads = reads + 1
      end
      scratch:erase(scratch:insert({1, 1, 2, 2}, name))
    end)
    local per_call = #changes * (both and 2 or 1)
    check(calls > 0 and refused == math.min(calls, 3) * per_call and reads == math.min(calls, 3),
          "busy: " .. name .. ": " .. calls .. " calls, " .. refused .. " refusals, " .. reads .. " reads")
    unchanged(t, tm, "busy: " .. name)
    if both then unchanged(o, om, "busy: " .. name .. " (other tree)") end
    -- After an error and after a refused yield inside, changes work again.
    check(not pcall(run, function() error("boom") end), "busy: " .. name .. ": the error reaches the caller")
    local co = coroutine.create(function() return run(function() coroutine.yield() end) end)
    check(not coroutine.resume(co), "busy: " .. name .. ": the yield is refused")
    for _, target in ipairs(both and {{t, tm}, {o, om}} or {{t, tm}}) do
      local tree, model = target[1], target[2]
      local h = tree:insert({5, 5, 6, 6}, "after")
      tree:move(h, {7, 7, 8, 8})
      tree:set_value(h, "after 2")
      tree:erase(h)
      local k = some_handle(model)
      tree:set_layers(k, model[k].layers)
      unchanged(tree, model, "busy: " .. name .. ": after an error and a yield, changes work")
    end
  end
  -- Nested walks: the innermost names the refusal; once it returns, the outer one still refuses.
  local messages = {}
  t:query(everything, function()
    t:raycast({0, 0}, {100, 100}, function()
      local _, message = pcall(t.insert, t, {1, 1, 2, 2}, "x")
      messages[1] = message
      return false
    end)
    local _, message = pcall(t.clear, t)
    messages[2] = message
    return false
  end)
  check(tostring(messages[1]):find("insert called from inside a raycast function", 1, true) ~= nil and
        tostring(messages[2]):find("clear called from inside a query function", 1, true) ~= nil,
        "busy: nested walks: " .. tostring(messages[1]) .. " / " .. tostring(messages[2]))
  unchanged(t, tm, "busy: nested walks")
  local h = t:insert({1, 1, 2, 2}, "after the walks")
  t:erase(h)
  scratch:destroy()
  t:destroy()
  o:destroy()

  -- An AOI world: every change, tick and destroy inside tick(fn) refused; reads allowed; the world as before.
  local world = quadrant.aoi{world = {0, 0, 200, 200}, scalar = "double"}
  local ents = {}
  for id = 1, 30 do
    ents[id] = {x = math.random(0, 200), y = math.random(0, 200), r = math.random(10, 40)}
    world:add(id, ents[id].x, ents[id].y, ents[id].r)
  end
  local function sees_by_brute_force(id)
    local out, a = {}, ents[id]
    for other, b in pairs(ents) do
      local dx, dy = a.x - b.x, a.y - b.y
      if other ~= id and dx * dx + dy * dy <= a.r * a.r then out[#out + 1] = other end
    end
    table.sort(out)
    return out
  end
  local function world_unchanged(what)
    world:validate()
    local n = 0
    for id in pairs(ents) do
      n = n + 1
      local v, want = world:visible(id), sees_by_brute_force(id)
      check(#v == #want, what .. ": " .. id .. " sees " .. #v .. ", brute force " .. #want)
      for i = 1, math.min(#v, #want) do check(v[i] == want[i], what .. ": visible(" .. id .. ")") end
      local x, y = world:position(id)
      check(x == ents[id].x and y == ents[id].y, what .. ": position(" .. id .. ")")
    end
    check(#world == n and not world:contains(99), what .. ": size and contains")
    check(#world:tick() == 0, what .. ": nothing was recorded for the next tick")
  end
  local aoi_changes = {
    {"add", function() return world:add(99, 1, 1, 5) end},
    {"move", function() return world:move(1, 100, 100) end},
    {"move_many", function() return world:move_many({1}, {100, 100}) end},
    {"set_view_radius", function() return world:set_view_radius(1, 99) end},
    {"set_layers", function() return world:set_layers(1, 2) end},
    {"remove", function() return world:remove(1) end},
    {"tick", function() return world:tick() end},
    {"tick(fn)", function() return world:tick(function() end) end},
    {"destroy", function() return world:destroy() end},
  }
  local events, refusals, reads = 0, 0, 0
  world:tick(function(_, w)
    events = events + 1
    if events > 3 then return end
    for _, change in ipairs(aoi_changes) do
      local ok, message = pcall(change[2])
      local want = "quadrant: aoi world is busy: " .. change[1]:gsub("%(fn%)", "") .. " called from inside a tick function"
      if not ok and tostring(message):find(want, 1, true) then
        refusals = refusals + 1
      else
        check(false, "busy: aoi: " .. change[1] .. " inside tick(fn): " .. tostring(message))
      end
    end
    if world:contains(w) and #world == 30 and world:pair_count() >= 0 and #world:query_circle(100, 100, 50) >= 0 and
        #world:visible(w) >= 0 then
      reads = reads + 1
    end
  end)
  check(events > 3 and refusals == 3 * #aoi_changes and reads == 3,
        "busy: aoi: " .. events .. " events, " .. refusals .. " refusals, " .. reads .. " reads")
  world_unchanged("busy: aoi")
  -- After an error and a refused yield inside tick(fn), changes work again.
  ents[1].x, ents[1].y = 150, 20
  world:move(1, 150, 20)
  check(not pcall(world.tick, world, function() error("boom") end), "busy: aoi: the error reaches the caller")
  ents[2].r = 300   -- sees everyone: the tick has events
  world:set_view_radius(2, 300)
  local co = coroutine.create(function() return world:tick(function() coroutine.yield() end) end)
  local resumed = coroutine.resume(co)
  ents[3].r = 60
  world:set_view_radius(3, 60)
  world:tick()
  check(not resumed, "busy: aoi: the yield is refused")
  world_unchanged("busy: aoi: after an error and a yield")
  world:destroy()
end

-- Every new call with wrong types, wrong counts, nil, NaN and infinities: a Lua error naming the problem ("quadrant:
-- ..." or Lua's own "bad argument") or an answer, never a crash or a stray Lua error from inside the module; the
-- objects stay valid.
do
  local t = quadrant.new{world = {0, 0, 100, 100}}
  local o = quadrant.new{world = {0, 0, 100, 100}}
  for i = 1, 10 do t:insert({i, i, i + 5, i + 5}, i); o:insert({i, i, i + 1, i + 1}, -i) end
  local st = quadrant.streamer{world = {0, 0, 0, 10, 10, 10}}
  st:add(1, {1, 1, 1, 2, 2, 2})
  local tracker, m = quadrant.contacts(), quadrant.layer_matrix()
  local args = {nil, 0 / 0, 1 / 0, -1 / 0, "x", {}, true, -1, 2 ^ 60, {0 / 0, 0, 1, 1}, {1, 2}, quadrant.box(0, 0, 1, 1),
                quadrant.sphere(0, 0, 0, 1), function() end, t, o, m}
  local NARGS = 17
  local targets = {
    {t, {"query", "query_stats", "pairs", "pairs_flat", "pairs_with", "pairs_with_flat", "raycast", "raycast_first",
         "nodes", "for_each_node", "query_nodes", "locate", "move_many", "layers", "set_value", "dims", "config",
         "assign", "rebuild"}},
    {st, {"add", "remove", "move", "mark_loaded", "mark_failed", "set_limits", "update", "contains", "state", "bounds",
          "size", "validate"}},
    {tracker, {"update"}},
    {m, {"between", "set", "collides"}},
  }
  local strays = 0
  local function try(f, ...)
    local ok, message = pcall(f, ...)
    if not ok then
      message = tostring(message)
      if not (message:find("quadrant", 1, true) or message:find("bad argument", 1, true)) then
        strays = strays + 1
        io.stderr:write("stray error: " .. message .. "\n")
      end
    end
  end
  for _, target in ipairs(targets) do
    local obj, names = target[1], target[2]
    for _, name in ipairs(names) do
      local f = obj[name]
      for i = 1, NARGS do
        try(f, obj, args[i])
        try(f, obj, args[i], args[i])
        for j = 1, NARGS, 3 do try(f, obj, args[i], args[j], args[(i + j) % NARGS + 1]) end
      end
      try(f)
      try(f, "not the object")
    end
  end
  for _, name in ipairs{"box", "point", "circle", "sphere", "ring", "ellipse", "sector", "oriented_box", "polygon",
                        "segment", "frustum", "streamer", "layer_matrix", "contacts"} do
    for i = 1, NARGS do
      try(quadrant[name], args[i])
      for j = 1, NARGS, 2 do try(quadrant[name], args[i], args[j], args[i], args[j], args[i], args[j]) end
    end
  end
  check(strays == 0, "bad input: every error names the problem (" .. strays .. " did not)")
  t:validate(); o:validate(); st:validate()
  check(#o == 10 and #st == 1, "bad input: the objects survived")
  t:destroy(); o:destroy(); st:destroy(); tracker:destroy()
end

T.finish("quadrant Lua module: all checks passed")
