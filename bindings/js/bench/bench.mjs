// SPDX-License-Identifier: MIT
// quadrant's WebAssembly package against the JavaScript spatial libraries people install, in one node process on
// the same data: @timohausmann/quadtree-js (the quadtree of most tutorials), rbush (a dynamic R-tree), flatbush (a
// static packed R-tree), and for points d3-quadtree (a point quadtree) and kdbush (a static k-d tree of points).
// Three workloads; the first two as bench_peers runs them natively (bench/scene.hpp):
//   moving   N boxes moving and bouncing; every frame: update the structure, then report every overlapping pair
//   static   N boxes built once (timed), then 1000 windows covering 0.01% and 1% of the world
//   points   N points built once (timed), then 1000 windows covering 0.01% and 1% of the world, and 10000
//            nearest-neighbour (1-NN) queries
// Every contender's answer (pair or hit count and an order-free checksum; for 1-NN the distance to the point found,
// query by query, not its id: ties) must equal the others', or the run fails.
// Times are medians: of the frames (moving); for static boxes and points, of the --runs builds, and for queries of
// the passes of every repetition (see passes()).
//
//   node bench/bench.mjs [--quick] [--runs 5] [--json out.json] [--only moving,static,points] [--docs]
//
// --docs writes the run's every row to docs/bench/js.csv and what run it was (date, commit, machine, node, the
// peers' versions, the module's size) to docs/bench/js-run.json, then regenerates docs/web.md's tables from them
// (python3 scripts/docs_tables). `npm run bench:docs` builds the WebAssembly first and runs it with --runs 7: the
// command that made the docs' figures.
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';

import Flatbush from 'flatbush';
import RBush from 'rbush';
import Quadtree from '@timohausmann/quadtree-js';
import { quadtree as d3Quadtree } from 'd3-quadtree';
import KDBush from 'kdbush';

import load from '../quadrant.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string', default: '5' },
    json: { type: 'string' },
    only: { type: 'string' },
    docs: { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
if (!(Number.isInteger(runs) && runs >= 1)) throw new Error(`--runs: a whole number >= 1 (got ${args.runs})`);
// The docs' tables need every workload at every size.
if (args.docs && (args.quick || args.only)) throw new Error('--docs runs everything: leave out --quick and --only');
const loadAverage = os.loadavg();
// A full collection before each points contender's build, so that none is timed collecting another's garbage.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');
const q = await load();

// ---- data (the native benchmark's scene: bench/scene.hpp) ----

function rng(seed) {
  let s = BigInt(seed) & 0xffffffffffffffffn;
  const next = () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number(s >> 11n) / 2 ** 53;
  };
  return { unit: next, uniform: (lo, hi) => lo + (hi - lo) * next() };
}

/** A world 1.5 : 1 that N boxes of side 1 to 3 cover about 1/8 of (the MMO article's density). */
function worldFor(n) {
  const area = (8 * n * 13) / 3, h = Math.sqrt(area / 1.5);
  return [0, 0, Math.fround(1.5 * h), Math.fround(h)];
}

class MovingScene {
  constructor(n, seed) {
    const r = rng(seed);
    this.world = worldFor(n);
    const [, , w, h] = this.world;
    this.n = n;
    this.cx = new Float64Array(n);
    this.cy = new Float64Array(n);
    this.half = new Float64Array(n);
    this.vx = new Float64Array(n);
    this.vy = new Float64Array(n);
    for (let i = 0; i < n; ++i) {
      const half = r.uniform(1, 3) / 2;
      this.half[i] = half;
      this.cx[i] = r.uniform(half, w - half);
      this.cy[i] = r.uniform(half, h - half);
      const speed = r.uniform(0.05, 0.2), angle = r.uniform(0, 2 * Math.PI);
      this.vx[i] = speed * Math.cos(angle);
      this.vy[i] = speed * Math.sin(angle);
    }
    this.boxes = new Float64Array(4 * n); // minX, minY, maxX, maxY per box
    this.initial = [this.cx.slice(), this.cy.slice(), this.vx.slice(), this.vy.slice()];
    this.refresh();
  }
  reset() {
    [this.cx, this.cy, this.vx, this.vy] = this.initial.map((a) => a.slice());
    this.refresh();
  }
  step() {
    const [, , w, h] = this.world;
    for (let i = 0; i < this.n; ++i) {
      const half = this.half[i];
      let x = this.cx[i] + this.vx[i], y = this.cy[i] + this.vy[i];
      if (x < half || x > w - half) { this.vx[i] = -this.vx[i]; x = Math.min(Math.max(x, half), w - half); }
      if (y < half || y > h - half) { this.vy[i] = -this.vy[i]; y = Math.min(Math.max(y, half), h - half); }
      this.cx[i] = x;
      this.cy[i] = y;
    }
    this.refresh();
  }
  // Float boxes, as the native benchmark's: quadrant runs float trees, and every contender must see the same numbers.
  refresh() {
    const b = this.boxes, f = Math.fround;
    for (let i = 0; i < this.n; ++i) {
      b[4 * i] = f(this.cx[i] - this.half[i]);
      b[4 * i + 1] = f(this.cy[i] - this.half[i]);
      b[4 * i + 2] = f(this.cx[i] + this.half[i]);
      b[4 * i + 3] = f(this.cy[i] + this.half[i]);
    }
  }
}

