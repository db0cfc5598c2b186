// SPDX-License-Identifier: MIT
// LayerMatrix and ContactTracker through WebAssembly against brute force, with fixed seeds: a matrix against a table
// of 32 x 32 booleans; a tree's pairs through a matrix against every pair of overlapping boxes the table lets
// through; trackers' begun, ended and current contacts over random moving frames (moves, erases, inserts into freed
// slots, layer changes) against the differences of successive brute-force pair sets. Then bad input (a TypeError
// or a QuadrantError, nothing changed) and memory (trackers made and dropped, disposed or collected, do not grow
// the module's memory). Integer coordinates: overlaps are exact in float and double alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';

import load, { QuadrantError, LayerMatrix } from '../quadrant.node.mjs';
import { rng, boxesOverlap } from '../reference.mjs';

const q = await load();

// ---- the reference: a table of booleans ----

class Table {
  constructor() { this.t = Array.from({ length: 32 }, () => new Array(32).fill(false)); }
  between(a, b) {
    for (let i = 0; i < 32; ++i) {
      for (let j = 0; j < 32; ++j) if (((a >>> i) & 1) && ((b >>> j) & 1)) this.t[i][j] = this.t[j][i] = true;
    }
  }
  set(a, b, collide) { this.t[a][b] = this.t[b][a] = collide; }
  allows(a, b) {
    for (let i = 0; i < 32; ++i) {
      for (let j = 0; j < 32; ++j) if (((a >>> i) & 1) && ((b >>> j) & 1) && this.t[i][j]) return true;
    }
    return false;
  }
}

// A mask of a few layers (now and then every layer, or none).
function randomMask(g, allowZero = false) {
  const roll = g.next();
  if (roll < 0.1) return q.ALL_LAYERS;
  if (allowZero && roll < 0.15) return 0;
  let m = 1 << g.int(0, 31);
  for (let k = g.int(0, 2); k > 0; --k) m |= 1 << g.int(0, 7); // the low layers more often: they meet
  return m >>> 0;
}

// A random matrix and its table, built by the same calls.
function randomMatrix(g, ops = 8) {
  const m = new LayerMatrix(), t = new Table();
  for (let k = 0; k < ops; ++k) {
    if (g.next() < 0.5) {
      const a = randomMask(g, true), b = randomMask(g, true);
      assert.equal(m.between(a, b), m);
      t.between(a, b);
    } else {
      const a = g.int(0, 31), b = g.next() < 0.5 ? g.int(0, 7) : g.int(0, 31), collide = g.next() < 0.7;
      assert.equal(m.set(a, b, collide), m);
      t.set(a, b, collide);
    }
  }
  return { m, t };
}

test('LayerMatrix: between, set, collides, partners, active and allows as a table of 32 x 32 booleans', () => {
  for (let seed = 1; seed <= 20; ++seed) {
    const g = rng(seed);
    const { m, t } = randomMatrix(g, 30);
    for (let i = 0; i < 32; ++i) {
      let row = 0;
      for (let j = 0; j < 32; ++j) {
        assert.equal(m.collides(i, j), t.t[i][j], `seed ${seed}: collides(${i}, ${j})`);
        if (t.t[i][j]) row |= 1 << j;
      }
      assert.equal(m.partners(1 << i), row >>> 0, `seed ${seed}: partners of layer ${i}`);
    }
    let active = 0;
    for (let i = 0; i < 32; ++i) if (t.t[i].some(Boolean)) active |= 1 << i;
    assert.equal(m.active(), active >>> 0);
    for (let k = 0; k < 200; ++k) {
      const a = randomMask(g, true), b = randomMask(g, true);
      assert.equal(m.allows(a, b), t.allows(a, b), `seed ${seed}: allows(${a}, ${b})`);
    }
    // A copy is equal and independent.
    const copy = new LayerMatrix(m);
    assert.ok(copy.equals(m) && m.equals(copy));
    copy.set(31, 31, !copy.collides(31, 31));
    assert.ok(!copy.equals(m));
  }
  const all = LayerMatrix.all();
  assert.equal(all.active(), q.ALL_LAYERS);
  assert.ok(all.allows(1, 1 << 31) && all.allows(-1, 1) && !all.allows(0, 1));
  assert.equal(new LayerMatrix().active(), 0);
  assert.ok(new LayerMatrix().set(3, 5).collides(5, 3), 'symmetric');
  assert.equal(q.LayerMatrix, LayerMatrix);
});

