// SPDX-License-Identifier: MIT
// The demo page: a quadtree of moving boxes drawn with its cells, queried by the mouse with every 2D shape, its
// pairs, and an area-of-interest world; every answer is checked against brute force each frame. The brute-force
// side is the package tests' own reference (bindings/js/reference.mjs), which says where its rounding could
// decide a case: such objects count as "at the edge", neither agreeing nor disagreeing.
import load from '../bindings/js/quadrant.mjs';
import { verdict } from '../bindings/js/reference.mjs';

const q = await load();
const { Shape } = q;
const WORLD = [0, 0, 1200, 800];
const VIEW_RADIUS = 60; // AOI mode: every entity sees this far
const RAY_ORIGIN = [30, 770];

const $ = (id) => document.getElementById(id);
const canvas = $('view');
const ctx = canvas.getContext('2d');

const state = {
  mode: 'query', shape: 'box', placement: 'loose', maxDepth: 8, splitThreshold: 8, count: 2000, moving: true,
  showCells: true, pointer: [600, 400], selected: -1, time: 0,
};

// ---- the scene: boxes moving in straight lines, bouncing off the walls ----

let n = 0, cx, cy, hw, hh, vx, vy, boxes, handles, tree = null, aoi = null;
let seed = 12345;
const random = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 4294967296;
};

function makeScene() {
  n = state.count;
  seed = 12345;
  cx = new Float64Array(n); cy = new Float64Array(n); hw = new Float64Array(n); hh = new Float64Array(n);
  vx = new Float64Array(n); vy = new Float64Array(n); boxes = new Float64Array(4 * n);
  for (let i = 0; i < n; ++i) {
    const big = random() < 0.02;
    hw[i] = (big ? 12 : 2) + random() * (big ? 20 : 4);
    hh[i] = (big ? 12 : 2) + random() * (big ? 20 : 4);
    // Half of them in two crowds, so that the tree has something to split.
    const crowd = random() < 0.5 ? (random() < 0.5 ? [300, 250] : [850, 520]) : null;
    cx[i] = crowd ? crowd[0] + (random() - 0.5) * 260 : hw[i] + random() * (WORLD[2] - 2 * hw[i]);
    cy[i] = crowd ? crowd[1] + (random() - 0.5) * 200 : hh[i] + random() * (WORLD[3] - 2 * hh[i]);
    const speed = 0.3 + random() * 1.2, angle = random() * 2 * Math.PI;
    vx[i] = speed * Math.cos(angle);
    vy[i] = speed * Math.sin(angle);
  }
  refreshBoxes();
  makeTree();
  makeAoi();
}

function refreshBoxes() {
  for (let i = 0; i < n; ++i) {
    boxes[4 * i] = cx[i] - hw[i]; boxes[4 * i + 1] = cy[i] - hh[i];
    boxes[4 * i + 2] = cx[i] + hw[i]; boxes[4 * i + 3] = cy[i] + hh[i];
  }
}

function makeTree() {
  if (tree) tree.dispose();
  tree = new q.QuadTree({ world: WORLD, placement: state.placement, maxDepth: state.maxDepth,
    splitThreshold: state.splitThreshold });
  handles = tree.assign(boxes); // object i's value is i
}

let aoiIds = null, aoiXY = null;
function makeAoi() {
  if (aoi) aoi.dispose();
  aoi = new q.AoiWorld({ world: WORLD, scalar: 'double' });
  aoiIds = new Float64Array(n);
  aoiXY = new Float64Array(2 * n);
  for (let i = 0; i < n; ++i) {
    aoiIds[i] = i;
    aoi.add(i, cx[i], cy[i], VIEW_RADIUS);
  }
  aoi.tick();
  if (state.selected >= n) state.selected = -1;
}

function step() {
  for (let i = 0; i < n; ++i) {
    let x = cx[i] + vx[i], y = cy[i] + vy[i];
    if (x < hw[i] || x > WORLD[2] - hw[i]) { vx[i] = -vx[i]; x = Math.min(Math.max(x, hw[i]), WORLD[2] - hw[i]); }
    if (y < hh[i] || y > WORLD[3] - hh[i]) { vy[i] = -vy[i]; y = Math.min(Math.max(y, hh[i]), WORLD[3] - hh[i]); }
    cx[i] = x;
    cy[i] = y;
  }
  refreshBoxes();
  tree.moveMany(handles, boxes); // the whole frame's moves cross into WebAssembly once
}

