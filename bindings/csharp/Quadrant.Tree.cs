// SPDX-License-Identifier: MIT
// quadrant for C#: QuadTree<T> and Octree<T>, and SpatialTree<T>, what they share. Values of any type T stay in
// managed memory (the native tree stores a slot number), so the garbage collector sees them as usual. Every walk
// with a callback goes through Sink (Quadrant.Native.cs): an exception thrown by the callback stops the walk and is
// rethrown here once the native call has returned, the tree unchanged.
#if UNITY_2021_2_OR_NEWER || NETSTANDARD2_1_OR_GREATER || NETCOREAPP || QUADRANT_SPAN
#define QUADRANT_HAS_SPAN
#endif
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Quadrant
{
    /// <summary>The part shared by QuadTree and Octree: objects with values of type T, in a native tree. Threads: one
    /// thread at a time (queries reuse the tree's buffers, so even two concurrent reads need a lock); a callback
    /// may query its own tree but not change it (that throws InvalidOperationException, rethrown by the walk).</summary>
    public abstract class SpatialTree<T> : IDisposable
    {
        /// <summary>Every layer.</summary>
        public const uint AllLayers = 0xffffffffu;

        readonly TreeSafeHandle tree;
        readonly int dims;
        // Values by the native slot of their object (a handle's low 32 bits minus 1, as quadrant.h says): a handle the
        // library hands out names its value without another call. `ceiling` is 1 + the highest slot ever seen: the
        // library's records never outgrow it (a new object takes a free slot or the next one), so `values` holds every
        // slot once Reserve(ceiling + 1) has run.
        T[] values = new T[16];
        int ceiling;
        // Buffers, grown as needed and reused: a warm call allocates nothing.
        ulong[] handleBuffer = new ulong[64];
        ulong[] pairBuffer = new ulong[128];
        Handle[] assignBuffer = new Handle[16];
        double[] distanceBuffer = new double[16];
        double[] tBuffer = new double[16];
        Native.Node[] nodeBuffer = new Native.Node[16];
        double[] batchMin = new double[48], batchMax = new double[48];
        readonly double[] min = new double[3], max = new double[3], pointB = new double[3];
        WalkSink sink;
        Sink crossSink;
        QueryStats lastQuery;

        internal SpatialTree(int dims, double[] worldMin, double[] worldMax, Scalar scalar, Placement placement, int maxDepth, int splitThreshold, double minNodeSize)
        {
            this.dims = dims;
            Native.Config c;
            Native.quadrant_config_init(out c, dims, (int)scalar);
            c.WorldMin0 = worldMin[0]; c.WorldMin1 = worldMin[1]; c.WorldMin2 = dims == 3 ? worldMin[2] : 0;
            c.WorldMax0 = worldMax[0]; c.WorldMax1 = worldMax[1]; c.WorldMax2 = dims == 3 ? worldMax[2] : 1;
            if (maxDepth != -1) c.MaxDepth = maxDepth;
            if (splitThreshold != -1) c.SplitThreshold = splitThreshold;
            c.MinNodeSize = minNodeSize;
            c.Placement = (int)placement;
            Native.Status status = Native.quadrant_tree_create(ref c, out tree);
            if (status != Native.Status.Ok) { tree.Dispose(); Native.Check(status); }
        }

        /// <summary>Frees the native tree (a SafeHandle; its finalizer does it if Dispose is never called). Called
        /// from inside one of the tree's callbacks, it frees the tree once the walk has returned. Later calls throw
        /// ObjectDisposedException; Dispose again does nothing.</summary>
        public void Dispose() { tree.Dispose(); }
        /// <summary>True after Dispose.</summary>
        public bool IsDisposed { get { return tree.IsClosed; } }
        internal TreeSafeHandle Ptr
        {
            get
            {
                if (tree.IsClosed) throw new ObjectDisposedException(dims == 2 ? "quadrant QuadTree" : "quadrant Octree");
                return tree;
            }
        }
        internal int Dims { get { return dims; } }
        internal T[] Values { get { return values; } }

        /// <summary>Objects in the tree.</summary>
        public int Count { get { return (int)Native.quadrant_tree_size(Ptr); } }
        /// <summary>True when the handle names an object of this tree (false for a stale or foreign one).</summary>
        public bool Contains(Handle h) { return Native.quadrant_tree_contains(Ptr, h.Value) != 0; }
        /// <summary>The object's value; ArgumentException for a stale or foreign handle.</summary>
        public T Value(Handle h) { return values[Slot(h, "value")]; }
        /// <summary>Replaces the object's value (allowed inside a callback: values live in managed memory).</summary>
        public void SetValue(Handle h, T value) { values[Slot(h, "set_value")] = value; }
        /// <summary>The object's layer mask.</summary>
        public uint Layers(Handle h)
        {
            uint layers;
            Native.Check(Native.quadrant_tree_layers(Ptr, h.Value, out layers));
            return layers;
        }
        /// <summary>Changes the object's layer mask.</summary>
        public void SetLayers(Handle h, uint layers) { Native.Check(Native.quadrant_tree_set_layers(Ptr, h.Value, layers)); }

        int Slot(Handle h, string what)
        {
            if (Native.quadrant_tree_contains(Ptr, h.Value) == 0)
                throw new ArgumentException("quadrant: " + what + ": the handle names no object of this tree (stale or foreign)");
            return SlotOf(h.Value);
        }
        internal static int SlotOf(ulong handle) { return (int)(uint)handle - 1; }
        // Room for slots below n, made before a native call adds objects: a refused call then leaves everything as it
        // was, and a successful one has nothing left that could fail.
        void Reserve(int n)
        {
            if (n <= values.Length) return;
            int size = values.Length;
            while (size < n) size *= 2;
            Array.Resize(ref values, size);
        }

        internal Handle InsertAt(double[] lo, double[] hi, T value, uint layers)
        {
            Reserve(ceiling + 1);
            ulong h;
            Native.Check(Native.quadrant_tree_insert(Ptr, ref lo[0], ref hi[0], 0, layers, out h));
            int slot = SlotOf(h);
            values[slot] = value;
            if (slot >= ceiling) ceiling = slot + 1;
            return new Handle(h);
        }
        internal void MoveTo(Handle h, double[] lo, double[] hi) { Native.Check(Native.quadrant_tree_move(Ptr, h.Value, ref lo[0], ref hi[0])); }
        internal void BoundsOf(Handle h, double[] lo, double[] hi) { Native.Check(Native.quadrant_tree_bounds(Ptr, h.Value, ref lo[0], ref hi[0])); }
        internal double[] Min { get { return min; } }
        internal double[] Max { get { return max; } }

        /// <summary>Removes the object; its handle goes stale.</summary>
        public void Erase(Handle h)
        {
            int slot = Slot(h, "erase");
            Native.Check(Native.quadrant_tree_erase(Ptr, h.Value));
            values[slot] = default(T);
        }
        /// <summary>Removes every object; every handle goes stale. Keeps the native memory.</summary>
        public void Clear()
        {
            Native.Check(Native.quadrant_tree_clear(Ptr));
            Array.Clear(values, 0, ceiling);
        }

        // ---- batches: the boxes are copied into the tree's scratch arrays (dims numbers per corner) ----

        internal double[] BatchMin(int n)
        {
            if (batchMin.Length < dims * n) { batchMin = new double[dims * n]; batchMax = new double[dims * n]; }
            return batchMin;
        }
        internal double[] BatchMax { get { return batchMax; } }
        internal static void CheckSizes(string what, int expected, int actual, string name)
        {
            if (actual != expected)
                throw new ArgumentException("quadrant: " + what + ": " + name + " holds " + actual + " items, expected " + expected);
        }
        internal void MoveManyNative(Handle[] handles, int n)
        {
            MoveManyNative(new ArraySegment<Handle>(handles, 0, n));
        }
        internal void MoveManyNative(ArraySegment<Handle> handles)
        {
            TreeSafeHandle t = Ptr;
            if (handles.Count == 0) return;
            Native.Check(Native.quadrant_tree_move_many(t, ref handles.Array[handles.Offset], ref batchMin[0], ref batchMax[0], (UIntPtr)handles.Count));
        }
        internal static void CheckSegment<TItem>(ArraySegment<TItem> segment, string name)
        {
            if (segment.Array == null) throw new ArgumentNullException(name);
        }
        // After a successful assign: the old values go, object i's value goes to its handle's slot.
        void AssignValues(Handle[] handles, int n, T[] newValues)
        {
            Array.Clear(values, 0, ceiling);
            for (int i = 0; i < n; ++i)
            {
                int slot = SlotOf(handles[i].Value);
                values[slot] = newValues[i];
                if (slot >= ceiling) ceiling = slot + 1;
            }
        }
        Handle[] AssignHandles(Handle[] given, int n)
        {
            if (given != null) return given;
            if (assignBuffer.Length < n) assignBuffer = new Handle[n];
            return assignBuffer;
        }
        internal void AssignNative(T[] newValues, uint[] layers, Handle[] handles, int n)
        {
            // The library rebuilds its records: the objects take slots below max(n, ceiling).
            Reserve(Math.Max(Math.Max(n, ceiling), 1));
            Handle[] output = AssignHandles(handles, Math.Max(n, 1));
            Native.Check(Native.quadrant_tree_assign(Ptr, batchMin, batchMax, IntPtr.Zero, layers, (UIntPtr)n, output));
            AssignValues(output, n, newValues);
        }
#if QUADRANT_HAS_SPAN
        internal void MoveManyNative(ReadOnlySpan<Handle> handles)
        {
            ReadOnlySpan<ulong> raw = MemoryMarshal.Cast<Handle, ulong>(handles);
            Native.Check(Native.quadrant_tree_move_many_span(Ptr, ref MemoryMarshal.GetReference(raw), ref batchMin[0], ref batchMax[0], (UIntPtr)handles.Length));
        }
        internal void AssignNative(ReadOnlySpan<T> newValues, ReadOnlySpan<uint> layers, Span<Handle> handles)
        {
            int n = newValues.Length;
            Reserve(Math.Max(Math.Max(n, ceiling), 1));
            Handle[] output = AssignHandles(null, Math.Max(n, 1));
            Span<ulong> raw = MemoryMarshal.Cast<Handle, ulong>(new Span<Handle>(output));
            Native.Check(Native.quadrant_tree_assign_span(Ptr, batchMin, batchMax, IntPtr.Zero, ref MemoryMarshal.GetReference(layers), (UIntPtr)n, ref MemoryMarshal.GetReference(raw)));
            Array.Clear(values, 0, ceiling);
            for (int i = 0; i < n; ++i)
            {
                int slot = SlotOf(output[i].Value);
                values[slot] = newValues[i];
                if (slot >= ceiling) ceiling = slot + 1;
            }
            if (handles.Length != 0) new Span<Handle>(output, 0, n).CopyTo(handles);
        }
#endif
        internal void RebuildNative(double[] lo, double[] hi) { Native.Check(Native.quadrant_tree_rebuild(Ptr, lo, hi)); }
        internal Native.Config ConfigNative()
        {
            Native.Config c;
            Native.Check(Native.quadrant_tree_config(Ptr, out c));
            return c;
        }
        /// <summary>The scalar the tree stores coordinates in.</summary>
        public Scalar Scalar { get { return (Scalar)ConfigNative().Scalar; } }
        /// <summary>Where the tree keeps its objects.</summary>
        public Placement Placement { get { return (Placement)ConfigNative().Placement; } }
        /// <summary>The deepest level.</summary>
        public int MaxDepth { get { return ConfigNative().MaxDepth; } }
        /// <summary>A leaf splits above this many entries (0: a full tree).</summary>
        public int SplitThreshold { get { return ConfigNative().SplitThreshold; } }
        /// <summary>No cell side below this.</summary>
        public double MinNodeSize { get { return ConfigNative().MinNodeSize; } }

        // ---- queries ----

        /// <summary>Adds to results the value of every object in `layers` the shape touches (exact; touching
        /// counts) and returns how many; with handles not null, their handles too. Allocates nothing once warm.
        /// LastQuery then says what the walk did.</summary>
        public int Query(Shape shape, List<T> results, List<Handle> handles = null, uint layers = AllLayers)
        {
            if (results == null) throw new ArgumentNullException("results");
            int count = QueryBuffers(shape, layers);
            for (int i = 0; i < count; ++i)
            {
                results.Add(values[SlotOf(handleBuffer[i])]);
                if (handles != null) handles.Add(new Handle(handleBuffer[i]));
            }
            return count;
        }
        // Runs query_into into the tree's buffers, growing them until every hit fits; returns the hits.
        int QueryBuffers(Shape shape, uint layers)
        {
            TreeSafeHandle t = Ptr;
            for (;;)
            {
                UIntPtr n;
                Native.NativeShape native;
                Native.QueryStatsNative stats;
                GCHandle pin = shape.Pin(dims, out native);
                try { Native.Check(Native.quadrant_tree_query_into(t, ref native, layers, ref handleBuffer[0], IntPtr.Zero, (UIntPtr)handleBuffer.Length, out n, out stats)); }
                finally { Shape.Unpin(pin); }
                ulong count = (ulong)n;
                if (count <= (ulong)handleBuffer.Length)
                {
                    lastQuery = QueryStats.From(stats);
                    return (int)count;
                }
                handleBuffer = new ulong[2 * (int)count];
            }
        }
        /// <summary>What the last Query, QueryHandles or QueryValues walked: nodes visited, box tests, hits.</summary>
        public QueryStats LastQuery { get { return lastQuery; } }

        /// <summary>Writes the handles of the objects in `layers` the shape touches into `handles` (up to its length,
        /// in the order Query reports them) and returns how many there are in all (call again with a larger array
        /// when that exceeds the length). Writes straight into the array.</summary>
        public int QueryHandles(Shape shape, Handle[] handles, uint layers = AllLayers)
        {
            if (handles == null) throw new ArgumentNullException("handles");
            return QueryHandles(shape, new ArraySegment<Handle>(handles), layers);
        }
        /// <summary>QueryHandles into a part of an array (written straight by the native query): up to its Count;
        /// returns how many there are in all.</summary>
        public int QueryHandles(Shape shape, ArraySegment<Handle> handles, uint layers = AllLayers)
        {
            CheckSegment(handles, "handles");
            TreeSafeHandle t = Ptr;
            // An empty part still counts the hits: the native query writes nowhere at capacity 0.
            Handle[] array = handles.Count == 0 ? oneHandle : handles.Array;
            int offset = handles.Count == 0 ? 0 : handles.Offset;
            UIntPtr n;
            Native.NativeShape native;
            Native.QueryStatsNative stats;
            GCHandle pin = shape.Pin(dims, out native);
            try { Native.Check(Native.quadrant_tree_query_into_stats(t, ref native, layers, ref array[offset], IntPtr.Zero, (UIntPtr)handles.Count, out n, out stats)); }
            finally { Shape.Unpin(pin); }
            lastQuery = QueryStats.From(stats);
            return (int)(ulong)n;
        }
        readonly Handle[] oneHandle = new Handle[1];
        /// <summary>Writes the values of the objects the shape touches into `values` (up to its length) and returns
        /// how many there are in all, as QueryHandles.</summary>
        public int QueryValues(Shape shape, T[] values, uint layers = AllLayers)
        {
            if (values == null) throw new ArgumentNullException("values");
            int count = QueryBuffers(shape, layers);
            for (int i = 0; i < count && i < values.Length; ++i) values[i] = this.values[SlotOf(handleBuffer[i])];
            return count;
        }
#if QUADRANT_HAS_SPAN
        /// <summary>QueryHandles into a span (written straight by the native query): up to its length; returns how
        /// many there are in all.</summary>
        public int QueryHandles(Shape shape, Span<Handle> handles, uint layers = AllLayers)
        {
            TreeSafeHandle t = Ptr;
            UIntPtr n;
            Native.NativeShape native;
            Native.QueryStatsNative stats;
            Span<ulong> raw = MemoryMarshal.Cast<Handle, ulong>(handles);
            GCHandle pin = shape.Pin(dims, out native);
            try { Native.Check(Native.quadrant_tree_query_into_span(t, ref native, layers, ref MemoryMarshal.GetReference(raw), IntPtr.Zero, (UIntPtr)raw.Length, out n, out stats)); }
            finally { Shape.Unpin(pin); }
            lastQuery = QueryStats.From(stats);
            return (int)(ulong)n;
        }
        /// <summary>QueryValues into a span: up to its length; returns how many there are in all.</summary>
        public int QueryValues(Shape shape, Span<T> values, uint layers = AllLayers)
        {
            int count = QueryBuffers(shape, layers);
            for (int i = 0; i < count && i < values.Length; ++i) values[i] = this.values[SlotOf(handleBuffer[i])];
            return count;
        }
#endif

        /// <summary>Calls fn(value, handle) for every object in `layers` the shape touches, from inside the native
        /// walk (no list); fn returning false stops. Returns what the walk did. fn may query the tree but not change
        /// it; an exception thrown by fn stops the walk and is rethrown from here once the native call has returned.</summary>
        public QueryStats ForEachHit(Shape shape, Func<T, Handle, bool> fn, uint layers = AllLayers)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            TreeSafeHandle t = Ptr;
            WalkSink s = AcquireSink();
            s.HitFn = fn;
            Native.NativeShape native;
            GCHandle shapePin = shape.Pin(dims, out native);
            GCHandle pin = s.Begin();
            Native.Status status;
            Native.QueryStatsNative stats;
            try { status = Native.quadrant_tree_query(t, ref native, layers, Native.HitThunk, GCHandle.ToIntPtr(pin), out stats); }
            finally { Shape.Unpin(shapePin); s.End(pin); }
            s.Finish(status);
            return QueryStats.From(stats);
        }

        // ---- pairs ----

        /// <summary>Adds every pair of objects in `layers` whose boxes overlap, once each, as (a, b) to results (a
        /// list of pairs of values) and returns how many.</summary>
        public int Pairs(List<KeyValuePair<T, T>> results, uint layers = AllLayers)
        {
            if (results == null) throw new ArgumentNullException("results");
            return PairsInto(results, layers, null);
        }
        /// <summary>Adds every overlapping pair that the layer matrix lets through (pruned at nodes: a filtered-out
        /// pair costs no box test) and returns how many.</summary>
        public int Pairs(List<KeyValuePair<T, T>> results, LayerMatrix matrix)
        {
            if (results == null) throw new ArgumentNullException("results");
            if (matrix == null) throw new ArgumentNullException("matrix");
            return PairsInto(results, 0, matrix);
        }

        /// <summary>Calls fn(a, b) for every pair of objects in `layers` whose boxes overlap, once each, from inside
        /// the native walk (no list); fn returning false stops. Returns how many pairs fn saw. fn may query the tree
        /// but not change it (that throws InvalidOperationException). An exception thrown by fn stops the walk and
        /// is rethrown from here, with its stack trace, once the native call has returned: it never unwinds through
        /// native code.</summary>
        public int ForEachPair(Func<T, T, bool> fn, uint layers = AllLayers)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            return RunPairs(fn, layers, null);
        }
        /// <summary>ForEachPair over the pairs the layer matrix lets through.</summary>
        public int ForEachPair(Func<T, T, bool> fn, LayerMatrix matrix)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            if (matrix == null) throw new ArgumentNullException("matrix");
            return RunPairs(fn, 0, matrix);
        }

        // The pairs into the tree's buffer (a, b, a, b, ...), grown until they fit, then their values into the list:
        // one native call, no callback per pair.
        int PairsInto(List<KeyValuePair<T, T>> results, uint layers, LayerMatrix matrix)
        {
            TreeSafeHandle t = Ptr;
            for (;;)
            {
                UIntPtr n;
                int capacity = pairBuffer.Length / 2;
                Native.Check(matrix == null ? Native.quadrant_tree_pairs_into(t, layers, ref pairBuffer[0], (UIntPtr)capacity, out n)
                                            : Native.quadrant_tree_pairs_filtered_into(t, ref matrix.Partners[0], ref pairBuffer[0], (UIntPtr)capacity, out n));
                ulong count = (ulong)n;
                if (count <= (ulong)capacity)
                {
                    for (int i = 0; i < (int)count; ++i)
                        results.Add(new KeyValuePair<T, T>(values[SlotOf(pairBuffer[2 * i])], values[SlotOf(pairBuffer[2 * i + 1])]));
                    return (int)count;
                }
                pairBuffer = new ulong[4 * (int)count];
            }
        }
        int RunPairs(Func<T, T, bool> fn, uint layers, LayerMatrix matrix)
        {
            TreeSafeHandle t = Ptr;
            WalkSink s = AcquireSink();
            s.PairFn = fn;
            GCHandle pin = s.Begin();
            Native.Status status;
            try
            {
                status = matrix == null ? Native.quadrant_tree_pairs(t, layers, Native.PairThunk, GCHandle.ToIntPtr(pin))
                                        : Native.quadrant_tree_pairs_filtered(t, ref matrix.Partners[0], Native.PairThunk, GCHandle.ToIntPtr(pin));
            }
            finally { s.End(pin); }
            int count = s.Count;
            s.Finish(status);
            return count;
        }

        /// <summary>Adds every pair of an object of this tree (in layersA) and one of `other` (in layersB) whose boxes
        /// overlap, as (this tree's value, other's value), and returns how many. other: another tree of the same
        /// dimension and scalar (placements and worlds may differ); ArgumentException otherwise.</summary>
        public int PairsWith<U>(SpatialTree<U> other, List<KeyValuePair<T, U>> results, uint layersA = AllLayers, uint layersB = AllLayers)
        {
            if (results == null) throw new ArgumentNullException("results");
            if (other == null) throw new ArgumentNullException("other");
            TreeSafeHandle t = Ptr, o = other.Ptr;
            for (;;)
            {
                UIntPtr n;
                int capacity = pairBuffer.Length / 2;
                Native.Check(Native.quadrant_trees_pairs_into(t, o, layersA, layersB, ref pairBuffer[0], (UIntPtr)capacity, out n));
                ulong count = (ulong)n;
                if (count <= (ulong)capacity)
                {
                    U[] theirs = other.Values;
                    for (int i = 0; i < (int)count; ++i)
                        results.Add(new KeyValuePair<T, U>(values[SlotOf(pairBuffer[2 * i])], theirs[SlotOf(pairBuffer[2 * i + 1])]));
                    return (int)count;
                }
                pairBuffer = new ulong[4 * (int)count];
            }
        }
        /// <summary>Calls fn(this tree's value, other's value) for every overlapping pair across the two trees, as
        /// PairsWith, from inside the native walk; fn returning false stops; an exception thrown by fn is rethrown
        /// once the walk has returned. Returns how many pairs fn saw.</summary>
        public int ForEachPairWith<U>(SpatialTree<U> other, Func<T, U, bool> fn, uint layersA = AllLayers, uint layersB = AllLayers)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            return RunCross(other, fn, layersA, layersB);
        }
        int RunCross<U>(SpatialTree<U> other, Func<T, U, bool> fn, uint layersA, uint layersB)
        {
            if (other == null) throw new ArgumentNullException("other");
            TreeSafeHandle t = Ptr, o = other.Ptr;
            CrossSink<U> s = crossSink as CrossSink<U>;
            if (s == null || s.Busy) { s = new CrossSink<U>(this, other); if (crossSink == null || !crossSink.Busy) crossSink = s; }
            s.Other = other;
            s.Fn = fn;
            s.Count = 0;
            GCHandle pin = s.Begin();
            Native.Status status;
            try { status = Native.quadrant_trees_pairs(t, o, layersA, layersB, Native.PairThunk, GCHandle.ToIntPtr(pin)); }
            finally { s.End(pin); }
            int count = s.Count;
            s.Finish(status);
            return count;
        }
        sealed class CrossSink<U> : Sink
        {
            readonly SpatialTree<T> tree;
            public SpatialTree<U> Other;
            public Func<T, U, bool> Fn;
            public int Count;
            public CrossSink(SpatialTree<T> tree, SpatialTree<U> other) { this.tree = tree; Other = other; }
            internal override void Release() { Fn = null; Other = null; }
            internal override bool Pair(ulong a, ulong va, ulong b, ulong vb)
            {
                ++Count;
                T x = tree.values[SlotOf(a)];
                U y = Other.Values[SlotOf(b)];
                return Fn(x, y);
            }
        }

        // ---- nodes ----

        /// <summary>Calls fn for every node in pre-order (a parent before its children): to draw the tree. fn
        /// returning false stops; an exception thrown by fn is rethrown once the walk has returned.</summary>
        public void ForEachNode(Func<NodeInfo, bool> fn)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            TreeSafeHandle t = Ptr;
            WalkSink s = AcquireSink();
            s.NodeFn = fn;
            GCHandle pin = s.Begin();
            Native.Status status;
            try { status = Native.quadrant_tree_for_each_node(t, Native.NodeThunk, GCHandle.ToIntPtr(pin)); }
            finally { s.End(pin); }
            s.Finish(status);
        }
        /// <summary>Adds every node, in pre-order, to results and returns how many.</summary>
        public int Nodes(List<NodeInfo> results)
        {
            if (results == null) throw new ArgumentNullException("results");
            TreeSafeHandle t = Ptr;
            WalkSink s = AcquireSink();
            s.Nodes = results;
            GCHandle pin = s.Begin();
            Native.Status status;
            try { status = Native.quadrant_tree_for_each_node(t, Native.NodeThunk, GCHandle.ToIntPtr(pin)); }
            finally { s.End(pin); }
            int count = s.Count;
            s.Finish(status);
            return count;
        }
        /// <summary>Adds every leaf whose cell the shape touches, in pre-order, to results (a grid's "which cells
        /// does this shape touch") and returns how many; with skipEmpty, subtrees holding no object are skipped.</summary>
        public int QueryNodes(Shape shape, List<NodeInfo> results, bool skipEmpty = true)
        {
            if (results == null) throw new ArgumentNullException("results");
            TreeSafeHandle t = Ptr;
            for (;;)
            {
                UIntPtr n;
                Native.NativeShape native;
                GCHandle pin = shape.Pin(dims, out native);
                try { Native.Check(Native.quadrant_tree_query_nodes_into(t, ref native, skipEmpty ? 1 : 0, ref nodeBuffer[0], (UIntPtr)nodeBuffer.Length, out n)); }
                finally { Shape.Unpin(pin); }
                ulong count = (ulong)n;
                if (count <= (ulong)nodeBuffer.Length)
                {
                    for (int i = 0; i < (int)count; ++i) results.Add(NodeInfo.From(ref nodeBuffer[i]));
                    return (int)count;
                }
                nodeBuffer = new Native.Node[2 * (int)count];
            }
        }
        /// <summary>Calls fn for every leaf whose cell the shape touches, in pre-order, from inside the native walk;
        /// fn returning false stops; an exception thrown by fn is rethrown once the walk has returned.</summary>
        public void QueryNodes(Shape shape, Func<NodeInfo, bool> fn, bool skipEmpty = true)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            TreeSafeHandle t = Ptr;
            WalkSink s = AcquireSink();
            s.NodeFn = fn;
            Native.NativeShape native;
            GCHandle shapePin = shape.Pin(dims, out native);
            GCHandle pin = s.Begin();
            Native.Status status;
            try { status = Native.quadrant_tree_query_nodes(t, ref native, skipEmpty ? 1 : 0, Native.NodeThunk, GCHandle.ToIntPtr(pin)); }
            finally { Shape.Unpin(shapePin); s.End(pin); }
            s.Finish(status);
        }
        internal NodeInfo LocateAt(double[] p)
        {
            Native.Node n;
            Native.Check(Native.quadrant_tree_locate(Ptr, ref p[0], out n));
            return NodeInfo.From(ref n);
        }

        // ---- ray casts and nearest ----

        internal double[] PointB { get { return pointB; } }
        internal int RaycastInto(double[] a, double[] b, List<RayHit<T>> hits, int limit, uint layers)
        {
            if (hits == null) throw new ArgumentNullException("hits");
            if (limit < 0) throw new ArgumentException("quadrant: raycast: limit is negative");
            // No more hits than objects: the buffers are sized by what the tree holds, not by what was asked.
            int capacity = Math.Min(limit, Count);
            if (handleBuffer.Length < capacity) handleBuffer = new ulong[capacity];
            if (tBuffer.Length < capacity) tBuffer = new double[capacity];
            UIntPtr n;
            Native.Check(Native.quadrant_tree_raycast_into(Ptr, ref a[0], ref b[0], layers, ref handleBuffer[0], IntPtr.Zero, ref tBuffer[0], (UIntPtr)capacity, out n));
            int count = (int)(ulong)n;
            for (int i = 0; i < count; ++i)
            {
                RayHit<T> hit;
                hit.Value = values[SlotOf(handleBuffer[i])];
                hit.Handle = new Handle(handleBuffer[i]);
                hit.T = tBuffer[i];
                hits.Add(hit);
            }
            return count;
        }
        internal int RaycastEach(double[] a, double[] b, Func<T, Handle, double, bool> fn, uint layers)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            TreeSafeHandle t = Ptr;
            WalkSink s = AcquireSink();
            s.RayFn = fn;
            GCHandle pin = s.Begin();
            Native.Status status;
            try { status = Native.quadrant_tree_raycast(t, ref a[0], ref b[0], layers, Native.RayThunk, GCHandle.ToIntPtr(pin)); }
            finally { s.End(pin); }
            int count = s.Count;
            s.Finish(status);
            return count;
        }

        // The k objects in `layers` nearest to the point, nearest first, within maxDistance, into the buffers.
        int NearestBuffers(double[] p, int k, double maxDistance, uint layers)
        {
            if (k < 0) throw new ArgumentException("quadrant: nearest: k is negative");
            // No more results than objects: the buffers are sized by what the tree holds, not by what was asked.
            if (k > Count) k = Count;
            if (handleBuffer.Length < k) handleBuffer = new ulong[k];
            if (distanceBuffer.Length < k) distanceBuffer = new double[k];
            UIntPtr count;
            Native.Check(Native.quadrant_tree_nearest(Ptr, ref p[0], (UIntPtr)k, maxDistance, layers, ref handleBuffer[0], ref distanceBuffer[0], out count));
            return (int)(ulong)count;
        }
        internal int NearestTo(double[] p, int k, List<T> results, List<double> distances, double maxDistance, uint layers)
        {
            if (results == null) throw new ArgumentNullException("results");
            int count = NearestBuffers(p, k, maxDistance, layers);
            for (int i = 0; i < count; ++i)
            {
                results.Add(values[SlotOf(handleBuffer[i])]);
                if (distances != null) distances.Add(distanceBuffer[i]);
            }
            return count;
        }
        internal int NearestTo(double[] p, int k, List<Neighbor<T>> results, double maxDistance, uint layers)
        {
            if (results == null) throw new ArgumentNullException("results");
            int count = NearestBuffers(p, k, maxDistance, layers);
            for (int i = 0; i < count; ++i)
            {
                Neighbor<T> n;
                n.Handle = new Handle(handleBuffer[i]);
                n.Value = values[SlotOf(handleBuffer[i])];
                n.Distance = distanceBuffer[i];
                results.Add(n);
            }
            return count;
        }

        /// <summary>The tree's node and memory counts.</summary>
        public TreeStats Stats()
        {
            Native.Stats s;
            Native.Check(Native.quadrant_tree_stats(Ptr, out s));
            TreeStats r = new TreeStats();
            r.Nodes = (long)s.Nodes; r.Leaves = (long)s.Leaves; r.Depth = s.Depth; r.Objects = (long)s.Objects;
            r.References = (long)s.References; r.Bytes = (long)s.Bytes; r.OutsideWorld = (long)s.OutsideWorld; r.RootEntries = (long)s.RootEntries;
            return r;
        }
        /// <summary>Checks every invariant of the native tree; throws InvalidOperationException naming a broken one.</summary>
        public void Validate() { Native.Check(Native.quadrant_tree_validate(Ptr)); }

        // The tree's sink, or a new one for a walk started from inside another walk's callback.
        WalkSink AcquireSink()
        {
            WalkSink s = sink != null && !sink.Busy ? sink : new WalkSink(this);
            if (sink == null) sink = s;
            s.Count = 0;
            return s;
        }
        sealed class WalkSink : Sink
        {
            readonly SpatialTree<T> tree;
            public Func<T, T, bool> PairFn;
            public Func<T, Handle, bool> HitFn;
            public Func<T, Handle, double, bool> RayFn;
            public List<NodeInfo> Nodes;
            public Func<NodeInfo, bool> NodeFn;
            public int Count;
            public WalkSink(SpatialTree<T> tree) { this.tree = tree; }
            // Drops the references to the caller's lists and functions once the walk has returned.
            internal override void Release() { PairFn = null; HitFn = null; RayFn = null; Nodes = null; NodeFn = null; }
            internal override bool Hit(ulong handle, ulong value)
            {
                ++Count;
                return HitFn(tree.values[SlotOf(handle)], new Handle(handle));
            }
            internal override bool Pair(ulong a, ulong va, ulong b, ulong vb)
            {
                ++Count;
                return PairFn(tree.values[SlotOf(a)], tree.values[SlotOf(b)]);
            }
            internal override bool Ray(ulong handle, ulong value, double t)
            {
                ++Count;
                return RayFn(tree.values[SlotOf(handle)], new Handle(handle), t);
            }
            internal override bool Node(ref Native.Node node)
            {
                ++Count;
                if (NodeFn != null) return NodeFn(NodeInfo.From(ref node));
                Nodes.Add(NodeInfo.From(ref node));
                return true;
            }
        }
    }

    /// <summary>A quadtree of values of type T: boxes in 2D. Threads: as SpatialTree (one thread at a time).</summary>
    public sealed class QuadTree<T> : SpatialTree<T>
    {
        /// <summary>An empty quadtree over `world` (objects outside it still work, slower). maxDepth and
        /// splitThreshold of -1 take the library's defaults (8 and 32).</summary>
        public QuadTree(Box2 world, Scalar scalar = Scalar.Double, Placement placement = Placement.Loose, int maxDepth = -1, int splitThreshold = -1, double minNodeSize = 0)
            : base(2, new[] { world.MinX, world.MinY }, new[] { world.MaxX, world.MaxY }, scalar, placement, maxDepth, splitThreshold, minNodeSize) { }

        void Put(Box2 b) { Min[0] = b.MinX; Min[1] = b.MinY; Max[0] = b.MaxX; Max[1] = b.MaxY; }
        /// <summary>Stores value with the box (min &lt;= max, finite) in `layers`; returns its handle.</summary>
        public Handle Insert(Box2 box, T value, uint layers = AllLayers) { Put(box); return InsertAt(Min, Max, value, layers); }
        /// <summary>Gives the object a new box.</summary>
        public void Move(Handle h, Box2 box) { Put(box); MoveTo(h, Min, Max); }
        /// <summary>The object's box (as the tree stores it: rounded to float in a float tree).</summary>
        public Box2 Bounds(Handle h) { BoundsOf(h, Min, Max); return new Box2(Min[0], Min[1], Max[0], Max[1]); }
        /// <summary>The root cell (the world the tree was made or last rebuilt over).</summary>
        public Box2 World { get { Native.Config c = ConfigNative(); return new Box2(c.WorldMin0, c.WorldMin1, c.WorldMax0, c.WorldMax1); } }
        /// <summary>Re-roots the tree over a new world (other settings stay), keeping every object and handle: for
        /// objects that outgrew the world (Stats().OutsideWorld counts them). ArgumentException for a bad world.</summary>
        public void Rebuild(Box2 world) { Min[0] = world.MinX; Min[1] = world.MinY; Max[0] = world.MaxX; Max[1] = world.MaxY; RebuildNative(Min, Max); }

        /// <summary>The k objects in `layers` nearest to (x, y) within maxDistance (inclusive), nearest first (distance
        /// to their boxes, 0 inside); adds their values (and distances) and returns how many.</summary>
        public int Nearest(double x, double y, int k, List<T> results, List<double> distances = null, double maxDistance = double.PositiveInfinity, uint layers = AllLayers)
        {
            Min[0] = x; Min[1] = y;
            return NearestTo(Min, k, results, distances, maxDistance, layers);
        }
        /// <summary>Nearest, as Neighbor values (value, handle, distance).</summary>
        public int Nearest(double x, double y, int k, List<Neighbor<T>> results, double maxDistance = double.PositiveInfinity, uint layers = AllLayers)
        {
            Min[0] = x; Min[1] = y;
            return NearestTo(Min, k, results, maxDistance, layers);
        }
        /// <summary>The leaf whose cell holds the point; ArgumentException for a point outside the world.</summary>
        public NodeInfo Locate(double x, double y) { Min[0] = x; Min[1] = y; return LocateAt(Min); }
        /// <summary>Adds the first `limit` objects in `layers` that the segment from (x0, y0[, z0]) to (x1, y1[, z1]) crosses,
        /// nearest first, to hits, and returns how many (limit 1: the first hit alone, which stops the walk there).</summary>
        public int Raycast(double x0, double y0, double x1, double y1, List<RayHit<T>> hits, int limit = int.MaxValue, uint layers = AllLayers)
        {
            Min[0] = x0; Min[1] = y0; PointB[0] = x1; PointB[1] = y1;
            return RaycastInto(Min, PointB, hits, limit, layers);
        }
        /// <summary>Calls fn(value, handle, t) for every object in `layers` the segment crosses, nearest first, from
        /// inside the native walk; fn returning false stops; an exception thrown by fn is rethrown once the walk has
        /// returned. Returns how many hits fn saw.</summary>
        public int Raycast(double x0, double y0, double x1, double y1, Func<T, Handle, double, bool> fn, uint layers = AllLayers)
        {
            Min[0] = x0; Min[1] = y0; PointB[0] = x1; PointB[1] = y1;
            return RaycastEach(Min, PointB, fn, layers);
        }

        /// <summary>Gives handles[i] the box boxes[i], in one native call; checked whole first: on error (a stale or
        /// foreign handle, a bad box, arrays of different lengths) nothing moved.</summary>
        public void MoveMany(Handle[] handles, Box2[] boxes)
        {
            if (handles == null) throw new ArgumentNullException("handles");
            if (boxes == null) throw new ArgumentNullException("boxes");
            CheckSizes("move_many", handles.Length, boxes.Length, "boxes");
            Copy(boxes, boxes.Length);
            MoveManyNative(handles, handles.Length);
        }
        /// <summary>MoveMany over parts of arrays (equal counts): handles.Array[handles.Offset + i] gets
        /// boxes.Array[boxes.Offset + i].</summary>
        public void MoveMany(ArraySegment<Handle> handles, ArraySegment<Box2> boxes)
        {
            CheckSegment(handles, "handles");
            CheckSegment(boxes, "boxes");
            CheckSizes("move_many", handles.Count, boxes.Count, "boxes");
            Copy(boxes.Array, boxes.Offset, boxes.Count);
            MoveManyNative(handles);
        }
        void Copy(Box2[] boxes, int n) { Copy(boxes, 0, n); }
        void Copy(Box2[] boxes, int offset, int n)
        {
            double[] lo = BatchMin(n), hi = BatchMax;
            for (int i = 0; i < n; ++i) { Box2 b = boxes[offset + i]; lo[2 * i] = b.MinX; lo[2 * i + 1] = b.MinY; hi[2 * i] = b.MaxX; hi[2 * i + 1] = b.MaxY; }
        }
        /// <summary>Replaces the tree's contents with boxes.Length objects built at once, several times faster than
        /// inserting them one by one: object i has boxes[i], values[i] and layers[i] (layers null: every layer);
        /// handles (null, or as long as boxes) receives object i's handle at i. Every old handle goes stale.
        /// ArgumentException naming the first bad object ("item i"), or for arrays of different lengths, with the
        /// tree unchanged.</summary>
        public void Assign(Box2[] boxes, T[] values, uint[] layers = null, Handle[] handles = null)
        {
            if (boxes == null) throw new ArgumentNullException("boxes");
            if (values == null) throw new ArgumentNullException("values");
            CheckSizes("assign", boxes.Length, values.Length, "values");
            if (layers != null) CheckSizes("assign", boxes.Length, layers.Length, "layers");
            if (handles != null) CheckSizes("assign", boxes.Length, handles.Length, "handles");
            Copy(boxes, boxes.Length);
            AssignNative(values, layers, handles, boxes.Length);
        }
#if QUADRANT_HAS_SPAN
        void Copy(ReadOnlySpan<Box2> boxes)
        {
            int n = boxes.Length;
            double[] lo = BatchMin(n), hi = BatchMax;
            for (int i = 0; i < n; ++i) { Box2 b = boxes[i]; lo[2 * i] = b.MinX; lo[2 * i + 1] = b.MinY; hi[2 * i] = b.MaxX; hi[2 * i + 1] = b.MaxY; }
        }
        /// <summary>MoveMany over spans (equal lengths).</summary>
        public void MoveMany(ReadOnlySpan<Handle> handles, ReadOnlySpan<Box2> boxes)
        {
            CheckSizes("move_many", handles.Length, boxes.Length, "boxes");
            Copy(boxes);
            MoveManyNative(handles);
        }
        /// <summary>Assign over spans: layers empty (every layer) or as long as boxes, handles empty (not wanted) or
        /// as long as boxes.</summary>
        public void Assign(ReadOnlySpan<Box2> boxes, ReadOnlySpan<T> values, ReadOnlySpan<uint> layers, Span<Handle> handles)
        {
            CheckSizes("assign", boxes.Length, values.Length, "values");
            if (layers.Length != 0) CheckSizes("assign", boxes.Length, layers.Length, "layers");
            if (handles.Length != 0) CheckSizes("assign", boxes.Length, handles.Length, "handles");
            Copy(boxes);
            AssignNative(values, layers, handles);
        }
#endif
    }

    /// <summary>An octree of values of type T: boxes in 3D. Threads: as SpatialTree (one thread at a time).</summary>
    public sealed class Octree<T> : SpatialTree<T>
    {
        /// <summary>An empty octree over `world`; as QuadTree.</summary>
        public Octree(Box3 world, Scalar scalar = Scalar.Double, Placement placement = Placement.Loose, int maxDepth = -1, int splitThreshold = -1, double minNodeSize = 0)
            : base(3, new[] { world.MinX, world.MinY, world.MinZ }, new[] { world.MaxX, world.MaxY, world.MaxZ }, scalar, placement, maxDepth, splitThreshold, minNodeSize) { }

        void Put(Box3 b) { Min[0] = b.MinX; Min[1] = b.MinY; Min[2] = b.MinZ; Max[0] = b.MaxX; Max[1] = b.MaxY; Max[2] = b.MaxZ; }
        /// <summary>Stores value with the box (min &lt;= max, finite) in `layers`; returns its handle.</summary>
        public Handle Insert(Box3 box, T value, uint layers = AllLayers) { Put(box); return InsertAt(Min, Max, value, layers); }
        /// <summary>Gives the object a new box.</summary>
        public void Move(Handle h, Box3 box) { Put(box); MoveTo(h, Min, Max); }
        /// <summary>The object's box (as the tree stores it: rounded to float in a float tree).</summary>
        public Box3 Bounds(Handle h) { BoundsOf(h, Min, Max); return new Box3(Min[0], Min[1], Min[2], Max[0], Max[1], Max[2]); }
        /// <summary>The root cell (the world the tree was made or last rebuilt over).</summary>
        public Box3 World { get { Native.Config c = ConfigNative(); return new Box3(c.WorldMin0, c.WorldMin1, c.WorldMin2, c.WorldMax0, c.WorldMax1, c.WorldMax2); } }
        /// <summary>Re-roots the tree over a new world (other settings stay), keeping every object and handle: for
        /// objects that outgrew the world (Stats().OutsideWorld counts them). ArgumentException for a bad world.</summary>
        public void Rebuild(Box3 world) { Min[0] = world.MinX; Min[1] = world.MinY; Min[2] = world.MinZ; Max[0] = world.MaxX; Max[1] = world.MaxY; Max[2] = world.MaxZ; RebuildNative(Min, Max); }

        /// <summary>The k objects in `layers` nearest to (x, y, z) within maxDistance (inclusive), nearest first (distance
        /// to their boxes, 0 inside); adds their values (and distances) and returns how many.</summary>
        public int Nearest(double x, double y, double z, int k, List<T> results, List<double> distances = null, double maxDistance = double.PositiveInfinity, uint layers = AllLayers)
        {
            Min[0] = x; Min[1] = y; Min[2] = z;
            return NearestTo(Min, k, results, distances, maxDistance, layers);
        }
        /// <summary>Nearest, as Neighbor values (value, handle, distance).</summary>
        public int Nearest(double x, double y, double z, int k, List<Neighbor<T>> results, double maxDistance = double.PositiveInfinity, uint layers = AllLayers)
        {
            Min[0] = x; Min[1] = y; Min[2] = z;
            return NearestTo(Min, k, results, maxDistance, layers);
        }
        /// <summary>The leaf whose cell holds the point; ArgumentException for a point outside the world.</summary>
        public NodeInfo Locate(double x, double y, double z) { Min[0] = x; Min[1] = y; Min[2] = z; return LocateAt(Min); }
        /// <summary>Adds the first `limit` objects in `layers` that the segment from (x0, y0[, z0]) to (x1, y1[, z1]) crosses,
        /// nearest first, to hits, and returns how many (limit 1: the first hit alone, which stops the walk there).</summary>
        public int Raycast(double x0, double y0, double z0, double x1, double y1, double z1, List<RayHit<T>> hits, int limit = int.MaxValue, uint layers = AllLayers)
        {
            Min[0] = x0; Min[1] = y0; Min[2] = z0; PointB[0] = x1; PointB[1] = y1; PointB[2] = z1;
            return RaycastInto(Min, PointB, hits, limit, layers);
        }
        /// <summary>Calls fn(value, handle, t) for every object in `layers` the segment crosses, nearest first, from
        /// inside the native walk; fn returning false stops; an exception thrown by fn is rethrown once the walk has
        /// returned. Returns how many hits fn saw.</summary>
        public int Raycast(double x0, double y0, double z0, double x1, double y1, double z1, Func<T, Handle, double, bool> fn, uint layers = AllLayers)
        {
            Min[0] = x0; Min[1] = y0; Min[2] = z0; PointB[0] = x1; PointB[1] = y1; PointB[2] = z1;
            return RaycastEach(Min, PointB, fn, layers);
        }

        /// <summary>Gives handles[i] the box boxes[i], in one native call; checked whole first: on error (a stale or
        /// foreign handle, a bad box, arrays of different lengths) nothing moved.</summary>
        public void MoveMany(Handle[] handles, Box3[] boxes)
        {
            if (handles == null) throw new ArgumentNullException("handles");
            if (boxes == null) throw new ArgumentNullException("boxes");
            CheckSizes("move_many", handles.Length, boxes.Length, "boxes");
            Copy(boxes, boxes.Length);
            MoveManyNative(handles, handles.Length);
        }
        /// <summary>MoveMany over parts of arrays (equal counts): handles.Array[handles.Offset + i] gets
        /// boxes.Array[boxes.Offset + i].</summary>
        public void MoveMany(ArraySegment<Handle> handles, ArraySegment<Box3> boxes)
        {
            CheckSegment(handles, "handles");
            CheckSegment(boxes, "boxes");
            CheckSizes("move_many", handles.Count, boxes.Count, "boxes");
            Copy(boxes.Array, boxes.Offset, boxes.Count);
            MoveManyNative(handles);
        }
        void Copy(Box3[] boxes, int n) { Copy(boxes, 0, n); }
        void Copy(Box3[] boxes, int offset, int n)
        {
            double[] lo = BatchMin(n), hi = BatchMax;
            for (int i = 0; i < n; ++i) { Box3 b = boxes[offset + i]; lo[3 * i] = b.MinX; lo[3 * i + 1] = b.MinY; lo[3 * i + 2] = b.MinZ; hi[3 * i] = b.MaxX; hi[3 * i + 1] = b.MaxY; hi[3 * i + 2] = b.MaxZ; }
        }
        /// <summary>Replaces the tree's contents with boxes.Length objects built at once, several times faster than
        /// inserting them one by one: object i has boxes[i], values[i] and layers[i] (layers null: every layer);
        /// handles (null, or as long as boxes) receives object i's handle at i. Every old handle goes stale.
        /// ArgumentException naming the first bad object ("item i"), or for arrays of different lengths, with the
        /// tree unchanged.</summary>
        public void Assign(Box3[] boxes, T[] values, uint[] layers = null, Handle[] handles = null)
        {
            if (boxes == null) throw new ArgumentNullException("boxes");
            if (values == null) throw new ArgumentNullException("values");
            CheckSizes("assign", boxes.Length, values.Length, "values");
            if (layers != null) CheckSizes("assign", boxes.Length, layers.Length, "layers");
            if (handles != null) CheckSizes("assign", boxes.Length, handles.Length, "handles");
            Copy(boxes, boxes.Length);
            AssignNative(values, layers, handles, boxes.Length);
        }
#if QUADRANT_HAS_SPAN
        void Copy(ReadOnlySpan<Box3> boxes)
        {
            int n = boxes.Length;
            double[] lo = BatchMin(n), hi = BatchMax;
            for (int i = 0; i < n; ++i) { Box3 b = boxes[i]; lo[3 * i] = b.MinX; lo[3 * i + 1] = b.MinY; lo[3 * i + 2] = b.MinZ; hi[3 * i] = b.MaxX; hi[3 * i + 1] = b.MaxY; hi[3 * i + 2] = b.MaxZ; }
        }
        /// <summary>MoveMany over spans (equal lengths).</summary>
        public void MoveMany(ReadOnlySpan<Handle> handles, ReadOnlySpan<Box3> boxes)
        {
            CheckSizes("move_many", handles.Length, boxes.Length, "boxes");
            Copy(boxes);
            MoveManyNative(handles);
        }
        /// <summary>Assign over spans: layers empty (every layer) or as long as boxes, handles empty (not wanted) or
        /// as long as boxes.</summary>
        public void Assign(ReadOnlySpan<Box3> boxes, ReadOnlySpan<T> values, ReadOnlySpan<uint> layers, Span<Handle> handles)
        {
            CheckSizes("assign", boxes.Length, values.Length, "values");
            if (layers.Length != 0) CheckSizes("assign", boxes.Length, layers.Length, "layers");
            if (handles.Length != 0) CheckSizes("assign", boxes.Length, handles.Length, "handles");
            Copy(boxes);
            AssignNative(values, layers, handles);
        }
#endif
    }
}
