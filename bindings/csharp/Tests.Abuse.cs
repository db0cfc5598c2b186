// SPDX-License-Identifier: MIT
// Tests of the C# binding's new members under abuse: an exception thrown by each kind of callback, a mutation or a
// Dispose from inside one, bad input (stale and foreign handles, NaN, wrong-sized arrays and spans, unknown ids,
// another tree), disposed objects; and no managed allocation once warm, for every per-frame call.
using System;
using System.Collections.Generic;
using System.Linq;
using Quadrant;

static partial class Tests
{
    // Everything a tree answers, to compare before and after a refused call.
    static string Snapshot(SpatialTree<int> tree, IEnumerable<Handle> handles)
    {
        var nodes = new List<NodeInfo>();
        tree.Nodes(nodes);
        var s = new System.Text.StringBuilder();
        s.Append(tree.Count).Append(';');
        foreach (var h in handles)
        {
            s.Append(tree.Contains(h) ? "+" : "-");
            if (!tree.Contains(h)) continue;
            s.Append(tree.Value(h)).Append(tree.Layers(h)).Append(' ');
            if (tree is QuadTree<int>) s.Append(((QuadTree<int>)tree).Bounds(h)); else s.Append(((Octree<int>)tree).Bounds(h));
        }
        foreach (var n in nodes) s.Append(n.Id).Append(n.Cell).Append(n.Items).Append(',');
        return s.ToString();
    }

    static void CallbackExceptions(int dims)
    {
        rng = 77 + (ulong)dims;
        using (var scene = new Scene(dims, Scalar.Double, Placement.Loose))
        using (var other = new Scene(dims, Scalar.Double, Placement.Loose))
        {
            var tree = scene.Tree;
            var handles = new List<Handle>();
            // A diagonal row of overlapping boxes: many hits, pairs, ray hits and nodes.
            for (int i = 0; i < 40; ++i)
            {
                double c = 2 + 3 * i;
                var b = new Box3(c, c, dims == 3 ? c : 0, c + 4, c + 4, dims == 3 ? c + 4 : 0);
                handles.Add(scene.Insert(b, i, 1u));
                other.Insert(b, i, 1u);
            }
            string before = Snapshot(tree, handles);
            Shape all = dims == 2 ? Shape.Box(0, 0, 128, 128) : Shape.Box(0, 0, 0, 128, 128, 128);
            double[] a = { 0, 0, 0 }, b2 = { 128, 128, dims == 3 ? 128 : 0 };
            var matrix = LayerMatrix.All();
            var walks = new Dictionary<string, Func<Func<bool>, int>>
            {
                { "ForEachHit", fn => { tree.ForEachHit(all, (v, h) => fn()); return 0; } },
                { "ForEachPair", fn => tree.ForEachPair((x, y) => fn()) },
                { "ForEachPair(matrix)", fn => tree.ForEachPair((x, y) => fn(), matrix) },
                { "ForEachPairWith", fn => tree.ForEachPairWith(other.Tree, (x, y) => fn()) },
                { "ForEachNode", fn => { tree.ForEachNode(n => fn()); return 0; } },
                { "QueryNodes", fn => { tree.QueryNodes(all, n => fn(), false); return 0; } },
                { "Raycast", fn => scene.Raycast(a, b2, (v, h, t) => fn(), 0xffffffffu) },
            };
            foreach (var walk in walks)
            {
                string what = dims + "D " + walk.Key;
                // The exception thrown by the third call stops the walk and reaches the caller as it was thrown.
                var boom = new InvalidTimeZoneException("boom from " + walk.Key);
                int calls = 0;
                try { walk.Value(() => { if (++calls == 3) throw boom; return true; }); Check(false, what + ": the callback's exception reaches the caller"); }
                catch (InvalidTimeZoneException e) { Check(ReferenceEquals(e, boom) && calls == 3 && e.StackTrace.Contains("Tests"), what + ": the same exception, its trace, and the walk stopped (" + calls + " calls)"); }
                Check(Snapshot(tree, handles) == before, what + ": the tree is unchanged after the exception");
                tree.Validate();
                // The walk works again in full.
                int full = 0;
                walk.Value(() => { ++full; return true; });
                Check(full > 3, what + ": a full walk after the exception (" + full + " calls)");
                // A mutation from inside is refused (thrown in the callback, rethrown), nothing changed.
                Raises<InvalidOperationException>("inside", () => walk.Value(() => { scene.Insert(new Box3(1, 1, 0, 2, 2, 0), -1, 1u); return true; }));
                Check(Snapshot(tree, handles) == before, what + ": a refused mutation changed nothing");
                // A nested walk of the same kind inside the callback gets its own sink.
                int outer = 0, inner = 0;
                walk.Value(() => { if (++outer == 1) walk.Value(() => { ++inner; return true; }); return true; });
                Check(outer == full && inner == full, what + ": a nested walk (" + outer + " outer, " + inner + " inner, " + full + " each)");
            }
        }
        // Dispose from inside a callback: the tree is freed once the walk returns; later calls throw.
        using (var scene = new Scene(dims, Scalar.Float, Placement.Parent))
        {
            for (int i = 0; i < 10; ++i) scene.Insert(new Box3(i, i, 0, i + 2, i + 2, dims == 3 ? 2 : 0), i, 1u);
            int calls = 0;
            scene.Tree.ForEachPair((x, y) => { if (++calls == 1) scene.Tree.Dispose(); return true; });
            Check(calls == 17 && scene.Tree.IsDisposed, dims + "D: Dispose inside a pair walk lets the walk finish (" + calls + " pairs)");
            Raises<ObjectDisposedException>("quadrant", () => scene.Tree.Validate());
            Raises<ObjectDisposedException>("quadrant", () => scene.Tree.ForEachNode(n => true));
        }
    }

