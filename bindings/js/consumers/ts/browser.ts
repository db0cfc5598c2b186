// SPDX-License-Identifier: MIT
// (b) The browser recipe of esbuild in TypeScript, type-checked under --strict with moduleResolution "bundler" (a
// bundler's resolution: the "browser" condition, the 'quadrant-wasm/wasm' subpath typed as its URL).
import load, { Shape, type Quadrant } from 'quadrant-wasm';
import wasmUrl from 'quadrant-wasm/wasm';

export async function start(canvas: HTMLCanvasElement): Promise<number> {
  const q: Quadrant = await load({ locateFile: () => new URL(wasmUrl, import.meta.url).href });
  const tree = new q.QuadTree<string>({ world: [0, 0, canvas.width, canvas.height] });
  tree.insert(10, 10, 20, 20, 'crate');
  const hits: string[] = tree.query(Shape.circle(15, 15, 3));
  tree.dispose();
  return hits.length;
}
