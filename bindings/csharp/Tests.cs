// SPDX-License-Identifier: MIT
// Tests of the C# binding, run by mono: the MMO article's scene (300 boxes of side 1 or 2 bouncing in a 120 x 80
// world, 120 frames) against brute force in float and double trees under each placement — every pair, every box's
// own query, circles and nearest; an octree; the area of interest against a C# brute-force reference of
// docs/aoi.md's rule; bad input mapped to exceptions with the library's message; warm queries allocate nothing.
// Positions are multiples of 1/64 below 128, exact in float, so brute force in double is exact for both.
using System;
using System.Collections.Generic;
using System.Linq;
using Quadrant;

static partial class Tests
{
    static int failures;
    static void Check(bool ok, string what)
    {
        if (ok) return;
        ++failures;
        Console.Error.WriteLine("check failed: " + what);
    }
    static void Raises<E>(string pattern, Action a) where E : Exception
    {
        try { a(); Check(false, "expected " + typeof(E).Name + " with \"" + pattern + "\""); }
        catch (E e) { Check(e.Message.Contains(pattern), "message \"" + e.Message + "\" lacks \"" + pattern + "\""); }
    }

    static ulong rng = 12345;
    static int Rnd(int n)
    {
        rng = rng * 6364136223846793005ul + 1442695040888963407ul;
        return (int)((rng >> 33) % (ulong)n);
    }

    static void MmoScene(Scalar scalar, Placement placement)
    {
        const int N = 300;
        var box = new Box2[N];
        var vel = new double[N, 2];
        var tree = new QuadTree<int>(new Box2(0, 0, 120, 80), scalar, placement, 4, 4);
        var handles = new Handle[N];
        for (int i = 0; i < N; ++i)
        {
            double side = 1 + Rnd(2), cx = 5 + Rnd(110 * 64) / 64.0, cy = 5 + Rnd(70 * 64) / 64.0;
            box[i] = new Box2(cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2);
            vel[i, 0] = (Rnd(2) == 0 ? -1 : 1) * (3 + Rnd(10)) / 64.0;
            vel[i, 1] = (Rnd(2) == 0 ? -1 : 1) * (3 + Rnd(10)) / 64.0;
            handles[i] = tree.Insert(box[i], i);
        }
        var pairs = new List<KeyValuePair<int, int>>();
        var hits = new List<int>();
        var distances = new List<double>();
        long totalPairs = 0;
        for (int frame = 0; frame < 120; ++frame)
        {
            for (int i = 0; i < N; ++i)
            {
                // Bounce off the world's walls, as the article's boxes do.
                for (int a = 0; a < 2; ++a)
                {
                    double lo = a == 0 ? box[i].MinX : box[i].MinY, hi = a == 0 ? box[i].MaxX : box[i].MaxY, limit = a == 0 ? 120 : 80;
                    if (lo + vel[i, a] < 0 || hi + vel[i, a] > limit) vel[i, a] = -vel[i, a];
                }
                box[i] = new Box2(box[i].MinX + vel[i, 0], box[i].MinY + vel[i, 1], box[i].MaxX + vel[i, 0], box[i].MaxY + vel[i, 1]);
                tree.Move(handles[i], box[i]);
            }
            // Every overlapping pair, once.
            pairs.Clear();
            tree.Pairs(pairs);
            var want = new HashSet<long>();
            for (int i = 0; i < N; ++i)
                for (int j = i + 1; j < N; ++j)
                    if (box[i].Overlaps(box[j])) want.Add((long)i * N + j);
            var got = new HashSet<long>(pairs.Select(p => (long)Math.Min(p.Key, p.Value) * N + Math.Max(p.Key, p.Value)));
            Check(pairs.Count == want.Count && got.SetEquals(want), scalar + " " + placement + " frame " + frame + ": " + pairs.Count + " pairs, brute force " + want.Count);
            totalPairs += pairs.Count;
            // The article's loop: every box queries its own box (itself included).
            if (frame % 10 == 0)
            {
                for (int i = 0; i < N; ++i)
                {
                    hits.Clear();
                    tree.Query(Shape.Box(box[i]), hits);
                    int expect = 0;
                    for (int j = 0; j < N; ++j) if (box[i].Overlaps(box[j])) ++expect;
                    Check(hits.Count == expect && hits.All(j => box[i].Overlaps(box[j])), "own-box query of " + i);
                }
                double x = Rnd(120 * 64) / 64.0, y = Rnd(80 * 64) / 64.0, r = Rnd(20 * 64) / 64.0;
                hits.Clear();
                tree.Query(Shape.Circle(x, y, r), hits);
                var circle = Enumerable.Range(0, N).Where(j => Gap2(x, y, box[j]) <= r * r).ToList();
                Check(hits.Count == circle.Count && !hits.Except(circle).Any(), "circle query");
                hits.Clear();
                distances.Clear();
                tree.Nearest(x, y, 5, hits, distances);
                var nearest = Enumerable.Range(0, N).Select(j => Math.Sqrt(Gap2(x, y, box[j]))).OrderBy(d => d).Take(5).ToList();
                Check(hits.Count == 5 && distances.Zip(nearest, (a, b) => Math.Abs(a - b) <= 1e-5 * (1 + b)).All(ok => ok), "nearest 5");
            }
        }
        tree.Validate();
        Check(totalPairs > 120, "the scene collides");
        Console.WriteLine("  {0,-6} {1,-6} 300 boxes, 120 frames: {2} pairs in all, each frame as brute force", scalar, placement, totalPairs);
        tree.Dispose();
    }
    static double Gap2(double x, double y, Box2 b)
    {
        double gx = x < b.MinX ? b.MinX - x : (x > b.MaxX ? x - b.MaxX : 0);
        double gy = y < b.MinY ? b.MinY - y : (y > b.MaxY ? y - b.MaxY : 0);
        return gx * gx + gy * gy;
    }

