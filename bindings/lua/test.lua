-- SPDX-License-Identifier: MIT
-- Tests of the Lua module, run by lua5.4: the Lua article's 500-rectangle scene (rect i gets a width of
-- math.random(10, i > 10 and i or 15), a height of math.random(15, i > 15 and i or 20) and a corner in
-- [1, 1200]^2) against brute force, under each placement, then moved; other shapes against brute force or against
-- the box they equal; nearest; values released on erase; bad input raising the library's message; the area of
-- interest against a brute-force Lua reference.
-- Usage: lua5.4 test.lua <directory holding quadrant.so>
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
local quadrant = require "quadrant"

local failures = 0
local function check(cond, what)
  if not cond then
    failures = failures + 1
    io.stderr:write("check failed: " .. what .. "\n" .. debug.traceback() .. "\n")
  end
end

local function overlaps(a, b)
  return not (a[3] < b[1] or b[3] < a[1] or a[4] < b[2] or b[4] < a[2])
end
local function dist2(x, y, b)
  local gx = x < b[1] and b[1] - x or (x > b[3] and x - b[3] or 0)
  local gy = y < b[2] and b[2] - y or (y > b[4] and y - b[4] or 0)
  return gx * gx + gy * gy
end
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
  local function raises(pattern, f, ...)
    local ok, message = pcall(f, ...)
    check(not ok and tostring(message):find(pattern, 1, true) ~= nil,
          "expected an error with \"" .. pattern .. "\", got " .. tostring(message))
  end
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
-- (a & b) ~= 0 for two 32-bit layer masks, in arithmetic: Lua 5.1 and LuaJIT have no & operator.
local function masks_meet(a, b)
  for _ = 1, 32 do
    if a % 2 == 1 and b % 2 == 1 then return true end
    a, b = (a - a % 2) / 2, (b - b % 2) / 2
  end
  return false
end
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
  local function raises(pattern, f, ...)
    local ok, message = pcall(f, ...)
    check(not ok and tostring(message):find(pattern, 1, true), "abuse: raises '" .. pattern .. "': " .. tostring(message))
  end
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

if failures > 0 then
  io.stderr:write(failures .. " checks failed\n")
  os.exit(1)
end
print("quadrant Lua module: all checks passed")