function windows(world, count, fraction, seed) {
  const r = rng(seed), side = Math.sqrt(fraction * world[2] * world[3]), out = [];
  for (let i = 0; i < count; ++i) {
    const x = r.uniform(0, world[2] - side), y = r.uniform(0, world[3] - side);
    out.push([x, y, x + side, y + side]);
  }
  return out;
}

/** The native benchmark's depth for N objects. */
// A quadrant tree bulk-built from boxes (min x, min y, max x, max y per object; values: the indices), behind the
// contender interface.
function quadrantOver(tree, boxes) {
  tree.assign(boxes);
  const out = [];
  return {
    query(w, k, ans) {
      tree.queryBox(w[0], w[1], w[2], w[3], undefined, out);
      for (let i = 0; i < out.length; ++i) ans.hit(k, out[i]);
    },
    dispose() { tree.dispose(); },
  };
}

// rbush loaded with the items ({minX, minY, maxX, maxY, id}), behind the contender interface: boxes and points alike.
function rbushOver(items) {
  const tree = new RBush().load(items);
  const bbox = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  return {
    query(w, k, ans) {
      bbox.minX = w[0]; bbox.minY = w[1]; bbox.maxX = w[2]; bbox.maxY = w[3];
      for (const it of tree.search(bbox)) ans.hit(k, it.id);
    },
    dispose() {},
  };
}

function depthFor(n) {
  let depth = 1;
  for (let cap = 8; cap < n; cap *= 4) ++depth;
  return Math.max(8, depth + 1);
}

// ---- answers: a count and an order-free checksum ----

