-- SPDX-License-Identifier: MIT
-- The example of docs/bindings.md (run by the tests: lua5.4 example.lua <directory holding quadrant.so>).
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
local quadrant = require "quadrant"

-- A quadtree over the screen; every config field of the C++ Config is a key (placement: "loose", "parent",
-- "leaves"; scalar: "double" (default) or "float"; dims: 2 (default) or 3).
local tree = quadrant.new{world = {0, 0, 1200, 1200}, split_threshold = 9}

-- Boxes are arrays {minx, miny, maxx, maxy} ({minx, miny, minz, maxx, maxy, maxz} in 3D); values are any Lua value.
local orc = tree:insert({10, 10, 40, 60}, {name = "orc", hp = 30})
tree:insert({30, 50, 70, 90}, {name = "goblin", hp = 12})

-- Shapes are values (quadrant.box, point, circle, sphere, ring, ellipse, sector, oriented_box, polygon, segment,
-- frustum) for one query: an array of values, or a function per hit.
local swing = quadrant.sector(20, 20, 1, 0, 40, math.pi / 4)            -- apex, direction, radius, half angle
for _, monster in ipairs(tree:query(quadrant.circle(20, 20, 15))) do print(monster.name) end
tree:query(swing, function(monster, handle) print(monster.name, handle) end)   -- return false to stop
tree:pairs(function(a, b) print(a.name .. " touches " .. b.name) end)        -- no table per pair
local hit, _, t = tree:raycast_first({0, 35}, {100, 35})                 -- the nearest box a segment crosses
print(hit.name, t)                                                       -- orc 0.1

tree:move(orc, {12, 12, 42, 62})
tree:erase(orc)                 -- the value is released
local ok, err = pcall(tree.insert, tree, {5, 5, 1, 1}, "bad")
print(err)                      -- quadrant: insert: box min > max on axis 0
