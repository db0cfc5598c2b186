// SPDX-License-Identifier: MIT
// Tests of what the C# binding gained for parity with the C API, each against a C# brute-force oracle on random
// scenes with fixed seeds (printed on failure), in 2D and 3D, float and double, each placement: bulk build (arrays
// and spans), batch moves, query output into arrays and spans, hit callbacks, ray casts, nearest as Neighbor, pairs
// through a layer matrix, two-tree pairs, node walks, node queries and locate; ContactTracker; Streamer.
// Coordinates are multiples of 1/64 below 256 (exact in float), so brute force in double is exact for both.
using System;
using System.Collections.Generic;
using System.Linq;
using Quadrant;

static partial class Tests
{
    static void ParityTests()
    {
        ulong seed = 1;
        foreach (int dims in new[] { 2, 3 })
            foreach (var scalar in new[] { Scalar.Float, Scalar.Double })
                foreach (var placement in new[] { Placement.Loose, Placement.Parent, Placement.Leaves })
                {
                    int before = failures;
                    TreeParity(dims, scalar, placement, 1000 + seed);
                    Contacts(dims, scalar, placement, false, 2000 + seed);
                    Contacts(dims, scalar, placement, true, 3000 + seed);
                    if (dims == 3) Streaming(scalar, placement, 4000 + seed);
                    Console.WriteLine("  parity {0}D {1,-6} {2,-6} seeds {3}: tree, contacts{4}: {5}", dims, scalar, placement, seed,
                                      dims == 3 ? ", streamer" : "", failures == before ? "as brute force" : "FAILED");
                    ++seed;
                }
    }

    // One tree of either dimension, with boxes kept as Box3 (z 0 in 2D, where closed boxes still overlap).
    sealed class Scene : IDisposable
    {
        public readonly int Dims;
        public readonly SpatialTree<int> Tree;
        public readonly QuadTree<int> Q;
        public readonly Octree<int> O;
        public Scene(int dims, Scalar scalar, Placement placement, int maxDepth = 5, int split = 4)
        {
            Dims = dims;
            if (dims == 2) Tree = Q = new QuadTree<int>(new Box2(0, 0, 128, 128), scalar, placement, maxDepth, split);
            else Tree = O = new Octree<int>(new Box3(0, 0, 0, 128, 128, 128), scalar, placement, maxDepth, split);
        }
        public void Dispose() { Tree.Dispose(); }
        public Box2 B2(Box3 b) { return new Box2(b.MinX, b.MinY, b.MaxX, b.MaxY); }
        public Shape BoxShape(Box3 b) { return Dims == 2 ? Shape.Box(B2(b)) : Shape.Box(b); }
        public Handle Insert(Box3 b, int v, uint layers) { return Dims == 2 ? Q.Insert(B2(b), v, layers) : O.Insert(b, v, layers); }
        public Box3 Bounds(Handle h)
        {
            if (Dims == 3) return O.Bounds(h);
            Box2 b = Q.Bounds(h);
            return new Box3(b.MinX, b.MinY, 0, b.MaxX, b.MaxY, 0);
        }
        public void Assign(Box3[] boxes, int[] values, uint[] layers, Handle[] handles, bool span)
        {
            if (Dims == 2)
            {
                Box2[] b2 = boxes.Select(B2).ToArray();
                if (span) Q.Assign(new ReadOnlySpan<Box2>(b2), new ReadOnlySpan<int>(values), new ReadOnlySpan<uint>(layers), new Span<Handle>(handles));
                else Q.Assign(b2, values, layers, handles);
            }
            else if (span) O.Assign(new ReadOnlySpan<Box3>(boxes), new ReadOnlySpan<int>(values), new ReadOnlySpan<uint>(layers), new Span<Handle>(handles));
            else O.Assign(boxes, values, layers, handles);
        }
        // mode 0: arrays; 1: spans; 2: array segments (the arrays padded with junk on both sides).
        public void MoveMany(Handle[] handles, Box3[] boxes, int mode)
        {
            var junkH = new[] { new Handle(12345) };
            var segH = new ArraySegment<Handle>(junkH.Concat(handles).Concat(junkH).ToArray(), 1, handles.Length);
            if (Dims == 2)
            {
                Box2[] b2 = boxes.Select(B2).ToArray();
                var junk = new[] { new Box2(double.NaN, 0, 0, 0) };
                if (mode == 1) Q.MoveMany(new ReadOnlySpan<Handle>(handles), new ReadOnlySpan<Box2>(b2));
                else if (mode == 2) Q.MoveMany(segH, new ArraySegment<Box2>(junk.Concat(b2).Concat(junk).ToArray(), 1, b2.Length));
                else Q.MoveMany(handles, b2);
            }
            else if (mode == 1) O.MoveMany(new ReadOnlySpan<Handle>(handles), new ReadOnlySpan<Box3>(boxes));
            else if (mode == 2)
            {
                var junk = new[] { new Box3(double.NaN, 0, 0, 0, 0, 0) };
                O.MoveMany(segH, new ArraySegment<Box3>(junk.Concat(boxes).Concat(junk).ToArray(), 1, boxes.Length));
            }
            else O.MoveMany(handles, boxes);
        }
        public void MoveMany(Handle[] handles, Box3[] boxes, bool span) { MoveMany(handles, boxes, span ? 1 : 0); }
        public int Raycast(double[] a, double[] b, List<RayHit<int>> hits, int limit, uint layers)
        {
            return Dims == 2 ? Q.Raycast(a[0], a[1], b[0], b[1], hits, limit, layers) : O.Raycast(a[0], a[1], a[2], b[0], b[1], b[2], hits, limit, layers);
        }
        public int Raycast(double[] a, double[] b, Func<int, Handle, double, bool> fn, uint layers)
        {
            return Dims == 2 ? Q.Raycast(a[0], a[1], b[0], b[1], fn, layers) : O.Raycast(a[0], a[1], a[2], b[0], b[1], b[2], fn, layers);
        }
        public int Nearest(double[] p, int k, List<Neighbor<int>> results, uint layers)
        {
            return Dims == 2 ? Q.Nearest(p[0], p[1], k, results, double.PositiveInfinity, layers) : O.Nearest(p[0], p[1], p[2], k, results, double.PositiveInfinity, layers);
        }
        public NodeInfo Locate(double[] p) { return Dims == 2 ? Q.Locate(p[0], p[1]) : O.Locate(p[0], p[1], p[2]); }
    }