// ---- query shapes: the package's shape and the reference's description of the same shape ----

function currentShape() {
  const [px, py] = state.pointer, t = state.time;
  switch (state.shape) {
    case 'box': return [Shape.box(px - 90, py - 60, px + 90, py + 60), { type: 'box', box: { min: [px - 90, py - 60], max: [px + 90, py + 60] } }];
    case 'circle': return [Shape.circle(px, py, 80), { type: 'ball', c: [px, py], r: 80 }];
    case 'ring': return [Shape.ring(px, py, 45, 90), { type: 'ring', c: [px, py], inner: 45, outer: 90 }];
    case 'ellipse': {
      const angle = 0.4 * t;
      return [Shape.ellipse(px, py, 130, 50, angle), { type: 'ellipse', c: [px, py], rx: 130, ry: 50, angle }];
    }
    case 'sector': {
      const a = 0.5 * t, d = [Math.cos(a), Math.sin(a)];
      return [Shape.sector(px, py, d[0], d[1], 170, 0.55), { type: 'sector', c: [px, py], d, r: 170, half: 0.55 }];
    }
    case 'polygon': {
      const pts = [];
      for (let k = 0; k < 6; ++k) {
        const a = 0.2 * t + (k * Math.PI) / 3, r = k % 2 ? 70 : 95;
        pts.push([px + r * Math.cos(a), py + r * Math.sin(a)]);
      }
      return [Shape.polygon(pts.flat()), { type: 'polygon', points: pts }];
    }
    case 'ray': return [Shape.segment(RAY_ORIGIN[0], RAY_ORIGIN[1], px, py), { type: 'segment', p: RAY_ORIGIN, q: [px, py] }];
    default: throw new Error(`no shape ${state.shape}`);
  }
}

// The reference's box around a shape, to skip far objects before the exact (and slower) test.
function referenceBounds(ref) {
  switch (ref.type) {
    case 'box': return [ref.box.min[0], ref.box.min[1], ref.box.max[0], ref.box.max[1]];
    case 'ball': return [ref.c[0] - ref.r, ref.c[1] - ref.r, ref.c[0] + ref.r, ref.c[1] + ref.r];
    case 'ring': return [ref.c[0] - ref.outer, ref.c[1] - ref.outer, ref.c[0] + ref.outer, ref.c[1] + ref.outer];
    case 'ellipse': { const r = Math.max(ref.rx, ref.ry); return [ref.c[0] - r, ref.c[1] - r, ref.c[0] + r, ref.c[1] + r]; }
    case 'sector': return [ref.c[0] - ref.r, ref.c[1] - ref.r, ref.c[0] + ref.r, ref.c[1] + ref.r];
    case 'polygon': {
      const xs = ref.points.map((p) => p[0]), ys = ref.points.map((p) => p[1]);
      return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    }
    case 'segment': return [Math.min(ref.p[0], ref.q[0]), Math.min(ref.p[1], ref.q[1]), Math.max(ref.p[0], ref.q[0]), Math.max(ref.p[1], ref.q[1])];
    default: throw new Error(ref.type);
  }
}

// ---- one frame ----

const counters = {};
let hit = new Uint8Array(0), leaves = [], touchedCells = [], rayOrder = [];
const flashes = []; // AOI: {id, enter, until}