    static void BadInputParity()
    {
        foreach (int dims in new[] { 2, 3 })
        {
            rng = 99 + (ulong)dims;
            string d = dims + "D: ";
            using (var scene = new Scene(dims, Scalar.Float, Placement.Leaves))
            using (var foreign = new Scene(dims, Scalar.Float, Placement.Leaves))
            {
                var tree = scene.Tree;
                var boxes = Enumerable.Range(0, 20).Select(i => RandomBox(dims)).ToArray();
                var handles = new Handle[20];
                scene.Assign(boxes, Enumerable.Range(0, 20).ToArray(), null, handles, false);
                Handle stale = scene.Insert(RandomBox(dims), 99, 1u);
                tree.Erase(stale);
                Handle alien = foreign.Insert(RandomBox(dims), 5, 1u);
                var all = handles.Concat(new[] { stale }).ToList();
                string before = Snapshot(tree, all);
                var moveBoxes = new[] { RandomBox(dims), RandomBox(dims), RandomBox(dims) };
                var nan = (Box3[])moveBoxes.Clone();
                nan[2].MaxY = double.NaN;
                Raises<ArgumentException>("stale or foreign", () => scene.MoveMany(new[] { handles[0], stale, handles[2] }, moveBoxes, false));
                Raises<ArgumentException>("stale or foreign", () => scene.MoveMany(new[] { handles[0], handles[1], alien }, moveBoxes, true));
                Raises<ArgumentException>("NaN", () => scene.MoveMany(new[] { handles[0], handles[1], handles[2] }, nan, false));
                Raises<ArgumentException>("expected 2", () => scene.MoveMany(new[] { handles[0], handles[1] }, moveBoxes, false));
                Raises<ArgumentException>("expected 2", () => scene.MoveMany(new[] { handles[0], handles[1] }, moveBoxes, true));
                Raises<ArgumentException>("expected 2", () => scene.MoveMany(new[] { handles[0], handles[1] }, moveBoxes, 2));
                Raises<ArgumentException>("stale or foreign", () => scene.MoveMany(new[] { handles[0], stale, handles[2] }, moveBoxes, 2));
                Check(Snapshot(tree, all) == before, d + "refused batch moves changed nothing");
                // A bulk build refused: NaN in item 5, wrong-sized values, layers or handles, arrays or spans.
                var bad = Enumerable.Range(0, 8).Select(i => RandomBox(dims)).ToArray();
                bad[5].MinX = double.NaN;
                var vals = Enumerable.Range(0, 8).ToArray();
                Raises<ArgumentException>("item 5", () => scene.Assign(bad, vals, null, null, false));
                var ones = Enumerable.Repeat(1u, 8).ToArray();
                Raises<ArgumentException>("item 5", () => scene.Assign(bad, vals, ones, new Handle[8], true));
                var good = Enumerable.Range(0, 8).Select(i => RandomBox(dims)).ToArray();
                Raises<ArgumentException>("values holds 7", () => scene.Assign(good, new int[7], null, null, false));
                Raises<ArgumentException>("layers holds 3", () => scene.Assign(good, vals, new uint[3], new Handle[8], true));
                Raises<ArgumentException>("handles holds 9", () => scene.Assign(good, vals, null, new Handle[9], false));
                Raises<ArgumentException>("handles holds 2", () => scene.Assign(good, vals, new uint[0], new Handle[2], true));
                Raises<ArgumentException>("layer", () => scene.Assign(good, vals, new uint[8], null, false)); // mask 0: no query could see it
                Check(Snapshot(tree, all) == before, d + "refused bulk builds changed nothing");
                // Locate outside the world, a NaN ray, a NaN nearest point, a bad node query.
                Raises<ArgumentException>("quadrant", () => scene.Locate(new double[] { 500, 1, 1 }));
                Raises<ArgumentException>("quadrant", () => scene.Raycast(new double[] { double.NaN, 0, 0 }, new double[] { 1, 1, 1 }, new List<RayHit<int>>(), 5, 1u));
                Raises<ArgumentException>("quadrant", () => scene.Nearest(new double[] { double.NaN, 0, 0 }, 3, new List<Neighbor<int>>(), 1u));
                Raises<ArgumentException>("radius", () => tree.QueryNodes(dims == 2 ? Shape.Circle(1, 1, -1) : Shape.Sphere(1, 1, 1, -1), new List<NodeInfo>()));
                Raises<ArgumentException>("limit", () => scene.Raycast(new double[] { 0, 0, 0 }, new double[] { 1, 1, 1 }, new List<RayHit<int>>(), -1, 1u));
                // Two-tree pairs with a tree of another dimension or scalar, or with itself.
                using (var otherDims = new Scene(5 - dims, Scalar.Float, Placement.Loose))
                using (var otherScalar = new Scene(dims, Scalar.Double, Placement.Loose))
                {
                    var cross = new List<KeyValuePair<int, int>>();
                    Raises<ArgumentException>("quadrant", () => tree.PairsWith(otherDims.Tree, cross));
                    Raises<ArgumentException>("quadrant", () => tree.PairsWith(otherScalar.Tree, cross));
                    Raises<ArgumentException>("quadrant", () => tree.PairsWith(tree, cross));
                    Check(cross.Count == 0, d + "refused two-tree pairs added nothing");
                    otherScalar.Dispose();
                    Raises<ObjectDisposedException>("quadrant", () => tree.PairsWith(otherScalar.Tree, cross));
                }
                Check(Snapshot(tree, all) == before, d + "refused queries changed nothing");
                // A layer matrix refuses a layer outside 0..31, unchanged.
                var m = new LayerMatrix().Set(3, 4);
                Raises<ArgumentException>("quadrant", () => m.Set(32, 1));
                Raises<ArgumentException>("quadrant", () => m.Set(-1, 1));
                Raises<ArgumentException>("0..31", () => m.Collides(0, 40));
                Check(m.Collides(3, 4) && m.Collides(4, 3) && !m.Collides(3, 3) && m.PartnersOf(0xffffffffu) == (1u << 3 | 1u << 4), d + "a refused Set leaves the matrix as it was");
                // Disposed: every new member throws ObjectDisposedException.
                tree.Dispose();
                Raises<ObjectDisposedException>("quadrant", () => tree.QueryHandles(dims == 2 ? Shape.Point(1, 1) : Shape.Point(1, 1, 1), new Handle[4]));
                Raises<ObjectDisposedException>("quadrant", () => tree.Nodes(new List<NodeInfo>()));
                Raises<ObjectDisposedException>("quadrant", () => scene.Locate(new double[] { 1, 1, 1 }));
                Raises<ObjectDisposedException>("quadrant", () => scene.MoveMany(new[] { handles[0] }, new[] { RandomBox(dims) }, true));
                Raises<ObjectDisposedException>("quadrant", () => scene.Assign(good, vals, null, null, false));
                Raises<ObjectDisposedException>("quadrant", () => tree.Pairs(new List<KeyValuePair<int, int>>(), LayerMatrix.All()));
                Raises<ObjectDisposedException>("quadrant", () => foreign.Tree.PairsWith(tree, new List<KeyValuePair<int, int>>()));
                using (var tracker = new ContactTracker())
                    Raises<ObjectDisposedException>("quadrant", () => tracker.Update(tree, new List<Contact>(), new List<Contact>()));
            }
        }

        // The streamer: duplicate and unknown ids, bad boxes and sources, refused with nothing changed.
        using (var streamer = new Streamer(new Box3(0, 0, 0, 100, 100, 100), 2, 4, 8))
        {
            for (ulong id = 1; id <= 30; ++id) streamer.Add(id, new Box3(id, id, id, id + 2, id + 2, id + 2));
            var result = new StreamUpdate();
            streamer.Update(StreamSource.Ball(10, 10, 10, 8), result);
            Check(result.Loads.Count == 4, "streamer: the caps hold (" + result.Loads.Count + " loads)");
            Func<string> state = () => string.Join(",", Enumerable.Range(1, 30).Select(i => streamer.State((ulong)i) + "" + streamer.Bounds((ulong)i)));
            string before = state();
            int loadsBefore = result.Loads.Count;
            Raises<ArgumentException>("quadrant", () => streamer.Add(3, new Box3(0, 0, 0, 1, 1, 1)));
            Raises<ArgumentException>("quadrant", () => streamer.Add(99, new Box3(0, 0, 0, double.NaN, 1, 1)));
            Raises<ArgumentException>("quadrant", () => streamer.Add(99, new Box3(5, 0, 0, 1, 1, 1)));
            Raises<ArgumentException>("quadrant", () => streamer.Remove(99));
            Raises<ArgumentException>("quadrant", () => streamer.Move(99, new Box3(0, 0, 0, 1, 1, 1)));
            Raises<ArgumentException>("quadrant", () => streamer.Move(3, new Box3(0, 0, double.PositiveInfinity, 1, 1, 1)));
            Raises<ArgumentException>("quadrant", () => streamer.MarkLoaded(99));
            Raises<ArgumentException>("quadrant", () => streamer.MarkFailed(99));
            Raises<ArgumentException>("quadrant", () => streamer.State(99));
            Raises<ArgumentException>("quadrant", () => streamer.Update(StreamSource.Ball(double.NaN, 0, 0, 5), result));
            Raises<ArgumentException>("quadrant", () => streamer.Update(new[] { StreamSource.Ball(1, 1, 1, 5), StreamSource.Ball(1, 1, 1, -5) }, result));
            var nanMatrix = new double[16];
            nanMatrix[0] = double.NaN;
            Raises<ArgumentException>("quadrant", () => streamer.Update(StreamSource.Camera(nanMatrix, false, false, 1, 1, 1, 1), result));
            Raises<ArgumentException>("16 numbers", () => StreamSource.Camera(new double[15], false, false, 1, 1, 1, 1));
            Raises<ArgumentException>("cap", () => streamer.SetLimits(-1, 3));
            Check(state() == before && result.Loads.Count == loadsBefore && streamer.Count == 30, "streamer: refused calls changed nothing");
            streamer.Validate();
            streamer.Dispose();
            Raises<ObjectDisposedException>("quadrant", () => streamer.Update(StreamSource.Ball(1, 1, 1, 1), result));
            Raises<ObjectDisposedException>("quadrant", () => streamer.Add(100, new Box3(0, 0, 0, 1, 1, 1)));
            Raises<ObjectDisposedException>("quadrant", () => { var n = streamer.Count; });
        }
        // A tracker follows one tree by identity: a tree disposed and another made (perhaps at the same address)
        // is another tree; Clear lets it follow the new one.
        using (var tracker = new ContactTracker())
        {
            var begun = new List<Contact>();
            var ended = new List<Contact>();
            var first = new QuadTree<int>(new Box2(0, 0, 10, 10));
            first.Insert(new Box2(1, 1, 3, 3), 1);
            first.Insert(new Box2(2, 2, 4, 4), 2);
            tracker.Update(first, begun, ended);
            Check(begun.Count == 1, "contacts: the first step begins the pair");
            first.Dispose();
            Raises<ObjectDisposedException>("quadrant", () => tracker.Update(first, begun, ended));
            using (var second = new QuadTree<int>(new Box2(0, 0, 10, 10)))
            {
                second.Insert(new Box2(1, 1, 3, 3), 1);
                begun.Clear();
                Raises<ArgumentException>("another tree", () => tracker.Update(second, begun, ended));
                Check(begun.Count == 0 && ended.Count == 0, "contacts: a refused step adds nothing");
                tracker.Clear();
                Check(tracker.Update(second, begun, ended) == 0 && begun.Count == 0 && ended.Count == 0, "contacts: after Clear the tracker follows the new tree");
            }
        }
        var contacts = new ContactTracker();
        contacts.Dispose();
        using (var tree = new QuadTree<int>(new Box2(0, 0, 1, 1)))
            Raises<ObjectDisposedException>("quadrant", () => contacts.Update(tree, new List<Contact>(), new List<Contact>()));
        Raises<ObjectDisposedException>("quadrant", () => contacts.Clear());
        using (var aoi = new AoiWorld(new Box2(0, 0, 100, 100)))
        {
            aoi.Add(1, 5, 5, 10);
            Raises<ArgumentException>("expected 2", () => aoi.MoveMany(new ReadOnlySpan<ulong>(new ulong[] { 1 }), new ReadOnlySpan<double>(new double[] { 1, 2, 3 })));
            aoi.MoveMany(new ReadOnlySpan<ulong>(new ulong[] { 1 }), new ReadOnlySpan<double>(new double[] { 7, 8 }));
            aoi.Tick(new List<AoiEvent>());
            double x, y;
            aoi.Position(1, out x, out y);
            Check(x == 7 && y == 8, "aoi: MoveMany over spans");
        }
        Console.WriteLine("  bad input to the new members: refused, nothing changed");
    }

