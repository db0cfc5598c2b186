// SPDX-License-Identifier: MIT
// quadrant for JavaScript and TypeScript: quadtrees, octrees, layer filters, contact events, area of interest and
// streaming, compiled to WebAssembly from the C++ core through its C API. Types and contracts: quadrant.d.ts;
// guide: docs/web.md.
//
// Everything crosses the boundary as numbers in the WebAssembly memory: each call writes its input into scratch
// buffers this module owns, calls the C API once and reads the answer back, so a frame of 10k moves is one call.
// A JavaScript value stored with an object stays on this side, in an array indexed by the object's slot.
import createQuadrantModule from './dist/quadrant_wasm.mjs';

/** Every layer: the default mask. */
export const ALL_LAYERS = 0xffffffff;

const TWO32 = 4294967296;
// Symbol.dispose where the engine has it (Node.js 20 and later, recent browsers); elsewhere the registered symbol
// TypeScript's `using` looks up.
const DISPOSE = typeof Symbol.dispose === 'symbol' ? Symbol.dispose : Symbol.for('Symbol.dispose');
// A handle is slot + 1 + 2^32 * (generation mod 2^21): an exact JavaScript number (below 2^53).
const GEN_BITS = 0x1fffff;
// The number of the C handle whose low and high 32-bit words are lo (slot + 1) and hi (generation).
const packHandle = (lo, hi) => lo + (hi & GEN_BITS) * TWO32;
const STATUS = ['ok', 'invalid_argument', 'logic_error', 'out_of_memory', 'internal_error'];
const PLACEMENTS = { loose: 0, parent: 1, leaves: 2 };
const SCALARS = { float: 0, double: 1 };
const MODES = { watcher: 1, marker: 2, both: 3 };
const STREAM_STATES = ['unloaded', 'queued', 'loading', 'loaded'];

/** What a failed call throws: the library's message, and which kind of failure it was. */
export class QuadrantError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'QuadrantError';
    /** 'invalid_argument' (bad input: nothing changed), 'logic_error' (misuse), 'out_of_memory', 'internal_error' */
    this.status = status;
  }
}

function invalid(message) {
  return new QuadrantError(`quadrant: ${message}`, 'invalid_argument');
}

const isNode = typeof process === 'object' && process !== null && process.versions != null &&
  process.versions.node != null && typeof window === 'undefined';

/**
 * Loads the WebAssembly module and returns the library bound to it. The .wasm is fetched from dist/ beside this
 * module, unless options.wasmBinary (the bytes) or options.locateFile (a function from file name to URL) says
 * otherwise. Under Node.js the package resolves to quadrant.node.mjs, which reads the file; this module imported
 * there by its path reads it too (Node 20.16 or later).
 */
export async function load(options = {}) {
  knownKeys(options, ['wasmBinary', 'locateFile'], 'load');
  if (options.wasmBinary && options.locateFile) throw invalid('load: give wasmBinary or locateFile, not both');
  const moduleOptions = {};
  if (options.wasmBinary) {
    moduleOptions.wasmBinary = options.wasmBinary;
  } else if (options.locateFile) {
    moduleOptions.locateFile = options.locateFile;
  } else {
    // new URL('<literal>', import.meta.url) is the form bundlers (vite and webpack among them) take for an asset:
    // they emit the file and rewrite the URL.
    const wasm = new URL('./dist/quadrant_wasm.wasm', import.meta.url);
    if (isNode) {
      // Through process.getBuiltinModule, which no bundler follows into a browser bundle (unlike an import).
      const fs = typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('fs') : null;
      if (fs === null) {
        throw new QuadrantError('quadrant: load: under Node.js before 20.16 import the package (its node entry, ' +
          'quadrant.node.mjs) or pass load({ wasmBinary })', 'logic_error');
      }
      moduleOptions.wasmBinary = await fs.promises.readFile(wasm);
    } else {
      moduleOptions.locateFile = () => wasm.href;
    }
  }
  return bind(await createQuadrantModule(moduleOptions));
}
export default load;

// What a wrong type throws: a TypeError naming the argument (a wrong value of the right type is a QuadrantError).
function notA(type, what, name, v) {
  const got = v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `the string "${v}"` : typeof v;
  return new TypeError(`quadrant: ${what}${name === '' ? '' : `: ${name}`} must be ${type} (got ${got})`);
}
function number(v, what, name) {
  if (typeof v !== 'number') throw notA('a number', what, name, v);
  return v;
}
// Checks that each of the n arguments from `offset` is a number, naming it by `names`.
function numbers(args, offset, n, what, names) {
  for (let i = 0; i < n; ++i) {
    if (typeof args[offset + i] !== 'number') throw notA('a number', what, names[i], args[offset + i]);
  }
}
const BOX_NAMES = { 2: ['minX', 'minY', 'maxX', 'maxY'], 3: ['minX', 'minY', 'minZ', 'maxX', 'maxY', 'maxZ'] };
const POINT_NAMES = { 2: ['x', 'y'], 3: ['x', 'y', 'z'] };
const SEGMENT_NAMES = { 2: ['x0', 'y0', 'x1', 'y1'], 3: ['x0', 'y0', 'z0', 'x1', 'y1', 'z1'] };

function layers32(layers, what) {
  if (layers === undefined) return ALL_LAYERS;
  if (typeof layers !== 'number') throw notA('an integer bit mask', what, 'layers', layers);
  // Bit operations give int32s, so -1 (~0) is every layer, as is 0xffffffff.
  if (!Number.isInteger(layers) || layers < -2147483648 || layers > 0xffffffff) {
    throw invalid(`${what}: layers must be an integer bit mask (got ${layers})`);
  }
  return layers >>> 0;
}

function checkId(id, what) {
  if (typeof id !== 'number') throw notA('a safe integer >= 0', what, 'an id', id);
  if (!Number.isSafeInteger(id) || id < 0) throw invalid(`${what}: an id must be a safe integer >= 0 (got ${id})`);
}

// Checks that obj is live and id is valid, then calls fn(native pointer, id's low 32 bits, id's high bits): a 64-bit
// id crosses into WebAssembly as two halves.
function byId(obj, what, id, fn) {
  const p = obj._live(what);
  checkId(id, what);
  return fn(p, id % TWO32, Math.floor(id / TWO32));
}

function choice(table, value, what, name) {
  if (!Object.prototype.hasOwnProperty.call(table, value)) {
    throw invalid(`${what}: ${name} must be one of ${Object.keys(table).join(', ')} (got ${value})`);
  }
  return table[value];
}

function knownKeys(options, keys, what) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw notA('an object', what, 'options', options);
  for (const k of Object.keys(options)) {
    if (!keys.includes(k)) throw invalid(`${what}: unknown option "${k}" (known: ${keys.join(', ')})`);
  }
}

// An array of numbers or a typed array (not of BigInts), of n numbers when n is given; every element of a plain
// array is checked.
function numberArray(a, n, what) {
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length; ++i) {
      if (typeof a[i] !== 'number') throw notA('a number', what, `element ${i}`, a[i]);
    }
  } else if (!ArrayBuffer.isView(a) || a instanceof DataView || a instanceof BigInt64Array || a instanceof BigUint64Array) {
    throw notA('an array or typed array of numbers', what, '', a);
  }
  if (n !== undefined && a.length !== n) throw invalid(`${what}: expected ${n} numbers, got ${a.length}`);
  return a;
}
// An array of any values (handles, ids, values, sources): an array or a typed array.
function anyArray(a, n, what) {
  if (!Array.isArray(a) && !(ArrayBuffer.isView(a) && !(a instanceof DataView))) {
    throw notA('an array', what, '', a);
  }
  if (n !== undefined && a.length !== n) throw invalid(`${what}: expected ${n} entries, got ${a.length}`);
  return a;
}

// ---- query shapes ----

function shape(kind, dims, a, b, r0 = 0, r1 = 0, angle = 0, extra = {}) {
  return Object.freeze({ kind, dims, a, b, r0, r1, angle, points: null, rowMajor: false, clipZeroToOne: false, ...extra });
}

// A factory whose arguments are checked to be numbers (a name ending in '?' may be left out).
function factory(name, names, make) {
  const what = `Shape.${name}`;
  const checked = (...args) => {
    for (let i = 0; i < names.length; ++i) {
      const optional = names[i].endsWith('?');
      if (optional && args[i] === undefined) continue;
      if (typeof args[i] !== 'number') throw notA('a number', what, optional ? names[i].slice(0, -1) : names[i], args[i]);
    }
    return make(...args);
  };
  // The arity the declarations give (a rest parameter's function has length 0): the required arguments.
  return Object.defineProperty(checked, 'length', { value: names.filter((n) => !n.endsWith('?')).length });
}