function queryFrame() {
  const [shape, ref] = currentShape();
  const t0 = performance.now();
  let found;
  if (state.shape === 'ray') {
    rayOrder = tree.raycast(RAY_ORIGIN[0], RAY_ORIGIN[1], state.pointer[0], state.pointer[1]).map((h) => h.value);
    found = rayOrder;
    tree.count(shape); // the walk's counts for the table
  } else {
    found = tree.query(shape);
  }
  const treeMs = performance.now() - t0;
  const stats = tree.lastQuery;
  hit.fill(0);
  for (const i of found) hit[i] = 1;
  // Brute force: every object against the shape.
  const t1 = performance.now();
  const [bx0, by0, bx1, by1] = referenceBounds(ref), pad = 1e-6 * 1200;
  let sure = 0, edge = 0, disagree = 0;
  const box = { min: [0, 0], max: [0, 0] };
  for (let i = 0; i < n; ++i) {
    const x0 = boxes[4 * i], y0 = boxes[4 * i + 1], x1 = boxes[4 * i + 2], y1 = boxes[4 * i + 3];
    let v = false;
    if (x0 <= bx1 + pad && bx0 - pad <= x1 && y0 <= by1 + pad && by0 - pad <= y1) {
      box.min[0] = x0; box.min[1] = y0; box.max[0] = x1; box.max[1] = y1;
      v = verdict(ref, box, ref.type === 'box');
    }
    if (v === null) ++edge;
    else {
      if (v) ++sure;
      if (v !== (hit[i] === 1)) ++disagree;
    }
  }
  const bruteMs = performance.now() - t1;
  if (state.showCells) touchedCells = tree.queryLeaves(shape, false);
  Object.assign(counters, { found: found.length, brute: sure, edge, disagree, tests: stats.boxTests,
    visited: stats.nodesVisited, bruteTests: n, treeMs, bruteMs });
}

// An order-free mark of a pair, summed over a frame's pairs, so two lists of pairs compare in O(1).
const pairMark = (a, b) => (Math.imul(Math.min(a, b) + 1, 0x9e3779b1) + Math.imul(Math.max(a, b) + 7, 0x85ebca6b)) | 0;

function pairsFrame() {
  const t0 = performance.now();
  hit.fill(0);
  let count = 0;
  let checksum = 0;
  tree.forEachPair((a, b) => {
    hit[a] = 1;
    hit[b] = 1;
    ++count;
    checksum = (checksum + pairMark(a, b)) | 0;
  });
  const treeMs = performance.now() - t0;
  // The reference: sort and sweep along x (every pair whose x ranges overlap gets the full box test).
  const t1 = performance.now();
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => boxes[4 * a] - boxes[4 * b]);
  let brute = 0, bruteSum = 0, tests = 0;
  for (let k = 0; k < n; ++k) {
    const a = order[k], ax1 = boxes[4 * a + 2];
    for (let m = k + 1; m < n; ++m) {
      const b = order[m];
      if (boxes[4 * b] > ax1) break;
      ++tests;
      if (boxes[4 * b + 1] <= boxes[4 * a + 3] && boxes[4 * a + 1] <= boxes[4 * b + 3]) {
        ++brute;
        bruteSum = (bruteSum + pairMark(a, b)) | 0;
      }
    }
  }
  const bruteMs = performance.now() - t1;
  Object.assign(counters, { found: count, brute, edge: 0, disagree: brute === count && bruteSum === checksum ? 0 : 1,
    tests: null, visited: null, bruteTests: tests, treeMs, bruteMs });
}

function aoiFrame() {
  const t0 = performance.now();
  for (let i = 0; i < n; ++i) { aoiXY[2 * i] = cx[i]; aoiXY[2 * i + 1] = cy[i]; }
  aoi.moveMany(aoiIds, aoiXY);
  const events = aoi.tick();
  const treeMs = performance.now() - t0;
  const now = performance.now();
  hit.fill(0);
  let visible = [], brute = 0, disagree = 0;
  const t1 = performance.now();
  if (state.selected >= 0) {
    const s = state.selected;
    for (const e of events) if (e.watcher === s) flashes.push({ id: e.target, enter: e.kind === 'enter', until: now + 600 });
    visible = aoi.visible(s);
    for (const i of visible) hit[i] = 1;
    // Brute force: who is within the view radius of the selected entity (the rule docs/aoi.md states).
    for (let i = 0; i < n; ++i) {
      if (i === s) continue;
      const dx = cx[i] - cx[s], dy = cy[i] - cy[s];
      const sees = dx * dx + dy * dy <= VIEW_RADIUS * VIEW_RADIUS;
      if (sees) ++brute;
      if (sees !== (hit[i] === 1)) ++disagree;
    }
  }
  const bruteMs = performance.now() - t1;
  while (flashes.length && flashes[0].until < now) flashes.shift();
  Object.assign(counters, { found: visible.length, brute, edge: 0, disagree, tests: events.length,
    visited: aoi.pairCount, bruteTests: state.selected >= 0 ? n - 1 : 0, treeMs, bruteMs });
}