// ---- a scene of objects with layers ----

// Some partly outside the world [0, 100]; in 3D crowded into its corner, to overlap as often as in 2D.
function randomBox(g, d) {
  const min = [], max = [];
  for (let i = 0; i < d; ++i) {
    const lo = d === 2 ? g.int(-5, 100) : g.int(-5, 40);
    min.push(lo);
    max.push(lo + g.int(0, d === 2 ? 8 : 10));
  }
  return { min, max };
}
const flat = (box) => [...box.min, ...box.max];

// The brute-force pairs of the live objects that `allows(layersA, layersB)` lets through: key "a,b" (handles, the
// lower slot first) -> contact.
function brutePairs(objects, allows) {
  const live = [...objects.values()];
  const out = new Map();
  for (let i = 0; i < live.length; ++i) {
    for (let j = i + 1; j < live.length; ++j) {
      let [x, y] = [live[i], live[j]];
      if (!boxesOverlap(x.box, y.box) || !allows(x.layers, y.layers)) continue;
      if (y.handle % 2 ** 32 < x.handle % 2 ** 32) [x, y] = [y, x];
      out.set(`${x.handle},${y.handle}`, { a: x.handle, b: y.handle, valueA: x.id, valueB: y.id });
    }
  }
  return out;
}
const bySlots = (p, r) => (p.a % 2 ** 32) - (r.a % 2 ** 32) || (p.b % 2 ** 32) - (r.b % 2 ** 32);
const sorted = (contacts) => [...contacts].sort(bySlots);

function makeScene(seed, d, scalar, placement, n) {
  const g = rng(seed);
  const tree = d === 2 ? new q.QuadTree({ world: [0, 0, 100, 100], scalar, placement, splitThreshold: 6 })
    : new q.Octree({ world: [0, 0, 0, 100, 100, 100], scalar, placement, splitThreshold: 6 });
  const objects = new Map(); // id -> {id, box, layers, handle}
  let next = 0;
  const add = () => {
    const o = { id: next++, box: randomBox(g, d), layers: randomMask(g) };
    o.handle = tree.insert(...flat(o.box), o.id, o.layers);
    objects.set(o.id, o);
  };
  for (let i = 0; i < n; ++i) add();
  return { g, tree, objects, add };
}

