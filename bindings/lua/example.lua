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

for _, monster in ipairs(tree:query_circle(20, 20, 15)) do print(monster.name) end   -- an array of values
tree:query_box({0, 0, 100, 100}, function(monster, handle)                           -- or a function per hit
  print(monster.name, handle)                                                        -- return false to stop
end)
for _, pair in ipairs(tree:pairs()) do print(pair[1].name .. " touches " .. pair[2].name) end

tree:move(orc, {12, 12, 42, 62})
tree:erase(orc)                 -- the value is released
local ok, err = pcall(tree.insert, tree, {5, 5, 1, 1}, "bad")
print(err)                      -- quadrant: insert: box min > max on axis 0