    // Once warm, a frame of every kind allocates no managed memory.
    static void NoAllocationParity()
    {
        rng = 4242;
        var tree = new QuadTree<int>(new Box2(0, 0, 128, 128));
        var octree = new Octree<int>(new Box3(0, 0, 0, 128, 128, 128));
        var boxes = new Box2[400];
        var handles = new Handle[400];
        for (int i = 0; i < 400; ++i) { Box3 b = RandomBox(2); boxes[i] = new Box2(b.MinX, b.MinY, b.MaxX, b.MaxY); }
        tree.Assign(boxes, Enumerable.Range(0, 400).ToArray(), null, handles);
        for (int i = 0; i < 100; ++i) octree.Insert(RandomBox(3), i);
        var other = new QuadTree<int>(new Box2(0, 0, 128, 128));
        for (int i = 0; i < 50; ++i) { Box3 b = RandomBox(2); other.Insert(new Box2(b.MinX, b.MinY, b.MaxX, b.MaxY), i); }
        var tracker = new ContactTracker();
        var streamer = new Streamer(new Box3(0, 0, 0, 128, 128, 128), 4, 1000, 1000);
        for (int i = 0; i < 300; ++i) streamer.Add((ulong)i, RandomBox(3));
        var matrix = new LayerMatrix().Between(1, 0xffffffffu);
        var hits = new List<int>(1000);
        var handleOut = new Handle[1000];
        var rays = new List<RayHit<int>>(1000);
        var pairs = new List<KeyValuePair<int, int>>(10000);
        var nodes = new List<NodeInfo>(1000);
        var begun = new List<Contact>(10000);
        var ended = new List<Contact>(10000);
        var neighbors = new List<Neighbor<int>>(100);
        var result = new StreamUpdate();
        result.Loads.Capacity = 1000; result.Unloads.Capacity = 1000; result.Cancels.Capacity = 1000;
        var sources = new[] { StreamSource.Ball(30, 30, 30, 25), StreamSource.Ball(90, 90, 90, 25) };
        var moved = new Handle[40];
        var movedBoxes = new Box2[40];
        Array.Copy(handles, moved, 40);
        int sum = 0;
        Func<int, Handle, bool> onHit = (v, h) => { sum += v; return true; };
        Func<int, int, bool> onPair = (x, y) => { sum += x; return true; };
        Func<NodeInfo, bool> onNode = n => { sum += n.Depth; return true; };
        Func<int, Handle, double, bool> onRay = (v, h, t) => { sum += v; return true; };
        var circle = Shape.Circle(64, 64, 30);
        var aoi = new AoiWorld(new Box2(0, 0, 128, 128));
        var aoiIds = new ulong[50];
        var aoiXY = new double[100];
        var aoiEvents = new List<AoiEvent>(10000);
        for (int i = 0; i < 50; ++i) { aoiIds[i] = (ulong)i + 1; aoi.Add(aoiIds[i], Rnd(128), Rnd(128), 20); }
        Action frame = () =>
        {
            for (int i = 0; i < 40; ++i) { double s = (sum & 7) / 64.0; movedBoxes[i] = new Box2(boxes[i].MinX + s, boxes[i].MinY, boxes[i].MaxX + s, boxes[i].MaxY); }
            tree.MoveMany(moved, movedBoxes);
            tree.MoveMany(new ReadOnlySpan<Handle>(moved), new ReadOnlySpan<Box2>(movedBoxes));
            hits.Clear(); tree.Query(circle, hits);
            tree.QueryHandles(circle, handleOut);
            tree.QueryHandles(circle, new Span<Handle>(handleOut));
            tree.QueryHandles(circle, new ArraySegment<Handle>(handleOut, 10, 900));
            tree.MoveMany(new ArraySegment<Handle>(moved, 0, 40), new ArraySegment<Box2>(movedBoxes, 0, 40));
            tree.ForEachHit(circle, onHit);
            pairs.Clear(); tree.Pairs(pairs); tree.Pairs(pairs, matrix);
            tree.ForEachPair(onPair, matrix);
            pairs.Clear(); tree.PairsWith(other, pairs); tree.ForEachPairWith(other, onPair);
            rays.Clear(); tree.Raycast(0, 0, 128, 100, rays); tree.Raycast(0, 0, 128, 100, onRay);
            nodes.Clear(); tree.Nodes(nodes); tree.ForEachNode(onNode); tree.QueryNodes(circle, nodes); tree.QueryNodes(circle, onNode);
            tree.Locate(10.5, 20.5);
            neighbors.Clear(); tree.Nearest(64, 64, 10, neighbors);
            octree.Raycast(0, 0, 0, 128, 128, 128, onRay);
            begun.Clear(); ended.Clear(); tracker.Update(tree, begun, ended);
            begun.Clear(); ended.Clear(); tracker.Update(tree, matrix, begun, ended);
            streamer.Update(sources, result);
            foreach (var l in result.Loads) streamer.MarkLoaded(l.Id);
            streamer.Update(new ReadOnlySpan<StreamSource>(sources), result);
            streamer.Update(sources[1], result);
            for (int i = 0; i < 100; ++i) aoiXY[i] = (i * 37 + sum * 3) % 128;
            aoi.MoveMany(new ReadOnlySpan<ulong>(aoiIds), new ReadOnlySpan<double>(aoiXY));
            aoiEvents.Clear(); aoi.Tick(aoiEvents);
            ++sum;
        };
        for (int warm = 0; warm < 5; ++warm) frame();
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int round = 0; round < 100; ++round) frame();
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Check(allocated == 0, "100 warm frames of batch moves, queries, pairs, rays, node walks, contacts, streaming and AOI allocated " + allocated + " bytes");
        Console.WriteLine("  100 warm frames of every new per-frame call: {0} bytes allocated", allocated);
        tree.Dispose(); octree.Dispose(); other.Dispose(); tracker.Dispose(); streamer.Dispose(); aoi.Dispose();
    }

    // Values live by the library's slot of each object: slots freed by Erase, Clear and Assign come back in the
    // library's order (a cleared tree hands out its highest slots first), and every value follows its object.
    static void SlotReuse()
    {
        rng = 555;
        foreach (int dims in new[] { 2, 3 })
            using (var scene = new Scene(dims, Scalar.Double, Placement.Loose))
            {
                var tree = scene.Tree;
                var model = new Dictionary<ulong, KeyValuePair<int, Box3>>();
                int next = 0;
                for (int round = 0; round < 30; ++round)
                {
                    int roll = Rnd(10);
                    if (roll == 0) { tree.Clear(); model.Clear(); }
                    else if (roll == 1)
                    {
                        int n = Rnd(60);
                        var boxes = Enumerable.Range(0, n).Select(i => RandomBox(dims)).ToArray();
                        var vals = Enumerable.Range(next, n).ToArray();
                        next += n;
                        var hs = new Handle[n];
                        scene.Assign(boxes, vals, null, hs, Rnd(2) == 0);
                        model.Clear();
                        for (int i = 0; i < n; ++i) model[hs[i].Value] = new KeyValuePair<int, Box3>(vals[i], boxes[i]);
                    }
                    for (int k = Rnd(80); k > 0; --k)
                    {
                        Box3 b = RandomBox(dims);
                        Handle h = scene.Insert(b, next, 1u);
                        model[h.Value] = new KeyValuePair<int, Box3>(next++, b);
                    }
                    foreach (ulong h in model.Keys.Where(x => Rnd(4) == 0).ToList()) { tree.Erase(new Handle(h)); model.Remove(h); }
                    var hits = new List<int>();
                    var handles = new List<Handle>();
                    tree.Query(scene.BoxShape(new Box3(-10, -10, -10, 200, 200, 200)), hits, handles);
                    Check(hits.Count == model.Count && handles.Zip(hits, (h, v) => model[h.Value].Key == v).All(ok => ok), dims + "D round " + round + ": every value follows its object");
                    var pairs = new List<KeyValuePair<int, int>>();
                    tree.Pairs(pairs);
                    var want = new HashSet<long>();
                    var list = model.Values.ToList();
                    for (int i = 0; i < list.Count; ++i)
                        for (int j = i + 1; j < list.Count; ++j)
                            if (list[i].Value.Overlaps(list[j].Value)) want.Add(Key(list[i].Key, list[j].Key));
                    Check(pairs.Count == want.Count && new HashSet<long>(pairs.Select(q => Key(q.Key, q.Value))).SetEquals(want), dims + "D round " + round + ": pairs by value");
                }
            }
        Console.WriteLine("  values follow their objects through erase, clear and assign");
    }

    static void Conversions()
    {
        var v = new System.Numerics.Vector2(1.5f, 2.5f);
        var w = new System.Numerics.Vector2(3.5f, 4.5f);
        Box2 b = new Box2(v, w);
        Check(b.MinX == 1.5 && b.MinY == 2.5 && b.MaxX == 3.5 && b.MaxY == 4.5 && b.Max == w, "Box2 from System.Numerics");
        var p = new System.Numerics.Vector3(1, 2, 3);
        var q = new System.Numerics.Vector3(4, 5, 6);
        Box3 c = new Box3(p, q);
        Check(c.MinZ == 3 && c.MaxX == 4 && c.Min == p, "Box3 from System.Numerics");
        using (var tree = new QuadTree<string>(new Box2(0, 0, 10, 10)))
        using (var octree = new Octree<string>(new Box3(0, 0, 0, 10, 10, 10)))
        {
            tree.Insert(b, "b");
            octree.Insert(c, "c");
            var hits = new List<string>();
            tree.Query(Shape.Circle(new System.Numerics.Vector2(1, 2), 1), hits);
            tree.Query(Shape.Point(new System.Numerics.Vector2(3, 4)), hits);
            tree.Query(Shape.Segment(new System.Numerics.Vector2(0, 0), new System.Numerics.Vector2(2, 3)), hits);
            octree.Query(Shape.Sphere(new System.Numerics.Vector3(0, 0, 0), 4), hits);
            octree.Query(Shape.Point(new System.Numerics.Vector3(2, 3, 4)), hits);
            octree.Query(Shape.Segment(p, q), hits);
            Check(hits.SequenceEqual(new[] { "b", "b", "b", "c", "c", "c" }), "shapes from System.Numerics: " + string.Join(",", hits));
        }
        // A System.Numerics camera: looking down -z from (0, 0, 10) with an orthographic projection, its frustum is
        // the box x in [-4.3, 6.3], y in [-3.3, 5.3], z in [10 - 20.3, 10 - 2.3] (axis-aligned faces: the test is
        // exact; the faces lie between the boxes' eighths, so the matrix's float rounding decides nothing).
        rng = 31337;
        using (var octree = new Octree<int>(new Box3(-16, -16, -16, 16, 16, 16)))
        {
            var boxes = new List<Box3>();
            for (int i = 0; i < 300; ++i)
            {
                double x = Rnd(30 * 8) / 8.0 - 15, y = Rnd(30 * 8) / 8.0 - 15, z = Rnd(30 * 8) / 8.0 - 15;
                boxes.Add(new Box3(x, y, z, x + 0.75, y + 0.75, z + 0.75));
                octree.Insert(boxes[i], i);
            }
            var view = System.Numerics.Matrix4x4.CreateLookAt(new System.Numerics.Vector3(0, 0, 10), new System.Numerics.Vector3(0, 0, 0), System.Numerics.Vector3.UnitY);
            var projection = System.Numerics.Matrix4x4.CreateOrthographicOffCenter(-4.3f, 6.3f, -3.3f, 5.3f, 2.3f, 20.3f);
            var numbers = new double[16];
            var hits = new List<int>();
            octree.Query(Shape.Frustum(view * projection, true, numbers), hits);
            var frustumBox = new Box3(-4.3, -3.3, -10.3, 6.3, 5.3, 7.7);
            var want = Enumerable.Range(0, 300).Where(i => boxes[i].Overlaps(frustumBox)).ToList();
            Check(want.Count > 10 && hits.OrderBy(i => i).SequenceEqual(want), "a System.Numerics camera's frustum: " + hits.Count + " hits, brute force " + want.Count);
            hits.Clear();
            octree.Query(Shape.Frustum(view * projection, false, numbers), hits);
            Check(hits.Count > want.Count, "the same matrix read with OpenGL's clip depth reaches further (" + hits.Count + ")");
        }
    }
}