for (const d of [2, 3]) {
  for (const [k, [scalar, placement]] of [['float', 'loose'], ['double', 'parent'], ['float', 'leaves']].entries()) {
    test(`${d}D ${scalar} ${placement}: pairs, forEachPair and countPairs through a LayerMatrix as brute force`, () => {
      const { g, tree, objects } = makeScene(100 * d + k, d, scalar, placement, 250);
      for (let round = 0; round < 12; ++round) {
        const { m, t } = round === 0 ? { m: LayerMatrix.all(), t: { allows: () => true } }
          : round === 1 ? { m: new LayerMatrix(), t: { allows: () => false } } : randomMatrix(g);
        const want = brutePairs(objects, (a, b) => t.allows(a, b));
        const key = (x, y) => (x < y ? `${x},${y}` : `${y},${x}`);
        const wantIds = [...want.values()].map((c) => key(c.valueA, c.valueB)).sort();
        const got = tree.pairs(m).map(([x, y]) => key(x, y)).sort();
        assert.deepEqual(got, wantIds, `round ${round}: pairs(matrix)`);
        assert.equal(tree.countPairs(m), want.size, `round ${round}: countPairs(matrix)`);
        const walked = [];
        assert.equal(tree.forEachPair((x, y) => { walked.push(key(x, y)); }, m), want.size);
        assert.deepEqual(walked.sort(), wantIds, `round ${round}: forEachPair(fn, matrix)`);
      }
      // A mask is the matrix between(mask, mask).
      const mask = 0b101;
      assert.deepEqual(tree.pairs(new LayerMatrix().between(mask, mask)).map(String).sort(),
        tree.pairs(mask).map(String).sort());
      tree.validate();
      tree.dispose();
    });

    test(`${d}D ${scalar} ${placement}: ContactTracker events over 40 moving frames as brute force`, () => {
      const { g, tree, objects, add } = makeScene(700 + 10 * d + k, d, scalar, placement, 150);
      const { m: matrix, t: table } = randomMatrix(g);
      // Three trackers on the same tree: every layer, a mask, a matrix.
      const trackers = [
        { tracker: new q.ContactTracker(), filter: undefined, allows: () => true },
        // A mask lets a pair through when both objects are in it (each in some layer of the mask).
        { tracker: new q.ContactTracker(), filter: 0b11, allows: (a, b) => (a & 0b11) !== 0 && (b & 0b11) !== 0 },
        { tracker: new q.ContactTracker(), filter: matrix, allows: (a, b) => table.allows(a, b) },
      ];
      for (const tr of trackers) tr.previous = new Map();
      let events = 0;
      for (let frame = 0; frame < 40; ++frame) {
        if (frame > 0) {
          // Every object moves a little (some jump); a few are erased, inserted (into freed slots) or change layers.
          const handles = [], boxes = [];
          for (const o of objects.values()) {
            const jump = g.next() < 0.03, dx = Array.from({ length: d }, () => (jump ? g.int(-30, 30) : g.int(-2, 2)));
            o.box = { min: o.box.min.map((v, i) => v + dx[i]), max: o.box.max.map((v, i) => v + dx[i]) };
            handles.push(o.handle);
            boxes.push(...flat(o.box));
          }
          tree.moveMany(handles, boxes);
          for (const o of [...objects.values()]) {
            const roll = g.next();
            if (roll < 0.03) {
              tree.erase(o.handle);
              objects.delete(o.id);
            } else if (roll < 0.06) {
              o.layers = randomMask(g);
              tree.setLayers(o.handle, o.layers);
            }
          }
          for (let k = g.int(0, 5); k > 0; --k) add();
        }
        for (const tr of trackers) {
          const now = brutePairs(objects, tr.allows);
          const step = tr.tracker.update(tree, tr.filter);
          const begun = [...now.keys()].filter((k) => !tr.previous.has(k)).map((k) => now.get(k));
          // An ended contact names its objects by their handles; an erased object's value is gone.
          const ended = [...tr.previous.keys()].filter((k) => !now.has(k)).map((k) => {
            const c = tr.previous.get(k);
            return { a: c.a, b: c.b, valueA: objects.has(c.valueA) ? c.valueA : undefined,
              valueB: objects.has(c.valueB) ? c.valueB : undefined };
          });
          const where = `frame ${frame}, filter ${tr.filter}`;
          assert.deepEqual(step.begun, sorted(begun), `${where}: begun`);
          assert.deepEqual(step.ended, sorted(ended), `${where}: ended`);
          assert.equal(step.count, now.size, `${where}: count`);
          assert.deepEqual(tr.tracker.contacts(), sorted(now.values()), `${where}: contacts()`);
          for (const c of step.ended) {
            assert.equal(tree.contains(c.a), c.valueA !== undefined, `${where}: an ended contact's handle a`);
          }
          events += begun.length + ended.length;
          tr.previous = now;
        }
      }
      assert.ok(events > 500, `the frames made ${events} events: too few to test anything`);
      // clear(): every pair begins again.
      const [{ tracker }] = trackers;
      tracker.clear();
      assert.deepEqual(tracker.contacts(), []);
      const again = tracker.update(tree);
      assert.equal(again.begun.length, again.count);
      assert.equal(again.ended.length, 0);
      tree.validate();
      for (const tr of trackers) tr.tracker.dispose();
      tree.dispose();
    });
  }
}

