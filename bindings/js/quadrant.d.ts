// SPDX-License-Identifier: MIT
/// <reference lib="esnext.disposable" />
// Types of the quadrant WebAssembly package (quadrant.mjs). Guide: docs/web.md; semantics: docs/queries.md,
// docs/aoi.md, docs/streaming.md.

/** Every layer: the default mask. */
export declare const ALL_LAYERS: 0xffffffff;

/** Names one object of one tree: slot and generation packed in an exact number. A handle goes stale when its object
 * is erased, the tree cleared or rebuilt by assign; calls given it then throw. (A slot reused 2^21 times accepts a
 * handle that old again.) */
export type Handle = number;

/** A layer bit mask: an integer in [-2^31, 2^32); negative int32s (such as ~0) are read as their bits. An object's
 * mask may not be 0 (no query could see it): insert, assign and setLayers refuse it. */
export type Layers = number;

/** Which of the 32 layers collide with which (Unity's layer collision matrix; Box2D's category and mask bits), for
 * pairs, forEachPair, countPairs and ContactTracker.update: two objects make a pair when some layer of one collides
 * with some layer of the other. Symmetric by construction. A plain JavaScript value, usable with the trees of any
 * load(); nothing to dispose. Layer indexes are integers in 0..31; a wrong type throws a TypeError, a value out of
 * range a QuadrantError, and either leaves the matrix unchanged. */
export declare class LayerMatrix {
  /** No layer collides with any; or a copy of `other`. */
  constructor(other?: LayerMatrix);
  /** Every layer collides with every layer (the pairs of a walk without a mask). */
  static all(): LayerMatrix;
  /** Makes every layer of mask a collide with every layer of mask b (and b with a), keeping what was set:
   * "players against anything" is between(PLAYERS, ALL_LAYERS). Returns this matrix. */
  between(a: Layers, b: Layers): this;
  /** Makes layers a and b (0..31, may be equal) collide, or not (collide = false), both ways. Returns this matrix. */
  set(a: number, b: number, collide?: boolean): this;
  /** Whether layers a and b (0..31) collide. */
  collides(a: number, b: number): boolean;
  /** The layers that collide with some layer of `layers`, as a mask in [0, 2^32). */
  partners(layers: Layers): number;
  /** The layers that collide with at least one layer: objects in none of them make no pair. */
  active(): number;
  /** Whether objects with layer masks a and b make a pair. */
  allows(a: Layers, b: Layers): boolean;
  /** True when the same layer pairs collide in both. */
  equals(other: LayerMatrix): boolean;
}

/** Where a tree keeps its objects (docs/placements.md). */
export type Placement = 'loose' | 'parent' | 'leaves';
/** The scalar a tree stores coordinates in; 'float' rounds every coordinate to the nearest float. */
export type Scalar = 'float' | 'double';

/** What every failed call throws: the library's message; nothing changed. An argument of the wrong type (a string,
 * null or an array where a number goes, an object not made by Shape where a shape goes) throws a TypeError naming
 * it instead, before anything changes. */
export declare class QuadrantError extends Error {
  constructor(message: string, status: QuadrantError['status']);
  readonly name: 'QuadrantError';
  /** invalid_argument: bad input; logic_error: misuse (such as a call after dispose). */
  readonly status: 'invalid_argument' | 'logic_error' | 'out_of_memory' | 'internal_error';
}

/** A query shape made by one of the Shape functions; dims says which trees take it. */
export interface QueryShape<D extends 2 | 3 = 2 | 3> {
  readonly kind: number;
  readonly dims: D;
}

/** Query shapes (exact tests; docs/queries.md). 2D: box, point, circle, ring, ellipse, sector, orientedBox, polygon,
 * segment; 3D: box3, point3, sphere, segment3, frustum. Angles are radians, counter-clockwise. */
