// SPDX-License-Identifier: MIT
// QuadTree and Octree through WebAssembly against the brute-force reference (reference.mjs): random objects with
// fixed seeds, inserted one by one and built at once, moved and erased, in 2D and 3D, float and double, every
// placement; then every query shape, pairs, two-tree pairs, ray casts and nearest must find what brute force finds.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import load from '../quadrant.node.mjs';
import { rng, boxesOverlap, sqDistToBox, segmentEntry, verdict } from '../reference.mjs';

const q = await load();
const { Shape } = q;

// A float tree stores every number rounded to float: the test draws float values to begin with, so that the
// reference sees exactly what the tree stores.
function drawer(seed, scalar) {
  const r = rng(seed);
  const round = scalar === 'float' ? Math.fround : (x) => x;
  return { ...r, num: (lo, hi) => round(r.real(lo, hi)) };
}

function randomBox(g, d) {
  const big = g.next() < 0.1;
  const min = [], max = [];
  for (let i = 0; i < d; ++i) {
    const lo = g.num(-10, 110); // some lie partly or wholly outside the world [0, 100]
    min.push(lo);
    max.push(g.next() < 0.05 ? lo : g.num(lo, lo + (big ? 30 : 4))); // a few are flat (zero extent)
  }
  return { min, max };
}

// Shapes with their reference descriptions; `exact`: the reference decides them with no rounding of its own.
function randomShapes(g, d) {
  const p = () => Array.from({ length: d }, () => g.num(-5, 105));
  const out = [];
  const a = p(), b = p();
  const box = { min: a.map((v, i) => Math.min(v, b[i])), max: a.map((v, i) => Math.max(v, b[i])) };
  if (d === 2) {
    out.push([Shape.box(box.min[0], box.min[1], box.max[0], box.max[1]), { type: 'box', box }, true]);
    const pt = p();
    out.push([Shape.point(pt[0], pt[1]), { type: 'point', p: pt }, true]);
    const c = p(), r = g.num(0, 25);
    out.push([Shape.circle(c[0], c[1], r), { type: 'ball', c, r }, false]);
    const inner = g.num(0, 20), outer = g.num(inner, inner + 20);
    out.push([Shape.ring(c[0], c[1], inner, outer), { type: 'ring', c, inner, outer }, false]);
    const rx = g.num(1, 30), ry = g.num(1, 30), angle = g.num(-3, 3);
    out.push([Shape.ellipse(c[0], c[1], rx, ry, angle), { type: 'ellipse', c, rx, ry, angle }, false]);
    const dir = [g.num(-1, 1), g.num(-1, 1)], half = g.num(0.1, 3.1), sr = g.num(5, 40);
    out.push([Shape.sector(c[0], c[1], dir[0], dir[1], sr, half), { type: 'sector', c, d: dir, r: sr, half }, false]);
    const hx = g.num(1, 20), hy = g.num(1, 20);
    out.push([Shape.orientedBox(c[0], c[1], hx, hy, angle), { type: 'orientedBox', c, hx, hy, angle }, false]);
    // A convex polygon: points on a circle at increasing angles.
    const n = g.int(3, 7), start = g.num(0, 6), pr = g.num(5, 30), pts = [];
    for (let k = 0; k < n; ++k) {
      const t = start + (k * 2 * Math.PI) / n + g.num(0, 0.5);
      pts.push([c[0] + pr * Math.cos(t), c[1] + pr * Math.sin(t)]);
    }
    out.push([Shape.polygon(pts.flat()), { type: 'polygon', points: pts }, false]);
    out.push([Shape.segment(a[0], a[1], b[0], b[1]), { type: 'segment', p: a, q: b }, false]);
  } else {
    out.push([Shape.box3(...box.min, ...box.max), { type: 'box', box }, true]);
    const pt = p();
    out.push([Shape.point3(...pt), { type: 'point', p: pt }, true]);
    const c = p(), r = g.num(0, 30);
    out.push([Shape.sphere(...c, r), { type: 'ball', c, r }, false]);
    out.push([Shape.segment3(...a, ...b), { type: 'segment', p: a, q: b }, false]);
  }
  return out;
}

function sortedPairs(list) {
  return list.map(([x, y]) => (x < y ? `${x},${y}` : `${y},${x}`)).sort();
}

