// SPDX-License-Identifier: MIT
// A Web Worker's side of the browser consumers: loads the package in the worker (its own WebAssembly instance) and
// runs the check there when the page asks.
import { check } from './check.js';

export function serve(load) {
  self.onmessage = async ({ data }) => {
    try {
      self.postMessage({ ok: true, line: check(await load(), data.label) });
    } catch (e) {
      self.postMessage({ ok: false, line: `${data.label}: FAIL ${e && e.stack ? e.stack : e}` });
    }
  };
}