export declare const Shape: {
  box(minX: number, minY: number, maxX: number, maxY: number): QueryShape<2>;
  box3(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): QueryShape<3>;
  point(x: number, y: number): QueryShape<2>;
  point3(x: number, y: number, z: number): QueryShape<3>;
  circle(x: number, y: number, radius: number): QueryShape<2>;
  sphere(x: number, y: number, z: number, radius: number): QueryShape<3>;
  /** Between the two radii (inclusive). */
  ring(x: number, y: number, inner: number, outer: number): QueryShape<2>;
  /** Semi-axes rx, ry, rotated by angle. */
  ellipse(x: number, y: number, rx: number, ry: number, angle?: number): QueryShape<2>;
  /** A pie slice: apex (x, y), facing (dx, dy), halfAngle in [0, pi]. */
  sector(x: number, y: number, dx: number, dy: number, radius: number, halfAngle: number): QueryShape<2>;
  /** Center, half extents, rotation. */
  orientedBox(x: number, y: number, hx: number, hy: number, angle?: number): QueryShape<2>;
  /** A convex polygon: [x0, y0, x1, y1, ...]. */
  polygon(xy: ArrayLike<number>): QueryShape<2>;
  segment(x0: number, y0: number, x1: number, y1: number): QueryShape<2>;
  segment3(x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): QueryShape<3>;
  /** A camera's view-projection matrix (16 numbers; column-major as WebGL/three.js unless rowMajor; clip depth
   * -1..1 as WebGL unless clipZeroToOne, as WebGPU). */
  frustum(matrix16: ArrayLike<number>, options?: { rowMajor?: boolean; clipZeroToOne?: boolean }): QueryShape<3>;
};

/** How a tree is made. world: the root cell, [minX, minY, maxX, maxY] or [minX, minY, minZ, maxX, maxY, maxZ]. */
export interface TreeOptions {
  world: ArrayLike<number>;
  /** default 'double' */
  scalar?: Scalar;
  /** default 'loose' */
  placement?: Placement;
  /** the deepest level (default 8) */
  maxDepth?: number;
  /** a leaf splits above this many entries (default 32) */
  splitThreshold?: number;
  /** no cell side below this (default 0) */
  minNodeSize?: number;
}

/** One node of a tree, for drawing it. */
export interface NodeInfo {
  cellMin: number[];
  cellMax: number[];
  /** what queries prune by (may be infinite: docs/placements.md) */
  boundsMin: number[];
  boundsMax: number[];
  /** root = 0 */
  depth: number;
  leaf: boolean;
  id: number;
  /** the parent's id; -1 for the root */
  parent: number;
  /** objects this node lists */
  items: number;
  /** objects in the whole subtree */
  count: number;
  /** union of the layer masks in the subtree */
  layers: number;
}

export interface TreeStats {
  nodes: number;
  leaves: number;
  depth: number;
  objects: number;
  references: number;
  bytes: number;
  /** objects lying outside the world (they cost queries time: docs/placements.md) */
  outsideWorld: number;
  rootEntries: number;
}

export interface RayHit<T> {
  value: T;
  handle: Handle;
  /** where the ray enters the box, as a fraction of the segment in [0, 1] */
  t: number;
}

export interface Neighbor<T> {
  value: T;
  handle: Handle;
  /** from the point to the box (0 inside) */
  distance: number;
}

/** What QuadTree and Octree share. T: the value stored with each object (any JavaScript value). */
export interface SpatialTree<T, D extends 2 | 3> {
  /** 2 or 3. */
  readonly dims: D;
  /** The number of objects. */
  readonly size: number;
  /** The options the tree was made with, defaults filled in. */
  readonly config: Required<TreeOptions>;
  /** True after dispose(). */
  readonly disposed: boolean;

  /** Replaces the contents with n objects built at once, several times faster than n inserts: boxes holds
   * 2 * dims numbers per object (min..., max...); values[i] (default i) and layers[i] (default every layer) go with
   * object i. Returns the handles, object i's at i. Throws naming the first bad object ("item i"), tree unchanged. */
  assign(boxes: ArrayLike<number>, values: ArrayLike<T>, layers?: ArrayLike<Layers> | null): Float64Array;
  /** assign without values: object i's value is the number i (so the tree's T must take numbers). */
  assign(this: SpatialTree<number, D>, boxes: ArrayLike<number>, values?: null, layers?: ArrayLike<Layers> | null): Float64Array;
  /** Re-roots the tree over a new world ([min..., max...]; other settings stay), keeping every object and handle:
   * for objects that outgrew the world (stats().outsideWorld counts them). */
  rebuild(world: ArrayLike<number>): void;
  /** Removes the object. */
  erase(handle: Handle): void;
  /** New boxes for many objects in one call: handles[i] gets boxes[2 * dims * i ...]; checked whole first. */
  moveMany(handles: ArrayLike<Handle>, boxes: ArrayLike<number>): void;
  setLayers(handle: Handle, layers: Layers): void;
  setValue(handle: Handle, value: T): void;
  value(handle: Handle): T;
  layers(handle: Handle): number;
  /** [min..., max...] */
  bounds(handle: Handle): number[];
  contains(handle: Handle): boolean;
  /** Removes every object; every handle goes stale. */
  clear(): void;

