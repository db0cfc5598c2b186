// SPDX-License-Identifier: MIT
// A brute-force reference for the package's tests, written from docs/queries.md in plain JavaScript (double
// arithmetic): does a shape touch a box (closed sets: touching counts), where does a segment enter a box, how far is
// a point from a box. Where its own rounding could decide a case (a box within a hair of a curved or slanted
// boundary) it says so, and the tests skip that object rather than trust either side.

/** A seeded generator (mulberry32): the same numbers on every run. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, real: (lo, hi) => lo + (hi - lo) * next(), int: (lo, hi) => lo + Math.floor((hi - lo + 1) * next()) };
}

/** Boxes are {min: [..], max: [..]}. */
export function boxesOverlap(a, b) {
  for (let i = 0; i < a.min.length; ++i) if (a.min[i] > b.max[i] || b.min[i] > a.max[i]) return false;
  return true;
}

export function sqDistToBox(p, box) {
  let s = 0;
  for (let i = 0; i < box.min.length; ++i) {
    const d = p[i] < box.min[i] ? box.min[i] - p[i] : p[i] > box.max[i] ? p[i] - box.max[i] : 0;
    s += d * d;
  }
  return s;
}

function sqFarthest(p, box) {
  let s = 0;
  for (let i = 0; i < box.min.length; ++i) {
    const d = Math.max(Math.abs(p[i] - box.min[i]), Math.abs(box.max[i] - p[i]));
    s += d * d;
  }
  return s;
}

/** Where the segment p -> q enters the box, as a fraction in [0, 1], or null if it misses. */
export function segmentEntry(p, q, box) {
  let t0 = 0, t1 = 1;
  for (let i = 0; i < box.min.length; ++i) {
    const d = q[i] - p[i];
    if (d === 0) {
      if (p[i] < box.min[i] || p[i] > box.max[i]) return null;
      continue;
    }
    let ta = (box.min[i] - p[i]) / d, tb = (box.max[i] - p[i]) / d;
    if (ta > tb) [ta, tb] = [tb, ta];
    t0 = Math.max(t0, ta);
    t1 = Math.min(t1, tb);
    if (t0 > t1) return null;
  }
  return t0;
}

function corners2(box) {
  return [[box.min[0], box.min[1]], [box.max[0], box.min[1]], [box.max[0], box.max[1]], [box.min[0], box.max[1]]];
}

// Separating axes between two convex polygons (lists of [x, y]); closed: touching is overlap.
function convexOverlap(P, Q) {
  for (const poly of [P, Q]) {
    for (let i = 0; i < poly.length; ++i) {
      const [x0, y0] = poly[i], [x1, y1] = poly[(i + 1) % poly.length];
      const nx = y1 - y0, ny = x0 - x1;
      if (nx === 0 && ny === 0) continue;
      let pmin = Infinity, pmax = -Infinity, qmin = Infinity, qmax = -Infinity;
      for (const [x, y] of P) { const v = x * nx + y * ny; pmin = Math.min(pmin, v); pmax = Math.max(pmax, v); }
      for (const [x, y] of Q) { const v = x * nx + y * ny; qmin = Math.min(qmin, v); qmax = Math.max(qmax, v); }
      if (pmax < qmin || qmax < pmin) return false;
    }
  }
  return true;
}

function sqDistPointSegment(px, py, [x0, y0], [x1, y1]) {
  const dx = x1 - x0, dy = y1 - y0, len = dx * dx + dy * dy;
  let t = len === 0 ? 0 : ((px - x0) * dx + (py - y0) * dy) / len;
  t = Math.max(0, Math.min(1, t));
  const ex = x0 + t * dx - px, ey = y0 + t * dy - py;
  return ex * ex + ey * ey;
}

function insideConvex(px, py, poly) {
  let sign = 0;
  for (let i = 0; i < poly.length; ++i) {
    const [x0, y0] = poly[i], [x1, y1] = poly[(i + 1) % poly.length];
    const c = (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0);
    if (c !== 0) {
      if (sign !== 0 && Math.sign(c) !== sign) return false;
      sign = Math.sign(c);
    }
  }
  return true;
}