    static void OctreeAndShapes()
    {
        using (var tree = new Octree<string>(new Box3(0, 0, 0, 10, 10, 10)))
        {
            var a = tree.Insert(new Box3(1, 1, 1, 2, 2, 2), "a");
            tree.Insert(new Box3(5, 5, 5, 6, 6, 6), "b");
            var hits = new List<string>();
            tree.Query(Shape.Sphere(0, 0, 0, 1.8), hits);
            Check(hits.SequenceEqual(new[] { "a" }), "octree: sphere");
            hits.Clear();
            tree.Query(Shape.Segment(0, 0, 0, 10, 10, 10), hits);
            Check(hits.Count == 2, "octree: segment");
            Check(tree.Bounds(a).MaxZ == 2 && tree.Value(a) == "a", "octree: bounds and value");
            Raises<ArgumentException>("2D shape given to a 3D index", () => tree.Query(Shape.Ring(0, 0, 1, 2), hits));
            Raises<ArgumentException>("2D shape given to a 3D index", () => tree.Query(Shape.Circle(0, 0, 100), hits));
        }
        using (var tree = new QuadTree<string>(new Box2(0, 0, 100, 100)))
        {
            tree.Insert(new Box2(10, 10, 12, 12), "near", 1u);
            tree.Insert(new Box2(50, 50, 52, 52), "far", 2u);
            var hits = new List<string>();
            tree.Query(Shape.Polygon(new double[] { 0, 0, 30, 0, 0, 30 }), hits);
            Check(hits.SequenceEqual(new[] { "near" }), "polygon");
            hits.Clear();
            tree.Query(Shape.Sector(0, 0, 1, 1, 100, Math.PI / 8), hits);
            Check(hits.Count == 2, "sector along the diagonal");
            hits.Clear();
            tree.Query(Shape.Box(new Box2(0, 0, 100, 100)), hits, null, 2u);
            Check(hits.SequenceEqual(new[] { "far" }), "layers");
            Raises<ArgumentException>("3D shape given to a 2D index", () => tree.Query(Shape.Sphere(0, 0, 0, 100), hits));
            Raises<ArgumentException>("3D shape given to a 2D index", () => tree.Query(Shape.Box(new Box3(0, 0, 0, 1, 1, 1)), hits));
            Raises<ArgumentNullException>("results", () => tree.Query(Shape.Circle(0, 0, 1), null));
        }
    }

