// SPDX-License-Identifier: MIT
// AoiWorld and Streamer through WebAssembly against brute-force models written from docs/aoi.md and
// docs/streaming.md: every tick's events and every update's loads, unloads and cancels must be the model's, in
// order. Integer coordinates, so every square is exact and neither side's rounding can decide a case.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import load from '../quadrant.node.mjs';
import { rng, sqDistToBox } from '../reference.mjs';

const q = await load();

for (const scalar of ['float', 'double']) {
  test(`AoiWorld (${scalar}): 80 ticks of adds, moves, radius and layer changes, removals as the reference`, () => {
    const g = rng(scalar === 'float' ? 31 : 32);
    const hysteresis = 3;
    const world = new q.AoiWorld({ world: [0, 0, 300, 300], hysteresis, scalar });
    const modes = ['watcher', 'marker', 'both'], layerChoices = [-1, 1, 2, 3];
    const ents = new Map(); // id -> {x, y, r, mode, layers}
    let sees = new Map(); // watcher -> Set of targets, as of the last tick
    let total = 0;
    for (let tick = 1; tick <= 80; ++tick) {
      const moved = [], xy = [];
      for (let i = 1; i <= 150; ++i) {
        // Ids beyond 2^32 too: they cross as two 32-bit halves.
        const id = i * 7919 + (i % 5 === 0 ? 2 ** 40 : 0);
        const e = ents.get(id), roll = g.int(1, 100);
        if (e === undefined) {
          if (roll <= (tick === 1 ? 90 : 10)) {
            const n = { x: g.int(0, 299), y: g.int(0, 299), r: g.int(5, 35), mode: modes[g.int(0, 2)],
              layers: layerChoices[g.int(0, 3)] };
            world.add(id, n.x, n.y, n.r, { mode: n.mode, layers: n.layers });
            ents.set(id, n);
          }
        } else if (roll <= 40) {
          e.x += g.int(-4, 4);
          e.y += g.int(-4, 4);
          if (roll <= 20) {
            moved.push(id);
            xy.push(e.x, e.y);
          } else {
            world.move(id, e.x, e.y);
          }
        } else if (roll <= 44) {
          e.r = g.int(0, 40);
          world.setViewRadius(id, e.r);
        } else if (roll <= 47) {
          e.layers = layerChoices[g.int(0, 3)];
          world.setLayers(id, e.layers);
        } else if (roll <= 50) {
          world.remove(id);
          ents.delete(id);
        } else if (roll <= 52) {
          // A teleport across the map.
          e.x = g.int(0, 299);
          e.y = g.int(0, 299);
          world.move(id, e.x, e.y);
        }
      }
      world.moveMany(moved, xy);
      // The reference: who sees whom now (a visible pair holds until view radius + hysteresis), and the diff.
      const now = new Map(), want = [];
      for (const [w, a] of ents) {
        const row = new Set();
        for (const [t, b] of ents) {
          const dx = a.x - b.x, dy = a.y - b.y;
          const reach = sees.get(w)?.has(t) ? a.r + hysteresis : a.r;
          if (w !== t && a.mode !== 'marker' && b.mode !== 'watcher' && ((a.layers & b.layers) !== 0) &&
              dx * dx + dy * dy <= reach * reach) row.add(t);
        }
        now.set(w, row);
      }
      for (const [w, row] of now) for (const t of row) if (!sees.get(w)?.has(t)) want.push({ kind: 'enter', watcher: w, target: t });
      for (const [w, row] of sees) for (const t of row) if (!now.get(w)?.has(t)) want.push({ kind: 'leave', watcher: w, target: t });
      want.sort((p, r) => p.watcher - r.watcher || p.target - r.target);
      const got = world.tick();
      assert.deepEqual(got, want, `tick ${tick}`);
      total += got.length;
      sees = now;
      let pairs = 0;
      for (const row of now.values()) pairs += row.size;
      assert.equal(world.pairCount, pairs);
      assert.equal(world.size, ents.size);
      for (const [id, e] of ents) {
        if (id % 5 !== tick % 5) continue;
        assert.deepEqual(world.visible(id), [...now.get(id)].sort((a, b) => a - b));
        const ws = [...now].filter(([, row]) => row.has(id)).map(([w]) => w).sort((a, b) => a - b);
        assert.deepEqual(world.watchers(id), ws);
        assert.deepEqual(world.position(id), [e.x, e.y]);
      }
      // A skill's area: a circle around a random spot (bodies are points: body radius 0).
      const hx = g.int(0, 299), hy = g.int(0, 299);
      const inCircle = [...ents].filter(([, e]) => (e.x - hx) ** 2 + (e.y - hy) ** 2 <= 625).map(([id]) => id);
      assert.deepEqual(world.query(q.Shape.circle(hx, hy, 25)), inCircle.sort((a, b) => a - b));
    }
    assert.ok(total > 300, `the run exercised the relation (${total} events)`);
    world.validate();
    // Bad input throws and changes nothing.
    const [someId] = ents.keys();
    assert.throws(() => world.add(someId, 1, 1, 1), { name: 'QuadrantError', status: 'invalid_argument' });
    assert.throws(() => world.add(-1, 1, 1, 1), /safe integer/);
    assert.throws(() => world.add(2 ** 53, 1, 1, 1), /safe integer/);
    assert.throws(() => world.add(1, NaN, 1, 1), { status: 'invalid_argument' });
    assert.throws(() => world.add(1, 1, 1, -2), { status: 'invalid_argument' });
    assert.throws(() => world.add(1, 1, 1, 1, { mode: 'spectator' }), /mode must be one of/);
    assert.throws(() => world.move(123456789, 1, 1), { status: 'invalid_argument' });
    assert.throws(() => world.moveMany([someId, 123456789], [1, 1, 2, 2]), { status: 'invalid_argument' });
    assert.deepEqual(world.tick(), [], 'nothing changed');
    world.dispose();
    assert.throws(() => world.tick(), { status: 'logic_error' });
  });
}

