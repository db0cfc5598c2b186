-- SPDX-License-Identifier: MIT
-- What the Lua tests (test.lua, test_ffi.lua) share: checks that count failures, an expected-error check, and the
-- brute-force geometry their oracles use. Boxes are {min_1, ..., min_d, max_1, ..., max_d}, closed.
-- Loaded from the tests' own folder: `package.path = <folder> .. "/?.lua;" .. package.path; require "test_support"`.
local M = {failures = 0}

-- Records a failure (with the stack) when cond is false; the run goes on and `finish` reports the count.
function M.check(cond, what)
  if not cond then
    M.failures = M.failures + 1
    io.stderr:write("check failed: " .. what .. "\n" .. debug.traceback() .. "\n")
  end
end

-- Checks that f(...) raises an error whose message contains `pattern` (plain text).
function M.raises(pattern, f, ...)
  local ok, message = pcall(f, ...)
  M.check(not ok and tostring(message):find(pattern, 1, true) ~= nil,
          "expected an error with \"" .. pattern .. "\", got " .. tostring(message))
end

-- Whether two closed boxes of d dimensions overlap (touching counts).
function M.overlaps(a, b, d)
  for k = 1, d do
    if a[k] > b[d + k] or b[k] > a[d + k] then return false end
  end
  return true
end

-- The squared distance from the point p to the box b, in d dimensions (0 inside).
function M.gap2(p, b, d)
  local s = 0
  for k = 1, d do
    local g = p[k] < b[k] and b[k] - p[k] or (p[k] > b[d + k] and p[k] - b[d + k] or 0)
    s = s + g * g
  end
  return s
end

-- (a & b) ~= 0 for two 32-bit layer masks, in arithmetic: Lua 5.1 and LuaJIT have no & operator.
function M.masks_meet(a, b)
  for _ = 1, 32 do
    if a % 2 == 1 and b % 2 == 1 then return true end
    a, b = (a - a % 2) / 2, (b - b % 2) / 2
  end
  return false
end

-- Ends the run: exit status 1 with the count of failed checks, or prints `passed`.
function M.finish(passed)
  if M.failures > 0 then
    io.stderr:write(M.failures .. " checks failed\n")
    os.exit(1)
  end
  print(passed)
end

return M
