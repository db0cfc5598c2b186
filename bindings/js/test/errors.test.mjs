// SPDX-License-Identifier: MIT
// Bad input to a tree throws a QuadrantError with the library's message and changes nothing: the objects, their
// boxes, values and handles are as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import load, { QuadrantError } from '../quadrant.node.mjs';

const q = await load();
const { Shape } = q;

function scene() {
  const tree = new q.QuadTree({ world: [0, 0, 100, 100], splitThreshold: 4 });
  const handles = [];
  for (let i = 0; i < 50; ++i) handles.push(tree.insert(i, i, i + 3, i + 3, `v${i}`));
  const snapshot = () => ({
    size: tree.size,
    boxes: handles.map((h) => (tree.contains(h) ? tree.bounds(h) : null)),
    values: handles.map((h) => (tree.contains(h) ? tree.value(h) : null)),
    hits: tree.query(Shape.box(0, 0, 100, 100)).sort(),
  });
  return { tree, handles, snapshot };
}

function refused(fn, pattern, status = 'invalid_argument') {
  assert.throws(fn, (e) => e instanceof QuadrantError && e.status === status && pattern.test(e.message), String(pattern));
}

test('bad coordinates, handles, layers and shapes throw and change nothing', () => {
  const { tree, handles, snapshot } = scene();
  const before = snapshot();
  refused(() => tree.insert(NaN, 0, 1, 1, 'x'), /insert: coordinate is NaN/);
  refused(() => tree.insert(5, 0, 1, 1, 'x'), /insert/);
  refused(() => tree.insert(0, 0, Infinity, 1, 'x'), /insert/);
  refused(() => tree.insert(0, 0, 1, 1, 'x', 2 ** 33), /layers must be an integer/);
  refused(() => tree.insert(0, 0, 1, 1, 'x', 0), /insert/);
  refused(() => tree.move(handles[3], 0, 0, -1, 1), /move/);
  refused(() => tree.move(handles[3] + 2 ** 32, 0, 0, 1, 1), /no object of this tree/); // a later generation
  refused(() => tree.erase(0), /erase: the handle names no object/);
  refused(() => tree.erase(-5), /erase/);
  refused(() => tree.erase(1.5), /erase/);
  refused(() => tree.value(2 ** 60), /value/);
  refused(() => tree.moveMany([handles[1], handles[2]], [0, 0, 1, 1, 0, 0, NaN, 1]), /move/);
  refused(() => tree.moveMany([handles[1], 12345], [0, 0, 1, 1, 0, 0, 1, 1]), /no object/);
  refused(() => tree.moveMany([handles[1]], [0, 0, 1]), /expected 4 numbers/);
  refused(() => tree.assign([0, 0, 1, 1, 5, 5, 4, 6]), /item 1/);
  refused(() => tree.assign([0, 0, 1, 1], ['a'], [0]), /item 0/);
  refused(() => tree.assign([0, 0, 1]), /4 numbers per object/);
  refused(() => tree.query(Shape.sphere(1, 1, 1, 1)), /a 3D shape on a QuadTree/);
  refused(() => tree.query(Shape.polygon([0, 0, 10, 0, 0, 10, 10, 10])), /not convex/); // a bow tie
  refused(() => tree.query(Shape.circle(0, 0, -1)), /radius is negative/);
  refused(() => tree.query(Shape.ring(0, 0, 5, 1)), /inner radius exceeds outer/);
  refused(() => tree.raycast(0, 0, NaN, 1), /segment: b: coordinate is NaN/);
  refused(() => tree.raycast(0, 0, 1, 1, { limit: -1 }), /limit/);
  refused(() => tree.nearest(0, 0, 1.5), /k must be an integer/);
  refused(() => tree.nearest(0, 0, 1, { maxDistance: -1 }), /max_distance is negative/);
  refused(() => tree.nearest(0, 0, 1, { radius: 1 }), /unknown option "radius"/);
  refused(() => tree.locate(-5, 5), /point outside the world/);
  assert.deepEqual(snapshot(), before);
  tree.validate();
  tree.dispose();
});

