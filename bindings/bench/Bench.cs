// SPDX-License-Identifier: MIT
// The C# half of the bindings bench (see bench_bindings.cpp): the same scene and circles from the same LCG,
// QuadTree<int>.Query into a reused list. Run by scripts/bench_bindings under mono.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using Quadrant;

static class Bench
{
    static ulong state = 12345;
    static ulong Rnd(ulong n)
    {
        state = state * 6364136223846793005ul + 1442695040888963407ul;
        return (state >> 33) % n;
    }
    static int Main()
    {
        const int Boxes = 10000, Queries = 2000, Reps = 9;
        const double Radius = 15;
        var tree = new QuadTree<int>(new Box2(0, 0, 1000, 1000));
        for (int i = 0; i < Boxes; ++i)
        {
            double x = Rnd(100000) / 100.0, y = Rnd(100000) / 100.0;
            double w = 1 + Rnd(500) / 100.0, h = 1 + Rnd(500) / 100.0;
            tree.Insert(new Box2(x, y, x + w, y + h), i);
        }
        var cx = new double[Queries];
        var cy = new double[Queries];
        for (int q = 0; q < Queries; ++q) { cx[q] = Rnd(100000) / 100.0; cy[q] = Rnd(100000) / 100.0; }
        var hits = new List<int>(1024);
        var ns = new double[Reps];
        long total = 0;
        for (int r = 0; r < Reps; ++r)
        {
            var watch = Stopwatch.StartNew();
            total = 0;
            for (int q = 0; q < Queries; ++q)
            {
                hits.Clear();
                total += tree.Query(Shape.Circle(cx[q], cy[q], Radius), hits);
            }
            ns[r] = watch.Elapsed.TotalMilliseconds * 1e6 / Queries;
        }
        Array.Sort(ns);
        Console.WriteLine("csharp_list {0:F1} {1}", ns[Reps / 2], total);
        tree.Dispose();
        return 0;
    }
}
