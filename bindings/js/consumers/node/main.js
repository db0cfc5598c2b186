// SPDX-License-Identifier: MIT
// (a) Node.js, ES module, the package by its name: the "node" export, load() with no options, with the bytes, with
// locateFile naming the .wasm ('quadrant-wasm/wasm') as a file and as an http URL, and a locateFile naming no file.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import load, { Shape, QuadrantError, ALL_LAYERS } from 'quadrant-wasm';
import { check } from '../check.js';
import { serve } from '../serve.js';

const pkg = createRequire(import.meta.url)('quadrant-wasm/package.json');
const wasm = new URL(import.meta.resolve('quadrant-wasm/wasm'));
const q = await load();
if (q.version !== pkg.version) throw new Error(`q.version ${q.version}, package.json ${pkg.version}`);
if (q.Shape !== Shape || q.QuadrantError !== QuadrantError || ALL_LAYERS !== 0xffffffff) {
  throw new Error('the named exports are not those of load()');
}
console.log(check(q, 'node: load()'));
console.log(check(await load({ wasmBinary: await readFile(wasm) }), 'node: load({ wasmBinary })'));
console.log(check(await load({ locateFile: () => wasm.href }), 'node: load({ locateFile }), a file: URL'));
const server = await serve(path.dirname(fileURLToPath(wasm)));
try {
  const url = `http://127.0.0.1:${server.address().port}/${path.basename(wasm.pathname)}`;
  console.log(check(await load({ locateFile: () => url }), 'node: load({ locateFile }), an http URL'));
} finally {
  server.close();
}
const missing = await load({ locateFile: () => '/nonexistent/quadrant_wasm.wasm' }).then(() => null, (e) => e);
if (!(missing instanceof Error) || !/cannot read the WebAssembly module/.test(missing.message)) {
  throw new Error(`a locateFile naming no file: ${missing}`);
}
console.log('node: OK (a locateFile naming no file rejects with the path)');