class Answer {
  constructor() { this.count = 0; this.sum = 0; }
  pair(a, b) {
    if (a > b) [a, b] = [b, a];
    ++this.count;
    this.sum = (this.sum + Math.imul(a, 0x9e3779b1) + Math.imul(b ^ 0x5bd1e995, 0x85ebca6b)) | 0;
  }
  hit(query, id) {
    ++this.count;
    this.sum = (this.sum + Math.imul(id + 1, 0x9e3779b1) + Math.imul(query + 7, 0x85ebca6b)) | 0;
  }
  same(o) { return this.count === o.count && this.sum === o.sum; }
  get checksum() { return (this.sum >>> 0).toString(16).padStart(8, '0'); }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
function time(fn) {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

// ---- moving boxes: each contender builds at frame 0 (untimed), then per frame updates and finds every pair ----

const movers = {
  'quadrant (moveMany + pairs)': (scene, placement) => {
    const tree = new q.QuadTree({ world: scene.world, scalar: 'float', placement, maxDepth: depthFor(scene.n) });
    const handles = tree.assign(scene.boxes);
    return {
      update() { tree.moveMany(handles, scene.boxes); },
      pairs(ans) { tree.forEachPair((a, b) => { ans.pair(a, b); }); },
      dispose() { tree.dispose(); },
    };
  },
  'rbush (clear + load + search each)': (scene) => {
    const tree = new RBush();
    const items = Array.from({ length: scene.n }, (_, i) => ({ minX: 0, minY: 0, maxX: 0, maxY: 0, id: i }));
    const refresh = () => {
      const b = scene.boxes;
      for (let i = 0; i < scene.n; ++i) {
        const it = items[i];
        it.minX = b[4 * i]; it.minY = b[4 * i + 1]; it.maxX = b[4 * i + 2]; it.maxY = b[4 * i + 3];
      }
      tree.clear();
      tree.load(items);
    };
    refresh();
    return {
      update: refresh,
      pairs(ans) {
        for (const it of items) for (const o of tree.search(it)) if (o.id > it.id) ans.pair(it.id, o.id);
      },
      dispose() {},
    };
  },
  'flatbush (rebuild + search each)': (scene) => {
    let index;
    const build = () => {
      const b = scene.boxes;
      index = new Flatbush(scene.n);
      for (let i = 0; i < scene.n; ++i) index.add(b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]);
      index.finish();
    };
    build();
    return {
      update: build,
      pairs(ans) {
        const b = scene.boxes;
        for (let i = 0; i < scene.n; ++i) {
          for (const j of index.search(b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3])) if (j > i) ans.pair(i, j);
        }
      },
      dispose() {},
    };
  },
  'quadtree-js (clear + insert + retrieve each)': (scene) => {
    const [, , w, h] = scene.world;
    const tree = new Quadtree({ x: 0, y: 0, width: w, height: h }, 10, depthFor(scene.n));
    const rects = Array.from({ length: scene.n }, (_, i) => ({ x: 0, y: 0, width: 0, height: 0, id: i }));
    const build = () => {
      const b = scene.boxes;
      tree.clear();
      for (let i = 0; i < scene.n; ++i) {
        const r = rects[i];
        r.x = b[4 * i]; r.y = b[4 * i + 1]; r.width = b[4 * i + 2] - b[4 * i]; r.height = b[4 * i + 3] - b[4 * i + 1];
        tree.insert(r);
      }
    };
    build();
    return {
      update: build,
      pairs(ans) {
        // retrieve gives candidates (the objects of the nodes the rectangle reaches): the exact test is the caller's.
        for (const r of rects) {
          for (const o of tree.retrieve(r)) {
            if (o.id > r.id && o.x <= r.x + r.width && r.x <= o.x + o.width && o.y <= r.y + r.height && r.y <= o.y + o.height) {
              ans.pair(r.id, o.id);
            }
          }
        }
      },
      dispose() { tree.clear(); },
    };
  },
};

function benchMoving(rows) {
  const plans = args.quick ? [[1000, 20], [10000, 8]] : [[1000, 100], [10000, 40], [100000, 10]];
  for (const [n, frames] of plans) {
    const scene = new MovingScene(n, 42);
    let reference = null;
    const entries = [];
    for (const [name, make] of Object.entries(movers)) {
      const variants = name.startsWith('quadrant') ? ['loose', 'parent'] : [null];
      for (const placement of variants) {
        // quadtree-js at 100k: seconds a frame; a few frames say enough.
        const f = name.startsWith('quadtree-js') && n >= 100000 ? 3 : frames;
        scene.reset();
        const c = make(scene, placement);
        const ans = new Answer();
        c.pairs(ans);
        const samples = [];
        for (let k = 0; k < f; ++k) {
          scene.step();
          samples.push(time(() => { c.update(); c.pairs(ans); }));
        }
        c.dispose();
        // Parity over the frames every contender ran (quadtree-js may run fewer).
        const label = placement ? name.replace('quadrant', `quadrant ${placement}`) : name;
        entries.push({ label, ms: median(samples), frames: f, ans, count: ans.count, checksum: ans.checksum });
        process.stderr.write(`moving ${n} ${label}: ${median(samples).toFixed(3)} ms/frame (${f} frames)\n`);
        if (f === frames) {
          if (reference === null) reference = ans;
          else if (!reference.same(ans)) throw new Error(`moving ${n}: ${label} disagrees (${ans.count} pairs vs ${reference.count})`);
        }
      }
    }
    checkShortRuns(scene, entries, frames);
    rows.push({ workload: 'moving boxes', n, unit: 'ms/frame', entries });
  }
}

