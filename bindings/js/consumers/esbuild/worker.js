// SPDX-License-Identifier: MIT
// (f) The Web Worker of the esbuild consumer: the same recipe as its page.
import load from 'quadrant-wasm';
import wasmUrl from 'quadrant-wasm/wasm';
import { serve } from '../worker-main.js';

serve(() => load({ locateFile: () => new URL(wasmUrl, import.meta.url).href }));
