// SPDX-License-Identifier: MIT
// quadrant for C#: Streamer, load what the cameras see (docs/streaming.md), over the C API. An update fills a
// StreamUpdate the caller owns and reuses: no allocation per frame once its lists have grown.
#if UNITY_2021_2_OR_NEWER || NETSTANDARD2_1_OR_GREATER || NETCOREAPP || QUADRANT_SPAN
#define QUADRANT_HAS_SPAN
#endif
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Quadrant
{
    /// <summary>Where a streamed object stands.</summary>
    public enum StreamState
    {
        /// <summary>Not resident, not waiting.</summary>
        Unloaded = 0,
        /// <summary>Wanted but held back by the caps (never reported).</summary>
        Queued = 1,
        /// <summary>Issued in Loads; waits for MarkLoaded or MarkFailed.</summary>
        Loading = 2,
        /// <summary>Resident.</summary>
        Loaded = 3
    }

    /// <summary>One streaming source: a camera's frustum (optional) and a prefetch ball around its position. Build
    /// one with Ball or Camera. The layout is the C API's quadrant_stream_source, so an array of sources goes to the
    /// library as it is.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public partial struct StreamSource
    {
        int hasFrustum, rowMajor, clipZeroToOne;
        double m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15;
        double x, y, z, prefetchRadius;

        /// <summary>A position alone (a player, a point of interest): wants the boxes within prefetchRadius of (x, y,
        /// z) (finite, &gt;= 0; 0: the boxes holding the point).</summary>
        public static StreamSource Ball(double x, double y, double z, double prefetchRadius)
        {
            StreamSource s = new StreamSource();
            s.x = x; s.y = y; s.z = z; s.prefetchRadius = prefetchRadius;
            return s;
        }
        /// <summary>A camera: the frustum of a view-projection matrix (16 numbers, read as Shape.Frustum reads them),
        /// its position, and a prefetch ball around the position. ArgumentException unless matrix16 holds 16
        /// numbers.</summary>
        public static StreamSource Camera(double[] matrix16, bool rowMajor, bool clipZeroToOne, double x, double y, double z, double prefetchRadius)
        {
            if (matrix16 == null || matrix16.Length != 16) throw new ArgumentException("quadrant: streaming: a camera needs the 16 numbers of a matrix");
            StreamSource s = Ball(x, y, z, prefetchRadius);
            s.SetMatrix(matrix16[0], matrix16[1], matrix16[2], matrix16[3], matrix16[4], matrix16[5], matrix16[6], matrix16[7],
                        matrix16[8], matrix16[9], matrix16[10], matrix16[11], matrix16[12], matrix16[13], matrix16[14], matrix16[15]);
            s.rowMajor = rowMajor ? 1 : 0;
            s.clipZeroToOne = clipZeroToOne ? 1 : 0;
            return s;
        }
        void SetMatrix(double a0, double a1, double a2, double a3, double a4, double a5, double a6, double a7,
                       double a8, double a9, double a10, double a11, double a12, double a13, double a14, double a15)
        {
            hasFrustum = 1;
            m0 = a0; m1 = a1; m2 = a2; m3 = a3; m4 = a4; m5 = a5; m6 = a6; m7 = a7;
            m8 = a8; m9 = a9; m10 = a10; m11 = a11; m12 = a12; m13 = a13; m14 = a14; m15 = a15;
        }
        /// <summary>True when the source has a frustum.</summary>
        public bool HasFrustum { get { return hasFrustum != 0; } }
        /// <summary>The prefetch center and the priority origin's x.</summary>
        public double X { get { return x; } }
        /// <summary>The position's y.</summary>
        public double Y { get { return y; } }
        /// <summary>The position's z.</summary>
        public double Z { get { return z; } }
        /// <summary>The prefetch radius.</summary>
        public double PrefetchRadius { get { return prefetchRadius; } }
    }

    /// <summary>A load request: start loading Id; Distance from the nearest source's position to its box.</summary>
    public struct StreamLoad
    {
        /// <summary>The object's id.</summary>
        public ulong Id;
        /// <summary>From the nearest source position to the box (0 inside).</summary>
        public double Distance;
    }

    /// <summary>What one update did (StreamStats in C++).</summary>
    public struct StreamStats
    {
        /// <summary>Octree nodes visited.</summary>
        public long NodesVisited;
        /// <summary>Boxes tested for wanted.</summary>
        public long BoxTests;
        /// <summary>Boxes tested for kept.</summary>
        public long KeptTests;
        /// <summary>Objects wanted by some source.</summary>
        public long Wanted;
        /// <summary>Queued objects that left the queue, no longer wanted.</summary>
        public long Dequeued;
        /// <summary>Objects Queued after the update.</summary>
        public long Queued;
        /// <summary>Objects Loading after the update.</summary>
        public long Loading;
        /// <summary>Objects Loaded after the update.</summary>
        public long Loaded;
    }

    /// <summary>The requests of one Streamer.Update, in lists the caller owns and reuses (Update clears and refills
    /// them: no allocation once they have grown). Threads: one thread at a time.</summary>
    public sealed class StreamUpdate
    {
        /// <summary>Start loading these, nearest first (ties by id).</summary>
        public readonly List<StreamLoad> Loads = new List<StreamLoad>();
        /// <summary>Release these (were Loaded), by increasing id.</summary>
        public readonly List<ulong> Unloads = new List<ulong>();
        /// <summary>Abandon these loads (were Loading), by increasing id.</summary>
        public readonly List<ulong> Cancels = new List<ulong>();
        /// <summary>What the update did.</summary>
        public StreamStats Stats;
    }

    /// <summary>Loads what the cameras see (docs/streaming.md): 3D boxes named by the caller's 64-bit ids, each
    /// Unloaded, Queued, Loading or Loaded; an update decides loads (nearest first, within caps), unloads and
    /// cancels for any number of sources. Threads: one thread at a time (the C API lets its const calls run
    /// concurrently; this class keeps buffers, so lock around it); different streamers on different threads.</summary>
    public sealed class Streamer : IDisposable
    {
        readonly StreamerSafeHandle streamer;
        readonly double[] min = new double[3], max = new double[3];

        /// <summary>An empty streamer over the octree `world` (objects outside it still work). unloadMargin: how far
        /// past the wanted region a resident object stays (finite, &gt;= 0); the caps bound the loads one update
        /// issues and the loads in flight (0 pauses loading). The tree settings as QuadTree's (-1: defaults).</summary>
        public Streamer(Box3 world, double unloadMargin = 0, int maxLoadsPerUpdate = 16, int maxLoadsInFlight = 64, Scalar scalar = Scalar.Double,
                        Placement placement = Placement.Loose, int maxDepth = -1, int splitThreshold = -1, double minNodeSize = 0)
        {
            if (maxLoadsPerUpdate < 0 || maxLoadsInFlight < 0) throw new ArgumentException("quadrant: streaming: a negative cap");
            Native.StreamerConfig c;
            Native.quadrant_streamer_config_init(out c, (int)scalar);
            c.Tree.WorldMin0 = world.MinX; c.Tree.WorldMin1 = world.MinY; c.Tree.WorldMin2 = world.MinZ;
            c.Tree.WorldMax0 = world.MaxX; c.Tree.WorldMax1 = world.MaxY; c.Tree.WorldMax2 = world.MaxZ;
            if (maxDepth != -1) c.Tree.MaxDepth = maxDepth;
            if (splitThreshold != -1) c.Tree.SplitThreshold = splitThreshold;
            c.Tree.MinNodeSize = minNodeSize;
            c.Tree.Placement = (int)placement;
            c.UnloadMargin = unloadMargin;
            c.MaxLoadsPerUpdate = (UIntPtr)maxLoadsPerUpdate;
            c.MaxLoadsInFlight = (UIntPtr)maxLoadsInFlight;
            Native.Status status = Native.quadrant_streamer_create(ref c, out streamer);
            if (status != Native.Status.Ok) { streamer.Dispose(); Native.Check(status); }
        }
        /// <summary>Frees the native streamer (a SafeHandle; its finalizer does it if Dispose is never called).
        /// Later calls throw ObjectDisposedException; Dispose again does nothing.</summary>
        public void Dispose() { streamer.Dispose(); }
        /// <summary>True after Dispose.</summary>
        public bool IsDisposed { get { return streamer.IsClosed; } }
        StreamerSafeHandle Ptr
        {
            get
            {
                if (streamer.IsClosed) throw new ObjectDisposedException("quadrant Streamer");
                return streamer;
            }
        }
        void Put(Box3 b) { min[0] = b.MinX; min[1] = b.MinY; min[2] = b.MinZ; max[0] = b.MaxX; max[1] = b.MaxY; max[2] = b.MaxZ; }

        /// <summary>Adds an Unloaded object with the box. ArgumentException for an id present or a bad box.</summary>
        public void Add(ulong id, Box3 box) { Put(box); Native.Check(Native.quadrant_streamer_add(Ptr, id, ref min[0], ref max[0])); }
        /// <summary>Removes the object at once; returns the state it had (Loading: abandon that load, Loaded:
        /// release it). ArgumentException for an unknown id.</summary>
        public StreamState Remove(ulong id)
        {
            int was;
            Native.Check(Native.quadrant_streamer_remove(Ptr, id, out was));
            return (StreamState)was;
        }
        /// <summary>Gives the object a new box; the next update decides what that changes.</summary>
        public void Move(ulong id, Box3 box) { Put(box); Native.Check(Native.quadrant_streamer_move(Ptr, id, ref min[0], ref max[0])); }
        /// <summary>Reports a finished load: true for Loading -&gt; Loaded, false for a completion that came too late
        /// (drop what was loaded). ArgumentException for an unknown id.</summary>
        public bool MarkLoaded(ulong id)
        {
            int accepted;
            Native.Check(Native.quadrant_streamer_mark_loaded(Ptr, id, out accepted));
            return accepted != 0;
        }
        /// <summary>Reports a failed load: true for Loading -&gt; Unloaded (asked again later while wanted), else false.</summary>
        public bool MarkFailed(ulong id)
        {
            int accepted;
            Native.Check(Native.quadrant_streamer_mark_failed(Ptr, id, out accepted));
            return accepted != 0;
        }
        /// <summary>Changes the caps from the next update on (0 pauses loading; lowering them cancels nothing).</summary>
        public void SetLimits(int maxLoadsPerUpdate, int maxLoadsInFlight)
        {
            if (maxLoadsPerUpdate < 0 || maxLoadsInFlight < 0) throw new ArgumentException("quadrant: streaming: a negative cap");
            Native.Check(Native.quadrant_streamer_set_limits(Ptr, (UIntPtr)maxLoadsPerUpdate, (UIntPtr)maxLoadsInFlight));
        }

        /// <summary>One frame for the sources (null or empty: none wants anything): clears `result` and fills it with
        /// the loads, unloads and cancels. ArgumentException, with the streamer and `result` unchanged, for a source
        /// with a non-finite position or matrix number or a NaN, infinite or negative radius.</summary>
        public void Update(StreamSource[] sources, StreamUpdate result)
        {
            if (result == null) throw new ArgumentNullException("result");
            Native.StreamUpdate u;
            if (sources == null || sources.Length == 0)
                Native.Check(Native.quadrant_streamer_update_none(Ptr, IntPtr.Zero, UIntPtr.Zero, out u));
            else
                Native.Check(Native.quadrant_streamer_update(Ptr, ref sources[0], (UIntPtr)sources.Length, out u));
            Read(ref u, result);
        }
        /// <summary>Update with one source.</summary>
        public void Update(StreamSource source, StreamUpdate result)
        {
            if (result == null) throw new ArgumentNullException("result");
            Native.StreamUpdate u;
            Native.Check(Native.quadrant_streamer_update(Ptr, ref source, (UIntPtr)1, out u));
            Read(ref u, result);
        }
#if QUADRANT_HAS_SPAN
        /// <summary>Update over a span of sources.</summary>
        public void Update(ReadOnlySpan<StreamSource> sources, StreamUpdate result)
        {
            if (result == null) throw new ArgumentNullException("result");
            Native.StreamUpdate u;
            if (sources.Length == 0)
                Native.Check(Native.quadrant_streamer_update_none(Ptr, IntPtr.Zero, UIntPtr.Zero, out u));
            else
                Native.Check(Native.quadrant_streamer_update(Ptr, ref MemoryMarshal.GetReference(sources), (UIntPtr)sources.Length, out u));
            Read(ref u, result);
        }
#endif
        static void Read(ref Native.StreamUpdate u, StreamUpdate r)
        {
            r.Loads.Clear();
            r.Unloads.Clear();
            r.Cancels.Clear();
            // quadrant_stream_load: id (8 bytes), distance (8).
            for (int i = 0; i < (int)(ulong)u.LoadCount; ++i)
            {
                StreamLoad l;
                l.Id = (ulong)Marshal.ReadInt64(u.Loads, 16 * i);
                l.Distance = BitConverter.Int64BitsToDouble(Marshal.ReadInt64(u.Loads, 16 * i + 8));
                r.Loads.Add(l);
            }
            for (int i = 0; i < (int)(ulong)u.UnloadCount; ++i) r.Unloads.Add((ulong)Marshal.ReadInt64(u.Unloads, 8 * i));
            for (int i = 0; i < (int)(ulong)u.CancelCount; ++i) r.Cancels.Add((ulong)Marshal.ReadInt64(u.Cancels, 8 * i));
            StreamStats s;
            s.NodesVisited = (long)u.NodesVisited; s.BoxTests = (long)u.BoxTests; s.KeptTests = (long)u.KeptTests; s.Wanted = (long)u.Wanted;
            s.Dequeued = (long)u.Dequeued; s.Queued = (long)u.Queued; s.Loading = (long)u.Loading; s.Loaded = (long)u.Loaded;
            r.Stats = s;
        }

        /// <summary>True when the id is present.</summary>
        public bool Contains(ulong id) { return Native.quadrant_streamer_contains(Ptr, id) != 0; }
        /// <summary>The object's state; ArgumentException for an unknown id.</summary>
        public StreamState State(ulong id)
        {
            int s;
            Native.Check(Native.quadrant_streamer_state(Ptr, id, out s));
            return (StreamState)s;
        }
        /// <summary>The object's box (as stored: rounded to float in a float streamer).</summary>
        public Box3 Bounds(ulong id)
        {
            Native.Check(Native.quadrant_streamer_bounds(Ptr, id, ref min[0], ref max[0]));
            return new Box3(min[0], min[1], min[2], max[0], max[1], max[2]);
        }
        /// <summary>Objects present.</summary>
        public int Count { get { return (int)(ulong)Native.quadrant_streamer_size(Ptr); } }
        /// <summary>Checks the bookkeeping (for tests); InvalidOperationException naming the first broken invariant.</summary>
        public void Validate() { Native.Check(Native.quadrant_streamer_validate(Ptr)); }
    }
}