  /** The values of the objects in `layers` whose boxes the shape touches, into `out` when given (reused). */
  query(shape: QueryShape<D>, layers?: Layers, out?: T[]): T[];
  /** The handles of the same objects, in the same order. */
  queryHandles(shape: QueryShape<D>, layers?: Layers): Float64Array;
  /** What the last query, queryBox, queryHandles or count walked: nodes visited, box tests, hits. */
  readonly lastQuery: { nodesVisited: number; boxTests: number; hits: number };
  /** How many objects the shape touches. */
  count(shape: QueryShape<D>, layers?: Layers): number;
  /** Every pair of objects whose boxes overlap (touching counts), once: of the objects in `layers` (a mask), or the
   * pairs a LayerMatrix lets through (pruned at nodes). */
  pairs(layers?: Layers | LayerMatrix): Array<[T, T]>;
  /** Calls fn for every such pair (fn returning false stops). The pairs are those of the call's start, so fn may use
   * and change the tree; each value is read as fn is called (a pair with an object fn erased gives undefined for it;
   * its handle still says which object it was). Returns the calls made. */
  forEachPair(fn: (a: T, b: T, handleA: Handle, handleB: Handle) => boolean | void,
              layers?: Layers | LayerMatrix): number;
  countPairs(layers?: Layers | LayerMatrix): number;
  /** Pairs of an object here (in layersA) and one of `other` (in layersB) whose boxes overlap: [here, there].
   * other: another tree of the same dims and scalar, from the same load(). */
  pairsWith<U>(other: SpatialTree<U, D>, layersA?: Layers, layersB?: Layers): Array<[T, U]>;
  /** The leaves whose cells the shape touches, in pre-order. */
  queryLeaves(shape: QueryShape<D>, skipEmpty?: boolean): NodeInfo[];
  /** Every leaf (their cells tile the world): to draw the tree. */
  leaves(): NodeInfo[];
  stats(): TreeStats;
  /** Checks every invariant; throws naming the first broken one. */
  validate(): void;
  /** Frees the native tree; later calls throw. */
  dispose(): void;
  /** dispose(): `using tree = new q.QuadTree(...)` frees the tree at the end of the block (TypeScript 5.2+). */
  [Symbol.dispose](): void;
}

export interface RayOptions {
  layers?: Layers;
  /** at most this many hits, nearest first (1: the first hit alone) */
  limit?: number;
}
export interface NearestOptions {
  layers?: Layers;
  /** inclusive; default Infinity */
  maxDistance?: number;
}

export interface QuadTree<T = unknown> extends SpatialTree<T, 2> {
  insert(minX: number, minY: number, maxX: number, maxY: number, value: T, layers?: Layers): Handle;
  /** query(Shape.box(minX, minY, maxX, maxY), layers, out) without making the shape: the fastest window query. */
  queryBox(minX: number, minY: number, maxX: number, maxY: number, layers?: Layers, out?: T[]): T[];
  move(handle: Handle, minX: number, minY: number, maxX: number, maxY: number): void;
  /** The objects the segment crosses, nearest first. */
  raycast(x0: number, y0: number, x1: number, y1: number, options?: RayOptions): Array<RayHit<T>>;
  /** The k objects nearest to (x, y), nearest first. */
  nearest(x: number, y: number, k?: number, options?: NearestOptions): Array<Neighbor<T>>;
  /** The leaf whose cell holds the point. */
  locate(x: number, y: number): NodeInfo;
}

