-- SPDX-License-Identifier: MIT
-- Tests of quadrant.ffi (quadrant/ffi.lua), run by LuaJIT: random scenes in 2D and 3D, float and double, each
-- placement, with objects outside the world, points and layer masks, through rounds of inserts, moves and erases;
-- after each round every box and circle / sphere query (with and without a layer mask, into new and kept tables),
-- nearest, and pairs_flat against brute force in Lua; handles (stale, foreign, after clear); bad input of every
-- kind to every function raising a "quadrant: ..." error and changing nothing; garbage collection and destroy.
-- Usage: luajit test_ffi.lua <directory holding libquadrant_c.so> [<directory holding quadrant/ffi.lua>]
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = (arg[2] or here) .. "/?.lua;" .. package.path
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
local qffi = require "quadrant.ffi"
qffi.load()   -- libquadrant_c.so from package.cpath
package.path = package.path .. ";" .. here .. "/?.lua"  -- after quadrant.ffi: the installed one is the one tested
local T = require "test_support"
local check, raises, meet, overlaps, gap2 = T.check, T.raises, T.masks_meet, T.overlaps, T.gap2

-- Whether the array `got` (n entries, then nil) holds exactly the values of `want`, once each.
local function same(got, n, want)
  if #want ~= n or got[n + 1] ~= nil then return false end
  local seen = {}
  for i = 1, n do
    if got[i] == nil or seen[got[i]] then return false end
    seen[got[i]] = true
  end
  for _, v in ipairs(want) do
    if not seen[v] then return false end
  end
  return true
end

local LAYERS = {1, 2, 4, 3, 5}
local function random_box(d)
  local b = {}
  for i = 1, d do
    local lo = math.random(-20, 130)   -- the world is [0, 100]: some objects lie outside it
    local size = math.random(0, 3) == 0 and 0 or math.random(1, 15)   -- a quarter of them are points
    b[i], b[d + i] = lo, lo + size
  end
  return b
end

