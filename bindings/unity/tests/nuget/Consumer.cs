// SPDX-License-Identifier: MIT
// A program that takes quadrant from its NuGet package (scripts/test_nuget builds it against the package's
// lib/netstandard2.1/Quadrant.dll and runs it over the package's native library): a few calls, their answers
// checked against brute force.
using System;
using System.Collections.Generic;
using Quadrant;

static class Consumer
{
    static int Main()
    {
        var boxes = new List<Box2>();
        var random = new Random(7);
        for (int i = 0; i < 500; i++)
        {
            double x = random.NextDouble() * 1000, y = random.NextDouble() * 1000;
            boxes.Add(new Box2(x, y, x + 1 + random.NextDouble() * 20, y + 1 + random.NextDouble() * 20));
        }
        using (var tree = new QuadTree<int>(new Box2(0, 0, 1000, 1000)))
        {
            for (int i = 0; i < boxes.Count; i++) tree.Insert(boxes[i], i);
            var hits = new List<int>();
            var query = new Box2(200, 200, 400, 450);
            tree.Query(Shape.Box(query), hits);
            hits.Sort();
            var expected = new List<int>();
            for (int i = 0; i < boxes.Count; i++)
                if (boxes[i].Overlaps(query)) expected.Add(i);
            if (tree.Count != boxes.Count || string.Join(",", hits) != string.Join(",", expected))
            {
                Console.Error.WriteLine("FAILED: the box query found " + hits.Count + " objects, brute force " + expected.Count);
                return 1;
            }
            int pairs = 0, bruteForce = 0;
            tree.ForEachPair((a, b) => { pairs++; return true; });
            for (int i = 0; i < boxes.Count; i++)
                for (int j = i + 1; j < boxes.Count; j++)
                    if (boxes[i].Overlaps(boxes[j])) bruteForce++;
            if (pairs != bruteForce)
            {
                Console.Error.WriteLine("FAILED: " + pairs + " pairs, brute force " + bruteForce);
                return 1;
            }
            Console.WriteLine("nuget consumer: quadrant " + Library.Version + ", " + hits.Count + " hits and " + pairs +
                              " pairs agree with brute force");
        }
        return 0;
    }
}