export interface Octree<T = unknown> extends SpatialTree<T, 3> {
  insert(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number, value: T,
         layers?: Layers): Handle;
  /** query(Shape.box3(...), layers, out) without making the shape. */
  queryBox(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number, layers?: Layers,
           out?: T[]): T[];
  move(handle: Handle, minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): void;
  raycast(x0: number, y0: number, z0: number, x1: number, y1: number, z1: number,
          options?: RayOptions): Array<RayHit<T>>;
  nearest(x: number, y: number, z: number, k?: number, options?: NearestOptions): Array<Neighbor<T>>;
  locate(x: number, y: number, z: number): NodeInfo;
}

/** Two objects whose boxes overlap, a the one of the lower slot (the handle's low 32 bits). */
export interface Contact<T> {
  a: Handle;
  b: Handle;
  /** a's value; in an ended contact, undefined when a was erased (its handle is then stale) */
  valueA: T;
  valueB: T;
}

/** What one ContactTracker.update found; each list sorted by (slot of a, slot of b). */
export interface ContactStep<T> {
  /** pairs that overlap now and did not at the last step */
  begun: Array<Contact<T>>;
  /** pairs that did and do not now: moved apart, left the layers, or an object erased */
  ended: Array<Contact<T>>;
  /** the number of pairs overlapping now */
  count: number;
}

/** Which pairs of one tree began and ended overlapping since the last step (Unity's OnTriggerEnter / OnTriggerExit,
 * Box2D's begin / end touch events; docs/contacts.md). O(pairs) a step. It follows one tree: another is refused
 * (QuadrantError) until clear(). Bad input throws (TypeError for a wrong type) and changes nothing. */
export interface ContactTracker<T = unknown> {
  /** One step over the tree's pairs in `filter` (a layer mask, default every layer, or a LayerMatrix). */
  update(tree: SpatialTree<T, 2> | SpatialTree<T, 3>, filter?: Layers | LayerMatrix): ContactStep<T>;
  /** Every pair overlapping at the last update, sorted as the events; [] before the first and after clear(). */
  contacts(): Array<Contact<T>>;
  /** Forgets every contact and the tree: the next update reports all of its pairs as begun. */
  clear(): void;
  /** Frees the native tracker; later calls throw. */
  dispose(): void;
  /** dispose(), for `using`. */
  [Symbol.dispose](): void;
  readonly disposed: boolean;
}

export interface AoiOptions {
  /** where entities usually are, [minX, minY, maxX, maxY] (outside still works, slower); default [0, 0, 1000, 1000] */
  world?: ArrayLike<number>;
  /** default 'float' */
  scalar?: Scalar;
  /** a visible pair stays visible until its distance exceeds view radius + this; default 0 */
  hysteresis?: number;
  /** re-indexing distance (default 0: automatic) */
  skin?: number;
  /** of the internal trees: default 8 */
  maxDepth?: number;
  /** of the internal trees: default 16 */
  splitThreshold?: number;
}

export interface AoiEvent {
  kind: 'enter' | 'leave';
  /** the id that sees (or no longer sees) */
  watcher: number;
  /** the id seen */
  target: number;
}

export interface AoiAddOptions {
  /** 'watcher' sees markers and is seen by nobody; 'marker' is seen and sees nothing; default 'both' */
  mode?: 'watcher' | 'marker' | 'both';
  layers?: Layers;
  /** half side of the body box, for query (default 0) */
  bodyRadius?: number;
}

/** Who sees whom (docs/aoi.md). Ids are safe integers >= 0; changes take effect at the next tick. */
export interface AoiWorld {
  add(id: number, x: number, y: number, viewRadius: number, options?: AoiAddOptions): void;
  move(id: number, x: number, y: number): void;
  /** ids[i] moves to (xy[2i], xy[2i + 1]); checked whole first. */
  moveMany(ids: ArrayLike<number>, xy: ArrayLike<number>): void;
  setViewRadius(id: number, viewRadius: number): void;
  setLayers(id: number, layers: Layers): void;
  remove(id: number): void;
  /** Applies the changes; the tick's events ordered by (watcher, target). */
  tick(): AoiEvent[];
  /** Ids `watcher` saw at the last tick, ascending. */
  visible(watcher: number): number[];
  /** Ids that saw `target` at the last tick, ascending. */
  watchers(target: number): number[];
  /** Ids in `layers` whose body box the shape touches (a skill's area), ascending. */
  query(shape: QueryShape<2>, layers?: Layers): number[];
  contains(id: number): boolean;
  readonly size: number;
  readonly pairCount: number;
  /** [x, y] as of the last tick. */
  position(id: number): [number, number];
  validate(): void;
  dispose(): void;
  /** dispose(), for `using`. */
  [Symbol.dispose](): void;
  readonly disposed: boolean;
}