local function check_scene(d, scalar, placement)
  local what = string.format("%dD %s %s", d, scalar, placement)
  local world = d == 2 and {0, 0, 100, 100} or {0, 0, 0, 100, 100, 100}
  local tree = qffi.new{world = world, dims = d, scalar = scalar, placement = placement, split_threshold = 4,
                        max_depth = 6}
  local model, serial = {}, 0   -- handle -> {box, value, layers}
  local function add()
    serial = serial + 1
    local box, layers = random_box(d), LAYERS[math.random(#LAYERS)]
    local value = what .. " #" .. serial
    local h = tree:insert(box, value, layers)
    check(model[h] == nil, what .. ": a new handle")
    model[h] = {box = box, value = value, layers = layers}
  end
  for _ = 1, 300 do add() end
  local kept, kept_a, kept_b = {}, {}, {}
  for round = 1, 3 do
    tree:validate()
    local n = 0
    for h, m in pairs(model) do
      n = n + 1
      local b = tree:bounds(h)
      local same_box = true
      for i = 1, 2 * d do same_box = same_box and b[i] == m.box[i] end
      check(tree:contains(h) and tree:value(h) == m.value and same_box, what .. ": an object as the model has it")
    end
    check(tree:size() == n, what .. ": size " .. tree:size() .. ", model " .. n)
    for q = 1, 40 do
      local layers = q % 4 == 0 and LAYERS[math.random(#LAYERS)] or nil
      -- A box.
      local box = random_box(d)
      local want = {}
      for _, m in pairs(model) do
        if overlaps(box, m.box, d) and (layers == nil or meet(layers, m.layers)) then want[#want + 1] = m.value end
      end
      local got, count = tree:query_box(box, nil, layers)
      check(same(got, count, want), what .. ": query_box against brute force (" .. count .. " vs " .. #want .. ")")
      kept, count = tree:query_box(box, kept, layers)
      check(same(kept, count, want), what .. ": query_box into a kept table")
      -- A circle or a sphere, centered on halves: every square is exact, in float too.
      local c, r = {}, math.random(0, 25)
      for i = 1, d do c[i] = math.random(-10, 110) + 0.5 end
      want = {}
      for _, m in pairs(model) do
        if gap2(c, m.box, d) <= r * r and (layers == nil or meet(layers, m.layers)) then want[#want + 1] = m.value end
      end
      if d == 2 then
        got, count = tree:query_circle(c[1], c[2], r, q % 2 == 0 and kept or nil, layers)
      else
        got, count = tree:query_sphere(c[1], c[2], c[3], r, q % 2 == 0 and kept or nil, layers)
      end
      check(same(got, count, want), what .. ": query_circle / query_sphere against brute force")
      -- Nearest: the k smallest distances, each value at its own distance.
      if q % 4 == 1 then
        local k = math.random(1, 8)
        local dists = {}
        for _, m in pairs(model) do dists[#dists + 1] = math.sqrt(gap2(c, m.box, d)) end
        table.sort(dists)
        local values, distances = tree:nearest(c, k)
        check(#values == math.min(k, n) and #distances == #values, what .. ": nearest returns k values")
        local by_value = {}
        for _, m in pairs(model) do by_value[m.value] = math.sqrt(gap2(c, m.box, d)) end
        local tolerance = scalar == "float" and 1e-4 or 1e-9
        for i = 1, #values do
          check(math.abs(distances[i] - dists[i]) <= tolerance * (1 + dists[i]) and
                math.abs(by_value[values[i]] - distances[i]) <= tolerance * (1 + dists[i]),
                what .. ": nearest's " .. i .. "th distance")
        end
      end
    end
    -- Every pair, once, against brute force; by a mask too; into kept tables.
    for _, layers in ipairs{false, 2} do
      local list, want = {}, {}
      for _, m in pairs(model) do
        if not layers or meet(layers, m.layers) then list[#list + 1] = m end
      end
      for i = 1, #list do
        for j = i + 1, #list do
          if overlaps(list[i].box, list[j].box, d) then
            local a, b = list[i].value, list[j].value
            want[a < b and a .. "|" .. b or b .. "|" .. a] = true
          end
        end
      end
      local as, bs, count = tree:pairs_flat(layers or nil, kept_a, kept_b)
      local got, dup, extra, nwant = {}, false, false, 0
      for i = 1, count do
        local a, b = as[i], bs[i]
        local key = a < b and a .. "|" .. b or b .. "|" .. a
        if got[key] then dup = true end
        if not want[key] then extra = true end
        got[key] = true
      end
      for _ in pairs(want) do nwant = nwant + 1 end
      check(not dup and not extra and count == nwant and as[count + 1] == nil and bs[count + 1] == nil,
            what .. ": pairs_flat against brute force (" .. count .. " vs " .. nwant .. ")")
    end
    -- Changes: move a third, erase a sixth (their handles go stale), add as many.
    local handles = {}
    for h in pairs(model) do handles[#handles + 1] = h end
    table.sort(handles)
    for i, h in ipairs(handles) do
      if i % 3 == round % 3 then
        local box = random_box(d)
        tree:move(h, box)
        model[h].box = box
      elseif i % 6 == 1 then
        tree:erase(h)
        model[h] = nil
        check(not tree:contains(h), what .. ": an erased handle is stale")
        raises("stale or foreign", tree.erase, tree, h)
        raises("stale or foreign", tree.move, tree, h, random_box(d))
        raises("stale or foreign", tree.value, tree, h)
        raises("stale or foreign", tree.bounds, tree, h)
        add()
      end
    end
  end
  tree:destroy()
end

print("quadrant.ffi " .. qffi.version .. ": scenes against brute force")
math.randomseed(2024)
for _, d in ipairs{2, 3} do
  for _, scalar in ipairs{"double", "float"} do
    for _, placement in ipairs{"loose", "parent", "leaves"} do check_scene(d, scalar, placement) end
  end
end

-- Handles: another tree's is refused; clear makes every one stale; a tree's handles are never reused.
do
  local a, b = qffi.new{world = {0, 0, 10, 10}}, qffi.new{world = {0, 0, 10, 10}}
  local ha, hb = a:insert({1, 1, 2, 2}, "a"), b:insert({1, 1, 2, 2}, "b")
  check(ha ~= hb and not a:contains(hb) and not b:contains(ha), "handles: one tree's is not another's")
  raises("stale or foreign", a.erase, a, hb)
  raises("stale or foreign", b.move, b, ha, {0, 0, 1, 1})
  check(a:size() == 1 and b:size() == 1 and a:value(ha) == "a", "handles: a foreign handle changed nothing")
  a:clear()
  check(a:size() == 0 and not a:contains(ha), "handles: clear makes them stale")
  raises("stale or foreign", a.erase, a, ha)
  local h2 = a:insert({1, 1, 2, 2}, "again")
  check(h2 ~= ha and a:value(h2) == "again" and #a:query_box({0, 0, 10, 10}) == 1, "handles: not reused")
  a:erase(h2)
  local h3 = a:insert({3, 3, 4, 4}, "slot reused")   -- the C slot is reused; the Lua handle is new
  check(h3 ~= h2 and not a:contains(h2) and a:value(h3) == "slot reused", "handles: a reused slot, a new handle")
  a:destroy()
  b:destroy()
end

-- Bad input: an error naming the problem, and nothing changed.
do
  raises("settings is nil", qffi.new)
  raises("unknown key", qffi.new, {world = {0, 0, 1, 1}, max_dept = 3})
  raises("needs world", qffi.new, {})
  raises("dims is 4", qffi.new, {world = {0, 0, 1, 1}, dims = 4})
  raises("placement is", qffi.new, {world = {0, 0, 1, 1}, placement = "nowhere"})
  raises("scalar is", qffi.new, {world = {0, 0, 1, 1}, scalar = "half"})
  raises("max_depth is 1.5", qffi.new, {world = {0, 0, 1, 1}, max_depth = 1.5})
  raises("max_depth is nan", qffi.new, {world = {0, 0, 1, 1}, max_depth = 0 / 0})
  raises("quadrant:", qffi.new, {world = {0, 0, 0 / 0, 1}})          -- the library's message
  raises("quadrant:", qffi.new, {world = {1, 1, 0, 0}})
  raises("quadrant:", qffi.new, {world = {0, 0, 1, 1}, max_depth = -1})
  raises("already loaded", qffi.load, "/nowhere/libquadrant_c.so")
  raises("path is", qffi.load, 42)

  local t = qffi.new{world = {0, 0, 100, 100}}
  local t3 = qffi.new{world = {0, 0, 0, 1, 1, 1}, dims = 3}
  local hs = {}
  for i = 1, 10 do hs[i] = t:insert({i, i, i + 5, i + 5}, i) end
  raises("min > max", t.insert, t, {5, 5, 1, 1}, "bad")
  raises("element 4 is nil", t.insert, t, {1, 2, 3}, "short")
  raises("the value is nil", t.insert, t, {1, 1, 2, 2}, nil)
  raises("layer mask", t.insert, t, {1, 1, 2, 2}, "x", 2 ^ 33)
  raises("layer mask", t.insert, t, {1, 1, 2, 2}, "x", 1.5)
  raises("quadrant:", t.insert, t, {0 / 0, 1, 2, 2}, "nan")
  raises("quadrant:", t.insert, t, {1, 1, 1 / 0, 2}, "inf")
  raises("quadrant:", t.move, t, hs[1], {1, 1, 0 / 0, 2})
  raises("quadrant:", t.query_circle, t, 1, 1, -1)
  raises("quadrant:", t.query_circle, t, 0 / 0, 1, 1)
  raises("r is nil", t.query_circle, t, 1, 1)
  raises("a 3D sphere given to a 2D tree", t.query_sphere, t, 1, 1, 1, 1)
  raises("a 2D circle given to a 3D tree", t3.query_circle, t3, 1, 1, 1)
  raises("out is string", t.query_box, t, {0, 0, 1, 1}, "not a table")
  raises("k is -1", t.nearest, t, {0, 0}, -1)
  raises("k is 0.5", t.nearest, t, {0, 0}, 0.5)
  raises("point[2] is nil", t.nearest, t, {0}, 1)
  raises("as and bs must be tables", t.pairs_flat, t, nil, 1, 2)
  local values = t:nearest({0, 0}, 2 ^ 62)   -- k far beyond the count: no buffer sized by k
  check(#values == 10, "bad input: nearest with a huge k answers every object")
  -- A sweep of every function with nil, NaN, infinities, strings, tables and functions: an error naming the problem
  -- (never a bare FFI conversion error), and the tree as it was. The arguments are made anew for each call (a
  -- query or pairs_flat writes its results into a table given as out, which may then read as a box): among them
  -- new trees, one 3D, and an object of the tree class with no tree.
  local function fresh()
    return {nil, 0 / 0, 1 / 0, -1 / 0, "x", {}, true, -1, 2 ^ 60, {0 / 0, 0, 1, 1}, {1, 2}, {1, 1, 2, 2},
            function() end, qffi.new{world = {0, 0, 1, 1}}, qffi.new{world = {0, 0, 0, 1, 1, 1}, dims = 3},
            setmetatable({}, getmetatable(t)), hs[3]}
  end
  local NARGS, strays = 17, 0
  -- f(object, args[i], args[j], ...) for the indices given (0: no argument), with arguments made anew.
  local function try(f, object, ...)
    local a, n, idx = fresh(), select("#", ...), {...}
    local ok, message = pcall(f, object, a[idx[1] or 0], a[idx[2] or 0], a[idx[3] or 0], a[idx[4] or 0])
    if n == 0 then ok, message = pcall(f, object) end
    if not ok and not tostring(message):find("quadrant", 1, true) then
      strays = strays + 1
      io.stderr:write("stray error: " .. tostring(message) .. "\n")
    end
  end
  for _, name in ipairs{"erase", "move", "contains", "size", "value", "bounds", "query_box", "query_circle",
                        "query_sphere", "nearest", "pairs_flat", "validate"} do
    for i = 1, NARGS do
      try(t[name], t, i)
      for j = 1, NARGS do try(t[name], t, i, j, (i + j) % NARGS + 1, j) end
    end
    try(t[name])
    try(t[name], "not a tree")
  end
  -- insert only with boxes that are no boxes (all but {1, 1, 2, 2}), so the tree keeps its objects.
  for i = 1, NARGS do
    if i ~= 12 then
      for j = 1, NARGS do try(t.insert, t, i, j, (i + j) % NARGS + 1) end
    end
  end
  check(strays == 0, "bad input: every error names the problem (" .. strays .. " did not)")
  t:validate()
  -- Erases by the sweep are possible only through hs[3], the one live handle among the arguments.
  local live = 0
  for i = 1, 10 do
    if t:contains(hs[i]) then live = live + 1 end
  end
  check(live == 9 and not t:contains(hs[3]) and t:size() == live,
        "bad input: the tree survived the sweep (" .. t:size() .. " objects)")
  -- A destroyed tree raises, also when destroyed twice; the garbage collector frees the others.
  t:destroy()
  t:destroy()
  raises("the tree was destroyed", t.size, t)
  raises("the tree was destroyed", t.insert, t, {1, 1, 2, 2}, 1)
  raises("the tree was destroyed", t.query_circle, t, 1, 1, 1)
  check(not t:contains(hs[1]), "a destroyed tree contains nothing")
  t3 = nil
  for _ = 1, 50 do qffi.new{world = {0, 0, 1, 1}}:insert({0, 0, 1, 1}, "garbage") end
  collectgarbage()
  collectgarbage()
end

T.finish("quadrant.ffi: all checks passed")