    static double Coord(int range) { return Rnd(range * 64) / 64.0; }
    static Box3 RandomBox(int dims, int maxSide = 8)
    {
        double x = Coord(136) - 4, y = Coord(136) - 4, z = dims == 3 ? Coord(136) - 4 : 0;
        // Bigger in 3D, so that the sparser space still makes overlaps and ray hits.
        if (dims == 3) maxSide = maxSide * 5 / 2;
        double w = Coord(maxSide), h = Coord(maxSide), d = dims == 3 ? Coord(maxSide) : 0;
        return new Box3(x, y, z, x + w, y + h, z + d);
    }
    static readonly uint[] LayerChoices = { 1u, 2u, 4u, 3u, 0xffffffffu };

    // The fraction where the segment a -> b enters the box, or NaN if it misses; `margin` receives how far from
    // the decision the test was (tmax - tmin, or the gap of a parallel axis), so near-ties can be left out.
    static double Enter(double[] a, double[] b, Box3 box, int dims, out double margin)
    {
        double tmin = 0, tmax = 1;
        margin = double.PositiveInfinity;
        for (int axis = 0; axis < dims; ++axis)
        {
            double lo = axis == 0 ? box.MinX : axis == 1 ? box.MinY : box.MinZ;
            double hi = axis == 0 ? box.MaxX : axis == 1 ? box.MaxY : box.MaxZ;
            double d = b[axis] - a[axis];
            if (d == 0)
            {
                double gap = Math.Max(lo - a[axis], a[axis] - hi);
                margin = Math.Min(margin, Math.Abs(gap));
                if (gap > 0) { margin = gap; return double.NaN; }
                continue;
            }
            double t1 = (lo - a[axis]) / d, t2 = (hi - a[axis]) / d;
            if (t1 > t2) { double s = t1; t1 = t2; t2 = s; }
            tmin = Math.Max(tmin, t1);
            tmax = Math.Min(tmax, t2);
        }
        margin = Math.Min(margin, Math.Abs(tmax - tmin));
        return tmin <= tmax ? tmin : double.NaN;
    }
    static double Gap2(double[] p, Box3 b, int dims)
    {
        double s = 0;
        for (int axis = 0; axis < dims; ++axis)
        {
            double lo = axis == 0 ? b.MinX : axis == 1 ? b.MinY : b.MinZ, hi = axis == 0 ? b.MaxX : axis == 1 ? b.MaxY : b.MaxZ;
            double g = p[axis] < lo ? lo - p[axis] : (p[axis] > hi ? p[axis] - hi : 0);
            s += g * g;
        }
        return s;
    }
    static bool Inside(double[] p, Box3 cell, int dims)
    {
        return p[0] >= cell.MinX && p[0] <= cell.MaxX && p[1] >= cell.MinY && p[1] <= cell.MaxY && (dims == 2 || (p[2] >= cell.MinZ && p[2] <= cell.MaxZ));
    }
    static long Key(int a, int b) { return (long)Math.Min(a, b) << 32 | (uint)Math.Max(a, b); }