// ---- drawing ----

let scale = 1, ox = 0, oy = 0;
function layout() {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  scale = Math.min(w / WORLD[2], h / WORLD[3]) * 0.98;
  ox = (w - WORLD[2] * scale) / 2;
  oy = (h - WORLD[3] * scale) / 2;
  ctx.setTransform(dpr * scale, 0, 0, dpr * scale, dpr * ox, dpr * oy);
}
const toWorld = (ev) => {
  const r = canvas.getBoundingClientRect();
  return [(ev.clientX - r.left - ox) / scale, (ev.clientY - r.top - oy) / scale];
};

const DEPTH_FILL = ['#ffffff', '#f3f7fa', '#e4eef5', '#d2e3ee', '#bdd6e6', '#a6c8de', '#8fbad5', '#78abcc', '#619cc2'];

function draw() {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.restore();
  ctx.save();
  // Shapes near the edge stay inside the world's frame.
  ctx.beginPath();
  ctx.rect(WORLD[0], WORLD[1], WORLD[2], WORLD[3]);
  ctx.clip();
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(WORLD[0], WORLD[1], WORLD[2], WORLD[3]);
  // Cells by depth: the deeper, the darker.
  for (const l of leaves) {
    ctx.fillStyle = DEPTH_FILL[Math.min(l.depth, DEPTH_FILL.length - 1)];
    ctx.fillRect(l.cellMin[0], l.cellMin[1], l.cellMax[0] - l.cellMin[0], l.cellMax[1] - l.cellMin[1]);
  }
  if (state.mode === 'query' && state.showCells) {
    ctx.fillStyle = 'rgba(27, 127, 121, 0.16)';
    for (const l of touchedCells) ctx.fillRect(l.cellMin[0], l.cellMin[1], l.cellMax[0] - l.cellMin[0], l.cellMax[1] - l.cellMin[1]);
  }
  ctx.lineWidth = 1 / scale;
  ctx.strokeStyle = '#9fb3c4';
  ctx.beginPath();
  for (const l of leaves) ctx.rect(l.cellMin[0], l.cellMin[1], l.cellMax[0] - l.cellMin[0], l.cellMax[1] - l.cellMin[1]);
  ctx.stroke();
  // Objects: the ones the frame's answer holds in the hit colour.
  ctx.fillStyle = 'rgba(52, 73, 94, 0.55)';
  ctx.beginPath();
  for (let i = 0; i < n; ++i) if (!hit[i]) ctx.rect(boxes[4 * i], boxes[4 * i + 1], hw[i] * 2, hh[i] * 2);
  ctx.fill();
  ctx.fillStyle = state.mode === 'aoi' ? '#2e9e5b' : '#e4572e';
  ctx.beginPath();
  for (let i = 0; i < n; ++i) if (hit[i]) ctx.rect(boxes[4 * i], boxes[4 * i + 1], hw[i] * 2, hh[i] * 2);
  ctx.fill();
  if (state.mode === 'query') drawShape();
  if (state.mode === 'aoi') drawAoi();
  ctx.restore();
}

