// SPDX-License-Identifier: MIT
// The declarations as a TypeScript user meets them: `npm run typecheck` compiles this under strict mode. A line
// marked ts-expect-error is a misuse the types must refuse (tsc fails if one compiles).
import load, { Shape, LayerMatrix, type Handle, type QuadTree, type AoiEvent, type StreamUpdate, type Neighbor,
  type ContactStep } from 'quadrant-wasm';

interface Unit { name: string; hp: number }

async function main(): Promise<void> {
  const q = await load();
  const tree: QuadTree<Unit> = new q.QuadTree<Unit>({ world: [0, 0, 1024, 1024], placement: 'loose' });
  const h: Handle = tree.insert(1, 2, 3, 4, { name: 'orc', hp: 10 }, 0b1);
  const near: Unit[] = tree.query(Shape.circle(2, 3, 10));
  const names: string[] = near.map((u) => u.name);
  const inBox: Unit[] = tree.queryBox(0, 0, 10, 10, undefined, []);
  tree.move(h, 2, 2, 4, 4);
  const pairs: Array<[Unit, Unit]> = tree.pairs();
  tree.forEachPair((a, b) => a.hp > b.hp);
  const hit = tree.raycast(0, 0, 100, 100, { limit: 1 })[0];
  const t: number | undefined = hit?.t;
  const handles: Float64Array = tree.assign(new Float64Array([0, 0, 1, 1]), [{ name: 'a', hp: 1 }]);
  tree.moveMany(handles, [1, 1, 2, 2]);
  tree.rebuild([-100, -100, 2048, 2048]);
  const octree = new q.Octree<number>({ world: [0, 0, 0, 1, 1, 1] });
  octree.insert(0, 0, 0, 1, 1, 1, 5);
  const inView: number[] = octree.query(Shape.frustum(new Array(16).fill(0), { clipZeroToOne: true }));
  const world = new q.AoiWorld({ world: [0, 0, 100, 100], hysteresis: 2 });
  world.add(1, 5, 5, 10, { mode: 'watcher' });
  const events: AoiEvent[] = world.tick();
  const streamer = new q.Streamer({ world: [0, 0, 0, 10, 10, 10], unloadMargin: 1 });
  const update: StreamUpdate = streamer.update([{ position: [1, 1, 1], prefetchRadius: 3 }]);
  console.log(names, inBox, pairs.length, t, inView, events, update.loads.map((l) => l.id));
  // @ts-expect-error a 3D shape does not fit a quadtree
  tree.query(Shape.sphere(0, 0, 0, 1));
  // @ts-expect-error a value of the wrong type
  tree.insert(0, 0, 1, 1, 'not a unit');
  // @ts-expect-error an unknown placement
  new q.QuadTree({ world: [0, 0, 1, 1], placement: 'middle' });
  // @ts-expect-error without values, assign gives each object its index: not a Unit
  tree.assign([0, 0, 1, 1]);
  const indexed = new q.QuadTree<number>({ world: [0, 0, 1, 1] });
  indexed.assign([0, 0, 1, 1]);
  indexed.dispose();
  // @ts-expect-error an AOI mode that does not exist
  world.add(2, 0, 0, 1, { mode: 'spectator' });
  // Layer filters and contact events.
  const matrix: LayerMatrix = new q.LayerMatrix().between(0b1, 0b10).set(3, 3, false);
  const filtered: Array<[Unit, Unit]> = tree.pairs(matrix);
  tree.forEachPair((a, b) => { console.log(a.name, b.name); }, LayerMatrix.all());
  const tracker = new q.ContactTracker<Unit>();
  const step: ContactStep<Unit> = tracker.update(tree, matrix);
  const entered: string[] = step.begun.map((c) => c.valueA.name);
  const handleB: Handle = tracker.contacts()[0].b;
  console.log(filtered.length, entered, handleB, tracker.update(tree, 0b1).count);
  // @ts-expect-error a tracker of Units does not follow a tree of numbers
  tracker.update(indexed);
  // @ts-expect-error set takes layer indexes, not a mask list
  matrix.set([1, 2], 3);
  tracker.dispose();
  // Neighbor, spelt as in C++.
  const nearest: Array<Neighbor<Unit>> = tree.nearest(0, 0, 1);
  console.log(nearest.length);
  for (const x of [tree, octree, world, streamer]) x.dispose();
  {
    // Freed at the end of the block.
    using scoped = new q.QuadTree<string>({ world: [0, 0, 1, 1] });
    using scopedWorld = new q.AoiWorld({ world: [0, 0, 1, 1] });
    using scopedStreamer = new q.Streamer({ world: [0, 0, 0, 1, 1, 1] });
    using scopedTracker = new q.ContactTracker();
    console.log(scopedTracker.disposed);
    scoped.insert(0, 0, 1, 1, 'x');
    console.log(scopedWorld.size, scopedStreamer.size);
  }
}
void main();