function checkTree(d, scalar, placement, seed) {
  const g = drawer(seed, scalar);
  const Tree = d === 2 ? q.QuadTree : q.Octree;
  const world = d === 2 ? [0, 0, 100, 100] : [0, 0, 0, 100, 100, 100];
  const tree = new Tree({ world, scalar, placement, splitThreshold: 6 });
  const objects = new Map(); // id -> {box, layers, handle}
  const insert = (id) => {
    const box = randomBox(g, d), layers = 1 << (id % 3);
    const handle = tree.insert(...box.min, ...box.max, id, layers);
    objects.set(id, { box, layers, handle });
  };
  for (let id = 0; id < 400; ++id) insert(id);
  // Moves one at a time and in one batch, erases, and a few new objects into the freed slots.
  const ids = [...objects.keys()];
  for (let k = 0; k < 60; ++k) {
    const o = objects.get(ids[g.int(0, ids.length - 1)]);
    o.box = randomBox(g, d);
    tree.move(o.handle, ...o.box.min, ...o.box.max);
  }
  const batch = ids.filter((id) => id % 4 === 1), boxes = [];
  for (const id of batch) {
    const o = objects.get(id);
    o.box = randomBox(g, d);
    boxes.push(...o.box.min, ...o.box.max);
  }
  tree.moveMany(batch.map((id) => objects.get(id).handle), boxes);
  const erased = [];
  for (const id of ids.filter((i) => i % 7 === 3)) {
    tree.erase(objects.get(id).handle);
    erased.push(objects.get(id).handle);
    objects.delete(id);
  }
  for (let id = 1000; id < 1030; ++id) insert(id);
  tree.validate();
  assert.equal(tree.size, objects.size);
  for (const h of erased) assert.equal(tree.contains(h), false, 'an erased handle is stale');
  for (const [id, o] of objects) {
    assert.equal(tree.value(o.handle), id);
    assert.equal(tree.layers(o.handle), o.layers);
    assert.deepEqual(tree.bounds(o.handle), [...o.box.min, ...o.box.max]);
  }

  // The same objects built at once.
  const list = [...objects.entries()];
  const built = new Tree({ world, scalar, placement, splitThreshold: 6 });
  const handles = built.assign(list.flatMap(([, o]) => [...o.box.min, ...o.box.max]), list.map(([id]) => id),
    list.map(([, o]) => o.layers));
  assert.equal(handles.length, list.length);
  list.forEach(([id], i) => assert.equal(built.value(handles[i]), id));
  built.validate();

  let checked = 0, skipped = 0, hits = 0;
  for (let round = 0; round < 30; ++round) {
    const layers = round % 3 === 0 ? q.ALL_LAYERS : 0b011;
    for (const [shape, ref, exact] of randomShapes(g, d)) {
      const want = new Set(), maybe = new Set();
      for (const [id, o] of objects) {
        if ((o.layers & layers) === 0) continue;
        const v = verdict(ref, o.box, exact);
        if (v === null) maybe.add(id);
        else if (v) want.add(id);
      }
      for (const t of [tree, built]) {
        const got = t.query(shape, layers);
        assert.equal(new Set(got).size, got.length, `${ref.type}: reported once each`);
        const sure = got.filter((id) => !maybe.has(id)).sort((x, y) => x - y);
        assert.deepEqual(sure, [...want].sort((x, y) => x - y), `${ref.type} (round ${round})`);
        assert.equal(t.lastQuery.hits, got.length);
        assert.ok(t.lastQuery.nodesVisited >= 1, 'the walk visited the root');
        assert.equal(t.count(shape, layers), got.length);
        assert.deepEqual(Array.from(t.queryHandles(shape, layers), (h) => t.value(h)), got);
        if (ref.type === 'box') assert.deepEqual(t.queryBox(...ref.box.min, ...ref.box.max, layers), got);
      }
      checked += objects.size;
      skipped += maybe.size;
      hits += want.size;
    }
  }
  assert.ok(hits > (d === 2 ? 1000 : 300), `the queries found objects (${hits})`);
  assert.ok(skipped * 1000 < checked, `the reference was unsure of ${skipped} of ${checked}`);

  // Pairs (touching counts), in layers and not.
  for (const layers of [q.ALL_LAYERS, 0b101]) {
    const want = [];
    for (const [i, a] of list) {
      for (const [j, b] of list) {
        if (i < j && (a.layers & layers) && (b.layers & layers) && boxesOverlap(a.box, b.box)) want.push([i, j]);
      }
    }
    const expected = sortedPairs(want);
    assert.deepEqual(sortedPairs(tree.pairs(layers)), expected);
    assert.deepEqual(sortedPairs(built.pairs(layers)), expected);
    assert.equal(tree.countPairs(layers), want.length);
    const seen = [];
    assert.equal(tree.forEachPair((a, b) => { seen.push([a, b]); }, layers), want.length);
    assert.deepEqual(sortedPairs(seen), expected);
    if (want.length > 3) assert.equal(tree.forEachPair(() => seen.length > 1e9, layers), 1, 'false stops the walk');
  }

  // Two-tree pairs: this tree's objects against a second, smaller tree of other boxes.
  const other = new Tree({ world, scalar, placement: 'loose' });
  const others = [];
  for (let k = 0; k < 80; ++k) {
    const box = randomBox(g, d);
    others.push({ id: 5000 + k, box });
    other.insert(...box.min, ...box.max, 5000 + k, k % 2 ? 1 : 2);
  }
  const cross = [];
  for (const [i, a] of list) {
    for (const [k, b] of others.entries()) {
      if ((a.layers & 0b110) && ((k % 2 ? 1 : 2) & 0b1) && boxesOverlap(a.box, b.box)) cross.push(`${i},${b.id}`);
    }
  }
  assert.deepEqual(tree.pairsWith(other, 0b110, 0b1).map(([x, y]) => `${x},${y}`).sort(), cross.sort());

  // Ray casts: every box the segment crosses, nearest first, each with its entry fraction.
  for (let round = 0; round < 25; ++round) {
    const p = Array.from({ length: d }, () => g.num(-5, 105)), r = Array.from({ length: d }, () => g.num(-5, 105));
    const want = [];
    for (const [id, o] of objects) {
      const t = segmentEntry(p, r, o.box);
      if (t !== null) want.push({ id, t });
    }
    const got = tree.raycast(...p, ...r);
    // A float tree computes the fraction in float: a few units in its last place (2^-24) of the segment.
    const near = (x, y) => Math.abs(x - y) <= (scalar === 'float' ? 1e-6 : 1e-9);
    // Boxes the segment grazes within rounding may go either way; all others must agree.
    const wantIds = new Set(want.map((w) => w.id));
    for (const h of got) {
      assert.ok(wantIds.has(h.value) || segmentEntry(p, r, grow(objects.get(h.value).box)) !== null,
        `raycast: ${h.value} is not on the segment`);
      assert.equal(tree.value(h.handle), h.value);
    }
    const gotIds = new Set(got.map((h) => h.value));
    for (const w of want) {
      assert.ok(gotIds.has(w.id) || segmentEntry(p, r, shrink(objects.get(w.id).box)) === null, `raycast missed ${w.id}`);
    }
    for (let k = 1; k < got.length; ++k) assert.ok(got[k - 1].t <= got[k].t, 'nearest first');
    for (const h of got) {
      const w = want.find((x) => x.id === h.value);
      if (w) assert.ok(near(w.t, h.t), `entry fraction ${h.t}, reference ${w.t}`);
    }
    const first = tree.raycast(...p, ...r, { limit: 1 });
    assert.equal(first.length, Math.min(1, got.length));
    if (first.length) assert.equal(first[0].t, got[0].t);
  }

  // Nearest: the k smallest point-to-box distances (a float tree computes them in float).
  const tol = scalar === 'float' ? 1e-6 : 1e-9;
  for (let round = 0; round < 25; ++round) {
    const p = Array.from({ length: d }, () => g.num(-20, 120));
    const k = g.int(1, 12), layers = round % 2 ? q.ALL_LAYERS : 0b10;
    const dist = [];
    for (const [, o] of objects) if (o.layers & layers) dist.push(Math.sqrt(sqDistToBox(p, o.box)));
    dist.sort((x, y) => x - y);
    const got = tree.nearest(...p, k, { layers });
    assert.equal(got.length, Math.min(k, dist.length));
    got.forEach((n, i) => {
      assert.ok(Math.abs(n.distance - dist[i]) <= tol * (1 + dist[i]), `nearest #${i}: ${n.distance} vs ${dist[i]}`);
      const o = objects.get(n.value);
      assert.ok(Math.abs(Math.sqrt(sqDistToBox(p, o.box)) - n.distance) <= tol * (1 + n.distance));
    });
    const limited = tree.nearest(...p, 50, { layers, maxDistance: 10 });
    assert.equal(limited.length, Math.min(50, dist.filter((x) => x <= 10).length));
  }

  // The leaves tile the world; locate finds the leaf holding a point.
  const leaves = tree.leaves();
  let volume = 0;
  for (const l of leaves) volume += l.cellMax.reduce((acc, v, i) => acc * (v - l.cellMin[i]), 1);
  assert.ok(Math.abs(volume - 100 ** d) < 1e-6 * 100 ** d, 'the leaves cover the world once');
  assert.equal(leaves.length, tree.stats().leaves);
  const spot = Array.from({ length: d }, () => g.num(1, 99));
  const leaf = tree.locate(...spot);
  assert.ok(leaf.leaf && spot.every((v, i) => leaf.cellMin[i] <= v && v <= leaf.cellMax[i]));
  for (const t of [tree, built, other]) t.dispose();
}