/** Query shapes. Each is a plain frozen object; dims says which trees take it (2: QuadTree, 3: Octree). */
export const Shape = Object.freeze({
  box: factory('box', BOX_NAMES[2], (minX, minY, maxX, maxY) => shape(0, 2, [minX, minY, 0], [maxX, maxY, 0])),
  box3: factory('box3', BOX_NAMES[3],
    (minX, minY, minZ, maxX, maxY, maxZ) => shape(0, 3, [minX, minY, minZ], [maxX, maxY, maxZ])),
  point: factory('point', POINT_NAMES[2], (x, y) => shape(1, 2, [x, y, 0], [0, 0, 0])),
  point3: factory('point3', POINT_NAMES[3], (x, y, z) => shape(1, 3, [x, y, z], [0, 0, 0])),
  circle: factory('circle', ['x', 'y', 'radius'], (x, y, radius) => shape(2, 2, [x, y, 0], [0, 0, 0], radius)),
  sphere: factory('sphere', ['x', 'y', 'z', 'radius'], (x, y, z, radius) => shape(2, 3, [x, y, z], [0, 0, 0], radius)),
  ring: factory('ring', ['x', 'y', 'inner', 'outer'], (x, y, inner, outer) => shape(3, 2, [x, y, 0], [0, 0, 0], inner, outer)),
  ellipse: factory('ellipse', ['x', 'y', 'rx', 'ry', 'angle?'],
    (x, y, rx, ry, angle = 0) => shape(4, 2, [x, y, 0], [0, 0, 0], rx, ry, angle)),
  sector: factory('sector', ['x', 'y', 'dx', 'dy', 'radius', 'halfAngle'],
    (x, y, dx, dy, radius, halfAngle) => shape(5, 2, [x, y, 0], [dx, dy, 0], radius, 0, halfAngle)),
  orientedBox: factory('orientedBox', ['x', 'y', 'hx', 'hy', 'angle?'],
    (x, y, hx, hy, angle = 0) => shape(6, 2, [x, y, 0], [0, 0, 0], hx, hy, angle)),
  polygon: (xy) => {
    numberArray(xy, undefined, 'Shape.polygon');
    if (xy.length % 2 !== 0) throw invalid('Shape.polygon: x, y pairs expected (an odd count of numbers)');
    return shape(7, 2, [0, 0, 0], [0, 0, 0], 0, 0, 0, { points: Float64Array.from(xy) });
  },
  segment: factory('segment', SEGMENT_NAMES[2], (x0, y0, x1, y1) => shape(8, 2, [x0, y0, 0], [x1, y1, 0])),
  segment3: factory('segment3', SEGMENT_NAMES[3],
    (x0, y0, z0, x1, y1, z1) => shape(8, 3, [x0, y0, z0], [x1, y1, z1])),
  frustum: (matrix16, options = {}) => {
    knownKeys(options, ['rowMajor', 'clipZeroToOne'], 'Shape.frustum');
    const { rowMajor = false, clipZeroToOne = false } = options;
    return shape(9, 3, [0, 0, 0], [0, 0, 0], 0, 0, 0,
      { points: Float64Array.from(numberArray(matrix16, 16, 'Shape.frustum')), rowMajor, clipZeroToOne });
  },
});

// Checks an object given as a shape field by field (one not made by Shape may lack any of them).
function checkShape(s, what) {
  if (s === null || typeof s !== 'object') throw notA('a Shape', what, 'the shape', s);
  if (!Number.isInteger(s.kind) || s.kind < 0 || s.kind > 9) throw notA('a Shape', what, 'shape.kind', s.kind);
  if (s.dims !== 2 && s.dims !== 3) throw notA('2 or 3', what, 'shape.dims', s.dims);
  for (const field of ['a', 'b']) {
    const v = s[field];
    if (!Array.isArray(v) || v.length !== 3) throw notA('an array of 3 numbers', what, `shape.${field}`, v);
    for (let i = 0; i < 3; ++i) number(v[i], what, `shape.${field}[${i}]`);
  }
  for (const field of ['r0', 'r1', 'angle']) number(s[field], what, `shape.${field}`);
  if (s.kind === 7 || s.kind === 9) {
    if (!(s.points instanceof Float64Array)) throw notA('a Float64Array', what, 'shape.points', s.points);
    if (s.kind === 7 ? s.points.length % 2 !== 0 : s.points.length !== 16) {
      throw invalid(`${what}: shape.points holds ${s.points.length} numbers`);
    }
  } else if (s.points !== null) {
    throw notA('null', what, 'shape.points', s.points);
  }
}

// ---- the layer collision matrix ----

// A layer index: an integer in 0..31.
function layerIndex(v, what, name) {
  if (typeof v !== 'number') throw notA('a layer index (an integer in 0..31)', what, name, v);
  if (!Number.isInteger(v) || v < 0 || v > 31) throw invalid(`${what}: ${name} must be a layer index in 0..31 (got ${v})`);
  return v;
}
// A layer mask that must be given (layers32 reads a missing one as every layer).
function mask(v, what, name) {
  if (typeof v !== 'number') throw notA('an integer bit mask', what, name, v);
  return layers32(v, what);
}

/** Which of the 32 layers collide with which (Unity's layer collision matrix; Box2D's category and mask bits),
 * for pairs, forEachPair, countPairs and ContactTracker.update: two objects make a pair when some layer of one
 * collides with some layer of the other. Symmetric by construction. A plain JavaScript value (32 masks), usable
 * with the trees of any load(); nothing to dispose. A new matrix lets no pair through; LayerMatrix.all() every
 * pair. Every method checks all its arguments before changing anything. */
export class LayerMatrix {
  /** No layer collides with any; or a copy of `other`. */
  constructor(other) {
    if (other !== undefined && !(other instanceof LayerMatrix)) {
      throw notA('a LayerMatrix', 'LayerMatrix', 'the matrix to copy', other);
    }
    this._partners = other === undefined ? new Uint32Array(32) : other._partners.slice();
  }
  /** Every layer collides with every layer (the pairs of a walk without a mask). */
  static all() { return new LayerMatrix().between(ALL_LAYERS, ALL_LAYERS); }
  /** Makes every layer of mask a collide with every layer of mask b (and b with a), keeping what was set:
   * "players against anything" is between(PLAYERS, ALL_LAYERS). Returns this matrix. */
  between(a, b) {
    a = mask(a, 'LayerMatrix.between', 'a');
    b = mask(b, 'LayerMatrix.between', 'b');
    const p = this._partners;
    for (let i = 0; i < 32; ++i) {
      if ((a >>> i) & 1) p[i] |= b;
      if ((b >>> i) & 1) p[i] |= a;
    }
    return this;
  }
  /** Makes layers a and b (0..31, may be equal) collide (collide = true) or not, both ways. Returns this matrix. */
  set(a, b, collide = true) {
    layerIndex(a, 'LayerMatrix.set', 'a');
    layerIndex(b, 'LayerMatrix.set', 'b');
    if (typeof collide !== 'boolean') throw notA('a boolean', 'LayerMatrix.set', 'collide', collide);
    const p = this._partners;
    if (collide) {
      p[a] |= 1 << b;
      p[b] |= 1 << a;
    } else {
      p[a] &= ~(1 << b);
      p[b] &= ~(1 << a);
    }
    return this;
  }
  /** Whether layers a and b (0..31) collide. */
  collides(a, b) {
    layerIndex(a, 'LayerMatrix.collides', 'a');
    layerIndex(b, 'LayerMatrix.collides', 'b');
    return ((this._partners[a] >>> b) & 1) === 1;
  }
  /** The layers that collide with some layer of `layers`, as a mask (0..2^32 - 1). */
  partners(layers) {
    const m = mask(layers, 'LayerMatrix.partners', 'layers'), p = this._partners;
    let out = 0;
    for (let i = 0; i < 32; ++i) if ((m >>> i) & 1) out |= p[i];
    return out >>> 0;
  }
  /** The layers that collide with at least one layer: objects in none of them make no pair. */
  active() {
    let out = 0;
    for (let i = 0; i < 32; ++i) if (this._partners[i] !== 0) out |= 1 << i;
    return out >>> 0;
  }
  /** Whether objects with layer masks a and b make a pair: some layer of a collides with some layer of b. */
  allows(a, b) {
    const mb = mask(b, 'LayerMatrix.allows', 'b');
    return (this.partners(mask(a, 'LayerMatrix.allows', 'a')) & mb) !== 0;
  }
  /** True when the same layer pairs collide in both. */
  equals(other) {
    if (!(other instanceof LayerMatrix)) throw notA('a LayerMatrix', 'LayerMatrix.equals', 'other', other);
    return this._partners.every((v, i) => v === other._partners[i]);
  }
}

// ---- the binding ----

