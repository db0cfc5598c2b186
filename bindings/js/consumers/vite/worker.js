// SPDX-License-Identifier: MIT
// (f) The Web Worker of the vite consumer: load() with no option, as on the page.
import load from 'quadrant-wasm';
import { serve } from '../worker-main.js';

serve(() => load());
