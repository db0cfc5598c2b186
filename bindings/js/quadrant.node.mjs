// SPDX-License-Identifier: MIT
// quadrant's entry under Node.js (package.json's "node" condition): quadrant.mjs, with a load() that reads the .wasm
// through node:fs. It is a file of its own so that a bundle for the browser, which resolves the package to
// quadrant.mjs, never meets a node: import.
import { readFile } from 'node:fs/promises';
import { load as loadModule } from './quadrant.mjs';

export * from './quadrant.mjs';

const WASM = 'quadrant_wasm.wasm';
const DIST = new URL('./dist/', import.meta.url);

/**
 * Loads the WebAssembly module and returns the library bound to it. The .wasm is read from dist/ beside this file;
 * options.wasmBinary gives the bytes instead; options.locateFile('quadrant_wasm.wasm', dist folder URL) names
 * another file (a path or a file: URL, read here) or a URL to fetch (http, https).
 */
export async function load(options = {}) {
  if (options === null || typeof options !== 'object' || options.wasmBinary) return loadModule(options);
  const { locateFile, ...rest } = options;
  let file = new URL(WASM, DIST);
  if (locateFile) {
    if (typeof locateFile !== 'function') return loadModule(options);
    const where = String(locateFile(WASM, DIST.href));
    // A scheme of two letters or more makes a URL (C:\dir is a Windows path).
    const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(where);
    if (scheme !== null && scheme[1].toLowerCase() !== 'file') {
      const response = await fetch(where);
      if (!response.ok) {
        throw new Error(`quadrant: cannot fetch the WebAssembly module ${where} (HTTP ${response.status})`);
      }
      return loadModule({ ...rest, wasmBinary: new Uint8Array(await response.arrayBuffer()) });
    }
    file = scheme !== null ? new URL(where) : where;
  }
  let wasmBinary;
  try {
    wasmBinary = await readFile(file);
  } catch (e) {
    throw new Error(`quadrant: cannot read the WebAssembly module ${file} (${e.code || e.message}). In a bundle ` +
      'for node, keep quadrant-wasm external or pass load({ wasmBinary }) or load({ locateFile }): see docs/web.md',
    { cause: e });
  }
  return loadModule({ ...rest, wasmBinary });
}
export default load;