    static void TreeParity(int dims, Scalar scalar, Placement placement, ulong seed)
    {
        rng = seed;
        string where = dims + "D " + scalar + " " + placement + " seed " + seed;
        const int N = 160;
        using (var scene = new Scene(dims, scalar, placement))
        using (var other = new Scene(dims, scalar, placement == Placement.Loose ? Placement.Leaves : Placement.Loose))
        {
            var tree = scene.Tree;
            var boxes = new Box3[N];
            var values = new int[N];
            var layers = new uint[N];
            var handles = new Handle[N];
            for (int i = 0; i < N; ++i) { boxes[i] = RandomBox(dims); values[i] = 1000 + i; layers[i] = LayerChoices[Rnd(5)]; }
            // Bulk build twice (arrays, then spans): the second replaces the first, whose handles go stale.
            scene.Assign(boxes, values, layers, handles, false);
            Check(tree.Count == N && Enumerable.Range(0, N).All(i => tree.Value(handles[i]) == values[i] && tree.Layers(handles[i]) == layers[i]
                                                                && scene.Bounds(handles[i]).Equals(boxes[i])), where + ": assign (arrays) stores each box, value and layer mask at its index");
            Handle old = handles[0];
            scene.Assign(boxes, values, layers, handles, true);
            Check(!tree.Contains(old) || old == handles[0], where + ": assign makes the old handles stale");
            Check(tree.Count == N && Enumerable.Range(0, N).All(i => tree.Value(handles[i]) == values[i] && tree.Layers(handles[i]) == layers[i]),
                  where + ": assign stores each value and layer mask at its index");
            tree.Validate();
            // Another tree for two-tree pairs, built by inserts.
            var otherBoxes = new Box3[60];
            var otherLayers = new uint[60];
            for (int i = 0; i < 60; ++i) { otherBoxes[i] = RandomBox(dims, 16); otherLayers[i] = LayerChoices[Rnd(5)]; other.Insert(otherBoxes[i], i, otherLayers[i]); }

            var matrix = new LayerMatrix().Set(0, 1).Set(2, 2);
            var hitHandles = new Handle[N];
            var rays = new List<RayHit<int>>();
            var neighbors = new List<Neighbor<int>>();
            var pairs = new List<KeyValuePair<int, int>>();
            var nodes = new List<NodeInfo>();
            var walked = new List<NodeInfo>();
            int rayHits = 0, matrixPairs = 0, crossPairs = 0;
            for (int round = 0; round < 12; ++round)
            {
                // Move a third of the objects in one batch (arrays or spans).
                var moved = Enumerable.Range(0, N).Where(i => Rnd(3) == 0).ToArray();
                var newBoxes = moved.Select(i => RandomBox(dims)).ToArray();
                scene.MoveMany(moved.Select(i => handles[i]).ToArray(), newBoxes, round % 3);
                for (int k = 0; k < moved.Length; ++k) boxes[moved[k]] = newBoxes[k];
                tree.Validate();
                Check(Enumerable.Range(0, N).All(i => scene.Bounds(handles[i]).Equals(boxes[i])), where + ": MoveMany gave each object its box");

                // Query output into an array, a span and a callback: the same objects as brute force.
                Box3 window = RandomBox(dims, 48);
                uint mask = LayerChoices[Rnd(5)];
                var want = Enumerable.Range(0, N).Where(i => boxes[i].Overlaps(window) && (layers[i] & mask) != 0).Select(i => handles[i]).OrderBy(h => h.Value).ToList();
                int total = tree.QueryHandles(scene.BoxShape(window), hitHandles, mask);
                Check(total == want.Count && hitHandles.Take(total).OrderBy(h => h.Value).SequenceEqual(want), where + ": QueryHandles (array)");
                var small = new Handle[Math.Max(0, want.Count - 1)];
                Check(tree.QueryHandles(scene.BoxShape(window), small, mask) == want.Count, where + ": QueryHandles counts past a short array");
                var padded = Enumerable.Repeat(new Handle(7), want.Count + 4).ToArray();
                int segTotal = tree.QueryHandles(scene.BoxShape(window), new ArraySegment<Handle>(padded, 2, want.Count), mask);
                Check(segTotal == want.Count && padded.Skip(2).Take(want.Count).OrderBy(h => h.Value).SequenceEqual(want)
                      && padded.Take(2).Concat(padded.Skip(2 + want.Count)).All(h => h.Value == 7), where + ": QueryHandles (array segment) writes its part only");
                Span<Handle> span = new Handle[want.Count];
                int spanTotal = tree.QueryHandles(scene.BoxShape(window), span, mask);
                Check(spanTotal == want.Count && span.Slice(0, spanTotal).ToArray().OrderBy(h => h.Value).SequenceEqual(want), where + ": QueryHandles (span)");
                Check(tree.LastQuery.Hits == want.Count && tree.LastQuery.NodesVisited > 0, where + ": LastQuery");
                var valueSpan = new int[N];
                Check(tree.QueryValues(scene.BoxShape(window), new Span<int>(valueSpan), mask) == want.Count
                      && valueSpan.Take(want.Count).OrderBy(v => v).SequenceEqual(want.Select(h => tree.Value(h)).OrderBy(v => v)), where + ": QueryValues");
                var seen = new List<Handle>();
                QueryStats stats = tree.ForEachHit(scene.BoxShape(window), (v, h) => { seen.Add(h); Check(tree.Value(h) == v, "hit value"); return true; }, mask);
                Check(seen.OrderBy(h => h.Value).SequenceEqual(want) && stats.Hits == want.Count && !stats.Stopped, where + ": ForEachHit");
                if (want.Count > 1)
                {
                    int calls = 0;
                    stats = tree.ForEachHit(scene.BoxShape(window), (v, h) => ++calls < 2, mask);
                    Check(calls == 2 && stats.Stopped, where + ": ForEachHit stops when fn returns false");
                }

                // Each callback returning false stops its walk.
                int stops = 0;
                tree.ForEachNode(n => ++stops < 2);
                Check(stops == 2, where + ": ForEachNode stops");
                stops = 0;
                tree.QueryNodes(scene.BoxShape(new Box3(0, 0, 0, 128, 128, 128)), n => ++stops < 2, false);
                Check(stops == 2, where + ": QueryNodes stops");
                stops = 0;
                tree.ForEachPair((x, y) => ++stops < 2, LayerMatrix.All());
                Check(stops == 2, where + ": ForEachPair through a matrix stops");
                stops = 0;
                tree.ForEachPairWith(other.Tree, (x, y) => ++stops < 2);
                Check(stops == 2, where + ": ForEachPairWith stops");
                stops = 0;
                var diagonal = new List<RayHit<int>>();
                scene.Raycast(new double[] { -10, -10, -10 }, new double[] { 140, 140, 140 }, diagonal, int.MaxValue, 0xffffffffu);
                scene.Raycast(new double[] { -10, -10, -10 }, new double[] { 140, 140, 140 }, (v, h, t) => ++stops < 2, 0xffffffffu);
                Check(stops == Math.Min(2, diagonal.Count), where + ": Raycast stops");

                // Ray casts: every object the segment crosses, nearest first, with its entry fraction (4 a round).
                for (int ray = 0; ray < 4; ++ray)
                {
                    double[] a = new double[3], b = new double[3];
                    for (int axis = 0; axis < dims; ++axis) { a[axis] = Coord(128) + 0.3; b[axis] = Coord(128) + 0.7; }
                    if (scalar == Scalar.Float) for (int axis = 0; axis < 3; ++axis) { a[axis] = (float)a[axis]; b[axis] = (float)b[axis]; }
                    rays.Clear();
                    scene.Raycast(a, b, rays, int.MaxValue, mask);
                    var byHandle = rays.ToDictionary(r => r.Handle.Value, r => r.T);
                    for (int i = 0; i < N; ++i)
                    {
                        double margin;
                        double t = Enter(a, b, boxes[i], dims, out margin);
                        bool member = (layers[i] & mask) != 0;
                        if (margin < 1e-4) continue; // a graze: float and double may decide it differently
                        bool got = byHandle.ContainsKey(handles[i].Value);
                        Check(got == (member && !double.IsNaN(t)), where + ": raycast finds object " + i + " as brute force");
                        if (got && member && !double.IsNaN(t)) Check(Math.Abs(byHandle[handles[i].Value] - t) <= 1e-4, where + ": raycast t of " + i);
                    }
                    for (int k = 1; k < rays.Count; ++k) Check(rays[k - 1].T <= rays[k].T, where + ": ray hits nearest first");
                    Check(rays.All(r => tree.Value(r.Handle) == r.Value), where + ": ray hit values");
                    rayHits += rays.Count;
                    var first = new List<RayHit<int>>();
                    scene.Raycast(a, b, first, 1, mask);
                    Check(first.Count == Math.Min(1, rays.Count) && (rays.Count == 0 || first[0].T == rays[0].T), where + ": raycast limit 1 is the first hit");
                    var each = new List<double>();
                    scene.Raycast(a, b, (v, h, t) => { each.Add(t); return true; }, mask);
                    Check(each.SequenceEqual(rays.Select(r => r.T)), where + ": Raycast with a callback as into a list");

                }
                // Nearest as Neighbor values.
                double[] p = { Coord(128), Coord(128), dims == 3 ? Coord(128) : 0 };
                neighbors.Clear();
                scene.Nearest(p, 7, neighbors, mask);
                var nearest = Enumerable.Range(0, N).Where(i => (layers[i] & mask) != 0).Select(i => Math.Sqrt(Gap2(p, boxes[i], dims))).OrderBy(d => d).Take(7).ToList();
                Check(neighbors.Count == nearest.Count && neighbors.Zip(nearest, (x, y) => Math.Abs(x.Distance - y) <= 1e-5 * (1 + y)).All(ok => ok)
                      && neighbors.All(nb => tree.Value(nb.Handle) == nb.Value), where + ": nearest 7 as Neighbor");

                // Pairs through the layer matrix: overlapping, and some layer of one collides with some of the other.
                pairs.Clear();
                tree.Pairs(pairs, matrix);
                var wantPairs = new HashSet<long>();
                for (int i = 0; i < N; ++i)
                    for (int j = i + 1; j < N; ++j)
                        if (boxes[i].Overlaps(boxes[j]) && matrix.Lets(layers[i], layers[j])) wantPairs.Add(Key(values[i], values[j]));
                Check(pairs.Count == wantPairs.Count && new HashSet<long>(pairs.Select(q => Key(q.Key, q.Value))).SetEquals(wantPairs), where + ": pairs through a layer matrix");
                int viaFn = 0;
                tree.ForEachPair((x, y) => { viaFn += wantPairs.Contains(Key(x, y)) ? 1 : 1000; return true; }, matrix);
                Check(viaFn == wantPairs.Count, where + ": ForEachPair through a layer matrix");
                matrixPairs += pairs.Count;

                // Two-tree pairs.
                var cross = new List<KeyValuePair<int, int>>();
                uint maskA = LayerChoices[Rnd(5)], maskB = LayerChoices[Rnd(5)];
                tree.PairsWith(other.Tree, cross, maskA, maskB);
                var wantCross = new HashSet<long>();
                for (int i = 0; i < N; ++i)
                    for (int j = 0; j < 60; ++j)
                        if (boxes[i].Overlaps(otherBoxes[j]) && (layers[i] & maskA) != 0 && (otherLayers[j] & maskB) != 0) wantCross.Add((long)values[i] << 32 | (uint)j);
                Check(cross.Count == wantCross.Count && new HashSet<long>(cross.Select(q => (long)q.Key << 32 | (uint)q.Value)).SetEquals(wantCross), where + ": two-tree pairs");
                int crossFn = 0;
                tree.ForEachPairWith(other.Tree, (x, y) => { crossFn += wantCross.Contains((long)x << 32 | (uint)y) ? 1 : 1000; return true; }, maskA, maskB);
                Check(crossFn == wantCross.Count, where + ": ForEachPairWith");
                crossPairs += cross.Count;

                // Node walks: the list and the callback agree; the counts match Stats.
                nodes.Clear();
                tree.Nodes(nodes);
                walked.Clear();
                tree.ForEachNode(n => { walked.Add(n); return true; });
                TreeStats st = tree.Stats();
                Check(nodes.Count == st.Nodes && nodes.Count(n => n.IsLeaf) == st.Leaves && nodes.Sum(n => (long)n.Items) == st.References
                      && nodes.Max(n => n.Depth) == st.Depth && nodes[0].Parent == -1 && nodes[0].Count == st.References, where + ": nodes against Stats");
                Check(walked.Count == nodes.Count && walked.Zip(nodes, (x, y) => x.Id == y.Id && x.Cell.Equals(y.Cell)).All(ok => ok), where + ": ForEachNode as Nodes");
                var byId = nodes.ToDictionary(n => n.Id);
                Check(nodes.Skip(1).All(n => byId.ContainsKey(n.Parent) && byId[n.Parent].Depth == n.Depth - 1
                                          && byId[n.Parent].Cell.MinX <= n.Cell.MinX && n.Cell.MaxX <= byId[n.Parent].Cell.MaxX), where + ": children inside their parents");
                // Node queries: the leaves whose cells the window touches (those holding objects with skipEmpty).
                var leaves = nodes.Where(n => n.IsLeaf && n.Cell.Overlaps(window)).Select(n => n.Id).OrderBy(id => id).ToList();
                var got2 = new List<NodeInfo>();
                tree.QueryNodes(scene.BoxShape(window), got2, false);
                Check(got2.Select(n => n.Id).OrderBy(id => id).SequenceEqual(leaves), where + ": QueryNodes without skipping");
                got2.Clear();
                tree.QueryNodes(scene.BoxShape(window), got2);
                var nonEmpty = nodes.Where(n => n.IsLeaf && n.Count > 0 && n.Cell.Overlaps(window)).Select(n => n.Id).OrderBy(id => id).ToList();
                Check(got2.Select(n => n.Id).OrderBy(id => id).SequenceEqual(nonEmpty), where + ": QueryNodes skipping empty subtrees");
                var viaNodeFn = new List<int>();
                tree.QueryNodes(scene.BoxShape(window), n => { viaNodeFn.Add(n.Id); return true; });
                Check(viaNodeFn.SequenceEqual(got2.Select(n => n.Id)), where + ": QueryNodes with a callback");
                // Locate: the one leaf whose cell holds a point off every cell boundary.
                double[] q2 = { Coord(127) + 1.0 / 256, Coord(127) + 1.0 / 256, dims == 3 ? Coord(127) + 1.0 / 256 : 0 };
                var holding = nodes.Where(n => n.IsLeaf && Inside(q2, n.Cell, dims)).ToList();
                NodeInfo located = scene.Locate(q2);
                Check(holding.Count == 1 && located.Id == holding[0].Id && located.IsLeaf, where + ": Locate");
            }
            Check(rayHits > 15 && matrixPairs > 12 && crossPairs > 12, where + ": the scene exercised rays (" + rayHits + "), filtered pairs (" + matrixPairs + ") and cross pairs (" + crossPairs + ")");
        }
    }