// quadtree-js ran fewer frames at 100k: its pairs over those frames must match quadrant's over the same frames.
function checkShortRuns(scene, entries, frames) {
  const short = entries.filter((e) => e.frames !== frames);
  if (short.length === 0) return;
  scene.reset();
  const c = movers['quadrant (moveMany + pairs)'](scene, 'loose');
  const ans = new Answer();
  c.pairs(ans);
  for (let k = 0; k < short[0].frames; ++k) {
    scene.step();
    c.update();
    c.pairs(ans);
  }
  c.dispose();
  for (const e of short) if (!e.ans.same(ans)) throw new Error(`moving ${scene.n}: ${e.label} disagrees`);
}

// ---- static windows ----

const statics = {
  'quadrant (assign + query)': (boxes, world, n, placement) => {
    return quadrantOver(new q.QuadTree({ world, scalar: 'float', placement, maxDepth: depthFor(n) }), boxes);
  },
  'flatbush': (boxes, world, n) => {
    const index = new Flatbush(n);
    for (let i = 0; i < n; ++i) index.add(boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3]);
    index.finish();
    return {
      query(w, k, ans) { for (const i of index.search(w[0], w[1], w[2], w[3])) ans.hit(k, i); },
      dispose() {},
    };
  },
  'rbush (load)': (boxes, world, n) => {
    const items = new Array(n);
    for (let i = 0; i < n; ++i) items[i] = { minX: boxes[4 * i], minY: boxes[4 * i + 1], maxX: boxes[4 * i + 2], maxY: boxes[4 * i + 3], id: i };
    return rbushOver(items);
  },
  'quadtree-js (insert + retrieve)': (boxes, world, n) => {
    const tree = new Quadtree({ x: 0, y: 0, width: world[2], height: world[3] }, 10, depthFor(n));
    for (let i = 0; i < n; ++i) {
      tree.insert({ x: boxes[4 * i], y: boxes[4 * i + 1], width: boxes[4 * i + 2] - boxes[4 * i], height: boxes[4 * i + 3] - boxes[4 * i + 1], id: i });
    }
    const rect = { x: 0, y: 0, width: 0, height: 0 };
    return {
      query(w, k, ans) {
        rect.x = w[0]; rect.y = w[1]; rect.width = w[2] - w[0]; rect.height = w[3] - w[1];
        for (const o of tree.retrieve(rect)) {
          if (o.x <= w[2] && w[0] <= o.x + o.width && o.y <= w[3] && w[1] <= o.y + o.height) ans.hit(k, o.id);
        }
      },
      dispose() { tree.clear(); },
    };
  },
};

// The static boxes are timed as the points are (see benchPoints): the contenders take turns within each
// repetition after an untimed round, a full collection precedes each build, and each window set is timed in passes
// over the built structure. Each pass's answer must equal quadrant's.
function benchStatic(rows) {
  const sizes = args.quick ? [100000] : [100000, 1000000];
  const contenders = [];
  for (const [name, make] of Object.entries(statics)) {
    for (const placement of name.startsWith('quadrant') ? ['loose', 'parent'] : [null]) {
      const label = placement ? name.replace('quadrant', `quadrant ${placement}`) : name;
      contenders.push({ name, label, make: (boxes, world, n) => make(boxes, world, n, placement) });
    }
  }
  const caseLabels = ['windows of 0.01%', 'windows of 1%'];
  for (const n of sizes) {
    const scene = new MovingScene(n, 7);
    const boxes = scene.boxes;
    const world = scene.world;
    const cases = [[caseLabels[0], windows(world, 1000, 0.0001, 8)], [caseLabels[1], windows(world, 1000, 0.01, 9)]]
      .map(([label, ws]) => [label, ws.map((w) => w.map(Math.fround))]);
    // quadtree-js: minutes at 1M; its 100k row says enough.
    const present = contenders.filter((c) => !(c.name.startsWith('quadtree-js') && n > 100000));
    const references = {};
    const samples = new Map(present.map((c) => [c.label, { build: [], [caseLabels[0]]: [], [caseLabels[1]]: [] }]));
    for (let r = -1; r < runs; ++r) {
      for (const { label, make } of turns(present, r)) {
        const times = samples.get(label);
        let c;
        collect();
        const build = time(() => { c = make(boxes, world, n); });
        if (r >= 0) times.build.push(build);
        for (const [caseLabel, ws] of cases) {
          for (const [t, ans] of passes(() => { const ans = new Answer(); ws.forEach((w, k) => c.query(w, k, ans)); return ans; })) {
            if (r >= 0) times[caseLabel].push(t);
            if (!references[caseLabel]) references[caseLabel] = ans;
            else if (!references[caseLabel].same(ans)) throw new Error(`static ${n} ${caseLabel}: ${label} disagrees (${ans.count} hits vs ${references[caseLabel].count})`);
          }
        }
        c.dispose();
      }
    }
    for (const caseLabel of ['build', ...caseLabels]) {
      const answer = caseLabel === 'build' ? {} : { count: references[caseLabel].count, checksum: references[caseLabel].checksum };
      const entries = present.map(({ label }) => {
        const ts = samples.get(label)[caseLabel];
        return { label, ms: median(ts), frames: ts.length, ...answer };
      });
      rows.push({ workload: `static ${caseLabel}`, n, unit: caseLabel === 'build' ? 'ms build' : 'ms/1000 queries', entries });
    }
    for (const { label } of present) {
      const t = samples.get(label), m = (k) => median(t[k]).toFixed(2);
      process.stderr.write(`static ${n} ${label}: build ${m('build')} ms, ` +
        caseLabels.map((c) => `${c} ${m(c)} ms`).join(', ') + '\n');
    }
  }
}

