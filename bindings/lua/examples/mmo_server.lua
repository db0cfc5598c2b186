-- SPDX-License-Identifier: MIT
-- An MMO zone service in Lua, as a skynet service or an OpenResty worker runs one: players log in and out and send
-- moves, monsters wander, guards watch for players; ten times a second the service applies the moves, ticks its
-- quadrant.aoi world and turns each enter / leave event into a spawn / despawn message in that player's outbox,
-- then flushes the outboxes to the clients.
--
-- It is also a test: every client keeps its list of entities from its messages alone, and after each tick that
-- list must equal a brute-force model of who sees whom (docs/aoi.md: W sees T when the distance is at most W's view
-- radius, or at most view radius + hysteresis if W saw T at the previous tick); so must each guard's visible(). It
-- exits with status 1 on any difference.
--
--   lua5.4 bindings/lua/examples/mmo_server.lua <directory holding quadrant.so>
--
-- In skynet the loop below is a `skynet.fork` with `skynet.sleep(10)` between ticks and flush() is a
-- `skynet.send(agent, "lua", "spawn", ...)` per message; in OpenResty it is an `ngx.timer.every(0.1, ...)` in
-- init_worker_by_lua, one world per worker, and flush() writes to each player's websocket. Nothing in a tick yields.
package.cpath = (arg[1] or ".") .. "/?.so;" .. package.cpath
local quadrant = require "quadrant"

local PLAYERS, MONSTERS = 1, 2   -- layer bits: players are on both (they see and are seen by all), monsters on
                                 -- MONSTERS, guards on PLAYERS (they watch players only)
local VIEW, GUARD_VIEW, SPYGLASS, HYSTERESIS = 60, 40, 90, 4
local MAP = 600
local TICKS = 120

-- Positions on a quarter grid and whole radii: every square the model computes is exact, as the world's are.
local function quarter(v) return math.floor(v * 4 + 0.5) / 4 end
local function clamp(v) return v < 0 and 0 or (v > MAP and MAP or v) end

-- ---- the service ----

local world = quadrant.aoi{world = {0, 0, MAP, MAP}, hysteresis = HYSTERESIS, scalar = "double"}
local ents = {}       -- id -> {kind = "player" | "monster" | "guard", x, y, r, mode, layers}
local clients = {}    -- player id -> connection: {outbox = {...}, n = messages in it}
local moved = {}      -- players who asked to move since the last tick (their new position is in ents)
local batch = {ids = {}, xy = {}}            -- reused by every tick's move_many
local after_tick = {} -- AI decisions taken inside tick(fn), applied after it (the world is busy inside)
local alerts = 0      -- guards that spotted a player

local function spawn_entity(id, kind, x, y)
  local e = {kind = kind, x = x, y = y}
  if kind == "player" then
    e.r, e.mode, e.layers = VIEW, "both", PLAYERS + MONSTERS
  elseif kind == "guard" then
    e.r, e.mode, e.layers = GUARD_VIEW, "both", PLAYERS
  else
    e.r, e.mode, e.layers = 0, "marker", MONSTERS
  end
  ents[id] = e
  world:add(id, x, y, e.r, e.mode, e.layers, 1)
end

local service = {}
function service.login(id, x, y, connection)
  clients[id] = connection
  spawn_entity(id, "player", x, y)
end
function service.logout(id)
  clients[id] = nil
  ents[id] = nil
  moved[id] = nil         -- a move asked for before logging out is dropped
  world:remove(id)        -- its watchers get a despawn at the next tick
end
function service.move(id, x, y)  -- a move request from a client
  ents[id].x, ents[id].y = x, y
  moved[id] = true
end
function service.spyglass(id, on)  -- an item that widens a player's view
  ents[id].r = on and SPYGLASS or VIEW
  world:set_view_radius(id, ents[id].r)
end

