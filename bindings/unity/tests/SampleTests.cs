// SPDX-License-Identifier: MIT
// Runs the package's samples under mono with the UnityEngine stub, as Unity would call them (Awake, then Update,
// LateUpdate and OnDrawGizmos each frame, OnDestroy), against the native library in the package's Plugins folder,
// and checks every frame's answer against brute force, and that a warm frame allocates nothing. Exits non-zero on
// the first failure, naming it. Run by scripts/test_unity.
using System;
using System.Collections.Generic;
using UnityEngine;
using UnityEngine.TestSupport;
using Quadrant;
using Quadrant.Samples;

static class SampleTests
{
    static int checks;

    static void Check(bool ok, string what)
    {
        checks++;
        if (!ok) throw new Exception("FAILED: " + what);
    }

    // A frame as Unity runs it: Update, LateUpdate, then the Gizmos.
    static Action Frames(MonoBehaviour sample)
    {
        Action update = Messages.Bind(sample, "Update"), late = Messages.Bind(sample, "LateUpdate");
        Action gizmos = Messages.Bind(sample, "OnDrawGizmos");
        return () => { Time.frameCount++; update(); late(); gizmos(); };
    }

    static long Allocated() { return GC.GetAllocatedBytesForCurrentThread(); }

    static void MmoCollision(int count, int maxDepth)
    {
        var sample = new GameObject("mmo").AddComponent<MmoCollisionSample>();
        sample.count = count;
        sample.maxDepth = maxDepth;
        Messages.Send(sample, "Awake");
        Action Frame = Frames(sample);
        long warm = 0;
        for (int frame = 0; frame < 120; frame++)
        {
            long before = Allocated();
            Frame();
            if (frame >= 10) warm += Allocated() - before;
            int pairs = 0;
            var colliding = new bool[sample.Count];
            for (int i = 0; i < sample.Count; i++)
                for (int j = i + 1; j < sample.Count; j++)
                    if (sample.BoxOf(i).Overlaps(sample.BoxOf(j)))
                    {
                        pairs++;
                        colliding[i] = colliding[j] = true;
                    }
            string at = "MMO collision, " + count + " boxes, depth " + maxDepth + ", frame " + frame;
            Check(sample.overlappingPairs == pairs, at + ": " + sample.overlappingPairs + " pairs, brute force " + pairs);
            for (int i = 0; i < sample.Count; i++)
                Check(sample.IsColliding(i) == colliding[i], at + ": box " + i + " colliding " + sample.IsColliding(i));
            Check(frame > 0 || pairs > 0, at + ": no pair at all, a scene that tests nothing");
        }
        Check(warm == 0, "MMO collision: 110 warm frames allocated " + warm + " bytes");
        Messages.Send(sample, "OnDestroy");
        Console.WriteLine("MMO collision: " + count + " boxes, depth " + maxDepth + ": 120 frames agree with brute force");
    }

    static void RotatedRectangles(int count)
    {
        var sample = new GameObject("obb").AddComponent<RotatedRectanglesSample>();
        sample.count = count;
        Messages.Send(sample, "Awake");
        Action Frame = Frames(sample);
        int frames = count / 10 + 5;
        long warm = 0;
        var all = new Vector2[count * 4];
        var one = new Vector2[4];
        for (int frame = 0; frame < frames; frame++)
        {
            long before = Allocated();
            Frame();
            if (frame > count / 10) warm += Allocated() - before;
            int n = sample.Count;
            for (int i = 0; i < n; i++)
            {
                sample.CornersOf(i, one);
                Array.Copy(one, 0, all, i * 4, 4);
            }
            int pairs = 0;
            var colliding = new bool[n];
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++)
                    if (RotatedRectanglesSample.Overlap(all, i, j))
                    {
                        pairs++;
                        colliding[i] = colliding[j] = true;
                    }
            string at = "rotated rectangles, frame " + frame + " (" + n + " rectangles)";
            Check(sample.overlappingPairs == pairs, at + ": " + sample.overlappingPairs + " pairs, brute force " + pairs);
            Check(sample.boxPairs >= pairs, at + ": " + sample.boxPairs + " box pairs for " + pairs + " overlaps");
            for (int i = 0; i < n; i++)
                Check(sample.IsColliding(i) == colliding[i], at + ": rectangle " + i);
        }
        Check(sample.Count == count, "rotated rectangles: " + sample.Count + " rectangles, wanted " + count);
        Check(warm == 0, "rotated rectangles: 4 warm frames allocated " + warm + " bytes");
        Messages.Send(sample, "OnDestroy");
        Console.WriteLine("rotated rectangles: " + count + " rectangles, " + frames + " frames agree with brute force");
    }

    // The separating axis test itself, on cases whose answer is known.
    static void SeparatingAxes()
    {
        Vector2[] c = {
            new Vector2(0, 0), new Vector2(2, 0), new Vector2(2, 2), new Vector2(0, 2),          // square
            new Vector2(3, 1.5f), new Vector2(4.5f, 3), new Vector2(3, 4.5f), new Vector2(1.5f, 3), // diamond by its corner
            new Vector2(2, 1), new Vector2(3, 0), new Vector2(4, 1), new Vector2(3, 2),           // diamond touching an edge
            new Vector2(0.5f, 0.5f), new Vector2(1, 0.5f), new Vector2(1, 1), new Vector2(0.5f, 1) // inside
        };
        Check(!RotatedRectanglesSample.Overlap(c, 0, 1), "SAT: a diamond whose bounding box overlaps the square's is apart");
        Check(RotatedRectanglesSample.Overlap(c, 0, 2), "SAT: a diamond touching an edge overlaps");
        Check(RotatedRectanglesSample.Overlap(c, 0, 3) && RotatedRectanglesSample.Overlap(c, 3, 0), "SAT: contained");
    }

    static int Main()
    {
        try
        {
            SeparatingAxes();
            MmoCollision(300, 4);
            MmoCollision(300, 0);
            MmoCollision(60, 8);
            RotatedRectangles(400);
            Console.WriteLine("unity samples: " + checks + " checks passed");
            return 0;
        }
        catch (Exception e)
        {
            Exception inner = e is System.Reflection.TargetInvocationException && e.InnerException != null ? e.InnerException : e;
            Console.Error.WriteLine(inner);
            return 1;
        }
    }
}