// ---- points: N points, built once (timed), then windows and nearest neighbours ----
// Each contender's build starts from the same two arrays of coordinates (float values: quadrant's float tree keeps
// them exactly) and makes its own input from them inside the timed build: quadrant a box of zero size per point,
// rbush an item per point, d3-quadtree an array of the ids.

class PointScene {
  constructor(n, seed) {
    const r = rng(seed);
    this.n = n;
    this.world = worldFor(n);
    this.xs = new Float64Array(n);
    this.ys = new Float64Array(n);
    for (let i = 0; i < n; ++i) {
      this.xs[i] = Math.fround(r.uniform(0, this.world[2]));
      this.ys[i] = Math.fround(r.uniform(0, this.world[3]));
    }
  }
}

/** count query points in the world, float values. */
function queryPoints(world, count, seed) {
  const r = rng(seed), out = new Float64Array(2 * count);
  for (let i = 0; i < count; ++i) {
    out[2 * i] = Math.fround(r.uniform(0, world[2]));
    out[2 * i + 1] = Math.fround(r.uniform(0, world[3]));
  }
  return out;
}

// Each contender: query(w, k, ans) reports the window's hits; nearest(x, y) returns the id of a nearest point, or is
// absent when the library has none (kdbush: its k-NN is geokdbush, on the sphere; rbush: its k-NN is rbush-knn, a
// separate package); a nearest written here on top of their arrays would be our code, not theirs.
const pointers = {
  'quadrant (assign + queryBox / nearest)': (s, scalar) => {
    const { n, xs, ys } = s, boxes = new Float64Array(4 * n);
    for (let i = 0; i < n; ++i) {
      boxes[4 * i] = boxes[4 * i + 2] = xs[i];
      boxes[4 * i + 1] = boxes[4 * i + 3] = ys[i];
    }
    const tree = new q.QuadTree({ world: s.world, scalar, maxDepth: depthFor(n) });
    return { ...quadrantOver(tree, boxes), nearest(x, y) { return tree.nearest(x, y, 1)[0].value; } };
  },
  'flatbush (search / neighbors)': (s) => {
    const { n, xs, ys } = s, index = new Flatbush(n);
    for (let i = 0; i < n; ++i) index.add(xs[i], ys[i]);
    index.finish();
    return {
      query(w, k, ans) { for (const i of index.search(w[0], w[1], w[2], w[3])) ans.hit(k, i); },
      nearest(x, y) { return index.neighbors(x, y, 1)[0]; },
      dispose() {},
    };
  },
  'kdbush (range)': (s) => {
    const { n, xs, ys } = s, index = new KDBush(n);
    for (let i = 0; i < n; ++i) index.add(xs[i], ys[i]);
    index.finish();
    return {
      query(w, k, ans) { for (const i of index.range(w[0], w[1], w[2], w[3])) ans.hit(k, i); },
      dispose() {},
    };
  },
  'd3-quadtree (addAll + visit / find)': (s) => {
    // The ids as the data, with accessors into the coordinate arrays: find() ran 2-3x faster with them than with an
    // [x, y, id] array per point (d3's default input), the build as fast (1M points; the faster form for the peer).
    const { n, xs, ys } = s, ids = new Array(n);
    for (let i = 0; i < n; ++i) ids[i] = i;
    const tree = d3Quadtree().x((i) => xs[i]).y((i) => ys[i]).addAll(ids);
    return {
      // d3-quadtree has no window query: visit() walks the tree and the callback prunes by the cell (returning true
      // skips its children) and tests a leaf's points (coincident points are a list through .next).
      query(w, k, ans) {
        const [x0, y0, x1, y1] = w;
        tree.visit((node, cx0, cy0, cx1, cy1) => {
          if (!node.length) {
            do {
              const i = node.data, x = xs[i], y = ys[i];
              if (x >= x0 && x <= x1 && y >= y0 && y <= y1) ans.hit(k, i);
            } while ((node = node.next));
          }
          return cx0 > x1 || cy0 > y1 || cx1 < x0 || cy1 < y0;
        });
      },
      nearest(x, y) { return tree.find(x, y); },
      dispose() {},
    };
  },
  'rbush (load + search)': (s) => {
    const { n, xs, ys } = s, items = new Array(n);
    for (let i = 0; i < n; ++i) items[i] = { minX: xs[i], minY: ys[i], maxX: xs[i], maxY: ys[i], id: i };
    return rbushOver(items);
  },
};