function drawShape() {
  const [, ref] = currentShape();
  ctx.strokeStyle = '#1b7f79';
  ctx.lineWidth = 2 / scale;
  ctx.beginPath();
  switch (ref.type) {
    case 'box': ctx.rect(ref.box.min[0], ref.box.min[1], ref.box.max[0] - ref.box.min[0], ref.box.max[1] - ref.box.min[1]); break;
    case 'ball': ctx.arc(ref.c[0], ref.c[1], ref.r, 0, 2 * Math.PI); break;
    case 'ring':
      ctx.arc(ref.c[0], ref.c[1], ref.outer, 0, 2 * Math.PI);
      ctx.moveTo(ref.c[0] + ref.inner, ref.c[1]);
      ctx.arc(ref.c[0], ref.c[1], ref.inner, 0, 2 * Math.PI);
      break;
    case 'ellipse': ctx.ellipse(ref.c[0], ref.c[1], ref.rx, ref.ry, ref.angle, 0, 2 * Math.PI); break;
    case 'sector': {
      const a = Math.atan2(ref.d[1], ref.d[0]);
      ctx.moveTo(ref.c[0], ref.c[1]);
      ctx.arc(ref.c[0], ref.c[1], ref.r, a - ref.half, a + ref.half);
      ctx.closePath();
      break;
    }
    case 'polygon':
      ref.points.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      break;
    case 'segment':
      ctx.moveTo(ref.p[0], ref.p[1]);
      ctx.lineTo(ref.q[0], ref.q[1]);
      break;
    default: break;
  }
  ctx.stroke();
  if (ref.type === 'segment' && rayOrder.length) {
    // The ray's first hit, outlined: what a shot would strike.
    const i = rayOrder[0];
    ctx.strokeStyle = '#111';
    ctx.lineWidth = 3 / scale;
    ctx.strokeRect(boxes[4 * i], boxes[4 * i + 1], hw[i] * 2, hh[i] * 2);
  }
}