test('bad options are named', () => {
  refused(() => new q.QuadTree({ world: [0, 0, 1] }), /world/);
  refused(() => new q.QuadTree({ world: [0, 0, -1, 1] }), /world/);
  refused(() => new q.QuadTree({ world: [0, 0, 1, 1], placement: 'middle' }), /placement must be one of loose, parent, leaves/);
  refused(() => new q.QuadTree({ world: [0, 0, 1, 1], scalar: 'half' }), /scalar/);
  refused(() => new q.QuadTree({ world: [0, 0, 1, 1], maxdepth: 3 }), /unknown option "maxdepth"/);
  refused(() => new q.QuadTree({ world: [0, 0, 1, 1], maxDepth: -1 }), /maxDepth/);
  refused(() => new q.Octree({ world: [0, 0, 0, 1, 1, 1], minNodeSize: NaN }), /min_node_size must be finite/);
  refused(() => new q.AoiWorld({ world: [0, 0, 1, 1], hysteresis: -1 }), /hysteresis/);
  refused(() => new q.Streamer({ world: [0, 0, 0, 1, 1, 1], unloadMargin: Infinity }), /unload_margin is infinite/);
});

test('stale handles: erased, cleared, replaced by assign; a reused slot does not revive an old handle', () => {
  const { tree, handles } = scene();
  tree.erase(handles[7]);
  refused(() => tree.erase(handles[7]), /erase/);
  refused(() => tree.value(handles[7]), /value/);
  const reused = tree.insert(1, 1, 2, 2, 'new');
  assert.equal(reused % 2 ** 32, handles[7] % 2 ** 32, 'the freed slot is reused');
  assert.notEqual(reused, handles[7]);
  refused(() => tree.setValue(handles[7], 'x'), /setValue/);
  assert.equal(tree.value(reused), 'new');
  tree.clear();
  assert.equal(tree.size, 0);
  for (const h of [reused, handles[0], handles[49]]) assert.equal(tree.contains(h), false);
  const fresh = tree.assign([0, 0, 1, 1, 2, 2, 3, 3], ['a', 'b']);
  assert.deepEqual(Array.from(fresh, (h) => tree.value(h)), ['a', 'b']);
  for (const h of handles.slice(0, 5)) assert.equal(tree.contains(h), false);
  tree.dispose();
  refused(() => tree.size, /used after dispose/, 'logic_error');
  refused(() => tree.insert(0, 0, 1, 1), /used after dispose/, 'logic_error');
  tree.dispose(); // twice is harmless
});

test('forEachPair may change the tree it walks: the pairs are those of the walk\'s start', () => {
  const { tree, handles } = scene();
  const want = tree.countPairs();
  let calls = 0;
  tree.forEachPair((a, b, ha, hb) => {
    ++calls;
    if (tree.contains(hb)) tree.erase(hb); // a game's Destroy(other)
  });
  assert.equal(calls, want);
  assert.ok(tree.size < handles.length);
  tree.validate();
  tree.dispose();
});

test('layer masks: -1 and ~0 are every layer; a query in no layer finds nothing', () => {
  const tree = new q.QuadTree({ world: [0, 0, 10, 10] });
  const h = tree.insert(1, 1, 2, 2, 'a', ~0);
  assert.equal(tree.layers(h), 0xffffffff);
  tree.setLayers(h, 0x80000000);
  assert.deepEqual(tree.query(Shape.point(1.5, 1.5), 0x80000000 | 1), ['a']);
  assert.deepEqual(tree.query(Shape.point(1.5, 1.5), 0x7fffffff), []);
  refused(() => tree.setLayers(h, 0), /layer mask is 0/);
  tree.dispose();
});