// The contenders take turns within each repetition (not one contender's repetitions in a row), so that a slower spell
// of a shared machine falls on all of them. An untimed round comes first at each size: it warms the JIT and
// WebAssembly's optimizing tier, and grows the WebAssembly memory to the size (a cost of the first build in an
// instance alone, later builds reuse it: the first 1M build spent 0.6-1.1 s in WebAssembly, later ones 0.26-0.35 s).
// A full collection precedes each build. A query set is timed as passes over the same structure: see passes().

/** The contenders in the order of repetition r: quadrant first in the untimed round and the first repetition (its
 * answers are the reference), then each repetition starts one further on, so that no contender always runs right
 * after the one whose garbage (a million objects of rbush or d3-quadtree) the collector is still sweeping. */
function turns(contenders, r) {
  const k = Math.max(r, 0) % contenders.length;
  return [...contenders.slice(k), ...contenders.slice(0, k)];
}

/** Runs fn once untimed, then times passes of it: as many as fit in about 200 ms, 1 to 9. The first pass over a
 * fresh structure ran up to 2-7x slower, for every contender, and a pass of a few ms is often preempted on a loaded
 * 2-core VM (one of 7 runs at 2.2 ms, the next at 10): the median over many passes of every run is what holds still.
 * Returns [ms, fn's result] per timed pass. */
function passes(fn) {
  const first = time(fn), count = Math.max(1, Math.min(9, Math.floor(200 / Math.max(first, 1e-3))));
  const out = [];
  for (let i = 0; i < count; ++i) {
    let result;
    out.push([time(() => { result = fn(); }), result]);
  }
  return out;
}