function sqDistToConvex(px, py, poly) {
  if (poly.length === 0) return Infinity;
  if (poly.length >= 3 && insideConvex(px, py, poly)) return 0;
  let best = Infinity;
  for (let i = 0; i < poly.length; ++i) best = Math.min(best, sqDistPointSegment(px, py, poly[i], poly[(i + 1) % poly.length]));
  return best;
}

// Keeps the part of a convex polygon where nx * (x - ax) + ny * (y - ay) >= 0.
function clip(poly, ax, ay, nx, ny) {
  const out = [];
  for (let i = 0; i < poly.length; ++i) {
    const p = poly[i], q = poly[(i + 1) % poly.length];
    const sp = nx * (p[0] - ax) + ny * (p[1] - ay), sq = nx * (q[0] - ax) + ny * (q[1] - ay);
    if (sp >= 0) out.push(p);
    if ((sp >= 0) !== (sq >= 0)) {
      const t = sp / (sp - sq);
      out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
    }
  }
  return out;
}

/** Does the shape (the description the tests keep beside each Shape) touch the box? */
export function touches(s, box) {
  switch (s.type) {
    case 'box': return boxesOverlap(s.box, box);
    case 'point': return boxesOverlap({ min: s.p, max: s.p }, box);
    case 'ball': return sqDistToBox(s.c, box) <= s.r * s.r;
    case 'ring': return sqDistToBox(s.c, box) <= s.outer * s.outer && sqFarthest(s.c, box) >= s.inner * s.inner;
    case 'segment': return segmentEntry(s.p, s.q, box) !== null;
    case 'polygon': return convexOverlap(s.points, corners2(box));
    case 'orientedBox': {
      const c = Math.cos(s.angle), n = Math.sin(s.angle);
      const pts = [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([u, v]) =>
        [s.c[0] + u * s.hx * c - v * s.hy * n, s.c[1] + u * s.hx * n + v * s.hy * c]);
      return convexOverlap(pts, corners2(box));
    }
    case 'ellipse': {
      // In the ellipse's frame, scaled so that it is the unit disc, the box is a parallelogram.
      const c = Math.cos(s.angle), n = Math.sin(s.angle);
      const P = corners2(box).map(([x, y]) => {
        const dx = x - s.c[0], dy = y - s.c[1];
        return [(dx * c + dy * n) / s.rx, (-dx * n + dy * c) / s.ry];
      });
      return sqDistToConvex(0, 0, P) <= 1;
    }
    case 'sector': {
      const [ax, ay] = s.c;
      if (sqDistToBox(s.c, box) === 0) return true;
      const base = Math.atan2(s.d[1], s.d[0]);
      // Two convex halves: from base - half to base and from base to base + half.
      for (const [from, to] of [[base - s.half, base], [base, base + s.half]]) {
        // Inside the wedge: left of the ray at `from`, right of the ray at `to`.
        let poly = corners2(box);
        poly = clip(poly, ax, ay, -Math.sin(from), Math.cos(from));
        poly = clip(poly, ax, ay, Math.sin(to), -Math.cos(to));
        if (poly.length > 0 && sqDistToConvex(ax, ay, poly) <= s.r * s.r) return true;
      }
      return false;
    }
    default: throw new Error(`reference: no shape ${s.type}`);
  }
}

/** true or false where the reference is sure; null where a hair's move of the box changes its answer. */
export function verdict(s, box, exact) {
  if (exact) return touches(s, box);
  let span = 1;
  for (let i = 0; i < box.min.length; ++i) span = Math.max(span, Math.abs(box.min[i]), Math.abs(box.max[i]));
  const eps = span * 1e-9;
  const grown = { min: box.min.map((v) => v - eps), max: box.max.map((v) => v + eps) };
  const shrunk = { min: box.min.map((v, i) => Math.min(v + eps, (v + box.max[i]) / 2)),
    max: box.max.map((v, i) => Math.max(v - eps, (v + box.min[i]) / 2)) };
  const outer = touches(s, grown), inner = touches(s, shrunk);
  if (outer === inner) return outer;
  return null;
}
