// SPDX-License-Identifier: MIT
// (d) esbuild, for the browser: --bundle --format=esm --loader:.wasm=file. 'quadrant-wasm/wasm' is the .wasm, which
// the file loader copies beside the bundle and imports as its path; load() fetches it through locateFile.
import load from 'quadrant-wasm';
import wasmUrl from 'quadrant-wasm/wasm';
import { run } from '../page.js';

const locateFile = () => new URL(wasmUrl, import.meta.url).href;
// The worker is a second entry point of the same build (worker.js beside this bundle).
run('esbuild', () => load({ locateFile }), new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