function drawAoi() {
  const s = state.selected;
  if (s < 0) return;
  ctx.strokeStyle = '#2e9e5b';
  ctx.lineWidth = 2 / scale;
  ctx.beginPath();
  ctx.arc(cx[s], cy[s], VIEW_RADIUS, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.fillStyle = '#111';
  ctx.fillRect(boxes[4 * s], boxes[4 * s + 1], hw[s] * 2, hh[s] * 2);
  const now = performance.now();
  for (const f of flashes) {
    const life = Math.max(0, (f.until - now) / 600);
    ctx.strokeStyle = f.enter ? `rgba(46, 158, 91, ${life})` : `rgba(192, 57, 43, ${life})`;
    ctx.lineWidth = 3 / scale;
    ctx.beginPath();
    ctx.arc(cx[f.id], cy[f.id], 8 + 14 * (1 - life), 0, 2 * Math.PI);
    ctx.stroke();
  }
}

// ---- the panel ----

const HINTS = {
  query: 'Move the mouse: the shape queries the tree. Orange: hits; tinted: the cells it touches.',
  pairs: 'Every overlapping pair of boxes, each frame (orange: in a pair). Reference: sort and sweep.',
  aoi: 'Click an entity: what it sees (green) within its view radius; rings flash on enter (green) and leave (red).',
};
const LABELS = {
  query: ['hits', 'box tests', 'nodes visited'],
  pairs: ['pairs', 'box tests', 'nodes visited'],
  aoi: ['sees', 'events this tick', 'pairs in the world'],
};

let frames = 0, frameMs = 0, lastFrame = performance.now(), fps = 0;
function showCounters() {
  const fmt = (v) => (v === null || v === undefined ? '—' : String(v));
  $('c-objects').textContent = n;
  $('c-nodes').textContent = leaves.length;
  const [found, tests, visited] = LABELS[state.mode];
  $('h-found').textContent = found;
  $('c-found').textContent = counters.found;
  $('c-brute').textContent = counters.edge ? `${counters.brute} (+${counters.edge} at the edge)` : counters.brute;
  $('c-tests').textContent = fmt(counters.tests);
  $('c-tests').previousElementSibling.textContent = tests;
  $('c-brute-tests').textContent = state.mode === 'aoi' ? '—' : counters.bruteTests;
  $('c-visited').textContent = fmt(counters.visited);
  $('c-visited').previousElementSibling.textContent = visited;
  $('c-ms').textContent = counters.treeMs.toFixed(2);
  $('c-brute-ms').textContent = counters.bruteMs.toFixed(2);
  const agree = $('c-agree');
  agree.textContent = counters.disagree === 0 ? 'yes' : `NO (${counters.disagree})`;
  agree.className = counters.disagree === 0 ? 'ok' : 'bad';
  $('c-frame').textContent = `${frameMs.toFixed(1)} / ${fps.toFixed(0)}`;
}

function frame() {
  const t0 = performance.now();
  if (state.moving && !paused) {
    state.time += 1 / 60;
    step();
  }
  if (state.mode === 'query') queryFrame();
  else if (state.mode === 'pairs') pairsFrame();
  else aoiFrame();
  leaves = tree.leaves();
  draw();
  frameMs = performance.now() - t0;
  ++frames;
  if (t0 - lastFrame >= 500) {
    fps = (frames * 1000) / (t0 - lastFrame);
    frames = 0;
    lastFrame = t0;
  }
  showCounters();
}

let paused = false, running = true;
function loop() {
  if (!running) return;
  frame();
  requestAnimationFrame(loop);
}

function setMode(mode) {
  state.mode = mode;
  for (const b of document.querySelectorAll('#modes button')) b.classList.toggle('on', b.dataset.mode === mode);
  $('query-box').style.display = mode === 'query' ? '' : 'none';
  $('mode-hint').textContent = HINTS[mode];
  if (mode === 'aoi' && state.selected < 0 && n > 0) state.selected = 0;
}

function readPanel() {
  const int = (id, lo, hi, fallback) => {
    const v = Number($(id).value);
    return Number.isInteger(v) && v >= lo && v <= hi ? v : fallback;
  };
  const next = { placement: $('placement').value, maxDepth: int('max-depth', 0, 16, 8),
    splitThreshold: int('split', 1, 256, 8), count: int('count', 0, 50000, 2000) };
  const sceneChanged = next.count !== state.count;
  const treeChanged = sceneChanged || next.placement !== state.placement || next.maxDepth !== state.maxDepth ||
    next.splitThreshold !== state.splitThreshold;
  Object.assign(state, next, { shape: $('shape').value, moving: $('moving').checked, showCells: $('show-cells').checked });
  if (sceneChanged) {
    makeScene();
    hit = new Uint8Array(n);
  } else if (treeChanged) {
    makeTree();
  }
}

for (const b of document.querySelectorAll('#modes button')) b.addEventListener('click', () => setMode(b.dataset.mode));
for (const id of ['placement', 'max-depth', 'split', 'count', 'shape', 'moving', 'show-cells']) $(id).addEventListener('change', readPanel);
canvas.addEventListener('mousemove', (ev) => { state.pointer = toWorld(ev); });
canvas.addEventListener('click', (ev) => {
  if (state.mode !== 'aoi') return;
  const [x, y] = toWorld(ev);
  let best = -1, bestD = 20 * 20;
  for (let i = 0; i < n; ++i) {
    const d = (cx[i] - x) ** 2 + (cy[i] - y) ** 2;
    if (d < bestD) { bestD = d; best = i; }
  }
  if (best >= 0) {
    state.selected = best;
    flashes.length = 0;
  }
});
window.addEventListener('resize', layout);

// For tests and for the curious: the page's state and one-frame controls from the console.
window.demo = {
  version: q.version,
  state,
  /** Sets panel fields (placement, maxDepth, splitThreshold, count, shape, moving, showCells) and the mode. */
  set(options) {
    const fields = { placement: 'placement', maxDepth: 'max-depth', splitThreshold: 'split', count: 'count', shape: 'shape' };
    for (const [k, id] of Object.entries(fields)) if (k in options) $(id).value = String(options[k]);
    if ('moving' in options) $('moving').checked = options.moving;
    if ('showCells' in options) $('show-cells').checked = options.showCells;
    readPanel();
    if (options.mode) setMode(options.mode);
    if (options.pointer) state.pointer = options.pointer;
    if ('selected' in options) state.selected = options.selected;
  },
  /** Stops the animation (frames then run only through step()). */
  pause() { paused = true; running = false; },
  /** Runs one frame now and returns its counters. */
  step() { frame(); return this.counters(); },
  counters() { return { mode: state.mode, objects: n, leaves: leaves.length, ...counters, frameMs }; },
  toScreen([x, y]) {
    const r = canvas.getBoundingClientRect();
    return [r.left + ox + x * scale, r.top + oy + y * scale];
  },
};

makeScene();
hit = new Uint8Array(n);
setMode('query');
layout();
requestAnimationFrame(loop);
document.body.dataset.ready = 'true';
