// SPDX-License-Identifier: MIT
// 'quadrant-wasm/wasm' is the .wasm file itself. Bundlers that copy an asset only when it is imported (esbuild's
// --loader:.wasm=file; webpack's asset/resource) import it as its URL, the type here: hand it to
// load({ locateFile: () => new URL(wasmUrl, import.meta.url).href }).
declare const wasmUrl: string;
export default wasmUrl;