// An order-dependent checksum of the 1-NN distances (FNV-1a over their bytes): equal for every contender.
function distanceChecksum(dist) {
  const bytes = new Uint8Array(dist.buffer, dist.byteOffset, dist.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; ++i) h = Math.imul(h ^ bytes[i], 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

function benchPoints(rows) {
  const sizes = args.quick ? [100000] : [100000, 1000000];
  const nnCount = 10000, nn = '1-NN';
  const contenders = [];
  for (const [name, make] of Object.entries(pointers)) {
    for (const scalar of name.startsWith('quadrant') ? ['float', 'double'] : [null]) {
      contenders.push({ label: scalar ? name.replace('quadrant', `quadrant ${scalar}`) : name, make: (s) => make(s, scalar) });
    }
  }
  for (const n of sizes) {
    const scene = new PointScene(n, 11);
    const cases = [['windows of 0.01%', windows(scene.world, 1000, 0.0001, 12)], ['windows of 1%', windows(scene.world, 1000, 0.01, 13)]]
      .map(([label, ws]) => [label, ws.map((w) => w.map(Math.fround))]);
    const probes = queryPoints(scene.world, nnCount, 14);
    const references = {};
    let nnReference = null, nnReferenceLabel = null, nnChecksum = '';
    const samples = new Map(contenders.map((c) => [c.label, { build: [], 'windows of 0.01%': [], 'windows of 1%': [], [nn]: [] }]));
    for (let r = -1; r < runs; ++r) {
      for (const { label, make } of turns(contenders, r)) {
        const times = samples.get(label);
        let c;
        collect();
        const build = time(() => { c = make(scene); });
        if (r >= 0) times.build.push(build);
        for (const [caseLabel, ws] of cases) {
          for (const [t, ans] of passes(() => { const ans = new Answer(); ws.forEach((w, k) => c.query(w, k, ans)); return ans; })) {
            if (r >= 0) times[caseLabel].push(t);
            if (!references[caseLabel]) references[caseLabel] = ans;
            else if (!references[caseLabel].same(ans)) throw new Error(`points ${n} ${caseLabel}: ${label} disagrees (${ans.count} hits vs ${references[caseLabel].count})`);
          }
        }
        if (c.nearest) {
          const find = () => {
            const ids = new Int32Array(nnCount);
            for (let k = 0; k < nnCount; ++k) ids[k] = c.nearest(probes[2 * k], probes[2 * k + 1]);
            return ids;
          };
          for (const [t, ids] of passes(find)) {
            if (r >= 0) times[nn].push(t);
            // The distance to the point found, in double whatever the contender computes in: equal ids give equal
            // distances, and a tie between two points at the same distance is no disagreement.
            const dist = new Float64Array(nnCount);
            for (let k = 0; k < nnCount; ++k) dist[k] = Math.hypot(scene.xs[ids[k]] - probes[2 * k], scene.ys[ids[k]] - probes[2 * k + 1]);
            if (!nnReference) {
              nnReference = dist;
              nnReferenceLabel = label;
              nnChecksum = distanceChecksum(dist);
            }
            for (let k = 0; k < nnCount; ++k) {
              if (dist[k] !== nnReference[k]) {
                throw new Error(`points ${n} ${nn} query ${k}: ${label} found a point at ${dist[k]}, ${nnReferenceLabel} at ${nnReference[k]}`);
              }
            }
          }
        }
        c.dispose();
      }
    }
    for (const caseLabel of ['build', 'windows of 0.01%', 'windows of 1%', nn]) {
      const entries = [];
      for (const { label } of contenders) {
        const ts = samples.get(label)[caseLabel];
        const answer = caseLabel === 'build' ? {} : caseLabel === nn ? { count: nnCount, checksum: nnChecksum }
          : { count: references[caseLabel].count, checksum: references[caseLabel].checksum };
        if (ts.length) entries.push({ label, ms: median(ts), frames: ts.length, samples: ts.map((t) => +t.toFixed(3)), ...answer });
      }
      const unit = caseLabel === 'build' ? 'ms build' : caseLabel === nn ? `ms/${nnCount} queries` : 'ms/1000 queries';
      rows.push({ workload: `points ${caseLabel}`, n, unit, entries });
    }
    for (const { label } of contenders) {
      const t = samples.get(label), m = (k) => median(t[k]).toFixed(2);
      process.stderr.write(`points ${n} ${label}: build ${m('build')} ms, windows of 0.01% ${m('windows of 0.01%')} ms, ` +
        `windows of 1% ${m('windows of 1%')} ms, ${t[nn].length ? `${nn} ${m(nn)} ms` : `no ${nn}`}\n`);
    }
  }
}

const rows = [];
const only = args.only ? args.only.split(',') : null;
for (const w of only ?? []) if (!['moving', 'static', 'points'].includes(w)) throw new Error(`--only: no workload '${w}'`);
if (!only || only.includes('moving')) benchMoving(rows);
if (!only || only.includes('static')) benchStatic(rows);
if (!only || only.includes('points')) benchPoints(rows);

// The table: each contender's median and its ratio to quadrant's best variant on that row.
console.log(`quadrant ${q.version} (WebAssembly) in node ${process.version}, ${os.cpus()[0].model}, ${os.cpus().length} cores`);
console.log('| workload | N | contender | median | x quadrant\'s best |');
console.log('|---|---|---|---|---|');
for (const row of rows) {
  const best = Math.min(...row.entries.filter((e) => e.label.startsWith('quadrant')).map((e) => e.ms));
  for (const e of row.entries) {
    console.log(`| ${row.workload} | ${row.n} | ${e.label} | ${e.ms.toFixed(e.ms < 10 ? 3 : 1)} ${row.unit} | ${(e.ms / best).toFixed(2)} |`);
  }
}
if (args.json) {
  writeFileSync(args.json, JSON.stringify({ node: process.version, cpu: os.cpus()[0].model, rows }, null, 2));
}

// ---- docs/bench/js.csv and js-run.json ----

// A row's contender label, "quadrant loose (moveMany + pairs)" or "flatbush", as library, variant and method.
function splitLabel(label) {
  const m = /^(\S+)(?: (loose|parent|float|double))?(?: \((.*)\))?$/.exec(label);
  if (m === null) throw new Error(`bench: cannot read the contender label '${label}'`);
  return { contender: m[1], variant: m[2] ?? '', method: m[3] ?? '' };
}

const csvField = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));