test('k and limit beyond the object count answer every object and corrupt nothing', () => {
  const { tree } = scene();
  for (const k of [2 ** 28, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
    const near = tree.nearest(0, 0, k);
    assert.equal(near.length, 50, `nearest k = ${k}`);
    assert.equal(near[0].value, 'v0');
  }
  for (const limit of [2 ** 29, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
    assert.equal(tree.raycast(0, 0, 100, 100, { limit }).length, 50, `raycast limit = ${limit}`);
  }
  tree.validate();
  // A tree built afterwards answers whole.
  const fresh = new q.QuadTree({ world: [0, 0, 100, 100] });
  const boxes = new Float64Array(2000 * 4);
  for (let i = 0; i < 2000; ++i) boxes.set([i % 97, i % 89, (i % 97) + 1, (i % 89) + 1], 4 * i);
  fresh.assign(boxes, Array.from({ length: 2000 }, (_, i) => i));
  assert.equal(fresh.query(Shape.box(0, 0, 100, 100)).length, 2000);
  fresh.validate();
});

test('a scratch buffer that cannot grow is kept: the failed call changes nothing and corrupts nothing', () => {
  const streamer = new q.Streamer({ world: [0, 0, 0, 100, 100, 100] });
  streamer.add(1, 1, 1, 1, 2, 2, 2);
  const near = { position: [0, 0, 0], prefetchRadius: 10 }, far = { position: [90, 90, 90], prefetchRadius: 1 };
  // The sources' scratch (35 KB): freed, its memory would go to the tree below, and the next update would write
  // over the tree (as the issue saw: a broken tree, or a call to a function pointer overwritten).
  const many = Array.from({ length: 200 }, (_, i) => (i % 2 ? near : far));
  assert.deepEqual(streamer.update(many).loads.map((l) => l.id), [1]);
  // Sources of 176 bytes each, just under 2^31 bytes in all: no check refuses it, and no 2 GB memory can hold it.
  // (A sparse array: its length costs nothing.)
  const tooMany = new Array(Math.floor((2 ** 31 - 16) / 176));
  refused(() => streamer.update(tooMany), /out of memory/, 'out_of_memory');
  // The old scratch is still the streamer's: a tree allocated now must not share its memory.
  const tree = new q.QuadTree({ world: [0, 0, 100, 100] });
  for (let i = 0; i < 3000; ++i) tree.insert(i % 97, i % 89, (i % 97) + 1, (i % 89) + 1, i);
  for (let k = 0; k < 3; ++k) streamer.update(many);
  assert.equal(tree.query(Shape.box(0, 0, 100, 100)).length, 3000);
  tree.validate();
  streamer.validate();
  assert.equal(streamer.state(1), 'loading');
  tree.dispose();
  streamer.dispose();
});

test('a handle of another tree is refused', () => {
  const a = new q.QuadTree({ world: [0, 0, 100, 100] });
  const b = new q.QuadTree({ world: [0, 0, 100, 100] });
  const ha = a.insert(1, 1, 2, 2, 'a');
  const hb = b.insert(1, 1, 2, 2, 'b');
  assert.equal(b.contains(ha), false);
  assert.equal(a.contains(hb), false);
  refused(() => b.erase(ha), /stale or foreign/);
  refused(() => b.move(ha, 3, 3, 4, 4), /stale or foreign/);
  refused(() => b.value(ha), /stale or foreign/);
  assert.equal(b.size, 1);
  assert.equal(b.value(hb), 'b');
  assert.equal(a.value(ha), 'a');
});

// A TypeError whose message names the argument.
function typeRefused(fn, pattern) {
  assert.throws(fn, (e) => e instanceof TypeError && pattern.test(e.message), String(pattern));
}

test('arguments of the wrong type throw a TypeError naming them and change nothing', () => {
  const { tree, handles, snapshot } = scene();
  const before = snapshot();
  typeRefused(() => tree.insert('5', '0', '6', '1', 'x'), /insert: minX must be a number \(got the string "5"\)/);
  typeRefused(() => tree.insert(null, null, 1, 1, 'x'), /insert: minX must be a number \(got null\)/);
  typeRefused(() => tree.insert([1], 0, 2, 1, 'x'), /insert: minX must be a number \(got an array\)/);
  typeRefused(() => tree.insert(0, true, 2, 1, 'x'), /insert: minY must be a number \(got boolean\)/);
  typeRefused(() => tree.insert(0, 0, 2, undefined, 'x'), /insert: maxY must be a number \(got undefined\)/);
  typeRefused(() => tree.insert(0, 0, 2, 2, 'x', '1'), /insert: layers must be an integer bit mask/);
  typeRefused(() => tree.insert(0, 0, 2, 2n, 'x'), /maxY must be a number \(got bigint\)/);
  typeRefused(() => tree.move(handles[2], 0, '0', 1, 1), /move: minY must be a number/);
  typeRefused(() => tree.queryBox('0', 0, 100, 100), /queryBox: minX must be a number/);
  typeRefused(() => tree.assign('0123'), /assign: boxes must be an array or typed array of numbers/);
  typeRefused(() => tree.assign([0, 0, '1', 1]), /assign: boxes: element 2 must be a number/);
  typeRefused(() => tree.assign(new BigInt64Array(4)), /assign: boxes must be an array or typed array/);
  typeRefused(() => tree.assign([0, 0, 1, 1], 'abcd'), /assign: values \(one per object\) must be an array/);
  typeRefused(() => tree.moveMany([handles[1]], [0, 0, 1, null]), /moveMany: boxes .* element 3 must be a number/);
  typeRefused(() => tree.moveMany(handles[1], [0, 0, 1, 1]), /moveMany: handles must be an array/);
  typeRefused(() => tree.rebuild([0, 0, '100', 100]), /rebuild: world .* element 2 must be a number/);
  typeRefused(() => tree.raycast(0, 0, '1', 1), /raycast: x1 must be a number/);
  typeRefused(() => tree.raycast(0, 0, 1, 1, { limit: '3' }), /raycast: limit must be a number/);
  typeRefused(() => tree.nearest('1', 1), /nearest: x must be a number/);
  typeRefused(() => tree.nearest(1, 1, '2'), /nearest: k must be a number/);
  typeRefused(() => tree.nearest(1, 1, 1, { maxDistance: '5' }), /nearest: maxDistance must be a number/);
  typeRefused(() => tree.nearest(1, 1, 1, 'layers'), /nearest: options must be an object/);
  typeRefused(() => tree.locate(1, null), /locate: y must be a number/);
  typeRefused(() => tree.query(Shape.box(0, 0, 1, 1), '1'), /query: layers must be an integer bit mask/);
  assert.deepEqual(snapshot(), before);
  tree.validate();
  tree.dispose();
});

test('a malformed shape throws a TypeError naming the field', () => {
  const { tree, snapshot } = scene();
  const before = snapshot();
  const good = Shape.circle(5, 5, 3);
  typeRefused(() => Shape.circle(1, '2', 3), /Shape\.circle: y must be a number/);
  typeRefused(() => Shape.box(0, 0, 1), /Shape\.box: maxY must be a number \(got undefined\)/);
  typeRefused(() => Shape.ellipse(0, 0, 1, 1, 'flat'), /Shape\.ellipse: angle must be a number/);
  typeRefused(() => Shape.polygon('0,0,1,0,0,1'), /Shape\.polygon must be an array/);
  typeRefused(() => Shape.polygon([0, 0, 1, 0, 0, '1']), /Shape\.polygon: element 5 must be a number/);
  typeRefused(() => Shape.frustum(new Array(16).fill('1')), /Shape\.frustum: element 0 must be a number/);
  typeRefused(() => tree.query(null), /query: the shape must be a Shape \(got null\)/);
  typeRefused(() => tree.query('circle'), /query: the shape must be a Shape/);
  typeRefused(() => tree.query({ kind: 'box' }), /query: shape\.kind must be a Shape/);
  typeRefused(() => tree.query({ ...good, kind: 12 }), /shape\.kind/);
  typeRefused(() => tree.query({ ...good, dims: undefined }), /shape\.dims must be 2 or 3/);
  typeRefused(() => tree.query({ ...good, a: undefined }), /shape\.a must be an array of 3 numbers/);
  typeRefused(() => tree.query({ ...good, a: [1, '2', 0] }), /shape\.a\[1\] must be a number/);
  typeRefused(() => tree.query({ ...good, b: [0, 0] }), /shape\.b must be an array of 3 numbers/);
  typeRefused(() => tree.query({ ...good, r0: '3' }), /shape\.r0 must be a number/);
  typeRefused(() => tree.query({ ...good, angle: null }), /shape\.angle must be a number/);
  typeRefused(() => tree.query({ ...good, points: [1, 2] }), /shape\.points must be null/);
  typeRefused(() => tree.count({ ...Shape.polygon([0, 0, 9, 0, 0, 9]), points: [0, 0, 9, 0, 0, 9] }),
    /shape\.points must be a Float64Array/);
  refused(() => tree.count({ ...Shape.polygon([0, 0, 9, 0, 0, 9]), points: new Float64Array(5) }), /shape\.points holds 5/);
  // The forged shapes above were refused before any scratch was written: a good one still answers as before.
  assert.deepEqual(tree.query(good).sort(), tree.query(Shape.circle(5, 5, 3)).sort());
  assert.deepEqual(snapshot(), before);
  tree.dispose();
});

test('wrong types to AoiWorld, Streamer and Octree throw a TypeError and change nothing', () => {
  const world = new q.AoiWorld({ world: [0, 0, 100, 100] });
  world.add(1, 10, 10, 5);
  world.tick();
  typeRefused(() => world.add('2', 10, 10, 5), /add: an id must be a safe integer/);
  typeRefused(() => world.add(2, '10', 10, 5), /add: x must be a number/);
  typeRefused(() => world.add(2, 10, 10, null), /add: viewRadius must be a number/);
  typeRefused(() => world.add(2, 10, 10, 5, { bodyRadius: '1' }), /add: bodyRadius must be a number/);
  typeRefused(() => world.move(1, 10, [3]), /move: y must be a number/);
  typeRefused(() => world.moveMany([1], [10, '11']), /moveMany: xy .* element 1 must be a number/);
  typeRefused(() => world.moveMany(1, [10, 11]), /moveMany: ids must be an array/);
  typeRefused(() => world.setViewRadius(1, '9'), /setViewRadius: the radius must be a number/);
  typeRefused(() => new q.AoiWorld({ world: [0, 0, 100, 100], skin: '1' }), /AoiWorld: skin must be a number/);
  assert.equal(world.contains(2), false);
  assert.deepEqual(world.tick(), []);
  assert.deepEqual(world.position(1), [10, 10]);
  world.dispose();

  const s = new q.Streamer({ world: [0, 0, 0, 100, 100, 100] });
  s.add(1, 0, 0, 0, 1, 1, 1);
  typeRefused(() => s.add(2, 0, 0, '0', 1, 1, 1), /add: minZ must be a number/);
  typeRefused(() => s.move(1, 0, 0, 0, 1, 1, '2'), /move: maxZ must be a number/);
  typeRefused(() => s.update([{ position: [0, 0, '0'], prefetchRadius: 5 }]), /update: position: element 2 must be a number/);
  typeRefused(() => s.update([{ position: [0, 0, 0], prefetchRadius: '5' }]), /update: prefetchRadius must be a number/);
  typeRefused(() => s.update('sources'), /update: sources must be an array/);
  typeRefused(() => s.setLimits('1', 2), /setLimits: maxLoadsPerUpdate must be a number/);
  assert.equal(s.size, 1);
  assert.deepEqual(s.bounds(1), [0, 0, 0, 1, 1, 1]);
  assert.equal(s.state(1), 'unloaded');
  s.dispose();

  const o = new q.Octree({ world: [0, 0, 0, 10, 10, 10] });
  const h = o.insert(1, 1, 1, 2, 2, 2, 'a');
  typeRefused(() => o.insert(1, 1, '1', 2, 2, 2, 'b'), /insert: minZ must be a number/);
  typeRefused(() => o.nearest(1, 1, '1'), /nearest: z must be a number/);
  typeRefused(() => o.queryBox(0, 0, 0, 9, 9, {}), /queryBox: maxZ must be a number \(got object\)/);
  typeRefused(() => new q.Octree({ world: [0, 0, 0, 10, 10, 10], minNodeSize: '1' }), /Octree: minNodeSize must be a number/);
  assert.equal(o.size, 1);
  assert.deepEqual(o.bounds(h), [1, 1, 1, 2, 2, 2]);
  o.dispose();
});

test('Symbol.dispose frees a tree, a world and a streamer, as dispose() does', () => {
  assert.equal(typeof Symbol.dispose, 'symbol');
  const made = [new q.QuadTree({ world: [0, 0, 1, 1] }), new q.Octree({ world: [0, 0, 0, 1, 1, 1] }),
    new q.AoiWorld({ world: [0, 0, 1, 1] }), new q.Streamer({ world: [0, 0, 0, 1, 1, 1] })];
  for (const x of made) {
    assert.equal(x.disposed, false);
    x[Symbol.dispose]();
    assert.equal(x.disposed, true);
    x[Symbol.dispose](); // twice is safe, as dispose() is
    assert.throws(() => x.size, (e) => e instanceof QuadrantError && e.status === 'logic_error');
  }
});
