// SPDX-License-Identifier: MIT
// quadrant for C#: AoiWorld, the MMO area of interest (docs/aoi.md) over the C API.
#if UNITY_2021_2_OR_NEWER || NETSTANDARD2_1_OR_GREATER || NETCOREAPP || QUADRANT_SPAN
#define QUADRANT_HAS_SPAN
#endif
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Quadrant
{
    /// <summary>Which roles an AOI entity plays.</summary>
    public enum AoiMode
    {
        /// <summary>Sees markers; seen by nobody.</summary>
        Watcher = 1,
        /// <summary>Seen by watchers; sees nothing.</summary>
        Marker = 2,
        /// <summary>Sees and is seen.</summary>
        Both = 3
    }

    /// <summary>One change of who sees whom: Enter (watcher sees target since this tick) or Leave.</summary>
    public struct AoiEvent
    {
        /// <summary>True for Enter, false for Leave.</summary>
        public bool Enter;
        /// <summary>The entity that sees.</summary>
        public ulong Watcher;
        /// <summary>The entity seen.</summary>
        public ulong Target;
    }

    /// <summary>The MMO area of interest (docs/aoi.md): entities by 64-bit id, who sees whom, Enter/Leave events
    /// per tick. Changes are recorded and take effect at the next Tick. Threads: one thread at a time (its reads
    /// reuse the world's buffers); different worlds on different threads.</summary>
    public sealed class AoiWorld : IDisposable
    {
        /// <summary>Every layer.</summary>
        public const uint AllLayers = 0xffffffffu;
        readonly AoiSafeHandle world;
        ulong[] ids = new ulong[64];

        /// <summary>An empty world; hysteresis keeps a seen pair until its distance exceeds radius + hysteresis;
        /// skin 0 is automatic (docs/aoi.md).</summary>
        public AoiWorld(Box2 world, double hysteresis = 0, Scalar scalar = Scalar.Float, double skin = 0)
        {
            Native.AoiSettings s;
            Native.quadrant_aoi_settings_init(out s, (int)scalar);
            s.WorldMinX = world.MinX; s.WorldMinY = world.MinY; s.WorldMaxX = world.MaxX; s.WorldMaxY = world.MaxY;
            s.Hysteresis = hysteresis;
            s.Skin = skin;
            Native.Status status = Native.quadrant_aoi_create(ref s, out this.world);
            if (status != Native.Status.Ok) { this.world.Dispose(); Native.Check(status); }
        }
        /// <summary>Frees the native world (a SafeHandle; its finalizer does it if Dispose is never called). Later
        /// calls throw ObjectDisposedException; Dispose again does nothing.</summary>
        public void Dispose() { world.Dispose(); }
        /// <summary>True after Dispose.</summary>
        public bool IsDisposed { get { return world.IsClosed; } }
        AoiSafeHandle Ptr
        {
            get
            {
                if (world.IsClosed) throw new ObjectDisposedException("quadrant AoiWorld");
                return world;
            }
        }

        /// <summary>Adds entity id at (x, y); it joins at the next tick.</summary>
        public void Add(ulong id, double x, double y, double viewRadius, AoiMode mode = AoiMode.Both, uint layers = AllLayers, double bodyRadius = 0)
        {
            Native.Check(Native.quadrant_aoi_add(Ptr, id, x, y, viewRadius, (int)mode, layers, bodyRadius));
        }
        /// <summary>Moves entity id at the next tick.</summary>
        public void Move(ulong id, double x, double y) { Native.Check(Native.quadrant_aoi_move(Ptr, id, x, y)); }
        /// <summary>Moves many entities in one call (xy: x0, y0, x1, y1, ...); on error none moved.</summary>
        public void MoveMany(ulong[] ids, double[] xy, int count)
        {
            if (ids == null || xy == null || count < 0 || count > ids.Length || 2 * count > xy.Length)
                throw new ArgumentException("quadrant: aoi: MoveMany: the arrays hold fewer than count entries");
            AoiSafeHandle w = Ptr;
            if (count == 0) return;
            Native.Check(Native.quadrant_aoi_move_many(w, ref ids[0], ref xy[0], (UIntPtr)count));
        }
#if QUADRANT_HAS_SPAN
        /// <summary>Moves ids[i] to (xy[2i], xy[2i + 1]) in one call; xy must hold exactly 2 * ids.Length numbers
        /// (ArgumentException otherwise); on error none moved.</summary>
        public void MoveMany(ReadOnlySpan<ulong> ids, ReadOnlySpan<double> xy)
        {
            if (xy.Length != 2 * ids.Length)
                throw new ArgumentException("quadrant: aoi: MoveMany: xy holds " + xy.Length + " numbers, expected " + 2 * ids.Length);
            Native.Check(Native.quadrant_aoi_move_many(Ptr, ref MemoryMarshal.GetReference(ids), ref MemoryMarshal.GetReference(xy), (UIntPtr)ids.Length));
        }
#endif
        /// <summary>Gives entity id a new view radius at the next tick.</summary>
        public void SetViewRadius(ulong id, double radius) { Native.Check(Native.quadrant_aoi_set_view_radius(Ptr, id, radius)); }
        /// <summary>Gives entity id a new layer mask at the next tick.</summary>
        public void SetLayers(ulong id, uint layers) { Native.Check(Native.quadrant_aoi_set_layers(Ptr, id, layers)); }
        /// <summary>Removes entity id at the next tick (which reports a Leave for each of its pairs).</summary>
        public void Remove(ulong id) { Native.Check(Native.quadrant_aoi_remove(Ptr, id)); }

        /// <summary>Applies the recorded changes and adds the tick's events to `events`, ordered by (watcher,
        /// target); returns how many. Allocates nothing once the list has grown.</summary>
        public int Tick(List<AoiEvent> events)
        {
            if (events == null) throw new ArgumentNullException("events");
            IntPtr p;
            UIntPtr n;
            Native.Check(Native.quadrant_aoi_tick(Ptr, out p, out n));
            int count = (int)n;
            // quadrant_aoi_event: watcher (8 bytes), target (8), kind (4), reserved (4).
            for (int i = 0; i < count; ++i)
            {
                AoiEvent e;
                e.Watcher = (ulong)Marshal.ReadInt64(p, 24 * i);
                e.Target = (ulong)Marshal.ReadInt64(p, 24 * i + 8);
                e.Enter = Marshal.ReadInt32(p, 24 * i + 16) == 0;
                events.Add(e);
            }
            return count;
        }

        delegate Native.Status IdRead(AoiSafeHandle world, ulong id, ref ulong ids, UIntPtr capacity, out UIntPtr count);
        int ReadIds(IdRead read, ulong id, List<ulong> results)
        {
            if (results == null) throw new ArgumentNullException("results");
            for (;;)
            {
                UIntPtr n;
                Native.Check(read(Ptr, id, ref ids[0], (UIntPtr)ids.Length, out n));
                ulong count = (ulong)n;
                if (count <= (ulong)ids.Length)
                {
                    for (int i = 0; i < (int)count; ++i) results.Add(ids[i]);
                    return (int)count;
                }
                ids = new ulong[2 * (int)count];
            }
        }
        static readonly IdRead VisibleRead = Native.quadrant_aoi_visible;
        static readonly IdRead WatchersRead = Native.quadrant_aoi_watchers;
        /// <summary>Adds the ids `watcher` saw at the last tick, ascending; returns how many.</summary>
        public int Visible(ulong watcher, List<ulong> results) { return ReadIds(VisibleRead, watcher, results); }
        /// <summary>Adds the ids that saw `target` at the last tick, ascending; returns how many.</summary>
        public int Watchers(ulong target, List<ulong> results) { return ReadIds(WatchersRead, target, results); }
        /// <summary>Adds the ids in `layers` whose body box the 2D shape touches, ascending (a skill's area).</summary>
        public int Query(Shape shape, List<ulong> results, uint layers = AllLayers)
        {
            if (results == null) throw new ArgumentNullException("results");
            AoiSafeHandle w = Ptr;
            for (;;)
            {
                UIntPtr n;
                Native.NativeShape native;
                GCHandle pin = shape.Pin(2, out native);
                try { Native.Check(Native.quadrant_aoi_query_into(w, ref native, layers, ref ids[0], (UIntPtr)ids.Length, out n)); }
                finally { Shape.Unpin(pin); }
                ulong count = (ulong)n;
                if (count <= (ulong)ids.Length)
                {
                    for (int i = 0; i < (int)count; ++i) results.Add(ids[i]);
                    return (int)count;
                }
                ids = new ulong[2 * (int)count];
            }
        }
        /// <summary>True when id is present (counting changes not yet ticked).</summary>
        public bool Contains(ulong id) { return Native.quadrant_aoi_contains(Ptr, id) != 0; }
        /// <summary>Entities as of the last tick.</summary>
        public int Count { get { return (int)Native.quadrant_aoi_size(Ptr); } }
        /// <summary>The position of id as of the last tick.</summary>
        public void Position(ulong id, out double x, out double y)
        {
            Native.Check(Native.quadrant_aoi_position(Ptr, id, ref xy[0]));
            x = xy[0];
            y = xy[1];
        }
        readonly double[] xy = new double[2];
        /// <summary>Pairs (watcher sees target) as of the last tick.</summary>
        public long PairCount { get { return (long)Native.quadrant_aoi_pair_count(Ptr); } }
        /// <summary>Checks every invariant by brute force (O(N^2): for tests).</summary>
        public void Validate() { Native.Check(Native.quadrant_aoi_validate(Ptr)); }
    }

}
