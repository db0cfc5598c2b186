// SPDX-License-Identifier: MIT
// A static file server on 127.0.0.1 (node's http module), for the browser consumers: serves a folder with the
// types browsers require (.wasm as application/wasm, for WebAssembly.instantiateStreaming; .js as JavaScript, for
// modules). Nothing outside the folder is served.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json',
  '.css': 'text/css', '.png': 'image/png',
};

export function serve(root, port = 0) {
  root = path.resolve(root);
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

// node serve.js [folder] [port]: serve by hand, to open the pages in a browser.
if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await serve(process.argv[2] || '.', Number(process.argv[3] || 8000));
  console.log(`serving ${path.resolve(process.argv[2] || '.')} on http://127.0.0.1:${server.address().port}/`);
}
