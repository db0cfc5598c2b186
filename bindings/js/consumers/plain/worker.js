// SPDX-License-Identifier: MIT
// The no-bundler consumer's worker. A module worker has no import map: it imports the package by its path.
import load from '../node_modules/quadrant-wasm/quadrant.mjs';
import { serve } from '../worker-main.js';

serve(() => load());