// ---- bad input ----

function refused(fn, pattern, status = 'invalid_argument') {
  assert.throws(fn, (e) => e instanceof QuadrantError && e.status === status && pattern.test(e.message), String(pattern));
}
function typeRefused(fn, pattern) {
  assert.throws(fn, (e) => e instanceof TypeError && pattern.test(e.message), String(pattern));
}

test('LayerMatrix: wrong types throw a TypeError, values out of range a QuadrantError; the matrix unchanged', () => {
  const m = new LayerMatrix().between(0b11, 0b100).set(7, 9);
  const before = new LayerMatrix(m);
  typeRefused(() => m.set('1', 0), /LayerMatrix\.set: a must be a layer index .*got the string "1"/);
  typeRefused(() => m.set(0, null), /LayerMatrix\.set: b must be a layer index .*got null/);
  typeRefused(() => m.set(0, 1, 'yes'), /LayerMatrix\.set: collide must be a boolean/);
  typeRefused(() => m.set(0, 1, 1), /collide must be a boolean/);
  refused(() => m.set(0, 32), /LayerMatrix\.set: b must be a layer index in 0\.\.31 \(got 32\)/);
  refused(() => m.set(-1, 0), /a must be a layer index in 0\.\.31/);
  refused(() => m.set(1.5, 0), /a must be a layer index/);
  refused(() => m.set(NaN, 0), /a must be a layer index/);
  typeRefused(() => m.between(undefined, 1), /LayerMatrix\.between: a must be an integer bit mask/);
  typeRefused(() => m.between(1, [2]), /between: b must be an integer bit mask \(got an array\)/);
  refused(() => m.between(2 ** 32, 1), /between: layers must be an integer bit mask/);
  refused(() => m.between(1, 0.5), /between: layers must be an integer bit mask/);
  refused(() => m.collides(0, 40), /collides: b must be a layer index/);
  typeRefused(() => m.partners('1'), /partners: layers must be an integer bit mask/);
  typeRefused(() => m.allows(1), /allows: b must be an integer bit mask/);
  typeRefused(() => m.equals({}), /equals: other must be a LayerMatrix/);
  typeRefused(() => new LayerMatrix({ _partners: new Uint32Array(32) }), /LayerMatrix: the matrix to copy must be a LayerMatrix/);
  assert.ok(m.equals(before), 'the matrix is as before');
});

test('a pair filter that is neither a mask nor a LayerMatrix is a TypeError', () => {
  const tree = new q.QuadTree({ world: [0, 0, 10, 10] });
  tree.insert(0, 0, 2, 2, 'a', 1);
  tree.insert(1, 1, 3, 3, 'b', 2);
  // A forged matrix: the right field, not the class.
  const forged = { _partners: new Uint32Array(32).fill(0xffffffff) };
  typeRefused(() => tree.pairs(forged), /pairs: the filter must be a layer mask or a LayerMatrix/);
  typeRefused(() => tree.countPairs({}), /countPairs: the filter must be a layer mask or a LayerMatrix/);
  typeRefused(() => tree.forEachPair(() => {}, '3'), /forEachPair: layers must be an integer bit mask/);
  assert.equal(tree.countPairs(new LayerMatrix().set(0, 1)), 1);
  assert.equal(tree.countPairs(new LayerMatrix().set(0, 0)), 0);
  tree.dispose();
});