function grow(box) {
  return { min: box.min.map((v) => v - 1e-9 * (1 + Math.abs(v))), max: box.max.map((v) => v + 1e-9 * (1 + Math.abs(v))) };
}
function shrink(box) {
  return { min: box.min.map((v, i) => Math.min(v + 1e-9 * (1 + Math.abs(v)), (v + box.max[i]) / 2)),
    max: box.max.map((v, i) => Math.max(v - 1e-9 * (1 + Math.abs(v)), (v + box.min[i]) / 2)) };
}

for (const d of [2, 3]) {
  for (const scalar of ['float', 'double']) {
    for (const placement of ['loose', 'parent', 'leaves']) {
      test(`${d}D ${scalar} ${placement}: every query, pairs, ray casts and nearest as brute force`, () => {
        checkTree(d, scalar, placement, d * 100 + (scalar === 'float' ? 10 : 20) + placement.length);
      });
    }
  }
}

test('frustum: objects wholly inside are found, objects wholly outside a plane are not', () => {
  // An orthographic view of [20, 60] x [30, 70] x [-80, -10] (column-major, WebGL's -1..1 depth).
  const [l, r, b, t, n, f] = [20, 60, 30, 70, 10, 80];
  const m = [2 / (r - l), 0, 0, 0, 0, 2 / (t - b), 0, 0, 0, 0, -2 / (f - n), 0,
    -(r + l) / (r - l), -(t + b) / (t - b), -(f + n) / (f - n), 1];
  const tree = new q.Octree({ world: [0, 0, -100, 100, 100, 0] });
  const g = drawer(7, 'double');
  const inside = [], outside = [];
  for (let id = 0; id < 500; ++id) {
    const x = g.num(0, 95), y = g.num(0, 95), z = g.num(-100, -5), s = g.num(0, 5);
    tree.insert(x, y, z, x + s, y + s, z + s, id);
    if (x >= l && x + s <= r && y >= b && y + s <= t && z >= -f && z + s <= -n) inside.push(id);
    if (x > r || x + s < l || y > t || y + s < b || z > -n || z + s < -f) outside.push(id);
  }
  const got = new Set(tree.query(Shape.frustum(m)));
  assert.ok(inside.length > 20);
  for (const id of inside) assert.ok(got.has(id), `inside ${id} missed`);
  for (const id of outside) assert.ok(!got.has(id), `outside ${id} reported`);
  tree.dispose();
});

