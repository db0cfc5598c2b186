// SPDX-License-Identifier: MIT
// No bundler: the browser loads the package's files from node_modules, the bare name mapped by the page's import
// map; load() fetches the .wasm from beside quadrant.mjs.
import load from 'quadrant-wasm';
import { run } from '../page.js';

run('no bundler (import map)', () => load(), new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
