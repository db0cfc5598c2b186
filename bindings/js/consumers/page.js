// SPDX-License-Identifier: MIT
// What the browser consumers' pages do with the package: the check on the main thread, the same check in a Web
// Worker, and a picture of the index (its boxes, a window query's hits in orange, checked against brute force).
// The result goes to the page and to body's data-result ("OK" or "FAIL") for the test.
import { check } from './check.js';

function say(line, ok) {
  const p = document.createElement('p');
  p.textContent = line;
  p.style.color = ok ? '#1b5e20' : '#b71c1c';
  document.getElementById('log').append(p);
  console.log(line);
}

function draw(q, canvas) {
  const ctx = canvas.getContext('2d');
  const tree = new q.QuadTree({ world: [0, 0, canvas.width, canvas.height], splitThreshold: 8 });
  let seed = 99;
  const rand = (n) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return Math.floor((seed / 4294967296) * n);
  };
  const boxes = [];
  for (let i = 0; i < 400; ++i) {
    const x = rand(canvas.width - 12), y = rand(canvas.height - 12), b = [x, y, x + 2 + rand(10), y + 2 + rand(10)];
    boxes.push(b);
    tree.insert(...b, i);
  }
  ctx.fillStyle = '#fafafa';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.strokeStyle = '#c5cae9';
  for (const leaf of tree.leaves()) {
    const [x0, y0] = leaf.cellMin, [x1, y1] = leaf.cellMax;
    ctx.strokeRect(x0 + 0.5, y0 + 0.5, x1 - x0, y1 - y0);
  }
  const w = [150, 90, 330, 230];
  const hits = new Set(tree.queryBox(...w));
  for (const [i, b] of boxes.entries()) {
    ctx.fillStyle = hits.has(i) ? '#e4572e' : '#78909c';
    ctx.fillRect(b[0], b[1], b[2] - b[0], b[3] - b[1]);
  }
  ctx.strokeStyle = '#e4572e';
  ctx.lineWidth = 2;
  ctx.strokeRect(w[0], w[1], w[2] - w[0], w[3] - w[1]);
  const brute = boxes.filter((b) => b[0] <= w[2] && w[0] <= b[2] && b[1] <= w[3] && w[1] <= b[3]).length;
  tree.dispose();
  if (hits.size !== brute) throw new Error(`picture: ${hits.size} hits, brute force ${brute}`);
  return `picture: ${boxes.length} boxes, the window's ${hits.size} hits in orange (brute force: ${brute})`;
}

// load: () => Promise<Quadrant> (the bundler's recipe); worker: a module Worker running worker-main.js's loop.
export async function run(name, load, worker) {
  document.title = `quadrant-wasm with ${name}`;
  document.getElementById('title').textContent = document.title;
  let ok = true;
  try {
    const q = await load();
    say(check(q, `${name}, main thread`), true);
    say(draw(q, document.getElementById('view')), true);
  } catch (e) {
    ok = false;
    say(`${name}, main thread: FAIL ${e && e.stack ? e.stack : e}`, false);
  }
  const answer = await new Promise((resolve) => {
    worker.onmessage = (m) => resolve(m.data);
    worker.onerror = (e) => resolve({ ok: false, line: `${name}, worker: FAIL ${e.message}` });
    worker.postMessage({ label: `${name}, Web Worker` });
  });
  say(answer.line, answer.ok);
  ok &&= answer.ok;
  document.body.dataset.result = ok ? 'OK' : 'FAIL';
}