-- The event handler of a tick. It may read the world (position, visible, queries) but not change it: a change
-- raises "aoi world is busy", so the guards' decisions wait in after_tick.
local function on_event(kind, watcher, target)
  local c = clients[watcher]
  if c then
    c.n = c.n + 1
    if kind == "enter" then
      local x, y = world:position(target)
      c.outbox[c.n] = {op = "spawn", id = target, kind = ents[target].kind, x = x, y = y}
    else
      c.outbox[c.n] = {op = "despawn", id = target}
    end
  elseif kind == "enter" and ents[watcher] and ents[watcher].kind == "guard" then
    after_tick[#after_tick + 1] = {guard = watcher, player = target}   -- chase it
    alerts = alerts + 1
  end
end

function service.tick()
  local ids, xy, n = batch.ids, batch.xy, 0
  for id in pairs(moved) do
    n = n + 1
    ids[n], xy[2 * n - 1], xy[2 * n] = id, ents[id].x, ents[id].y
    moved[id] = nil
  end
  for i = #ids, n + 1, -1 do ids[i], xy[2 * i - 1], xy[2 * i] = nil, nil, nil end   -- only this tick's moves
  world:move_many(ids, xy)
  local events = world:tick(on_event)
  for i, d in ipairs(after_tick) do   -- a guard steps a quarter of the way towards the player it spotted
    local g, t = ents[d.guard], ents[d.player]
    if t then
      g.x, g.y = quarter(g.x + (t.x - g.x) / 4), quarter(g.y + (t.y - g.y) / 4)
      world:move(d.guard, g.x, g.y)
    end
    after_tick[i] = nil
  end
  return events
end

-- Hands each outbox to its client (a real service: one packet per client with the tick's messages).
function service.flush()
  local sent = 0
  for id, c in pairs(clients) do
    for i = 1, c.n do
      c.receive(id, c.outbox[i])
      c.outbox[i] = nil
    end
    sent = sent + c.n
    c.n = 0
  end
  return sent
end

-- ---- the simulation: clients, monsters and a brute-force model ----

math.randomseed(42)
local printed, current_tick = 0, 0
local function new_client()
  local client = {outbox = {}, n = 0, known = {}, spawns = 0, despawns = 0, since = current_tick}
  client.receive = function(id, msg)
    if msg.op == "spawn" then
      client.known[msg.id] = true
      client.spawns = client.spawns + 1
    else
      client.known[msg.id] = nil
      client.despawns = client.despawns + 1
    end
    if id == 1 and printed < 8 then
      printed = printed + 1
      print(string.format("tick %d: player 1 <- %s %d%s", current_tick, msg.op, msg.id,
                          msg.op == "spawn" and string.format(" (%s at %g, %g)", msg.kind, msg.x, msg.y) or ""))
    end
  end
  return client
end

for id = 1000, 1139 do
  spawn_entity(id, id < 1010 and "guard" or "monster", quarter(math.random() * MAP), quarter(math.random() * MAP))
end
local offline = {}   -- players not logged in -> the tick they logged out
for id = 1, 30 do
  if id <= 24 then
    service.login(id, quarter(math.random() * MAP), quarter(math.random() * MAP), new_client())
  else
    offline[id] = 0
  end
end

-- Whether two layer masks (below 256) share a bit, in arithmetic: Lua 5.1 and LuaJIT have no & operator.
local function masks_meet(a, b)
  for _ = 1, 8 do
    if a % 2 == 1 and b % 2 == 1 then return true end
    a, b = math.floor(a / 2), math.floor(b / 2)
  end
  return false
end

-- The model: who sees whom after the coming tick, from the positions, radii and layers the service recorded and
-- the previous tick's relation (for the hysteresis). Also counts the pairs only the hysteresis keeps.
local kept_by_hysteresis = 0
local function model_relation(previous)
  local now = {}
  for w, a in pairs(ents) do
    if a.mode ~= "marker" then
      local row = {}
      for t, b in pairs(ents) do
        local dx, dy = a.x - b.x, a.y - b.y
        local d2 = dx * dx + dy * dy
        local was = previous[w] and previous[w][t]
        local reach = was and a.r + HYSTERESIS or a.r
        if w ~= t and b.mode ~= "watcher" and masks_meet(a.layers, b.layers) and d2 <= reach * reach then
          row[t] = true
          if d2 > a.r * a.r then kept_by_hysteresis = kept_by_hysteresis + 1 end
        end
      end
      now[w] = row
    end
  end
  return now
end

local function same(set, list_or_set, is_list)
  local n = 0
  for _ in pairs(set) do n = n + 1 end
  local m = 0
  if is_list then
    for _, id in ipairs(list_or_set) do
      if not set[id] then return false end
      m = m + 1
    end
  else
    for id in pairs(list_or_set) do
      if not set[id] then return false end
      m = m + 1
    end
  end
  return n == m
end

local relation, failures, messages, events_total = {}, 0, 0, 0
for tick = 1, TICKS do
  current_tick = tick
  -- Clients send moves (a step of up to 3 m); monsters wander; now and then a player logs out or in, or uses a
  -- spyglass.
  for id in pairs(clients) do
    if math.random(100) <= 70 then
      local e = ents[id]
      service.move(id, clamp(quarter(e.x + math.random(-12, 12) / 4)), clamp(quarter(e.y + math.random(-12, 12) / 4)))
    end
    if math.random(100) <= 2 then service.spyglass(id, ents[id].r == VIEW) end
  end
  for id = 1010, 1139 do
    if math.random(100) <= 30 then
      local e = ents[id]
      e.x, e.y = clamp(quarter(e.x + math.random(-8, 8) / 4)), clamp(quarter(e.y + math.random(-8, 8) / 4))
      world:move(id, e.x, e.y)
    end
  end
  if tick % 10 == 0 then
    for id in pairs(clients) do
      if math.random(100) <= 15 then
        service.logout(id)
        offline[id] = tick
      end
    end
    -- A player logs in again only once the tick of its logout has run: an id removed and added back before a tick
    -- is one entity to the world (its pairs go on, with no spawn), but the new connection's client knows nothing.
    for id, since in pairs(offline) do
      if since < tick and math.random(100) <= 50 then
        service.login(id, quarter(math.random() * MAP), quarter(math.random() * MAP), new_client())
        offline[id] = nil
      end
    end
  end

  local now = model_relation(relation)   -- what this tick must make of what was recorded
  events_total = events_total + service.tick()
  messages = messages + service.flush()

  -- The check: every client's list, and every guard's visible(), equal the model.
  for w, row in pairs(now) do
    local c = clients[w]
    local ok
    if c then ok = same(row, c.known) else ok = same(row, world:visible(w), true) end
    if not ok then
      failures = failures + 1
      io.stderr:write(string.format("tick %d: %s %d sees other entities than the brute-force model\n", tick,
                                    ents[w].kind, w))
    end
  end
  relation = now
end

for id = 1, 6 do
  local c = clients[id]
  if c then
    local n = 0
    for _ in pairs(c.known) do n = n + 1 end
    print(string.format("player %d (logged in at tick %d): %d spawns, %d despawns, %d in view now", id, c.since,
                        c.spawns, c.despawns, n))
  end
end
world:validate()
local total_despawns = 0
for _, c in pairs(clients) do total_despawns = total_despawns + c.despawns end
-- The run must exercise what it checks: despawns, and pairs that only the hysteresis keeps.
if total_despawns == 0 or kept_by_hysteresis == 0 then
  failures = failures + 1
  io.stderr:write("the run saw no despawns or no pair kept by the hysteresis: it checks too little\n")
end
print(string.format("mmo_server: %d ticks, %d events, %d messages, %d guard alerts, %d pair-ticks kept by the "
                    .. "hysteresis; %s", TICKS, events_total, messages, alerts, kept_by_hysteresis,
                    failures == 0 and "every client's view equals brute force" or failures .. " differences"))
world:destroy()
if failures > 0 then os.exit(1) end
