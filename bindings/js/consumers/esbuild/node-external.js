// SPDX-License-Identifier: MIT
// (c) esbuild, for node, with --packages=external: the package stays in node_modules and load() needs no option.
import load from 'quadrant-wasm';
import { check } from '../check.js';

console.log(check(await load(), 'esbuild node bundle, --packages=external'));
