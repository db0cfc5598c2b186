// SPDX-License-Identifier: MIT
// The webpack consumer's build (npx webpack -c webpack/webpack.config.js): nothing for the .wasm; performance hints
// off (the .wasm is 2 MB, over webpack's default budget of 244 KB).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export default {
  mode: 'production',
  entry: path.join(here, 'main.js'),
  output: { path: path.join(here, '../out/webpack'), clean: true },
  performance: { hints: false },
};