export interface StreamerOptions extends TreeOptions {
  /** [minX, minY, minZ, maxX, maxY, maxZ] */
  world: ArrayLike<number>;
  /** how far past the wanted region a resident object stays (default 0) */
  unloadMargin?: number;
  /** default 16; 0 pauses loading */
  maxLoadsPerUpdate?: number;
  /** default 64; 0 pauses loading */
  maxLoadsInFlight?: number;
}

export type StreamState = 'unloaded' | 'queued' | 'loading' | 'loaded';

export interface StreamSource {
  /** the prefetch center and priority origin */
  position: ArrayLike<number>;
  /** default 0 */
  prefetchRadius?: number;
  frustum?: { matrix: ArrayLike<number>; rowMajor?: boolean; clipZeroToOne?: boolean } | null;
}

export interface StreamUpdate {
  /** start loading these, nearest first */
  loads: Array<{ id: number; distance: number }>;
  /** release these (were loaded), by increasing id */
  unloads: number[];
  /** abandon these loads, by increasing id */
  cancels: number[];
  stats: { nodesVisited: number; boxTests: number; keptTests: number; wanted: number; dequeued: number;
           queued: number; loading: number; loaded: number };
}

/** Loads what the cameras see (docs/streaming.md). */
export interface Streamer {
  add(id: number, minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): void;
  /** Removes at once; the state it was in ('loading': abandon the load, 'loaded': release it). */
  remove(id: number): StreamState;
  move(id: number, minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): void;
  /** true: Loading -> Loaded; false: came too late (drop what was loaded). */
  markLoaded(id: number): boolean;
  /** true: Loading -> Unloaded (asked again while wanted). */
  markFailed(id: number): boolean;
  setLimits(maxLoadsPerUpdate: number, maxLoadsInFlight: number): void;
  update(sources?: StreamSource[]): StreamUpdate;
  contains(id: number): boolean;
  state(id: number): StreamState;
  bounds(id: number): number[];
  readonly size: number;
  validate(): void;
  dispose(): void;
  /** dispose(), for `using`. */
  [Symbol.dispose](): void;
  readonly disposed: boolean;
}

/** The library bound to one loaded WebAssembly module. */
export interface Quadrant {
  readonly version: string;
  readonly ALL_LAYERS: 0xffffffff;
  readonly Shape: typeof Shape;
  readonly QuadrantError: typeof QuadrantError;
  readonly LayerMatrix: typeof LayerMatrix;
  readonly QuadTree: new <T = unknown>(options: TreeOptions) => QuadTree<T>;
  readonly Octree: new <T = unknown>(options: TreeOptions) => Octree<T>;
  readonly ContactTracker: new <T = unknown>() => ContactTracker<T>;
  readonly AoiWorld: new (options?: AoiOptions) => AoiWorld;
  readonly Streamer: new (options: StreamerOptions) => Streamer;
}

/** One of the two, or neither. */
export interface LoadOptions {
  /** the .wasm bytes (skips fetching or reading the file) */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** maps 'quadrant_wasm.wasm' to where the file is: in browsers and workers a URL to fetch (another origin needs
   * CORS); under Node.js a path or file: URL to read, or an http(s) URL to fetch */
  locateFile?: (path: string, prefix: string) => string;
}

/** Loads the module. With neither option the .wasm is read (Node.js) or fetched (browsers, workers) from dist/
 * beside the package's entry: new URL('./dist/quadrant_wasm.wasm', import.meta.url), which vite and webpack follow
 * and emit; with esbuild, import 'quadrant-wasm/wasm' (--loader:.wasm=file) and pass its URL by locateFile
 * (docs/web.md). Each call makes a separate WebAssembly instance: load once and share the result (trees of two
 * loads cannot meet in pairsWith). */
export declare function load(options?: LoadOptions): Promise<Quadrant>;
export default load;
