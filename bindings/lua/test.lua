-- SPDX-License-Identifier: MIT
-- Tests of the Lua module, run by lua5.4: the Lua article's 500-rectangle scene (rect i gets a width of
-- math.random(10, i > 10 and i or 15), a height of math.random(15, i > 15 and i or 20) and a corner in
-- [1, 1200]^2) against brute force, under each placement, then moved; other shapes against brute force or against
-- the box they equal; nearest; values released on erase; bad input raising the library's message.
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
  t:erase(h)
  raises("stale", t.erase, t, h)
  raises("stale", t.move, t, h, {1, 1, 2, 2})
  check(#t == 0, "bad input changed nothing")
  t:validate()
  t:destroy()
  raises("destroyed", t.size, t)
end

if failures > 0 then
  io.stderr:write(failures .. " checks failed\n")
  os.exit(1)
end
print("quadrant Lua module: all checks passed")