    // The AOI reference: the rule of docs/aoi.md, recomputed from scratch each tick.
    sealed class Ent { public double X, Y, R; public AoiMode Mode; public uint Layers; }
    static void Aoi(Scalar scalar)
    {
        const double hysteresis = 3;
        var world = new AoiWorld(new Box2(0, 0, 300, 300), hysteresis, scalar);
        var ents = new Dictionary<ulong, Ent>();
        var sees = new HashSet<KeyValuePair<ulong, ulong>>();
        var events = new List<AoiEvent>();
        var ids = new List<ulong>();
        uint[] layerChoices = { 0xffffffffu, 1, 2, 3 };
        int total = 0;
        for (int tick = 1; tick <= 60; ++tick)
        {
            for (int i = 1; i <= 150; ++i)
            {
                ulong id = (ulong)i * 7919;
                Ent e;
                int roll = Rnd(100);
                if (!ents.TryGetValue(id, out e))
                {
                    if (roll < (tick == 1 ? 90 : 10))
                    {
                        e = new Ent { X = Rnd(300), Y = Rnd(300), R = 5 + Rnd(30), Mode = (AoiMode)(1 + Rnd(3)), Layers = layerChoices[Rnd(4)] };
                        world.Add(id, e.X, e.Y, e.R, e.Mode, e.Layers);
                        ents[id] = e;
                    }
                }
                else if (roll < 40) { e.X += Rnd(9) - 4; e.Y += Rnd(9) - 4; world.Move(id, e.X, e.Y); }
                else if (roll < 44) { e.R = Rnd(40); world.SetViewRadius(id, e.R); }
                else if (roll < 47) { e.Layers = layerChoices[Rnd(4)]; world.SetLayers(id, e.Layers); }
                else if (roll < 50) { world.Remove(id); ents.Remove(id); }
            }
            var now = new HashSet<KeyValuePair<ulong, ulong>>();
            foreach (var w in ents)
                foreach (var t in ents)
                {
                    if (w.Key == t.Key || (w.Value.Mode & AoiMode.Watcher) == 0 || (t.Value.Mode & AoiMode.Marker) == 0) continue;
                    if ((w.Value.Layers & t.Value.Layers) == 0) continue;
                    double dx = w.Value.X - t.Value.X, dy = w.Value.Y - t.Value.Y;
                    var pair = new KeyValuePair<ulong, ulong>(w.Key, t.Key);
                    double reach = sees.Contains(pair) ? w.Value.R + hysteresis : w.Value.R;
                    if (dx * dx + dy * dy <= reach * reach) now.Add(pair);
                }
            var want = now.Where(p => !sees.Contains(p)).Select(p => new AoiEvent { Enter = true, Watcher = p.Key, Target = p.Value })
                .Concat(sees.Where(p => !now.Contains(p)).Select(p => new AoiEvent { Enter = false, Watcher = p.Key, Target = p.Value }))
                .OrderBy(e => e.Watcher).ThenBy(e => e.Target).ToList();
            events.Clear();
            world.Tick(events);
            Check(events.Count == want.Count, scalar + " tick " + tick + ": " + events.Count + " events, reference " + want.Count);
            for (int k = 0; k < Math.Min(events.Count, want.Count); ++k)
                Check(events[k].Enter == want[k].Enter && events[k].Watcher == want[k].Watcher && events[k].Target == want[k].Target,
                      scalar + " tick " + tick + " event " + k);
            total += events.Count;
            sees = now;
            Check(world.PairCount == now.Count && world.Count == ents.Count, "pair count and size");
            foreach (var p in ents.Take(5))
            {
                double px, py;
                world.Position(p.Key, out px, out py);
                Check(px == p.Value.X && py == p.Value.Y, "position as of the tick");
            }
            foreach (var id in ents.Keys.Where(id => id % 5 == (ulong)(tick % 5)))
            {
                ids.Clear();
                world.Visible(id, ids);
                Check(ids.SequenceEqual(now.Where(p => p.Key == id).Select(p => p.Value).OrderBy(v => v)), "visible");
                ids.Clear();
                world.Watchers(id, ids);
                Check(ids.SequenceEqual(now.Where(p => p.Value == id).Select(p => p.Key).OrderBy(v => v)), "watchers");
            }
            double cx = Rnd(300), cy = Rnd(300);
            ids.Clear();
            world.Query(Shape.Circle(cx, cy, 25), ids);
            var inCircle = ents.Where(p => (p.Value.X - cx) * (p.Value.X - cx) + (p.Value.Y - cy) * (p.Value.Y - cy) <= 625).Select(p => p.Key).OrderBy(v => v);
            Check(ids.SequenceEqual(inCircle), "a skill's circle");
        }
        Check(total > 300, "the run exercised the relation");
        world.Validate();
        Console.WriteLine("  aoi {0,-6} 60 ticks, {1} events, all as the C# reference", scalar, total);
        ulong some = ents.Keys.First();
        Raises<ArgumentException>("already", () => world.Add(some, 1, 1, 5));
        Raises<ArgumentException>("quadrant", () => world.Add(1, double.NaN, 1, 5));
        Raises<ArgumentException>("mode", () => world.Add(1, 1, 1, 5, (AoiMode)7));
        Raises<ArgumentException>("quadrant", () => world.Move(123456789, 1, 1));
        Raises<ArgumentException>("radius", () => world.Query(Shape.Circle(0, 0, -1), ids));
        Raises<ArgumentException>("not in the world", () => world.MoveMany(new ulong[] { some, 123456789 }, new double[] { 1, 1, 2, 2 }, 2));
        events.Clear();
        world.Tick(events);
        Check(events.Count == 0 && !world.Contains(1), "bad input changed nothing");
        world.Dispose();
        Raises<ObjectDisposedException>("", () => world.Tick(events));
    }

