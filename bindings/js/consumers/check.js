// SPDX-License-Identifier: MIT
// The check every JavaScript consumer runs on the package it imported: 2000 boxes on integer coordinates (so that
// the brute force below and the library compute the same exact numbers), window, circle and pair queries, some
// objects moved and erased, each answer compared with a brute-force count over the same boxes. Throws on the first
// difference; returns a line for the log.
export function check(q, label) {
  let seed = 0x2545f491;
  const rand = (n) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return Math.floor((seed / 4294967296) * n);
  };
  const tree = new q.QuadTree({ world: [0, 0, 1000, 1000] });
  const boxes = new Map(); // handle -> [minX, minY, maxX, maxY]
  for (let i = 0; i < 2000; ++i) {
    const x = rand(1000), y = rand(1000), b = [x, y, x + 1 + rand(12), y + 1 + rand(12)];
    boxes.set(tree.insert(...b, i), b);
  }
  // Some objects move, some go away: the index must follow.
  let k = 0;
  for (const [h, b] of [...boxes]) {
    if (k % 7 === 0) {
      tree.erase(h);
      boxes.delete(h);
    } else if (k % 5 === 0) {
      const x = rand(1000), y = rand(1000), nb = [x, y, x + 1 + rand(12), y + 1 + rand(12)];
      tree.move(h, ...nb);
      boxes.set(h, nb);
    }
    ++k;
  }
  const same = (what, got, want) => {
    if (got !== want) throw new Error(`${label}: ${what}: quadrant says ${got}, brute force ${want}`);
  };
  let hits = 0;
  for (let i = 0; i < 50; ++i) {
    const x = rand(1000), y = rand(1000), w = [x, y, x + rand(120), y + rand(120)];
    const want = [...boxes.values()].filter((b) => b[0] <= w[2] && w[0] <= b[2] && b[1] <= w[3] && w[1] <= b[3]).length;
    same(`window ${w}`, tree.queryBox(...w).length, want);
    same(`count of window ${w}`, tree.count(q.Shape.box(...w)), want);
    hits += want;
  }
  for (let i = 0; i < 20; ++i) {
    const cx = rand(1000), cy = rand(1000), r = rand(80);
    const want = [...boxes.values()].filter((b) => {
      const dx = Math.max(b[0] - cx, 0, cx - b[2]), dy = Math.max(b[1] - cy, 0, cy - b[3]);
      return dx * dx + dy * dy <= r * r;
    }).length;
    same(`circle ${[cx, cy, r]}`, tree.query(q.Shape.circle(cx, cy, r)).length, want);
    hits += want;
  }
  const all = [...boxes.values()];
  let pairs = 0;
  for (let i = 0; i < all.length; ++i) {
    const a = all[i];
    for (let j = i + 1; j < all.length; ++j) {
      const b = all[j];
      if (a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]) ++pairs;
    }
  }
  same('overlapping pairs', tree.countPairs(), pairs);
  same('size', tree.size, boxes.size);
  tree.validate();
  tree.dispose();
  return `${label}: OK (quadrant ${q.version}: ${boxes.size} boxes, 70 queries with ${hits} hits and ${pairs} pairs ` +
    'agree with brute force)';
}