// Workload and scenario names of the CSV: the workload is the data, the scenario what was timed on it.
function workloadOf(row) {
  if (row.workload === 'moving boxes') return ['moving-boxes', 'update + all pairs'];
  const [kind, ...rest] = row.workload.split(' ');
  return [kind === 'static' ? 'static-boxes' : 'points', rest.join(' ')];
}

function writeDocs(rows) {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const header = ['workload', 'scenario', 'n', 'contender', 'variant', 'method', 'unit', 'time_ms', 'samples', 'count',
    'checksum', 'parity', 'quadrant'];
  const lines = [header.join(',')];
  for (const row of rows) {
    const [workload, scenario] = workloadOf(row);
    for (const e of row.entries) {
      const { contender, variant, method } = splitLabel(e.label);
      // Every row here passed the parity check: a disagreement stops the run before anything is written.
      lines.push([workload, scenario, row.n, contender, variant, method, row.unit, e.ms.toPrecision(6), e.frames,
        e.count ?? '', e.checksum ?? '', e.count === undefined ? '' : 'ok', contender === 'quadrant' ? 1 : 0]
        .map(csvField).join(','));
    }
  }
  writeFileSync(`${root}docs/bench/js.csv`, lines.join('\n') + '\n');
  const git = (...a) => execFileSync('git', ['-C', root, ...a], { encoding: 'utf8' }).trim();
  // The module measured is built from the working tree: say so when its sources differ from the commit.
  const dirty = git('status', '--porcelain', '--', 'include', 'bindings/c', 'bindings/js/src', 'bindings/js/quadrant.mjs') !== '';
  const version = (name) => JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url))).version;
  const wasm = readFileSync(new URL('../dist/quadrant_wasm.wasm', import.meta.url));
  const run = {
    date: new Date().toISOString().slice(0, 10),
    commit: git('rev-parse', '--short', 'HEAD') + (dirty ? ' with uncommitted changes' : ''),
    machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, ${os.type()} ${os.release()}`,
    load_average: loadAverage.map((x) => +x.toFixed(2)),
    node: process.version,
    quadrant: q.version,
    runs,
    command: 'cd bindings/js && npm run bench:docs',
    wasm_bytes: wasm.length,
    wasm_gzip_bytes: gzipSync(wasm, { level: 9 }).length,
    peers: Object.fromEntries(['flatbush', 'rbush', '@timohausmann/quadtree-js', 'kdbush', 'd3-quadtree']
      .map((name) => [name, version(name)])),
  };
  writeFileSync(`${root}docs/bench/js-run.json`, JSON.stringify(run, null, 2) + '\n');
  console.log(execFileSync('python3', [`${root}scripts/docs_tables`], { encoding: 'utf8' }).trim());
}

if (args.docs) writeDocs(rows);
