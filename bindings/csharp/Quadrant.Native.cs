// SPDX-License-Identifier: MIT
// quadrant for C#: the C API's declarations (include/quadrant/c/quadrant.h), the SafeHandles that own its objects,
// and the one mechanism every callback goes through. Internal: the public classes are the binding.
#if UNITY_2021_2_OR_NEWER || NETSTANDARD2_1_OR_GREATER || NETCOREAPP || QUADRANT_SPAN
#define QUADRANT_HAS_SPAN
#endif
using System;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;

namespace Quadrant
{
    // One SafeHandle per kind of native object: the runtime frees it exactly once (Dispose, or the critical finalizer),
    // never while a P/Invoke call that was given it is still running (the marshaller counts references), so a
    // Dispose from inside a callback frees the object once the walk has returned.
    internal sealed class TreeSafeHandle : SafeHandle
    {
        public TreeSafeHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.quadrant_tree_destroy(handle); return true; }
    }
    internal sealed class AoiSafeHandle : SafeHandle
    {
        public AoiSafeHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.quadrant_aoi_destroy(handle); return true; }
    }
    internal sealed class StreamerSafeHandle : SafeHandle
    {
        public StreamerSafeHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.quadrant_streamer_destroy(handle); return true; }
    }
    internal sealed class ContactsSafeHandle : SafeHandle
    {
        public ContactsSafeHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.quadrant_contacts_destroy(handle); return true; }
    }

    // What a native walk calls back into. An exception must not unwind through the walk (its C++ frames would be
    // skipped: undefined behaviour under mono and IL2CPP): the thunks below catch it, keep it here, and stop the
    // walk; Finish rethrows it, with its stack trace, once the native call has returned.
    internal abstract class Sink
    {
        internal ExceptionDispatchInfo Error;
        internal bool Busy;
        internal virtual bool Hit(ulong handle, ulong value) { return false; }
        internal virtual bool Pair(ulong a, ulong va, ulong b, ulong vb) { return false; }
        internal virtual bool Ray(ulong handle, ulong value, double t) { return false; }
        internal virtual bool Node(ref Native.Node node) { return false; }
        // Pins the sink for the native call (a GCHandle is a table entry, not a managed allocation).
        internal GCHandle Begin()
        {
            Error = null;
            Busy = true;
            return GCHandle.Alloc(this);
        }
        // Unpins and drops the references to the caller's lists and functions: in a finally around the native call.
        internal void End(GCHandle pin)
        {
            pin.Free();
            Release();
            Busy = false;
        }
        internal virtual void Release() { }
        // Rethrows the callback's exception if there was one, then maps the status: once the native call returned.
        internal void Finish(Native.Status status)
        {
            if (Error != null)
            {
                ExceptionDispatchInfo error = Error;
                Error = null;
                error.Throw();
            }
            Native.Check(status);
        }
    }

    internal static class Native
    {
#if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR
        // Linked statically into the player (libquadrant_c_static.a).
        const string Lib = "__Internal";
#else
        const string Lib = "quadrant_c";
#endif

        internal enum Status { Ok = 0, InvalidArgument = 1, LogicError = 2, OutOfMemory = 3, InternalError = 4 }

        internal static void Check(Status s)
        {
            if (s == Status.Ok) return;
            string message = Marshal.PtrToStringAnsi(quadrant_last_error());
            switch (s)
            {
                case Status.InvalidArgument: throw new ArgumentException(message);
                case Status.OutOfMemory: throw new OutOfMemoryException(message);
                default: throw new InvalidOperationException(message);
            }
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct Config
        {
            public int Dims, Scalar;
            public double WorldMin0, WorldMin1, WorldMin2, WorldMax0, WorldMax1, WorldMax2;
            public int MaxDepth, SplitThreshold;
            public double MinNodeSize;
            public int Placement;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct NativeShape
        {
            public int Kind;
            public double A0, A1, A2, B0, B1, B2, R0, R1, Angle;
            public IntPtr Points;
            public UIntPtr Count;
            public int RowMajor, ClipZeroToOne;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct Stats
        {
            public UIntPtr Nodes, Leaves;
            public int Depth;
            public UIntPtr Objects, References, Bytes, OutsideWorld, RootEntries;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct QueryStatsNative
        {
            public UIntPtr NodesVisited, BoxTests, Hits;
            public int Stopped;
        }
        // quadrant_node: blittable, so a walk's callback reads it in place.
        [StructLayout(LayoutKind.Sequential)]
        internal struct Node
        {
            public double CellMin0, CellMin1, CellMin2, CellMax0, CellMax1, CellMax2;
            public double BoundsMin0, BoundsMin1, BoundsMin2, BoundsMax0, BoundsMax1, BoundsMax2;
            public int Depth, Leaf;
            public uint Id, Parent;
            public UIntPtr Items, Count;
            public uint Layers;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct AoiSettings
        {
            public int Scalar;
            public double WorldMinX, WorldMinY, WorldMaxX, WorldMaxY, Hysteresis, Skin;
            public int MaxDepth, SplitThreshold;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct StreamerConfig
        {
            public Config Tree;
            public double UnloadMargin;
            public UIntPtr MaxLoadsPerUpdate, MaxLoadsInFlight;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct StreamUpdate
        {
            public IntPtr Loads;
            public UIntPtr LoadCount;
            public IntPtr Unloads;
            public UIntPtr UnloadCount;
            public IntPtr Cancels;
            public UIntPtr CancelCount;
            public UIntPtr NodesVisited, BoxTests, KeptTests, Wanted, Dequeued, Queued, Loading, Loaded;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct ContactStep
        {
            public IntPtr Begun;
            public UIntPtr BegunCount;
            public IntPtr Ended;
            public UIntPtr EndedCount;
            public IntPtr Contacts;
            public UIntPtr ContactCount;
        }

        // The callbacks: one static delegate each (no delegate per call); `user` is a GCHandle to the Sink.
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate int HitFn(IntPtr user, ulong handle, ulong value);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate int PairFn(IntPtr user, ulong a, ulong va, ulong b, ulong vb);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate int RayFn(IntPtr user, ulong handle, ulong value, double t);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate int NodeFn(IntPtr user, ref Node node);
        internal static readonly HitFn HitThunk = OnHit;
        internal static readonly PairFn PairThunk = OnPair;
        internal static readonly RayFn RayThunk = OnRay;
        internal static readonly NodeFn NodeThunk = OnNode;
        [MonoPInvokeCallback(typeof(HitFn))]
        static int OnHit(IntPtr user, ulong handle, ulong value)
        {
            Sink sink = (Sink)GCHandle.FromIntPtr(user).Target;
            try { return sink.Hit(handle, value) ? 1 : 0; }
            catch (Exception e) { sink.Error = ExceptionDispatchInfo.Capture(e); return 0; }
        }
        [MonoPInvokeCallback(typeof(PairFn))]
        static int OnPair(IntPtr user, ulong a, ulong va, ulong b, ulong vb)
        {
            Sink sink = (Sink)GCHandle.FromIntPtr(user).Target;
            try { return sink.Pair(a, va, b, vb) ? 1 : 0; }
            catch (Exception e) { sink.Error = ExceptionDispatchInfo.Capture(e); return 0; }
        }
        [MonoPInvokeCallback(typeof(RayFn))]
        static int OnRay(IntPtr user, ulong handle, ulong value, double t)
        {
            Sink sink = (Sink)GCHandle.FromIntPtr(user).Target;
            try { return sink.Ray(handle, value, t) ? 1 : 0; }
            catch (Exception e) { sink.Error = ExceptionDispatchInfo.Capture(e); return 0; }
        }
        [MonoPInvokeCallback(typeof(NodeFn))]
        static int OnNode(IntPtr user, ref Node node)
        {
            Sink sink = (Sink)GCHandle.FromIntPtr(user).Target;
            try { return sink.Node(ref node) ? 1 : 0; }
            catch (Exception e) { sink.Error = ExceptionDispatchInfo.Capture(e); return 0; }
        }

        [DllImport(Lib)] internal static extern IntPtr quadrant_version();
        [DllImport(Lib)] internal static extern IntPtr quadrant_last_error();

        [DllImport(Lib)] internal static extern void quadrant_config_init(out Config c, int dims, int scalar);
        [DllImport(Lib)] internal static extern Status quadrant_tree_create(ref Config c, out TreeSafeHandle tree);
        [DllImport(Lib)] internal static extern void quadrant_tree_destroy(IntPtr tree);
        [DllImport(Lib)] internal static extern Status quadrant_tree_config(TreeSafeHandle tree, out Config c);
        [DllImport(Lib)] internal static extern Status quadrant_tree_insert(TreeSafeHandle tree, ref double min, ref double max, ulong value, uint layers, out ulong handle);
        [DllImport(Lib)] internal static extern Status quadrant_tree_erase(TreeSafeHandle tree, ulong handle);
        [DllImport(Lib)] internal static extern Status quadrant_tree_move(TreeSafeHandle tree, ulong handle, ref double min, ref double max);
        [DllImport(Lib)] internal static extern Status quadrant_tree_move_many(TreeSafeHandle tree, ref Handle handles, ref double mins, ref double maxs, UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_tree_assign(TreeSafeHandle tree, double[] mins, double[] maxs, IntPtr values, uint[] layers, UIntPtr count, [Out] Handle[] handles);
#if QUADRANT_HAS_SPAN
        // The same over spans: a ref to a span's first element (an empty span's is null: NULL to the C API).
        [DllImport(Lib, EntryPoint = "quadrant_tree_move_many")] internal static extern Status quadrant_tree_move_many_span(TreeSafeHandle tree, ref ulong handles, ref double mins, ref double maxs, UIntPtr count);
        [DllImport(Lib, EntryPoint = "quadrant_tree_assign")] internal static extern Status quadrant_tree_assign_span(TreeSafeHandle tree, double[] mins, double[] maxs, IntPtr values, ref uint layers, UIntPtr count, ref ulong handles);
        [DllImport(Lib, EntryPoint = "quadrant_tree_query_into_stats")] internal static extern Status quadrant_tree_query_into_span(TreeSafeHandle tree, ref NativeShape shape, uint layers, ref ulong handles, IntPtr values, UIntPtr capacity, out UIntPtr count, out QueryStatsNative stats);
#endif
        [DllImport(Lib)] internal static extern Status quadrant_tree_rebuild(TreeSafeHandle tree, double[] min, double[] max);
        [DllImport(Lib)] internal static extern Status quadrant_tree_set_layers(TreeSafeHandle tree, ulong handle, uint layers);
        [DllImport(Lib)] internal static extern Status quadrant_tree_clear(TreeSafeHandle tree);
        [DllImport(Lib)] internal static extern int quadrant_tree_contains(TreeSafeHandle tree, ulong handle);
        [DllImport(Lib)] internal static extern UIntPtr quadrant_tree_size(TreeSafeHandle tree);
        [DllImport(Lib)] internal static extern Status quadrant_tree_bounds(TreeSafeHandle tree, ulong handle, ref double min, ref double max);
        [DllImport(Lib)] internal static extern Status quadrant_tree_value(TreeSafeHandle tree, ulong handle, out ulong value);
        [DllImport(Lib)] internal static extern Status quadrant_tree_layers(TreeSafeHandle tree, ulong handle, out uint layers);
        [DllImport(Lib)] internal static extern Status quadrant_tree_query(TreeSafeHandle tree, ref NativeShape shape, uint layers, HitFn fn, IntPtr user, out QueryStatsNative stats);
        // Arrays go as a ref to their first element: mono marshals a ref in a few nanoseconds, an array parameter
        // in about a hundred (measured: 230 ns of a 1.1 us query with two [Out] arrays).
        [DllImport(Lib, EntryPoint = "quadrant_tree_query_into_stats")] internal static extern Status quadrant_tree_query_into(TreeSafeHandle tree, ref NativeShape shape, uint layers, ref ulong handles, IntPtr values, UIntPtr capacity, out UIntPtr count, out QueryStatsNative stats);
        [DllImport(Lib)] internal static extern Status quadrant_tree_query_into_stats(TreeSafeHandle tree, ref NativeShape shape, uint layers, ref Handle handles, IntPtr values, UIntPtr capacity, out UIntPtr count, out QueryStatsNative stats);
        [DllImport(Lib)] internal static extern Status quadrant_tree_pairs(TreeSafeHandle tree, uint layers, PairFn fn, IntPtr user);
        [DllImport(Lib)] internal static extern Status quadrant_tree_pairs_into(TreeSafeHandle tree, uint layers, ref ulong pairs, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_trees_pairs_into(TreeSafeHandle a, TreeSafeHandle b, uint layersA, uint layersB, ref ulong pairs, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_trees_pairs(TreeSafeHandle a, TreeSafeHandle b, uint layersA, uint layersB, PairFn fn, IntPtr user);
        [DllImport(Lib)] internal static extern Status quadrant_tree_raycast(TreeSafeHandle tree, ref double a, ref double b, uint layers, RayFn fn, IntPtr user);
        [DllImport(Lib)] internal static extern Status quadrant_tree_raycast_into(TreeSafeHandle tree, ref double a, ref double b, uint layers, ref ulong handles, IntPtr values, ref double ts, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_tree_nearest(TreeSafeHandle tree, ref double point, UIntPtr k, double maxDistance, uint layers, ref ulong handles, ref double distances, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_tree_stats(TreeSafeHandle tree, out Stats stats);
        [DllImport(Lib)] internal static extern Status quadrant_tree_validate(TreeSafeHandle tree);

        [DllImport(Lib)] internal static extern void quadrant_layer_matrix_between(uint[] partners, uint a, uint b);
        [DllImport(Lib)] internal static extern Status quadrant_layer_matrix_set(uint[] partners, int a, int b, int collide);
        [DllImport(Lib)] internal static extern Status quadrant_tree_pairs_filtered(TreeSafeHandle tree, ref uint matrix, PairFn fn, IntPtr user);
        [DllImport(Lib)] internal static extern Status quadrant_tree_pairs_filtered_into(TreeSafeHandle tree, ref uint matrix, ref ulong pairs, UIntPtr capacity, out UIntPtr count);

        [DllImport(Lib)] internal static extern Status quadrant_contacts_create(out ContactsSafeHandle contacts);
        [DllImport(Lib)] internal static extern void quadrant_contacts_destroy(IntPtr contacts);
        [DllImport(Lib)] internal static extern Status quadrant_contacts_update(ContactsSafeHandle contacts, TreeSafeHandle tree, uint layers, uint[] matrix, out ContactStep step);
        [DllImport(Lib)] internal static extern Status quadrant_contacts_clear(ContactsSafeHandle contacts);

        [DllImport(Lib)] internal static extern Status quadrant_tree_query_nodes(TreeSafeHandle tree, ref NativeShape shape, int skipEmpty, NodeFn fn, IntPtr user);
        [DllImport(Lib)] internal static extern Status quadrant_tree_query_nodes_into(TreeSafeHandle tree, ref NativeShape shape, int skipEmpty, ref Node nodes, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_tree_for_each_node(TreeSafeHandle tree, NodeFn fn, IntPtr user);
        [DllImport(Lib)] internal static extern Status quadrant_tree_locate(TreeSafeHandle tree, ref double point, out Node node);

        [DllImport(Lib)] internal static extern void quadrant_aoi_settings_init(out AoiSettings s, int scalar);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_create(ref AoiSettings s, out AoiSafeHandle world);
        [DllImport(Lib)] internal static extern void quadrant_aoi_destroy(IntPtr world);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_add(AoiSafeHandle world, ulong id, double x, double y, double viewRadius, int mode, uint layers, double bodyRadius);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_move(AoiSafeHandle world, ulong id, double x, double y);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_move_many(AoiSafeHandle world, ref ulong ids, ref double xy, UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_set_view_radius(AoiSafeHandle world, ulong id, double radius);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_set_layers(AoiSafeHandle world, ulong id, uint layers);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_remove(AoiSafeHandle world, ulong id);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_tick(AoiSafeHandle world, out IntPtr events, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_visible(AoiSafeHandle world, ulong id, ref ulong ids, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_watchers(AoiSafeHandle world, ulong id, ref ulong ids, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_query_into(AoiSafeHandle world, ref NativeShape shape, uint layers, ref ulong ids, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern int quadrant_aoi_contains(AoiSafeHandle world, ulong id);
        [DllImport(Lib)] internal static extern UIntPtr quadrant_aoi_size(AoiSafeHandle world);
        [DllImport(Lib)] internal static extern UIntPtr quadrant_aoi_pair_count(AoiSafeHandle world);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_position(AoiSafeHandle world, ulong id, ref double xy);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_validate(AoiSafeHandle world);

        [DllImport(Lib)] internal static extern void quadrant_streamer_config_init(out StreamerConfig c, int scalar);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_create(ref StreamerConfig c, out StreamerSafeHandle streamer);
        [DllImport(Lib)] internal static extern void quadrant_streamer_destroy(IntPtr streamer);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_add(StreamerSafeHandle s, ulong id, ref double min, ref double max);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_remove(StreamerSafeHandle s, ulong id, out int was);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_move(StreamerSafeHandle s, ulong id, ref double min, ref double max);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_mark_loaded(StreamerSafeHandle s, ulong id, out int accepted);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_mark_failed(StreamerSafeHandle s, ulong id, out int accepted);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_set_limits(StreamerSafeHandle s, UIntPtr perUpdate, UIntPtr inFlight);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_update(StreamerSafeHandle s, ref StreamSource sources, UIntPtr count, out StreamUpdate update);
        [DllImport(Lib, EntryPoint = "quadrant_streamer_update")] internal static extern Status quadrant_streamer_update_none(StreamerSafeHandle s, IntPtr sources, UIntPtr count, out StreamUpdate update);
        [DllImport(Lib)] internal static extern int quadrant_streamer_contains(StreamerSafeHandle s, ulong id);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_state(StreamerSafeHandle s, ulong id, out int state);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_bounds(StreamerSafeHandle s, ulong id, ref double min, ref double max);
        [DllImport(Lib)] internal static extern UIntPtr quadrant_streamer_size(StreamerSafeHandle s);
        [DllImport(Lib)] internal static extern Status quadrant_streamer_validate(StreamerSafeHandle s);
    }

    // Marks a static method called from native code. Unity's IL2CPP needs it (it matches by name) to compile the
    // callbacks ahead of time; mono and .NET ignore it. Internal, so that it never clashes with Unity's own
    // AOT.MonoPInvokeCallbackAttribute in the game's code.
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { Type = type; }
        public Type Type { get; private set; }
    }
}