test('rebuild re-roots a tree whose objects outgrew its world, keeping handles and answers', () => {
  const g = drawer(17, 'double');
  for (const placement of ['loose', 'parent', 'leaves']) {
    const tree = new q.QuadTree({ world: [0, 0, 25, 25], placement, splitThreshold: 5 });
    const boxes = [];
    const handles = [];
    for (let i = 0; i < 400; ++i) {
      const x = g.num(0, 100), y = g.num(0, 100), s = g.num(0, 3);
      boxes.push({ min: [x, y], max: [x + s, y + s] });
      handles.push(tree.insert(x, y, x + s, y + s, i));
    }
    assert.ok(tree.stats().outsideWorld > 300);
    assert.throws(() => tree.rebuild([0, 0, -1, 100]), { name: 'QuadrantError', status: 'invalid_argument' });
    assert.throws(() => tree.rebuild([0, 0, 100]), /expected 4 numbers/);
    assert.deepEqual(tree.config.world, [0, 0, 25, 25]);
    tree.rebuild([-10, -10, 110, 110]);
    tree.validate();
    assert.deepEqual(tree.config.world, [-10, -10, 110, 110]);
    assert.equal(tree.stats().outsideWorld, 0);
    handles.forEach((h, i) => assert.equal(tree.value(h), i));
    for (let k = 0; k < 30; ++k) {
      const x = g.num(-5, 100), y = g.num(-5, 100), w = g.num(0, 30);
      const want = boxes.flatMap((b, i) => (boxesOverlap(b, { min: [x, y], max: [x + w, y + w] }) ? [i] : []));
      assert.deepEqual(tree.queryBox(x, y, x + w, y + w).sort((a, b) => a - b), want, placement);
    }
    tree.dispose();
  }
});