function bind(M) {
  // The structs' offsets, as the compiler laid them out (src/layout.c).
  const L = {};
  for (const entry of M.UTF8ToString(M._quadrant_js_layout()).trim().split(' ')) {
    const [name, value] = entry.split('=');
    L[name] = Number(value);
  }
  const at = (name) => {
    if (!(name in L)) throw new Error(`quadrant: layout has no ${name}`);
    return L[name];
  };
  const CFG = {
    dims: at('quadrant_config.dims'), scalar: at('quadrant_config.scalar'), min: at('quadrant_config.world_min'),
    max: at('quadrant_config.world_max'), depth: at('quadrant_config.max_depth'),
    split: at('quadrant_config.split_threshold'), minSize: at('quadrant_config.min_node_size'),
    placement: at('quadrant_config.placement'), size: at('quadrant_config'),
  };
  const SH = {
    kind: at('quadrant_shape.kind'), a: at('quadrant_shape.a'), b: at('quadrant_shape.b'), r0: at('quadrant_shape.r0'),
    r1: at('quadrant_shape.r1'), angle: at('quadrant_shape.angle'), points: at('quadrant_shape.points'),
    count: at('quadrant_shape.count'), rowMajor: at('quadrant_shape.matrix_row_major'),
    clip: at('quadrant_shape.clip_zero_to_one'), size: at('quadrant_shape'),
  };
  const ND = {};
  for (const f of ['cell_min', 'cell_max', 'bounds_min', 'bounds_max', 'depth', 'leaf', 'id', 'parent', 'items', 'count', 'layers']) {
    ND[f] = at(`quadrant_node.${f}`);
  }
  ND.size = at('quadrant_node');

  // Scratch buffers, each its own allocation so that growing one moves no other. Views of the memory are read
  // afresh after every call into the module: the memory may grow (and replace them) during any call.
  // A buffer is replaced only once its successor is allocated: a failed growth keeps the old one (and the pointer
  // to it) valid. No scratch reaches 2^31 bytes, where the module's 32-bit sizes would wrap.
  const buffers = new Map();
  const SCRATCH_LIMIT = 0x7fffffff;
  function buf(name, bytes) {
    let b = buffers.get(name);
    if (b === undefined || b.bytes < bytes) {
      if (!(bytes < SCRATCH_LIMIT)) {
        throw new QuadrantError(`quadrant: out of memory (a scratch of ${bytes} bytes: 2^31 or more)`, 'out_of_memory');
      }
      const size = Math.min(Math.max(bytes, b === undefined ? 64 : b.bytes * 2, 64), SCRATCH_LIMIT - 7);
      const ptr = M._malloc(size);
      if (ptr === 0) throw new QuadrantError('quadrant: out of memory (scratch)', 'out_of_memory');
      if (b !== undefined) M._free(b.ptr);
      b = { ptr, bytes: size };
      buffers.set(name, b);
    }
    return b.ptr;
  }
  const small = () => buf('small', 1024); // out-parameters: a count, a handle, a struct
  // queryBox's shape (always a box) and count, made once: the fastest query writes only the box's numbers.
  const boxShape = M._malloc(SH.size + 16), boxCount = boxShape + SH.size;
  M.HEAPU8.fill(0, boxShape, boxShape + SH.size + 16);
  function check(status) {
    if (status !== 0) throw new QuadrantError(M.UTF8ToString(M._quadrant_last_error()), STATUS[status] || 'internal_error');
  }
  // A pair filter's matrix in the module's memory (0 when the filter is a layer mask or absent); any other object
  // is a TypeError (a mask that is not a number is layers32's).
  function matrixOf(filter, what) {
    if (filter instanceof LayerMatrix) {
      const m = buf('matrix', 128);
      M.HEAPU32.set(filter._partners, m >>> 2);
      return m;
    }
    if (filter !== null && typeof filter === 'object') throw notA('a layer mask or a LayerMatrix', what, 'the filter', filter);
    return 0;
  }
  const u32 = (ptr) => M.HEAPU32[ptr >>> 2];
  const f64 = (ptr) => M.HEAPF64[ptr >>> 3];
  const u64 = (ptr) => M.HEAPU32[ptr >>> 2] + M.HEAPU32[(ptr >>> 2) + 1] * TWO32;

  function writeShape(s, dims) {
    checkShape(s, 'query');
    if (s.dims !== dims) {
      throw invalid(`query: a ${s.dims}D shape on a ${dims === 2 ? 'QuadTree (2D)' : 'Octree (3D)'}`);
    }
    const p = buf('shape', SH.size);
    let points = 0;
    if (s.points !== null) {
      points = buf('points', s.points.length * 8 + 8);
      M.HEAPF64.set(s.points, points >>> 3);
    }
    const F = M.HEAPF64, U = M.HEAP32;
    U[(p + SH.kind) >>> 2] = s.kind;
    for (let i = 0; i < 3; ++i) {
      F[((p + SH.a) >>> 3) + i] = s.a[i];
      F[((p + SH.b) >>> 3) + i] = s.b[i];
    }
    F[(p + SH.r0) >>> 3] = s.r0;
    F[(p + SH.r1) >>> 3] = s.r1;
    F[(p + SH.angle) >>> 3] = s.angle;
    U[(p + SH.points) >>> 2] = points;
    U[(p + SH.count) >>> 2] = s.points === null ? 0 : (s.kind === 7 ? s.points.length / 2 : s.points.length);
    U[(p + SH.rowMajor) >>> 2] = s.rowMajor ? 1 : 0;
    U[(p + SH.clip) >>> 2] = s.clipZeroToOne ? 1 : 0;
    return p;
  }

  // Boxes as the caller keeps them (min..., max... per object) into the C API's two arrays (mins, maxs).
  function deinterleave(boxes, n, d, mins, maxs) {
    const F = M.HEAPF64, a = mins >>> 3, b = maxs >>> 3;
    if (d === 2) {
      for (let i = 0; i < n; ++i) {
        F[a + 2 * i] = boxes[4 * i];
        F[a + 2 * i + 1] = boxes[4 * i + 1];
        F[b + 2 * i] = boxes[4 * i + 2];
        F[b + 2 * i + 1] = boxes[4 * i + 3];
      }
    } else {
      for (let i = 0; i < n; ++i) {
        for (let j = 0; j < 3; ++j) {
          F[a + 3 * i + j] = boxes[6 * i + j];
          F[b + 3 * i + j] = boxes[6 * i + 3 + j];
        }
      }
    }
  }

  // Runs an _into call that reports a total count, growing the output buffer until everything fits; returns
  // [pointer, count]. per: bytes per result; holder._cap: the capacity to try first, kept for the next call.
  function collect(holder, call, per) {
    for (;;) {
      const cap = holder._cap, out = buf('out', cap * per + 8), cnt = small();
      check(call(out, cap, cnt));
      const n = u32(cnt);
      if (n <= cap) return [out, n];
      holder._cap = n + (n >>> 2);
    }
  }

  function readNode(p, dims) {
    const vec = (off) => Array.from({ length: dims }, (_, i) => f64(p + off + i * 8));
    return {
      cellMin: vec(ND.cell_min), cellMax: vec(ND.cell_max), boundsMin: vec(ND.bounds_min), boundsMax: vec(ND.bounds_max),
      depth: M.HEAP32[(p + ND.depth) >>> 2], leaf: M.HEAP32[(p + ND.leaf) >>> 2] !== 0, id: u32(p + ND.id),
      parent: u32(p + ND.parent) === 0xffffffff ? -1 : u32(p + ND.parent), items: u32(p + ND.items),
      count: u32(p + ND.count), layers: u32(p + ND.layers),
    };
  }

  // Frees what the garbage collector finds undisposed (dispose() is the contract; this is the safety net).
  const registry = typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ ptr, destroy }) => destroy(ptr)) : null;

  class Native {
    constructor(ptr, destroy) {
      this._ptr = ptr;
      this._destroy = destroy;
      if (registry !== null) registry.register(this, { ptr, destroy }, this);
    }
    /** Frees the native object; every later call throws. Safe to call twice. */
    dispose() {
      if (this._ptr !== 0) {
        if (registry !== null) registry.unregister(this);
        this._destroy(this._ptr);
        this._ptr = 0;
      }
    }
    /** dispose(): `using tree = new q.QuadTree(...)` frees it at the end of the block. */
    [DISPOSE]() { this.dispose(); }
    /** True after dispose(). */
    get disposed() { return this._ptr === 0; }
    _live(what) {
      if (this._ptr === 0) throw new QuadrantError(`quadrant: ${what}: used after dispose()`, 'logic_error');
      return this._ptr;
    }
  }

  // ---- trees ----

  class SpatialTree extends Native {
    constructor(dims, options, what) {
      knownKeys(options, ['world', 'scalar', 'placement', 'maxDepth', 'splitThreshold', 'minNodeSize'], what);
      const c = small();
      M._quadrant_config_init(c, dims, 1);
      const world = numberArray(options.world, 2 * dims, `${what}: world ([min..., max...])`);
      const F = M.HEAPF64;
      for (let i = 0; i < dims; ++i) {
        F[((c + CFG.min) >>> 3) + i] = world[i];
        F[((c + CFG.max) >>> 3) + i] = world[dims + i];
      }
      M.HEAP32[(c + CFG.scalar) >>> 2] = choice(SCALARS, options.scalar ?? 'double', what, 'scalar');
      M.HEAP32[(c + CFG.placement) >>> 2] = choice(PLACEMENTS, options.placement ?? 'loose', what, 'placement');
      for (const [key, off] of [['maxDepth', CFG.depth], ['splitThreshold', CFG.split]]) {
        if (options[key] !== undefined) {
          number(options[key], what, key);
          if (!Number.isInteger(options[key]) || options[key] < 0 || options[key] > 0x7fffffff) {
            throw invalid(`${what}: ${key} must be an integer >= 0 (got ${options[key]})`);
          }
          M.HEAP32[(c + off) >>> 2] = options[key];
        }
      }
      if (options.minNodeSize !== undefined) F[(c + CFG.minSize) >>> 3] = number(options.minNodeSize, what, 'minNodeSize');
      const out = c + CFG.size;
      check(M._quadrant_tree_create(c, out));
      // What the last query walked (nodes, box tests), for counters such as the demo page's; freed with the tree.
      const stats = M._malloc(16);
      M.HEAPU32.fill(0, stats >>> 2, (stats >>> 2) + 4);
      super(u32(out), (p) => {
        M._quadrant_tree_destroy(p);
        M._free(stats);
      });
      this._stats = stats;
      this._dims = dims;
      this._values = [];
      // The full generation of each slot's last object, to rebuild the 64-bit handle from a number's 21 bits.
      this._gens = new Uint32Array(64);
      this._lo = 0;
      this._hi = 0;
      this._cap = 64;
      this._config = { world: Array.from(world), scalar: options.scalar ?? 'double',
        placement: options.placement ?? 'loose', maxDepth: M.HEAP32[(c + CFG.depth) >>> 2],
        splitThreshold: M.HEAP32[(c + CFG.split) >>> 2], minNodeSize: options.minNodeSize ?? 0 };
    }

    /** What the last query, queryBox, count or queryHandles on this tree walked. */
    get lastQuery() {
      this._live('lastQuery');
      return { nodesVisited: u32(this._stats), boxTests: u32(this._stats + 4), hits: u32(this._stats + 8) };
    }
    /** The settings the tree was made with (defaults filled in). */
    get config() { return { ...this._config, world: this._config.world.slice() }; }
    /** 2 for a QuadTree, 3 for an Octree. */
    get dims() { return this._dims; }
    /** The number of objects. */
    get size() { return M._quadrant_tree_size(this._live('size')); }

    // A number from the handle at p (recording its generation: p holds a live object's handle).
    _handleAt(p) {
      const lo = u32(p), hi = u32(p + 4);
      const slot = lo - 1;
      if (slot >= this._gens.length) {
        const grown = new Uint32Array(Math.max(slot + 1, this._gens.length * 2));
        grown.set(this._gens);
        this._gens = grown;
      }
      this._gens[slot] = hi;
      return packHandle(lo, hi);
    }
    // Splits a handle number into this._lo / this._hi; one that cannot name an object becomes 0 (which the C
    // API refuses with its message).
    _split(h) {
      this._lo = 0;
      this._hi = 0;
      if (typeof h !== 'number' || !(h > 0) || h > Number.MAX_SAFE_INTEGER || !Number.isInteger(h)) return;
      const lo = h % TWO32, gen = (h - lo) / TWO32, slot = lo - 1;
      if (slot < 0 || slot >= this._gens.length || (this._gens[slot] & GEN_BITS) !== gen) return;
      this._lo = lo;
      this._hi = this._gens[slot];
    }
    _slotOf(h, what) {
      this._split(h);
      // Ask the module, which knows whether the object still lives (and says so in its message).
      if (M._quadrant_tree_contains(this._live(what), this._lo, this._hi) === 0) {
        throw invalid(`${what}: the handle names no object of this tree (stale or foreign)`);
      }
      return this._lo - 1;
    }
    _writeBox(p, args, offset) {
      const F = M.HEAPF64, d = this._dims;
      for (let i = 0; i < d; ++i) {
        F[(p >>> 3) + i] = args[offset + i];
        F[(p >>> 3) + 4 + i] = args[offset + d + i];
      }
    }
    _insert(args, value, layers) {
      const t = this._live('insert');
      numbers(args, 0, 2 * this._dims, 'insert', BOX_NAMES[this._dims]);
      const p = small();
      this._writeBox(p, args, 0);
      check(M._quadrant_tree_insert(t, p, p + 32, 0, 0, layers32(layers, 'insert'), p + 64));
      const h = this._handleAt(p + 64);
      this._values[u32(p + 64) - 1] = value;
      return h;
    }
    _move(h, args) {
      const t = this._live('move');
      numbers(args, 0, 2 * this._dims, 'move', BOX_NAMES[this._dims]);
      this._split(h);
      const p = small();
      this._writeBox(p, args, 0);
      check(M._quadrant_tree_move(t, this._lo, this._hi, p, p + 32));
    }

    /** Replaces the contents with n objects built at once (several times faster than n inserts): boxes holds
     * 2 * dims numbers per object (min..., max...), values[i] (default: i) and layers[i] (default: every layer)
     * go with object i. Returns the handles, object i's at i. On a bad object the tree is unchanged. */
    assign(boxes, values, layers) {
      const t = this._live('assign'), d = this._dims;
      numberArray(boxes, undefined, 'assign: boxes');
      if (boxes.length % (2 * d) !== 0) throw invalid(`assign: boxes must hold ${2 * d} numbers per object`);
      const n = boxes.length / (2 * d);
      if (values != null) anyArray(values, n, 'assign: values (one per object)');
      if (layers != null) numberArray(layers, n, 'assign: layers (one per object)');
      const mins = buf('a', n * d * 8 + 8), maxs = buf('b', n * d * 8 + 8), hs = buf('c', n * 8 + 8);
      let lay = 0;
      if (layers != null) {
        lay = buf('d', n * 4 + 4);
        for (let i = 0; i < n; ++i) M.HEAPU32[(lay >>> 2) + i] = layers32(layers[i], 'assign');
      }
      deinterleave(boxes, n, d, mins, maxs);
      check(M._quadrant_tree_assign(t, mins, maxs, 0, lay, n, hs));
      // Slots follow space, not the items' order: each item's value goes to its handle's slot.
      const V = new Array(n), U = M.HEAPU32, handles = new Float64Array(n);
      if (this._gens.length < n) this._gens = new Uint32Array(n);
      const G = this._gens;
      for (let i = 0; i < n; ++i) {
        const lo = U[(hs >>> 2) + 2 * i], hi = U[(hs >>> 2) + 2 * i + 1];
        G[lo - 1] = hi;
        V[lo - 1] = values != null ? values[i] : i;
        handles[i] = packHandle(lo, hi);
      }
      this._values = V;
      return handles;
    }
    /** Re-roots the tree over a new world ([min..., max...]; the other settings stay), keeping every object and
     * handle: for objects that outgrew the world (stats().outsideWorld counts them). */
    rebuild(world) {
      const t = this._live('rebuild'), d = this._dims;
      numberArray(world, 2 * d, 'rebuild: world ([min..., max...])');
      const p = small();
      this._writeBox(p, world, 0);
      check(M._quadrant_tree_rebuild(t, p, p + 32));
      this._config.world = Array.from(world);
    }
    /** Removes the object. Throws for a stale handle (nothing changes). */
    erase(h) {
      const t = this._live('erase');
      this._split(h);
      check(M._quadrant_tree_erase(t, this._lo, this._hi));
      this._values[this._lo - 1] = undefined;
    }
    /** Gives n objects new boxes in one call: handles[i] gets boxes[2 * dims * i ...]. Checked whole first: on a
     * bad handle or box nothing moved. */
    moveMany(handles, boxes) {
      const t = this._live('moveMany'), d = this._dims;
      anyArray(handles, undefined, 'moveMany: handles');
      const n = handles.length;
      numberArray(boxes, n * 2 * d, `moveMany: boxes (${2 * d} numbers per handle)`);
      const hs = buf('c', n * 8 + 8), mins = buf('a', n * d * 8 + 8), maxs = buf('b', n * d * 8 + 8);
      const U = M.HEAPU32;
      for (let i = 0; i < n; ++i) {
        this._split(handles[i]);
        U[(hs >>> 2) + 2 * i] = this._lo;
        U[(hs >>> 2) + 2 * i + 1] = this._hi;
      }
      deinterleave(boxes, n, d, mins, maxs);
      check(M._quadrant_tree_move_many(t, hs, mins, maxs, n));
    }
    /** Changes the object's layer mask. */
    setLayers(h, layers) {
      const t = this._live('setLayers');
      this._split(h);
      check(M._quadrant_tree_set_layers(t, this._lo, this._hi, layers32(layers, 'setLayers')));
    }
    /** Replaces the object's value. */
    setValue(h, value) { this._values[this._slotOf(h, 'setValue')] = value; }
    /** The object's value. */
    value(h) { return this._values[this._slotOf(h, 'value')]; }
    /** The object's layer mask. */
    layers(h) {
      const t = this._live('layers');
      this._split(h);
      const p = small();
      check(M._quadrant_tree_layers(t, this._lo, this._hi, p));
      return u32(p);
    }
    /** The object's box: [min..., max...] (rounded to float in a float tree). */
    bounds(h) {
      const t = this._live('bounds');
      this._split(h);
      const p = small();
      check(M._quadrant_tree_bounds(t, this._lo, this._hi, p, p + 32));
      const d = this._dims, out = new Array(2 * d);
      for (let i = 0; i < d; ++i) {
        out[i] = f64(p + 8 * i);
        out[d + i] = f64(p + 32 + 8 * i);
      }
      return out;
    }
    /** True when the handle names an object of this tree. */
    contains(h) {
      this._split(h);
      return M._quadrant_tree_contains(this._live('contains'), this._lo, this._hi) !== 0;
    }
    /** Removes every object; every handle goes stale. */
    clear() {
      check(M._quadrant_tree_clear(this._live('clear')));
      this._values = [];
    }

    _into(call, per) { return collect(this, call, per); }
    _valuesOf(p, n, out) {
      out.length = n;
      const U = M.HEAPU32, V = this._values;
      for (let i = 0; i < n; ++i) out[i] = V[U[(p >>> 2) + 2 * i] - 1];
      return out;
    }
    _handlesOf(p, n, stride = 1) {
      const out = new Float64Array(n);
      const U = M.HEAPU32;
      for (let i = 0; i < n; ++i) {
        const lo = U[(p >>> 2) + 2 * stride * i], hi = U[(p >>> 2) + 2 * stride * i + 1];
        out[i] = packHandle(lo, hi);
      }
      return out;
    }

    /** The values of every object in `layers` whose box the shape touches (exact), into `out` if given. */
    query(s, layers, out = []) {
      const t = this._live('query'), sp = writeShape(s, this._dims), l = layers32(layers, 'query');
      const [p, n] = this._into((o, cap, cnt) => M._quadrant_tree_query_into_stats(t, sp, l, o, 0, cap, cnt, this._stats), 8);
      return this._valuesOf(p, n, out);
    }
    // query(Shape.box(...)) without making the shape: the commonest query, written straight into a box shape.
    _queryBox(args, layers, out) {
      const t = this._live('queryBox'), l = layers32(layers, 'queryBox'), d = this._dims;
      numbers(args, 0, 2 * d, 'queryBox', BOX_NAMES[d]);
      const F = M.HEAPF64, a = (boxShape + SH.a) >>> 3, b = (boxShape + SH.b) >>> 3;
      for (let i = 0; i < d; ++i) {
        F[a + i] = args[i];
        F[b + i] = args[d + i];
      }
      // collect()'s loop written out: the commonest query makes no closure and looks up no count buffer.
      for (;;) {
        const cap = this._cap, o = buf('out', cap * 8 + 8);
        check(M._quadrant_tree_query_into_stats(t, boxShape, l, o, 0, cap, boxCount, this._stats));
        const n = M.HEAPU32[boxCount >>> 2];
        if (n <= cap) return this._valuesOf(o, n, out);
        this._cap = n + (n >>> 2);
      }
    }
    /** The handles of the same objects, in the same order. */
    queryHandles(s, layers) {
      const t = this._live('queryHandles'), sp = writeShape(s, this._dims), l = layers32(layers, 'queryHandles');
      const [p, n] = this._into((o, cap, cnt) => M._quadrant_tree_query_into_stats(t, sp, l, o, 0, cap, cnt, this._stats), 8);
      return this._handlesOf(p, n);
    }
    /** How many objects the shape touches (nothing is copied out). */
    count(s, layers) {
      const t = this._live('count'), sp = writeShape(s, this._dims), c = small();
      check(M._quadrant_tree_query_into_stats(t, sp, layers32(layers, 'count'), 0, 0, 0, c, this._stats));
      return u32(c);
    }
    // The pairs in a layer mask, or those a LayerMatrix lets through.
    _pairs(filter, fn, what) {
      const t = this._live(what), m = matrixOf(filter, what);
      if (m !== 0) return this._into((o, cap, cnt) => M._quadrant_tree_pairs_filtered_into(t, m, o, cap, cnt), 16);
      const l = layers32(filter, what);
      return this._into((o, cap, cnt) => M._quadrant_tree_pairs_into(t, l, o, cap, cnt), 16);
    }
    /** Every pair of objects in `layers` (a mask, or a LayerMatrix) whose boxes overlap (touching counts), once, as
     * [valueA, valueB]. */
    pairs(layers) {
      const [p, n] = this._pairs(layers, null, 'pairs');
      const out = new Array(n), U = M.HEAPU32, V = this._values;
      for (let i = 0; i < n; ++i) out[i] = [V[U[(p >>> 2) + 4 * i] - 1], V[U[(p >>> 2) + 4 * i + 2] - 1]];
      return out;
    }
    /** Calls fn(valueA, valueB, handleA, handleB) for every such pair; fn returning false stops. Returns the
     * number of calls. */
    forEachPair(fn, layers) {
      const [p, n] = this._pairs(layers, fn, 'forEachPair');
      // The pairs are copied out first: fn may call this tree (even mutate it) without disturbing the walk.
      const hs = this._handlesOf(p, 2 * n);
      const V = this._values;
      for (let i = 0; i < n; ++i) {
        const a = hs[2 * i], b = hs[2 * i + 1];
        if (fn(V[(a % TWO32) - 1], V[(b % TWO32) - 1], a, b) === false) return i + 1;
      }
      return n;
    }
    /** The number of overlapping pairs in `layers` (a mask, or a LayerMatrix). */
    countPairs(layers) {
      const t = this._live('countPairs'), m = matrixOf(layers, 'countPairs'), c = small();
      if (m !== 0) check(M._quadrant_tree_pairs_filtered_into(t, m, 0, 0, c));
      else check(M._quadrant_tree_pairs_into(t, layers32(layers, 'countPairs'), 0, 0, c));
      return u32(c);
    }
    /** Every pair of an object of this tree (in layersA) and one of `other` (in layersB) whose boxes overlap, as
     * [value here, value there]. other: a different tree of the same dims and scalar. */
    pairsWith(other, layersA, layersB) {
      const t = this._live('pairsWith');
      if (!(other instanceof SpatialTree)) {
        throw invalid('pairsWith: expected a QuadTree or Octree made by the same load() (each load is its own module)');
      }
      const u = other._live('pairsWith'), la = layers32(layersA, 'pairsWith'), lb = layers32(layersB, 'pairsWith');
      const [p, n] = this._into((o, cap, cnt) => M._quadrant_trees_pairs_into(t, u, la, lb, o, cap, cnt), 16);
      const out = new Array(n), U = M.HEAPU32;
      for (let i = 0; i < n; ++i) out[i] = [this._values[U[(p >>> 2) + 4 * i] - 1], other._values[U[(p >>> 2) + 4 * i + 2] - 1]];
      return out;
    }
    _raycast(args, options, what) {
      const t = this._live(what), d = this._dims;
      numbers(args, 0, 2 * d, what, SEGMENT_NAMES[d]);
      knownKeys(options, ['layers', 'limit'], what);
      const l = layers32(options.layers, what);
      const limit = number(options.limit ?? Infinity, what, 'limit');
      if (!(limit >= 0) || (limit !== Infinity && !Number.isInteger(limit))) throw invalid(`${what}: limit must be an integer >= 0`);
      const p = buf('ray', 64);
      for (let i = 0; i < d; ++i) {
        M.HEAPF64[(p >>> 3) + i] = args[i];
        M.HEAPF64[(p >>> 3) + 4 + i] = args[d + i];
      }
      // No more hits than objects: the buffers are sized by what the tree holds, not by the limit asked for.
      // Without a limit: ask for room for some hits; a full buffer may mean more, so grow and ask again.
      const most = M._quadrant_tree_size(t);
      let cap = Math.min(limit === Infinity ? this._cap : limit, most);
      for (;;) {
        const hs = buf('out', cap * 8 + 8), ts = buf('ts', cap * 8 + 8), cnt = small();
        check(M._quadrant_tree_raycast_into(t, p, p + 32, l, hs, 0, ts, cap, cnt));
        const n = u32(cnt);
        if (n === cap && cap < most && limit === Infinity) {
          cap = Math.min(cap * 4, most);
          continue;
        }
        const out = new Array(n);
        for (let i = 0; i < n; ++i) {
          const lo = u32(hs + 8 * i);
          out[i] = { value: this._values[lo - 1], handle: packHandle(lo, u32(hs + 8 * i + 4)), t: f64(ts + 8 * i) };
        }
        return out;
      }
    }
    _nearest(point, k, options, what) {
      const t = this._live(what), d = this._dims;
      numbers(point, 0, d, what, POINT_NAMES[d]);
      number(k, what, 'k');
      knownKeys(options, ['layers', 'maxDistance'], what);
      const maxDistance = number(options.maxDistance ?? Infinity, what, 'maxDistance');
      if (!Number.isInteger(k) || k < 0) throw invalid(`${what}: k must be an integer >= 0 (got ${k})`);
      // No more results than objects: the buffers are sized by what the tree holds, not by what was asked.
      k = Math.min(k, M._quadrant_tree_size(t));
      const p = buf('ray', 64), hs = buf('out', k * 8 + 8), ds = buf('ts', k * 8 + 8), cnt = small();
      for (let i = 0; i < d; ++i) M.HEAPF64[(p >>> 3) + i] = point[i];
      check(M._quadrant_tree_nearest(t, p, k, maxDistance, layers32(options.layers, what), hs, ds, cnt));
      const n = u32(cnt), out = new Array(n);
      for (let i = 0; i < n; ++i) {
        const lo = u32(hs + 8 * i);
        out[i] = { value: this._values[lo - 1], handle: packHandle(lo, u32(hs + 8 * i + 4)), distance: f64(ds + 8 * i) };
      }
      return out;
    }
    /** The leaves whose cells the shape touches, in pre-order (skipEmpty: leave out subtrees with no object). */
    queryLeaves(s, skipEmpty = false) {
      const t = this._live('queryLeaves'), sp = writeShape(s, this._dims);
      const [p, n] = this._into((o, cap, cnt) => M._quadrant_tree_query_nodes_into(t, sp, skipEmpty ? 1 : 0, o, cap, cnt), ND.size);
      const out = new Array(n);
      for (let i = 0; i < n; ++i) out[i] = readNode(p + i * ND.size, this._dims);
      return out;
    }
    /** Every leaf of the tree (their cells tile the world), in pre-order: to draw it. */
    leaves() {
      const w = this._config.world, d = this._dims;
      const all = d === 2 ? Shape.box(w[0], w[1], w[2], w[3]) : Shape.box3(w[0], w[1], w[2], w[3], w[4], w[5]);
      return this.queryLeaves(all, false);
    }
    _locate(point) {
      numbers(point, 0, this._dims, 'locate', POINT_NAMES[this._dims]);
      const t = this._live('locate'), p = buf('ray', 64), node = buf('node', ND.size);
      for (let i = 0; i < this._dims; ++i) M.HEAPF64[(p >>> 3) + i] = point[i];
      check(M._quadrant_tree_locate(t, p, node));
      return readNode(node, this._dims);
    }
    /** Node and memory counts. */
    stats() {
      const t = this._live('stats'), p = small();
      check(M._quadrant_tree_stats(t, p));
      const g = (f) => u32(p + at(`quadrant_stats.${f}`));
      return { nodes: g('nodes'), leaves: g('leaves'), depth: M.HEAP32[(p + at('quadrant_stats.depth')) >>> 2],
        objects: g('objects'), references: g('references'), bytes: g('bytes'), outsideWorld: g('outside_world'),
        rootEntries: g('root_entries') };
    }
    /** Checks every invariant (for tests); throws naming the first broken one. */
    validate() { check(M._quadrant_tree_validate(this._live('validate'))); }
  }

  /** A quadtree (2D). */
  class QuadTree extends SpatialTree {
    constructor(options) { super(2, options, 'QuadTree'); }
    insert(minX, minY, maxX, maxY, value, layers) { return this._insert(arguments, value, layers); }
    queryBox(minX, minY, maxX, maxY, layers, out = []) { return this._queryBox(arguments, layers, out); }
    move(h, minX, minY, maxX, maxY) { this._move(h, [minX, minY, maxX, maxY]); }
    raycast(x0, y0, x1, y1, options = {}) { return this._raycast([x0, y0, x1, y1], options, 'raycast'); }
    nearest(x, y, k = 1, options = {}) { return this._nearest([x, y], k, options, 'nearest'); }
    locate(x, y) { return this._locate([x, y]); }
  }

  /** An octree (3D). */
  class Octree extends SpatialTree {
    constructor(options) { super(3, options, 'Octree'); }
    insert(minX, minY, minZ, maxX, maxY, maxZ, value, layers) { return this._insert(arguments, value, layers); }
    queryBox(minX, minY, minZ, maxX, maxY, maxZ, layers, out = []) { return this._queryBox(arguments, layers, out); }
    move(h, minX, minY, minZ, maxX, maxY, maxZ) { this._move(h, [minX, minY, minZ, maxX, maxY, maxZ]); }
    raycast(x0, y0, z0, x1, y1, z1, options = {}) { return this._raycast([x0, y0, z0, x1, y1, z1], options, 'raycast'); }
    nearest(x, y, z, k = 1, options = {}) { return this._nearest([x, y, z], k, options, 'nearest'); }
    locate(x, y, z) { return this._locate([x, y, z]); }
  }

  // ---- contact events ----

  const CT = { a: at('quadrant_contact.a'), b: at('quadrant_contact.b'), size: at('quadrant_contact') };
  const STEP = {};
  for (const f of ['begun', 'begun_count', 'ended', 'ended_count', 'contacts', 'contact_count', '']) {
    STEP[f] = at(f === '' ? 'quadrant_contact_step' : `quadrant_contact_step.${f}`);
  }

  /** Which pairs of one tree began and ended overlapping since the last step (Unity's OnTriggerEnter /
   * OnTriggerExit, Box2D's begin / end touch events; docs/contacts.md). Follows one tree: another is refused until
   * clear(). Each list is sorted by (slot of a, slot of b), so the events do not depend on the tree's layout. */
  class ContactTracker extends Native {
    /** A tracker with no contacts: its first update reports every pair as begun. */
    constructor() {
      const p = small();
      check(M._quadrant_contacts_create(p));
      super(u32(p), M._quadrant_contacts_destroy);
      // The tree of the previous steps (by identity: a tree disposed and another made at its address is another
      // tree), and where the module keeps the last step's contacts (valid until the next update or clear).
      this._tree = null;
      this._current = 0;
      this._count = 0;
    }
    // Contacts from the module's list at p: handles, and each object's value when its handle is still live.
    _read(p, n) {
      const out = new Array(n), U = M.HEAPU32, tree = this._tree, G = tree._gens, V = tree._values;
      for (let i = 0; i < n; ++i) {
        const e = p + i * CT.size, la = U[(e + CT.a) >>> 2], ha = U[(e + CT.a + 4) >>> 2];
        const lb = U[(e + CT.b) >>> 2], hb = U[(e + CT.b + 4) >>> 2];
        out[i] = { a: packHandle(la, ha), b: packHandle(lb, hb), valueA: G[la - 1] === ha ? V[la - 1] : undefined,
          valueB: G[lb - 1] === hb ? V[lb - 1] : undefined };
      }
      return out;
    }
    /** One step over the tree's pairs in `filter` (a layer mask, default every layer, or a LayerMatrix): the pairs
     * that began overlapping, those that ended (moved apart, left the layers, or erased: that handle is then stale
     * and its value undefined), and how many overlap now. On an error nothing changed. */
    update(tree, filter) {
      const c = this._live('update');
      if (!(tree instanceof SpatialTree)) throw notA('a QuadTree or Octree of the same load()', 'update', 'tree', tree);
      const t = tree._live('update');
      if (this._tree !== null && this._tree !== tree) {
        throw invalid('update: another tree than the previous steps\' (call clear() to switch trees)');
      }
      const m = matrixOf(filter, 'update'), l = m === 0 ? layers32(filter, 'update') : 0, out = buf('step', STEP['']);
      try {
        check(M._quadrant_contacts_update(c, t, l, m, out));
      } catch (e) {
        // Out of memory, the module cleared the tracker: it forgets the tree, as clear() does.
        if (e instanceof QuadrantError && e.status === 'out_of_memory') this._forget();
        throw e;
      }
      this._tree = tree;
      this._current = u32(out + STEP.contacts);
      this._count = u32(out + STEP.contact_count);
      return { begun: this._read(u32(out + STEP.begun), u32(out + STEP.begun_count)),
        ended: this._read(u32(out + STEP.ended), u32(out + STEP.ended_count)), count: this._count };
    }
    /** Every pair overlapping at the last update (begun then, or before), sorted as the events; [] before the
     * first update and after clear(). */
    contacts() {
      this._live('contacts');
      return this._tree === null ? [] : this._read(this._current, this._count);
    }
    /** Forgets every contact and the tree: the next update reports all of its pairs as begun, and may follow
     * another tree. */
    clear() {
      check(M._quadrant_contacts_clear(this._live('clear')));
      this._forget();
    }
    _forget() {
      this._tree = null;
      this._current = 0;
      this._count = 0;
    }
  }

  // ---- area of interest ----

  const AS = {};
  for (const f of ['scalar', 'world_min', 'world_max', 'hysteresis', 'skin', 'max_depth', 'split_threshold']) {
    AS[f] = at(`quadrant_aoi_settings.${f}`);
  }
  const EV = { watcher: at('quadrant_aoi_event.watcher'), target: at('quadrant_aoi_event.target'),
    kind: at('quadrant_aoi_event.kind'), size: at('quadrant_aoi_event') };

  // The ids an AoiWorld call writes as 64-bit integers.
  function idList(world, call) {
    const [out, n] = collect(world, call, 8);
    const ids = new Array(n);
    for (let i = 0; i < n; ++i) ids[i] = u64(out + 8 * i);
    return ids;
  }

  /** Who sees whom: Enter/Leave events per tick (docs/aoi.md). Ids are safe integers >= 0. */
  class AoiWorld extends Native {
    constructor(options = {}) {
      knownKeys(options, ['world', 'scalar', 'hysteresis', 'skin', 'maxDepth', 'splitThreshold'], 'AoiWorld');
      const s = small();
      M._quadrant_aoi_settings_init(s, choice(SCALARS, options.scalar ?? 'float', 'AoiWorld', 'scalar'));
      if (options.world !== undefined) {
        const w = numberArray(options.world, 4, 'AoiWorld: world ([minX, minY, maxX, maxY])');
        M.HEAPF64.set([w[0], w[1]], (s + AS.world_min) >>> 3);
        M.HEAPF64.set([w[2], w[3]], (s + AS.world_max) >>> 3);
      }
      if (options.hysteresis !== undefined) M.HEAPF64[(s + AS.hysteresis) >>> 3] = number(options.hysteresis, 'AoiWorld', 'hysteresis');
      if (options.skin !== undefined) M.HEAPF64[(s + AS.skin) >>> 3] = number(options.skin, 'AoiWorld', 'skin');
      for (const [key, off] of [['maxDepth', AS.max_depth], ['splitThreshold', AS.split_threshold]]) {
        if (options[key] !== undefined) {
          number(options[key], 'AoiWorld', key);
          if (!Number.isInteger(options[key]) || options[key] < 0 || options[key] > 0x7fffffff) {
            throw invalid(`AoiWorld: ${key} must be an integer >= 0 (got ${options[key]})`);
          }
          M.HEAP32[(s + off) >>> 2] = options[key];
        }
      }
      const out = s + at('quadrant_aoi_settings');
      check(M._quadrant_aoi_create(s, out));
      super(u32(out), M._quadrant_aoi_destroy);
      this._cap = 64;
    }
    /** Adds entity id at (x, y); it joins the relation at the next tick. */
    add(id, x, y, viewRadius, options = {}) {
      knownKeys(options, ['mode', 'layers', 'bodyRadius'], 'add');
      const mode = choice(MODES, options.mode ?? 'both', 'add', 'mode');
      const layers = layers32(options.layers, 'add');
      number(x, 'add', 'x');
      number(y, 'add', 'y');
      number(viewRadius, 'add', 'viewRadius');
      const body = number(options.bodyRadius ?? 0, 'add', 'bodyRadius');
      byId(this, 'add', id, (a, lo, hi) => check(M._quadrant_aoi_add(a, lo, hi, x, y, viewRadius, mode, layers, body)));
    }
    /** Moves entity id at the next tick (the last move before a tick wins). */
    move(id, x, y) {
      number(x, 'move', 'x');  // one call each: a move is per entity per tick, no array for it
      number(y, 'move', 'y');
      byId(this, 'move', id, (a, lo, hi) => check(M._quadrant_aoi_move(a, lo, hi, x, y)));
    }
    /** Moves n entities in one call: ids[i] to (xy[2i], xy[2i+1]). Checked whole first: on error none moved. */
    moveMany(ids, xy) {
      const a = this._live('moveMany');
      anyArray(ids, undefined, 'moveMany: ids');
      const n = ids.length;
      numberArray(xy, 2 * n, 'moveMany: xy (2 numbers per id)');
      const ip = buf('a', n * 8 + 8), xp = buf('b', n * 16 + 8);
      const U = M.HEAPU32;
      for (let i = 0; i < n; ++i) {
        checkId(ids[i], 'moveMany');
        U[(ip >>> 2) + 2 * i] = ids[i] % TWO32;
        U[(ip >>> 2) + 2 * i + 1] = Math.floor(ids[i] / TWO32);
      }
      M.HEAPF64.set(xy, xp >>> 3);
      check(M._quadrant_aoi_move_many(a, ip, xp, n));
    }
    /** A new view radius at the next tick. */
    setViewRadius(id, r) {
      number(r, 'setViewRadius', 'the radius');
      byId(this, 'setViewRadius', id, (a, lo, hi) => check(M._quadrant_aoi_set_view_radius(a, lo, hi, r)));
    }
    /** A new layer mask at the next tick. */
    setLayers(id, layers) {
      byId(this, 'setLayers', id, (a, lo, hi) => check(M._quadrant_aoi_set_layers(a, lo, hi, layers32(layers, 'setLayers'))));
    }
    /** Removes entity id at the next tick (which reports a Leave for each of its pairs). */
    remove(id) {
      byId(this, 'remove', id, (a, lo, hi) => check(M._quadrant_aoi_remove(a, lo, hi)));
    }
    /** Applies every change since the last tick; returns its events ordered by (watcher, target). */
    tick() {
      const a = this._live('tick'), p = small();
      check(M._quadrant_aoi_tick(a, p, p + 8));
      const ev = u32(p), n = u32(p + 8), out = new Array(n);
      for (let i = 0; i < n; ++i) {
        const e = ev + i * EV.size;
        out[i] = { kind: M.HEAP32[(e + EV.kind) >>> 2] === 0 ? 'enter' : 'leave', watcher: u64(e + EV.watcher),
          target: u64(e + EV.target) };
      }
      return out;
    }
    /** The ids `watcher` saw at the last tick, ascending. */
    visible(watcher) {
      return byId(this, 'visible', watcher, (a, lo, hi) => idList(this, (o, cap, c) => M._quadrant_aoi_visible(a, lo, hi, o, cap, c)));
    }
    /** The ids that saw `target` at the last tick, ascending. */
    watchers(target) {
      return byId(this, 'watchers', target, (a, lo, hi) => idList(this, (o, cap, c) => M._quadrant_aoi_watchers(a, lo, hi, o, cap, c)));
    }
    /** The ids in `layers` whose body box (at the last tick) the 2D shape touches, ascending. */
    query(s, layers) {
      const a = this._live('query'), sp = writeShape(s, 2), l = layers32(layers, 'query');
      return idList(this, (o, cap, c) => M._quadrant_aoi_query_into(a, sp, l, o, cap, c));
    }
    /** True when id is present (counting changes not yet ticked). */
    contains(id) {
      return byId(this, 'contains', id, (a, lo, hi) => M._quadrant_aoi_contains(a, lo, hi) !== 0);
    }
    /** Entities in the relation as of the last tick. */
    get size() { return M._quadrant_aoi_size(this._live('size')); }
    /** Pairs (watcher sees target) as of the last tick. */
    get pairCount() { return M._quadrant_aoi_pair_count(this._live('pairCount')); }
    /** [x, y] of id as of the last tick. */
    position(id) {
      const p = small();
      byId(this, 'position', id, (a, lo, hi) => check(M._quadrant_aoi_position(a, lo, hi, p)));
      return [f64(p), f64(p + 8)];
    }
    /** Checks every invariant by brute force (O(N^2), for tests). */
    validate() { check(M._quadrant_aoi_validate(this._live('validate'))); }
  }

  // ---- streaming ----

  const SC = { tree: at('quadrant_streamer_config.tree'), margin: at('quadrant_streamer_config.unload_margin'),
    perUpdate: at('quadrant_streamer_config.max_loads_per_update'),
    inFlight: at('quadrant_streamer_config.max_loads_in_flight'), size: at('quadrant_streamer_config') };
  const SRC = { hasFrustum: at('quadrant_stream_source.has_frustum'), rowMajor: at('quadrant_stream_source.matrix_row_major'),
    clip: at('quadrant_stream_source.clip_zero_to_one'), matrix: at('quadrant_stream_source.matrix'),
    position: at('quadrant_stream_source.position'), radius: at('quadrant_stream_source.prefetch_radius'),
    size: at('quadrant_stream_source') };
  const UP = {};
  for (const f of ['loads', 'load_count', 'unloads', 'unload_count', 'cancels', 'cancel_count', 'stats']) {
    UP[f] = at(`quadrant_stream_update.${f}`);
  }
  const LOAD = { id: at('quadrant_stream_load.id'), distance: at('quadrant_stream_load.distance'), size: at('quadrant_stream_load') };
  const STAT_FIELDS = [['nodesVisited', 'nodes_visited'], ['boxTests', 'box_tests'], ['keptTests', 'kept_tests'],
    ['wanted', 'wanted'], ['dequeued', 'dequeued'], ['queued', 'queued'], ['loading', 'loading'], ['loaded', 'loaded']];

  function limit(v, what, name) {
    number(v, what, name);
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw invalid(`${what}: ${name} must be an integer >= 0 (got ${v})`);
    return v;
  }

  /** Loads what the cameras see: an octree of 3D boxes named by ids, and per update the loads, unloads and
   * cancels to do (docs/streaming.md). */
  class Streamer extends Native {
    constructor(options) {
      knownKeys(options, ['world', 'scalar', 'placement', 'maxDepth', 'splitThreshold', 'minNodeSize', 'unloadMargin',
        'maxLoadsPerUpdate', 'maxLoadsInFlight'], 'Streamer');
      const c = buf('streamer', SC.size + 8);
      M._quadrant_streamer_config_init(c, choice(SCALARS, options.scalar ?? 'double', 'Streamer', 'scalar'));
      const w = numberArray(options.world, 6, 'Streamer: world ([minX, minY, minZ, maxX, maxY, maxZ])');
      const t = c + SC.tree;
      M.HEAPF64.set([w[0], w[1], w[2]], (t + CFG.min) >>> 3);
      M.HEAPF64.set([w[3], w[4], w[5]], (t + CFG.max) >>> 3);
      M.HEAP32[(t + CFG.placement) >>> 2] = choice(PLACEMENTS, options.placement ?? 'loose', 'Streamer', 'placement');
      if (options.maxDepth !== undefined) M.HEAP32[(t + CFG.depth) >>> 2] = limit(options.maxDepth, 'Streamer', 'maxDepth');
      if (options.splitThreshold !== undefined) M.HEAP32[(t + CFG.split) >>> 2] = limit(options.splitThreshold, 'Streamer', 'splitThreshold');
      if (options.minNodeSize !== undefined) M.HEAPF64[(t + CFG.minSize) >>> 3] = number(options.minNodeSize, 'Streamer', 'minNodeSize');
      if (options.unloadMargin !== undefined) M.HEAPF64[(c + SC.margin) >>> 3] = number(options.unloadMargin, 'Streamer', 'unloadMargin');
      if (options.maxLoadsPerUpdate !== undefined) M.HEAPU32[(c + SC.perUpdate) >>> 2] = limit(options.maxLoadsPerUpdate, 'Streamer', 'maxLoadsPerUpdate');
      if (options.maxLoadsInFlight !== undefined) M.HEAPU32[(c + SC.inFlight) >>> 2] = limit(options.maxLoadsInFlight, 'Streamer', 'maxLoadsInFlight');
      check(M._quadrant_streamer_create(c, c + SC.size));
      super(u32(c + SC.size), M._quadrant_streamer_destroy);
    }
    _box(args, what) {
      numbers(args, 0, 6, what, BOX_NAMES[3]);
      const p = small();
      M.HEAPF64.set([args[0], args[1], args[2]], p >>> 3);
      M.HEAPF64.set([args[3], args[4], args[5]], (p + 32) >>> 3);
      return p;
    }
    /** Adds an Unloaded object with the box [min, max]. */
    add(id, minX, minY, minZ, maxX, maxY, maxZ) {
      const p = this._box([minX, minY, minZ, maxX, maxY, maxZ], 'add');
      byId(this, 'add', id, (s, lo, hi) => check(M._quadrant_streamer_add(s, lo, hi, p, p + 32)));
    }
    /** Removes the object at once; returns the state it was in ('loading': abandon that load; 'loaded': release it). */
    remove(id) {
      const p = small();
      byId(this, 'remove', id, (s, lo, hi) => check(M._quadrant_streamer_remove(s, lo, hi, p)));
      return STREAM_STATES[u32(p)];
    }
    /** Gives the object a new box; the next update decides what that changes. */
    move(id, minX, minY, minZ, maxX, maxY, maxZ) {
      const p = this._box([minX, minY, minZ, maxX, maxY, maxZ], 'move');
      byId(this, 'move', id, (s, lo, hi) => check(M._quadrant_streamer_move(s, lo, hi, p, p + 32)));
    }
    /** A finished load: true for Loading -> Loaded, false for one that came too late (drop what was loaded). */
    markLoaded(id) {
      const p = small();
      byId(this, 'markLoaded', id, (s, lo, hi) => check(M._quadrant_streamer_mark_loaded(s, lo, hi, p)));
      return M.HEAP32[p >>> 2] !== 0;
    }
    /** A failed load: true for Loading -> Unloaded (asked again later while wanted). */
    markFailed(id) {
      const p = small();
      byId(this, 'markFailed', id, (s, lo, hi) => check(M._quadrant_streamer_mark_failed(s, lo, hi, p)));
      return M.HEAP32[p >>> 2] !== 0;
    }
    /** New caps from the next update on. */
    setLimits(maxLoadsPerUpdate, maxLoadsInFlight) {
      check(M._quadrant_streamer_set_limits(this._live('setLimits'), limit(maxLoadsPerUpdate, 'setLimits', 'maxLoadsPerUpdate'),
        limit(maxLoadsInFlight, 'setLimits', 'maxLoadsInFlight')));
    }
    /** One frame for the sources ({position: [x, y, z], prefetchRadius, frustum?: {matrix, rowMajor, clipZeroToOne}}):
     * what to load (nearest first), unload and cancel. */
    update(sources = []) {
      const s = this._live('update');
      anyArray(sources, undefined, 'update: sources');
      const n = sources.length, sp = buf('sources', n * SRC.size + 8);
      M.HEAPU8.fill(0, sp, sp + n * SRC.size);
      for (let i = 0; i < n; ++i) {
        const src = sources[i], p = sp + i * SRC.size;
        knownKeys(src, ['position', 'prefetchRadius', 'frustum'], 'update: a source');
        M.HEAPF64.set(numberArray(src.position, 3, 'update: position'), (p + SRC.position) >>> 3);
        M.HEAPF64[(p + SRC.radius) >>> 3] = number(src.prefetchRadius ?? 0, 'update', 'prefetchRadius');
        if (src.frustum != null) {
          knownKeys(src.frustum, ['matrix', 'rowMajor', 'clipZeroToOne'], 'update: a frustum');
          M.HEAP32[(p + SRC.hasFrustum) >>> 2] = 1;
          M.HEAP32[(p + SRC.rowMajor) >>> 2] = src.frustum.rowMajor ? 1 : 0;
          M.HEAP32[(p + SRC.clip) >>> 2] = src.frustum.clipZeroToOne ? 1 : 0;
          M.HEAPF64.set(numberArray(src.frustum.matrix, 16, 'update: frustum matrix'), (p + SRC.matrix) >>> 3);
        }
      }
      const out = buf('update', 128);
      check(M._quadrant_streamer_update(s, sp, n, out));
      const loads = new Array(u32(out + UP.load_count)), lp = u32(out + UP.loads);
      for (let i = 0; i < loads.length; ++i) {
        loads[i] = { id: u64(lp + i * LOAD.size + LOAD.id), distance: f64(lp + i * LOAD.size + LOAD.distance) };
      }
      const ids = (ptrOff, countOff) => {
        const q = u32(out + ptrOff), r = new Array(u32(out + countOff));
        for (let i = 0; i < r.length; ++i) r[i] = u64(q + 8 * i);
        return r;
      };
      const stats = {};
      for (const [js, c] of STAT_FIELDS) stats[js] = u32(out + UP.stats + at(`quadrant_stream_stats.${c}`));
      return { loads, unloads: ids(UP.unloads, UP.unload_count), cancels: ids(UP.cancels, UP.cancel_count), stats };
    }
    /** True when id is present. */
    contains(id) {
      return byId(this, 'contains', id, (s, lo, hi) => M._quadrant_streamer_contains(s, lo, hi) !== 0);
    }
    /** 'unloaded', 'queued', 'loading' or 'loaded'. */
    state(id) {
      const p = small();
      byId(this, 'state', id, (s, lo, hi) => check(M._quadrant_streamer_state(s, lo, hi, p)));
      return STREAM_STATES[u32(p)];
    }
    /** The object's box: [minX, minY, minZ, maxX, maxY, maxZ]. */
    bounds(id) {
      const p = small();
      byId(this, 'bounds', id, (s, lo, hi) => check(M._quadrant_streamer_bounds(s, lo, hi, p, p + 32)));
      return [f64(p), f64(p + 8), f64(p + 16), f64(p + 32), f64(p + 40), f64(p + 48)];
    }
    /** Objects present. */
    get size() { return M._quadrant_streamer_size(this._live('size')); }
    /** Checks the bookkeeping (for tests). */
    validate() { check(M._quadrant_streamer_validate(this._live('validate'))); }
  }

  return Object.freeze({
    version: M.UTF8ToString(M._quadrant_version()),
    ALL_LAYERS, Shape, QuadrantError, LayerMatrix, QuadTree, Octree, ContactTracker, AoiWorld, Streamer,
    // The size of the module's memory in bytes, for the package's tests of leaks.
    _memoryBytes: () => M.HEAPU8.length,
  });
}