test('Streamer: loads, unloads and cancels as a model of docs/streaming.md, over 60 frames', () => {
  const g = rng(41);
  const margin = 5, perUpdate = 7, inFlight = 12;
  const s = new q.Streamer({ world: [0, 0, 0, 200, 200, 50], unloadMargin: margin, maxLoadsPerUpdate: perUpdate,
    maxLoadsInFlight: inFlight });
  const objs = new Map(); // id -> {box, state}
  for (let id = 1; id <= 400; ++id) {
    const x = g.int(0, 195), y = g.int(0, 195), z = g.int(0, 45);
    const box = { min: [x, y, z], max: [x + g.int(0, 5), y + g.int(0, 5), z + g.int(0, 5)] };
    s.add(id, ...box.min, ...box.max);
    objs.set(id, { box, state: 'unloaded' });
  }
  let cam = [100, 100, 20], loads = 0, unloads = 0, cancels = 0;
  for (let frame = 0; frame < 60; ++frame) {
    cam = [cam[0] + g.int(-12, 12), cam[1] + g.int(-12, 12), 20];
    const radius = g.int(15, 30);
    if (frame % 9 === 4) {
      // An object moves somewhere else.
      const id = g.int(1, 400), x = g.int(0, 195), y = g.int(0, 195);
      objs.get(id).box = { min: [x, y, 10], max: [x + 2, y + 2, 12] };
      s.move(id, x, y, 10, x + 2, y + 2, 12);
    }
    // The model.
    const dist = (o) => Math.sqrt(sqDistToBox(cam, o.box));
    const wanted = (o) => sqDistToBox(cam, o.box) <= radius * radius;
    const kept = (o) => sqDistToBox(cam, o.box) <= (radius + margin) ** 2;
    const want = { loads: [], unloads: [], cancels: [] };
    for (const [id, o] of [...objs].sort((a, b) => a[0] - b[0])) {
      if ((o.state === 'loaded' || o.state === 'loading') && !wanted(o) && !kept(o)) {
        (o.state === 'loaded' ? want.unloads : want.cancels).push(id);
        o.state = 'unloaded';
      }
      if (o.state === 'queued') o.state = 'unloaded';
    }
    const candidates = [...objs].filter(([, o]) => o.state === 'unloaded' && wanted(o))
      .sort((a, b) => dist(a[1]) - dist(b[1]) || a[0] - b[0]);
    const loading = [...objs.values()].filter((o) => o.state === 'loading').length;
    const room = Math.max(0, Math.min(perUpdate, inFlight - loading));
    candidates.forEach(([id, o], k) => {
      if (k < room) {
        want.loads.push(id);
        o.state = 'loading';
      } else {
        o.state = 'queued';
      }
    });
    const got = s.update([{ position: cam, prefetchRadius: radius }]);
    assert.deepEqual(got.loads.map((l) => l.id), want.loads, `frame ${frame}: loads`);
    got.loads.forEach((l) => assert.ok(Math.abs(l.distance - dist(objs.get(l.id))) <= 1e-12 * (1 + l.distance)));
    assert.deepEqual(got.unloads, want.unloads, `frame ${frame}: unloads`);
    assert.deepEqual(got.cancels, want.cancels, `frame ${frame}: cancels`);
    for (const [id, o] of objs) assert.equal(s.state(id), o.state, `frame ${frame}: state of ${id}`);
    loads += got.loads.length;
    unloads += got.unloads.length;
    cancels += got.cancels.length;
    // Most loads finish by the next frame; some fail; some finish late.
    for (const [id, o] of objs) {
      if (o.state !== 'loading') continue;
      const roll = g.next();
      if (roll < 0.6) {
        assert.equal(s.markLoaded(id), true);
        o.state = 'loaded';
      } else if (roll < 0.7) {
        assert.equal(s.markFailed(id), true);
        o.state = 'unloaded';
      }
    }
    s.validate();
  }
  assert.ok(loads > 100 && unloads > 10 && cancels > 0, `exercised: ${loads} loads, ${unloads} unloads, ${cancels} cancels`);
  const someLoaded = [...objs].find(([, o]) => o.state === 'loaded');
  assert.ok(someLoaded);
  assert.equal(s.markLoaded(someLoaded[0]), false, 'a late completion');
  assert.equal(s.remove(someLoaded[0]), 'loaded');
  assert.equal(s.contains(someLoaded[0]), false);
  assert.throws(() => s.state(someLoaded[0]), { status: 'invalid_argument' });
  assert.throws(() => s.add(1, 0, 0, 0, -1, 1, 1), { status: 'invalid_argument' });
  assert.throws(() => s.update([{ position: [0, 0, 0], prefetchRadius: -1 }]), { status: 'invalid_argument' });
  assert.throws(() => s.update([{ position: [0, 0], prefetchRadius: 1 }]), /expected 3 numbers/);
  assert.throws(() => s.update([{ position: [0, 0, 0], radius: 1 }]), /unknown option "radius"/);
  assert.deepEqual(s.bounds(2), [...objs.get(2).box.min, ...objs.get(2).box.max]);
  s.dispose();
});
