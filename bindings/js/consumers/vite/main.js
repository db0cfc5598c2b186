// SPDX-License-Identifier: MIT
// (e) vite build: no option. vite takes the package's new URL('./dist/quadrant_wasm.wasm', import.meta.url) as an
// asset (emitted into assets/ with a hash) and the worker's new URL('./worker.js', import.meta.url) as a worker.
import load from 'quadrant-wasm';
import { run } from '../page.js';

run('vite', () => load(), new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