    static void BadInput()
    {
        var tree = new QuadTree<int>(new Box2(0, 0, 10, 10), Scalar.Double, Placement.Parent);
        var h = tree.Insert(new Box2(1, 1, 2, 2), 1);
        Raises<ArgumentException>("min > max", () => tree.Insert(new Box2(5, 5, 1, 1), 2));
        Raises<ArgumentException>("NaN", () => tree.Insert(new Box2(double.NaN, 0, 1, 1), 2));
        Raises<ArgumentException>("radius", () => tree.Query(Shape.Circle(0, 0, -1), new List<int>()));
        Raises<ArgumentException>("world", () => new QuadTree<int>(new Box2(0, 0, 0, 1)));
        Raises<ArgumentException>("max_depth", () => new QuadTree<int>(new Box2(0, 0, 1, 1), Scalar.Float, Placement.Loose, -5));
        Check(tree.Count == 1, "bad input changed nothing");
        tree.Erase(h);
        Check(!tree.Contains(h), "an erased handle is stale");
        Raises<ArgumentException>("erase: the handle names no object", () => tree.Erase(h));
        Raises<ArgumentException>("stale", () => tree.Move(h, new Box2(1, 1, 2, 2)));
        Raises<ArgumentException>("stale", () => tree.Value(h));
        Check(tree.Count == 0, "still empty");
        tree.Validate();
        tree.Dispose();
        Raises<ObjectDisposedException>("", () => tree.Insert(new Box2(1, 1, 2, 2), 3));
    }

