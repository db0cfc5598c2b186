// SPDX-License-Identifier: MIT
// webpack 5, for the browser: no option. webpack takes the package's new URL('./dist/quadrant_wasm.wasm',
// import.meta.url) as an asset (asset/resource) and new URL('./worker.js', import.meta.url) as a worker chunk.
import load from 'quadrant-wasm';
import { run } from '../page.js';

run('webpack', () => load(), new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
