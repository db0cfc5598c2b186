// SPDX-License-Identifier: MIT
// (b) TypeScript under --strict: the declarations as a consumer meets them (resolved through the package's
// "types" conditions), compiled with tsc and run with node.
import load, { Shape, QuadrantError, type Handle, type LoadOptions, type QuadTree, type Quadrant } from 'quadrant-wasm';

interface Unit { id: number; box: [number, number, number, number] }

function check(q: Quadrant): string {
  let seed = 7;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return Math.floor((seed / 4294967296) * n);
  };
  const tree: QuadTree<Unit> = new q.QuadTree<Unit>({ world: [0, 0, 500, 500], placement: 'leaves' });
  const units = new Map<Handle, Unit>();
  for (let id = 0; id < 1000; ++id) {
    const x = rand(500), y = rand(500);
    const unit: Unit = { id, box: [x, y, x + 1 + rand(8), y + 1 + rand(8)] };
    units.set(tree.insert(...unit.box, unit), unit);
  }
  let hits = 0;
  for (let i = 0; i < 40; ++i) {
    const x = rand(500), y = rand(500);
    const found: Unit[] = tree.query(Shape.box(x, y, x + 60, y + 60));
    const want = [...units.values()].filter(({ box: b }) => b[0] <= x + 60 && x <= b[2] && b[1] <= y + 60 && y <= b[3]);
    const ids = (us: Unit[]): string => us.map((u) => u.id).sort((a, b) => a - b).join();
    if (ids(found) !== ids(want)) {
      throw new Error(`window at ${x}, ${y}: ${found.length} found, ${want.length} by brute force`);
    }
    hits += found.length;
  }
  tree.dispose();
  return `ts: OK (quadrant ${q.version}: 40 windows, ${hits} hits agree with brute force)`;
}

// 'quadrant-wasm/wasm' is typed as its URL (wasm.d.ts); node cannot import a .wasm, so only its type is used here.
const wasm: typeof import('quadrant-wasm/wasm').default = import.meta.resolve('quadrant-wasm/wasm');
const options: LoadOptions = { locateFile: (): string => wasm };
const q: Quadrant = await load();
console.log(check(q));
console.log(check(await load(options)).replace('ts:', 'ts: load({ locateFile }):'));
const small = new q.QuadTree<null>({ world: [0, 0, 1, 1] });
try {
  small.insert(0, 0, NaN, 1, null);
  throw new Error('a NaN box was accepted');
} catch (e) {
  if (!(e instanceof QuadrantError) || e.status !== 'invalid_argument') throw e;
} finally {
  small.dispose();
}
console.log('ts: OK (QuadrantError with its status)');
