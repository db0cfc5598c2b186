// SPDX-License-Identifier: MIT
// The vite consumer's build: vite's defaults, but for relative URLs (base './', so that the output works from any
// folder of the test's server) and the output folder.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  logLevel: 'warn',
  build: { outDir: '../out/vite', emptyOutDir: true },
});