    // ContactTracker against brute force: each step's begun, ended and current pairs, as sorted lists.
    static void Contacts(int dims, Scalar scalar, Placement placement, bool useMatrix, ulong seed)
    {
        rng = seed;
        string where = "contacts " + dims + "D " + scalar + " " + placement + (useMatrix ? " matrix" : " layers") + " seed " + seed;
        using (var scene = new Scene(dims, scalar, placement))
        using (var tracker = new ContactTracker())
        {
            var live = new Dictionary<ulong, Box3>();
            var layerOf = new Dictionary<ulong, uint>();
            var matrix = new LayerMatrix().Between(1u, 0xffffffffu).Set(2, 2);
            const uint mask = 3u;
            for (int i = 0; i < 80; ++i)
            {
                Box3 b = RandomBox(dims, 16);
                uint l = LayerChoices[Rnd(5)];
                Handle h = scene.Insert(b, i, l);
                live[h.Value] = b;
                layerOf[h.Value] = l;
            }
            var before = new List<Contact>();
            var begun = new List<Contact>();
            var ended = new List<Contact>();
            var current = new List<Contact>();
            int events = 0, most = 0;
            for (int step = 0; step < 25; ++step)
            {
                // Move some, erase some, insert some.
                foreach (ulong h in live.Keys.ToList())
                {
                    int roll = Rnd(20);
                    if (roll < 5) { Box3 b = RandomBox(dims, 16); if (dims == 2) scene.Q.Move(new Handle(h), scene.B2(b)); else scene.O.Move(new Handle(h), b); live[h] = b; }
                    else if (roll == 5) { scene.Tree.Erase(new Handle(h)); live.Remove(h); layerOf.Remove(h); }
                }
                for (int k = Rnd(4); k > 0; --k)
                {
                    Box3 b = RandomBox(dims, 16);
                    uint l = LayerChoices[Rnd(5)];
                    Handle h = scene.Insert(b, 1000 + step, l);
                    live[h.Value] = b;
                    layerOf[h.Value] = l;
                }
                var now = new List<Contact>();
                var hs = live.Keys.ToList();
                foreach (ulong x in hs)
                    foreach (ulong y in hs)
                    {
                        Handle hx = new Handle(x), hy = new Handle(y);
                        if (hx.Slot >= hy.Slot || !live[x].Overlaps(live[y])) continue;
                        bool through = useMatrix ? matrix.Lets(layerOf[x], layerOf[y]) : ((layerOf[x] & mask) != 0 && (layerOf[y] & mask) != 0);
                        if (through) now.Add(new Contact(hx, hy));
                    }
                now = now.OrderBy(c => c.A.Slot).ThenBy(c => c.B.Slot).ToList();
                var wantBegun = now.Where(c => !before.Contains(c)).ToList();
                var wantEnded = before.Where(c => !now.Contains(c)).ToList();
                begun.Clear(); ended.Clear(); current.Clear();
                int count = useMatrix ? tracker.Update(scene.Tree, matrix, begun, ended, current) : tracker.Update(scene.Tree, begun, ended, current, mask);
                Check(count == now.Count && current.SequenceEqual(now), where + " step " + step + ": " + current.Count + " contacts, brute force " + now.Count);
                Check(begun.SequenceEqual(wantBegun), where + " step " + step + ": begun " + begun.Count + ", brute force " + wantBegun.Count);
                Check(ended.SequenceEqual(wantEnded), where + " step " + step + ": ended " + ended.Count + ", brute force " + wantEnded.Count);
                events += begun.Count + ended.Count;
                most = Math.Max(most, now.Count);
                before = now;
            }
            Check(events > 50 && most > 5, where + ": the run made events (" + events + ", at most " + most + " contacts)");
            // Another tree is refused, the tracker unchanged: the next step on the first tree reports nothing new.
            using (var otherTree = new QuadTree<int>(new Box2(0, 0, 1, 1)))
            {
                begun.Clear(); ended.Clear(); current.Clear();
                Raises<ArgumentException>("quadrant", () => tracker.Update(otherTree, begun, ended));
                Check(begun.Count == 0 && ended.Count == 0, where + ": a refused update leaves the lists as they were");
            }
            current.Clear();
            tracker.Update(scene.Tree, begun, ended, current, useMatrix ? 0xffffffffu : mask);
            if (!useMatrix) Check(begun.Count == 0 && ended.Count == 0 && current.SequenceEqual(before), where + ": after a refused update, the tracker is as it was");
            tracker.Clear();
            begun.Clear();
            tracker.Update(scene.Tree, begun, ended, null, mask);
            Check(!useMatrix ? begun.SequenceEqual(before) : true, where + ": after Clear every pair begins again");
        }
    }