    // Once the buffers have grown, a query, a pair walk and a tick allocate no managed memory.
    static void NoAllocation()
    {
        var tree = new QuadTree<int>(new Box2(0, 0, 100, 100));
        for (int i = 0; i < 500; ++i)
        {
            int x = Rnd(95), y = Rnd(95);
            tree.Insert(new Box2(x, y, x + 1 + Rnd(5), y + 1 + Rnd(5)), i);
        }
        var hits = new List<int>(1000);
        var pairs = new List<KeyValuePair<int, int>>(100000);
        var circle = Shape.Circle(50, 50, 20);
        var polygon = Shape.Polygon(new double[] { 10, 10, 90, 10, 50, 90 });
        for (int warm = 0; warm < 3; ++warm) { hits.Clear(); tree.Query(circle, hits); tree.Query(polygon, hits); pairs.Clear(); tree.Pairs(pairs); }
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int round = 0; round < 100; ++round)
        {
            hits.Clear();
            tree.Query(circle, hits);
            tree.Query(polygon, hits);
            pairs.Clear();
            tree.Pairs(pairs);
        }
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Check(allocated == 0, "100 warm rounds of queries and pairs allocated " + allocated + " bytes");
        tree.Dispose();
    }


    // Abuse: another tree's handle, an exception or a mutation inside a pair callback, nested walks, a huge k.
    // Each is refused with an exception or works as documented, and the tree stays usable.
    static void Abuse()
    {
        var world = new Box2(0, 0, 100, 100);
        var a = new QuadTree<string>(world);
        var b = new QuadTree<string>(world);
        Handle ha = a.Insert(new Box2(1, 1, 2, 2), "a0");
        Handle hb = b.Insert(new Box2(1, 1, 2, 2), "b0");
        Check(!b.Contains(ha) && !a.Contains(hb), "a tree does not contain another's handle");
        Raises<ArgumentException>("stale or foreign", () => b.Erase(ha));
        Raises<ArgumentException>("stale or foreign", () => b.Move(ha, new Box2(3, 3, 4, 4)));
        Raises<ArgumentException>("stale or foreign", () => b.Bounds(ha));
        Raises<ArgumentException>("stale or foreign", () => b.SetLayers(ha, 1));
        Raises<ArgumentException>("stale or foreign", () => b.Value(ha));
        Check(b.Count == 1 && b.Value(hb) == "b0" && a.Value(ha) == "a0", "foreign handles changed nothing");

        // Ten boxes in a row, each overlapping the next: nine pairs.
        for (int i = 1; i < 10; ++i) a.Insert(new Box2(1 + i, 1 + i, 2 + i, 2 + i), "a" + i);
        var boom = new InvalidOperationException("boom from the callback");
        int seen = 0;
        try
        {
            a.ForEachPair((x, y) => { if (++seen == 3) throw boom; return true; });
            Check(false, "the callback's exception reaches the caller");
        }
        catch (InvalidOperationException e) { Check(ReferenceEquals(e, boom) && seen == 3, "the same exception, and the walk stopped"); }
        Check(a.ForEachPair((x, y) => true) == 9, "every pair after an exception in a callback");
        a.Validate();
        Handle extra = a.Insert(new Box2(90, 90, 91, 91), "extra");
        a.Erase(extra);

        // A mutation from the callback is refused (an InvalidOperationException raised in the callback, rethrown).
        Raises<InvalidOperationException>("inside a walk", () => a.ForEachPair((x, y) => { a.Insert(new Box2(5, 5, 6, 6), "no"); return true; }));
        Check(a.Count == 10, "the refused insert changed nothing");

        // Nested walks: each gets its own results.
        int outer = 0, inner = 0;
        var list = new List<KeyValuePair<string, string>>();
        a.ForEachPair((x, y) => { ++outer; list.Clear(); inner += a.Pairs(list); return true; });
        Check(outer == 9 && inner == 81, "nested pair walks: " + outer + " outer, " + inner + " inner");
        var hits = new List<string>();
        Check(a.ForEachPair((x, y) => { hits.Clear(); return a.Query(Shape.Box(new Box2(0, 0, 100, 100)), hits) == 10; }) == 9, "a query inside a pair callback");

        // k far beyond the object count: no buffer sized by k.
        var near = new List<string>();
        var distances = new List<double>();
        Check(a.Nearest(0, 0, int.MaxValue, near, distances) == 10 && near.Count == 10 && distances.Count == 10, "nearest with k = int.MaxValue");
        Check(near[0] == "a0", "nearest first");
        a.Dispose();
        b.Dispose();
        Raises<ObjectDisposedException>("quadrant", () => a.Insert(new Box2(1, 1, 2, 2), "x"));
    }

    static int Main()
    {
        Console.WriteLine("quadrant " + Library.Version + " from C#: the MMO article's scene against brute force");
        foreach (var scalar in new[] { Scalar.Float, Scalar.Double })
            foreach (var placement in new[] { Placement.Loose, Placement.Parent, Placement.Leaves })
                MmoScene(scalar, placement);
        OctreeAndShapes();
        Aoi(Scalar.Double);
        Aoi(Scalar.Float);
        BadInput();
        Abuse();
        NoAllocation();
        ParityTests();
        CallbackExceptions(2);
        CallbackExceptions(3);
        BadInputParity();
        NoAllocationParity();
        Conversions();
        SlotReuse();
        Check(Game.Names.Check(), "a game's own QuadTree<T> and Quadrant beside the library's");
        if (failures > 0)
        {
            Console.Error.WriteLine(failures + " checks failed");
            return 1;
        }
        Console.WriteLine("quadrant C# binding: all checks passed");
        return 0;
    }
}
