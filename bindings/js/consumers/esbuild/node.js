// SPDX-License-Identifier: MIT
// (c) esbuild, for node: --bundle --platform=node --format=esm --loader:.wasm=file. The bundle and the copied .wasm
// run from a folder with no node_modules; locateFile gives the node entry the file's URL, which it reads.
import load from 'quadrant-wasm';
import wasmUrl from 'quadrant-wasm/wasm';
import { check } from '../check.js';

console.log(check(await load({ locateFile: () => new URL(wasmUrl, import.meta.url).href }), 'esbuild node bundle'));