    // Streamer against a C# model of docs/streaming.md's rules, with ball sources (and one box-shaped frustum):
    // cancel / unload what no source keeps, rebuild the queue, load the nearest wanted within the caps.
    sealed class SObj { public Box3 Box; public StreamState State; }
    static void Streaming(Scalar scalar, Placement placement, ulong seed)
    {
        rng = seed;
        string where = "streamer " + scalar + " " + placement + " seed " + seed;
        const double margin = 6;
        int perUpdate = 5, inFlight = 12;
        using (var streamer = new Streamer(new Box3(0, 0, 0, 256, 256, 256), margin, perUpdate, inFlight, scalar, placement, 5, 4))
        {
            var objs = new SortedDictionary<ulong, SObj>();
            ulong nextId = 1;
            Func<Box3> box = () =>
            {
                double x = Rnd(240), y = Rnd(240), z = Rnd(240);
                return new Box3(x, y, z, x + Rnd(10), y + Rnd(10), z + Rnd(10));
            };
            for (int i = 0; i < 400; ++i) { ulong id = nextId++ * 7; var b = box(); streamer.Add(id, b); objs[id] = new SObj { Box = b, State = StreamState.Unloaded }; }
            var result = new StreamUpdate();
            int loads = 0, unloads = 0, cancels = 0;
            double[] px = { Rnd(256), Rnd(256) }, py = { Rnd(256), Rnd(256) }, pz = { Rnd(256), Rnd(256) };
            for (int frame = 0; frame < 40; ++frame)
            {
                if (frame == 20) { perUpdate = 9; inFlight = 7; streamer.SetLimits(perUpdate, inFlight); }
                int nsrc = 1 + frame % 2;
                var sources = new StreamSource[nsrc];
                var radius = new double[nsrc];
                for (int s = 0; s < nsrc; ++s)
                {
                    px[s] = Math.Max(0, Math.Min(255, px[s] + Rnd(25) - 12)); py[s] = Math.Max(0, Math.Min(255, py[s] + Rnd(25) - 12)); pz[s] = Math.Max(0, Math.Min(255, pz[s] + Rnd(25) - 12));
                    radius[s] = 20 + Rnd(30);
                    sources[s] = StreamSource.Ball(px[s], py[s], pz[s], radius[s]);
                }
                // The model.
                Func<Box3, double, bool> within = (b, extra) =>
                {
                    for (int s = 0; s < nsrc; ++s)
                    {
                        double r = radius[s] + extra;
                        if (Gap2(new[] { px[s], py[s], pz[s] }, b, 3) <= r * r) return true;
                    }
                    return false;
                };
                var wantCancels = new List<ulong>();
                var wantUnloads = new List<ulong>();
                long dequeued = 0;
                foreach (var kv in objs)
                {
                    SObj o = kv.Value;
                    if ((o.State == StreamState.Loading || o.State == StreamState.Loaded) && !within(o.Box, margin))
                    {
                        (o.State == StreamState.Loading ? wantCancels : wantUnloads).Add(kv.Key);
                        o.State = StreamState.Unloaded;
                    }
                }
                foreach (var kv in objs)
                    if (kv.Value.State == StreamState.Queued)
                    {
                        if (!within(kv.Value.Box, 0)) ++dequeued;
                        kv.Value.State = StreamState.Unloaded;
                    }
                int loading = objs.Values.Count(o => o.State == StreamState.Loading);
                var candidates = objs.Where(kv => kv.Value.State == StreamState.Unloaded && within(kv.Value.Box, 0))
                    .Select(kv => new { Id = kv.Key, D = Enumerable.Range(0, nsrc).Min(s => Gap2(new[] { px[s], py[s], pz[s] }, kv.Value.Box, 3)) })
                    .OrderBy(c => c.D).ThenBy(c => c.Id).ToList();
                int budget = Math.Max(0, Math.Min(perUpdate, inFlight - loading));
                var wantLoads = candidates.Take(budget).ToList();
                foreach (var c in wantLoads) objs[c.Id].State = StreamState.Loading;
                foreach (var c in candidates.Skip(budget)) objs[c.Id].State = StreamState.Queued;

                if (frame % 3 == 0) streamer.Update(new ReadOnlySpan<StreamSource>(sources), result);
                else if (nsrc == 1) streamer.Update(sources[0], result);
                else streamer.Update(sources, result);
                string f = where + " frame " + frame;
                Check(result.Loads.Select(l => l.Id).SequenceEqual(wantLoads.Select(c => c.Id)), f + ": loads " + result.Loads.Count + ", model " + wantLoads.Count);
                Check(result.Loads.Zip(wantLoads, (l, c) => Math.Abs(l.Distance - Math.Sqrt(c.D)) <= 1e-4 * (1 + l.Distance)).All(ok => ok), f + ": load distances");
                Check(result.Unloads.SequenceEqual(wantUnloads), f + ": unloads " + result.Unloads.Count + ", model " + wantUnloads.Count);
                Check(result.Cancels.SequenceEqual(wantCancels), f + ": cancels " + result.Cancels.Count + ", model " + wantCancels.Count);
                Check(result.Stats.Loading == objs.Values.Count(o => o.State == StreamState.Loading) && result.Stats.Loaded == objs.Values.Count(o => o.State == StreamState.Loaded)
                      && result.Stats.Queued == objs.Values.Count(o => o.State == StreamState.Queued) && result.Stats.Dequeued == dequeued, f + ": stats");
                loads += result.Loads.Count; unloads += result.Unloads.Count; cancels += result.Cancels.Count;
                foreach (var kv in objs) if (kv.Key % 5 == (ulong)(frame % 5)) Check(streamer.State(kv.Key) == kv.Value.State, f + ": state of " + kv.Key);

                // The loader: completions, failures and late completions; objects move, come and go.
                foreach (var kv in objs.ToList())
                {
                    SObj o = kv.Value;
                    int roll = Rnd(10);
                    if (o.State == StreamState.Loading && roll < 5) { Check(streamer.MarkLoaded(kv.Key), f + ": MarkLoaded accepted"); o.State = StreamState.Loaded; }
                    else if (o.State == StreamState.Loading && roll == 5) { Check(streamer.MarkFailed(kv.Key), f + ": MarkFailed accepted"); o.State = StreamState.Unloaded; }
                    else if (o.State != StreamState.Loading && roll == 6 && Rnd(10) == 0) Check(!streamer.MarkLoaded(kv.Key) && streamer.State(kv.Key) == o.State, f + ": a late completion is ignored");
                    else if (roll == 7 && Rnd(8) == 0) { var b = box(); streamer.Move(kv.Key, b); o.Box = b; }
                    else if (roll == 8 && Rnd(20) == 0) { Check(streamer.Remove(kv.Key) == o.State, f + ": Remove returns the state"); objs.Remove(kv.Key); }
                }
                if (Rnd(3) == 0) { ulong id = nextId++ * 7; var b = box(); streamer.Add(id, b); objs[id] = new SObj { Box = b, State = StreamState.Unloaded }; }
                streamer.Validate();
            }
            Check(streamer.Count == objs.Count && loads > 40 && unloads > 5, where + ": the run streamed (" + loads + " loads, " + unloads + " unloads, " + cancels + " cancels)");
            Check(objs.Keys.Take(20).All(id => streamer.Contains(id) && streamer.Bounds(id).Equals(objs[id].Box)), where + ": Contains and Bounds");
        }
        // A camera: the identity view-projection is the clip cube [-1, 1]^3 (OpenGL depth), a frustum whose faces
        // are axis-aligned, where the library's test is exact.
        using (var streamer = new Streamer(new Box3(-4, -4, -4, 4, 4, 4), 0, 100, 100, scalar, placement))
        {
            var want = new List<ulong>();
            for (ulong id = 1; id <= 60; ++id)
            {
                double x = Rnd(7 * 8) / 8.0 - 3.5, y = Rnd(7 * 8) / 8.0 - 3.5, z = Rnd(7 * 8) / 8.0 - 3.5;
                var b = new Box3(x, y, z, x + 1, y + 1, z + 1);
                streamer.Add(id, b);
                if (b.Overlaps(new Box3(-1, -1, -1, 1, 1, 1))) want.Add(id);
            }
            var identity = new double[16];
            identity[0] = identity[5] = identity[10] = identity[15] = 1;
            var result = new StreamUpdate();
            streamer.Update(StreamSource.Camera(identity, false, false, 100, 100, 100, 0), result);
            Check(result.Loads.Select(l => l.Id).OrderBy(id => id).SequenceEqual(want) && want.Count > 0, where + ": a camera loads what its frustum holds (" + want.Count + ")");
        }
    }
}