test('ContactTracker: bad input and another tree are refused, the tracker unchanged', async () => {
  const tree = new q.QuadTree({ world: [0, 0, 10, 10] });
  const a = tree.insert(0, 0, 2, 2, 'a'), b = tree.insert(1, 1, 3, 3, 'b');
  tree.insert(5, 5, 6, 6, 'c');
  const tracker = new q.ContactTracker();
  assert.deepEqual(tracker.update(tree).begun, [{ a, b, valueA: 'a', valueB: 'b' }]);
  const other = new q.QuadTree({ world: [0, 0, 10, 10] });
  other.insert(0, 0, 1, 1, 'x');
  other.insert(0, 0, 1, 1, 'y');
  const q2 = await load(); // another WebAssembly instance: its trees are not this module's
  const foreign = new q2.QuadTree({ world: [0, 0, 10, 10] });
  typeRefused(() => tracker.update('tree'), /update: tree must be a QuadTree or Octree of the same load\(\)/);
  typeRefused(() => tracker.update(foreign), /update: tree must be a QuadTree or Octree of the same load\(\)/);
  typeRefused(() => tracker.update(tree, {}), /update: the filter must be a layer mask or a LayerMatrix/);
  typeRefused(() => tracker.update(tree, '1'), /update: layers must be an integer bit mask/);
  refused(() => tracker.update(tree, 2 ** 33), /update: layers must be an integer bit mask/);
  refused(() => tracker.update(other), /update: another tree than the previous steps' \(call clear\(\) to switch trees\)/);
  const gone = new q.QuadTree({ world: [0, 0, 1, 1] });
  gone.dispose();
  refused(() => tracker.update(gone), /used after dispose/, 'logic_error');
  // Unchanged: the same contact, and a step with no motion reports nothing.
  assert.deepEqual(tracker.contacts(), [{ a, b, valueA: 'a', valueB: 'b' }]);
  tree.move(b, 7, 0, 8, 1);
  assert.deepEqual(tracker.update(tree), { begun: [], ended: [{ a, b, valueA: 'a', valueB: 'b' }], count: 0 });
  // After clear() it may follow another tree.
  tracker.clear();
  assert.equal(tracker.update(other).count, 1);
  // The followed tree disposed: refused, as any disposed tree.
  other.dispose();
  refused(() => tracker.update(other), /used after dispose/, 'logic_error');
  tracker.dispose();
  tracker.dispose(); // twice is safe
  for (const call of [() => tracker.update(tree), () => tracker.contacts(), () => tracker.clear()]) {
    refused(call, /used after dispose/, 'logic_error');
  }
  const scoped = new q.ContactTracker();
  scoped[Symbol.dispose]();
  assert.equal(scoped.disposed, true);
  tree.dispose();
  foreign.dispose();
});

// ---- memory ----

// A tree of 200 objects on one spot: 19,900 contacts, a few MB of tracker buffers each step.
function crowd() {
  const tree = new q.QuadTree({ world: [0, 0, 10, 10] });
  tree.assign(new Float64Array(200 * 4).map((_, i) => (i % 4 < 2 ? 1 : 2)));
  return tree;
}

test('trackers disposed free their memory: 100 of them do not grow the module', () => {
  const tree = crowd();
  const cycle = () => {
    const tracker = new q.ContactTracker();
    assert.equal(tracker.update(tree).count, 19900);
    tracker.dispose();
  };
  cycle();
  const before = q._memoryBytes();
  for (let i = 0; i < 100; ++i) cycle();
  // A leak of one tracker's buffers a cycle would be hundreds of MB.
  assert.ok(q._memoryBytes() - before <= 16 * 2 ** 20, `the module grew by ${q._memoryBytes() - before} bytes`);
  tree.dispose();
});

test('trackers never disposed are freed once collected (FinalizationRegistry)', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const settle = async () => {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  const tree = crowd();
  const cycle = () => { new q.ContactTracker().update(tree); };
  cycle();
  await settle();
  const before = q._memoryBytes();
  for (let i = 0; i < 100; ++i) {
    cycle();
    if (i % 5 === 4) await settle();
  }
  await settle();
  assert.ok(q._memoryBytes() - before <= 64 * 2 ** 20, `the module grew by ${q._memoryBytes() - before} bytes`);
  tree.dispose();
});
