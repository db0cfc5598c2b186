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
            Check(maxDepth == 0 ? sample.cellsDrawn == 1 : sample.cellsDrawn > 1, at + ": " + sample.cellsDrawn + " cells drawn");
        }
        Check(warm == 0, "MMO collision: 110 warm frames allocated " + warm + " bytes");
        // The article's counts: N * N box tests without a tree, far fewer with one.
        if (maxDepth == 0)
            Check(sample.boxTests == (long)count * count, "MMO collision at depth 0: " + sample.boxTests + " box tests, not " + count + "^2");
        else
            Check(sample.boxTests > 0 && sample.boxTests < (long)count * count / 3, "MMO collision at depth " + maxDepth + ": " + sample.boxTests + " box tests");
        Messages.Send(sample, "OnDestroy");
        Console.WriteLine("MMO collision: " + count + " boxes, depth " + maxDepth + ": 120 frames agree with brute force; " +
                          sample.boxTests + " box tests for one query per box");
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
            Check(n <= 4 ? sample.cellsDrawn >= 1 : sample.cellsDrawn > 1, at + ": " + sample.cellsDrawn + " cells drawn");
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

    // The six planes of a view-projection matrix (rows r: r3 + r0, r3 - r0, ...), each (nx, ny, nz, d) scaled so
    // that n is a unit vector: n.p + d is the signed distance of p, positive inside.
    static double[,] Planes(Matrix4x4 m)
    {
        var planes = new double[6, 4];
        for (int p = 0; p < 6; p++)
        {
            int row = p / 2;
            double sign = p % 2 == 0 ? 1 : -1, length = 0;
            for (int c = 0; c < 4; c++) planes[p, c] = m[3, c] + sign * m[row, c];
            for (int c = 0; c < 3; c++) length += planes[p, c] * planes[p, c];
            length = Math.Sqrt(length);
            for (int c = 0; c < 4; c++) planes[p, c] /= length;
        }
        return planes;
    }

    // True when some plane has every corner of the box farther than `margin` outside it: the box misses the frustum
    // grown by margin (a plane test, as the article's outcodes; it may keep a box that misses near an edge).
    static bool Outside(double[,] planes, Bounds b, double margin)
    {
        Vector3 lo = b.min, hi = b.max;
        for (int p = 0; p < 6; p++)
        {
            double best = planes[p, 3];
            best += Math.Max(planes[p, 0] * lo.x, planes[p, 0] * hi.x);
            best += Math.Max(planes[p, 1] * lo.y, planes[p, 1] * hi.y);
            best += Math.Max(planes[p, 2] * lo.z, planes[p, 2] * hi.z);
            if (best < -margin) return true;
        }
        return false;
    }

    // Distance from p to the box (0 inside).
    static double Distance(Vector3 p, Bounds b)
    {
        Vector3 lo = b.min, hi = b.max;
        double dx = Math.Max(0, Math.Max(lo.x - p.x, p.x - hi.x)), dy = Math.Max(0, Math.Max(lo.y - p.y, p.y - hi.y));
        double dz = Math.Max(0, Math.Max(lo.z - p.z, p.z - hi.z));
        return Math.Sqrt(dx * dx + dy * dy + dz * dz);
    }

    static void SceneStreaming()
    {
        var sample = new GameObject("streaming").AddComponent<SceneStreamingSample>();
        Messages.Send(sample, "Awake");
        Action Frame = Frames(sample);
        long warm = 0;
        int maxLoading = 0, everLoaded = 0;
        for (int frame = 0; frame < 600; frame++)
        {
            long before = Allocated();
            Frame();
            if (frame >= 100) warm += Allocated() - before;
            int loaded = 0, loading = 0;
            for (int i = 0; i < sample.Count; i++)
            {
                if (sample.StateOf(i) == SceneStreamingSample.Residency.Loaded) loaded++;
                if (sample.StateOf(i) == SceneStreamingSample.Residency.Loading) loading++;
            }
            string at = "scene streaming, walking, frame " + frame;
            Check(loaded == sample.loaded && loading == sample.loading, at + ": counts " + sample.loaded + "/" + sample.loading +
                  ", states " + loaded + "/" + loading);
            Check(sample.loadsLastFrame <= sample.maxLoadsPerFrame, at + ": " + sample.loadsLastFrame + " loads");
            Check(loading <= sample.maxLoadsInFlight, at + ": " + loading + " loads in flight");
            maxLoading = Math.Max(maxLoading, loading);
            everLoaded = Math.Max(everLoaded, loaded);
        }
        Check(warm == 0, "scene streaming: 500 warm frames allocated " + warm + " bytes");
        Check(everLoaded > 20, "scene streaming: the camera saw " + everLoaded + " objects at most, a scene that tests nothing");

        // Standing still, twice (the second time across the map): once the loads have settled, everything in view or
        // within the prefetch radius is loaded, and nothing beyond the view and the radius grown by the margin is.
        sample.walk = false;
        for (int stop = 0; stop < 2; stop++)
        {
            if (stop == 1)
            {
                sample.Viewer.transform.position = new Vector3(-250, 20, 300);
                sample.Viewer.transform.LookAt(new Vector3(-300, 15, 250));
            }
            for (int frame = 0; frame < 100; frame++) Frame();
            Check(sample.loading == 0 && sample.loadsLastFrame == 0, "scene streaming: loads still coming after 100 still frames");
            Camera cam = sample.Viewer;
            double[,] planes = Planes(cam.projectionMatrix * cam.worldToCameraMatrix);
            Vector3 eye = cam.transform.position;
            int inView = 0;
            for (int i = 0; i < sample.Count; i++)
            {
                Bounds b = sample.BoundsOf(i);
                bool loaded = sample.StateOf(i) == SceneStreamingSample.Residency.Loaded;
                // Wanted for sure: the center well inside the frustum, or the box well within the radius.
                bool wanted = !Outside(planes, new Bounds(b.center, Vector3.zero), -0.01) ||
                              Distance(eye, b) < sample.prefetchRadius - 0.01;
                // Kept at most: not outside the frustum grown by the margin, or within radius + margin.
                bool keepable = !Outside(planes, b, sample.unloadMargin + 0.01) ||
                                Distance(eye, b) <= sample.prefetchRadius + sample.unloadMargin + 0.01;
                string what = "scene streaming, standing still " + stop + ": object " + i;
                Check(!wanted || loaded, what + " is in view but not loaded");
                Check(!loaded || keepable, what + " is loaded but out of view");
                if (wanted) inView++;
            }
            Check(inView > 20, "scene streaming: " + inView + " objects in view, a scene that tests nothing");
            Console.WriteLine("scene streaming: standing still " + stop + ": " + inView + " objects in view, " + sample.loaded +
                              " loaded, as brute force says");
        }
        Messages.Send(sample, "OnDestroy");
        Console.WriteLine("scene streaming: 600 walking frames, at most " + maxLoading + " loads in flight");
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
            SceneStreaming();
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
