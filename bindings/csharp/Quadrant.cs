// SPDX-License-Identifier: MIT
// quadrant for C#: quadtrees, octrees and the area of interest over the C API (P/Invoke into the quadrant_c
// library). Written for C# 7.2 and .NET Standard 2.1, so the same file builds with mono's mcs and in Unity.
//
// Errors: a call the library refuses throws ArgumentException (bad input), InvalidOperationException (misuse) or
// OutOfMemoryException, with the library's message; nothing changed. Threads: one thread at a time per object
// (queries reuse the object's buffers, so even two concurrent reads of one tree need a lock); different objects
// may be used from different threads. Queries fill lists the caller passes, so a warm query allocates nothing.
using System;
using System.Collections.Generic;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;

namespace Quadrant
{
    /// <summary>Where a tree keeps its objects (docs/placements.md).</summary>
    public enum Placement
    {
        /// <summary>Each object in the deepest node whose loose cell (twice the side) holds it.</summary>
        Loose = 0,
        /// <summary>Each object in the deepest node whose cell holds it.</summary>
        Parent = 1,
        /// <summary>Each object in every leaf it overlaps.</summary>
        Leaves = 2
    }

    /// <summary>The scalar a tree stores coordinates in; calls take doubles and round to it.</summary>
    public enum Scalar
    {
        /// <summary>32-bit floats: half the memory.</summary>
        Float = 0,
        /// <summary>64-bit doubles: for big worlds.</summary>
        Double = 1
    }

    /// <summary>A 2D axis-aligned box, min to max (closed).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Box2
    {
        /// <summary>The low corner's x.</summary>
        public double MinX;
        /// <summary>The low corner's y.</summary>
        public double MinY;
        /// <summary>The high corner's x.</summary>
        public double MaxX;
        /// <summary>The high corner's y.</summary>
        public double MaxY;
        /// <summary>The box [minX, maxX] x [minY, maxY].</summary>
        public Box2(double minX, double minY, double maxX, double maxY) { MinX = minX; MinY = minY; MaxX = maxX; MaxY = maxY; }
        /// <summary>True when the two boxes share a point (touching counts).</summary>
        public bool Overlaps(Box2 o) { return MinX <= o.MaxX && o.MinX <= MaxX && MinY <= o.MaxY && o.MinY <= MaxY; }
        /// <summary>"[minX, minY; maxX, maxY]".</summary>
        public override string ToString() { return "[" + MinX + ", " + MinY + "; " + MaxX + ", " + MaxY + "]"; }
    }

    /// <summary>A 3D axis-aligned box, min to max (closed).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Box3
    {
        /// <summary>The low corner's x.</summary>
        public double MinX;
        /// <summary>The low corner's y.</summary>
        public double MinY;
        /// <summary>The low corner's z.</summary>
        public double MinZ;
        /// <summary>The high corner's x.</summary>
        public double MaxX;
        /// <summary>The high corner's y.</summary>
        public double MaxY;
        /// <summary>The high corner's z.</summary>
        public double MaxZ;
        /// <summary>The box [minX, maxX] x [minY, maxY] x [minZ, maxZ].</summary>
        public Box3(double minX, double minY, double minZ, double maxX, double maxY, double maxZ)
        {
            MinX = minX; MinY = minY; MinZ = minZ; MaxX = maxX; MaxY = maxY; MaxZ = maxZ;
        }
    }

    /// <summary>Names one object of one tree; default names nothing. Goes stale when its object is erased.</summary>
    public struct Handle : IEquatable<Handle>
    {
        /// <summary>The C API's 64-bit handle (0: none).</summary>
        public readonly ulong Value;
        /// <summary>Wraps a C API handle.</summary>
        public Handle(ulong value) { Value = value; }
        /// <summary>True for the default handle.</summary>
        public bool IsNull { get { return Value == 0; } }
        /// <summary>Same object.</summary>
        public bool Equals(Handle o) { return Value == o.Value; }
        /// <summary>Same object.</summary>
        public override bool Equals(object o) { return o is Handle && Equals((Handle)o); }
        /// <summary>A hash of the value.</summary>
        public override int GetHashCode() { return Value.GetHashCode(); }
    }

    /// <summary>A query shape. Build one with the static methods; 2D shapes go to a QuadTree or an AoiWorld, Box3,
    /// Sphere, Point3, Segment3 and Frustum to an Octree.</summary>
    public struct Shape
    {
        internal int Kind;
        internal int Dims; // 2 or 3: the trees it fits
        internal double A0, A1, A2, B0, B1, B2, R0, R1, Angle;
        internal double[] Points;
        internal int RowMajor, ClipZeroToOne;

        static Shape Make(int kind, double a0, double a1, double a2, double b0, double b1, double b2, double r0, double r1, double angle, int dims = 2)
        {
            Shape s = new Shape();
            s.Kind = kind; s.Dims = dims; s.A0 = a0; s.A1 = a1; s.A2 = a2; s.B0 = b0; s.B1 = b1; s.B2 = b2; s.R0 = r0; s.R1 = r1; s.Angle = angle;
            return s;
        }
        /// <summary>A 2D box.</summary>
        public static Shape Box(Box2 b) { return Make(0, b.MinX, b.MinY, 0, b.MaxX, b.MaxY, 0, 0, 0, 0); }
        /// <summary>A 3D box.</summary>
        public static Shape Box(Box3 b) { return Make(0, b.MinX, b.MinY, b.MinZ, b.MaxX, b.MaxY, b.MaxZ, 0, 0, 0, 3); }
        /// <summary>A 2D point.</summary>
        public static Shape Point(double x, double y) { return Make(1, x, y, 0, 0, 0, 0, 0, 0, 0); }
        /// <summary>A 3D point.</summary>
        public static Shape Point(double x, double y, double z) { return Make(1, x, y, z, 0, 0, 0, 0, 0, 0, 3); }
        /// <summary>A circle (2D).</summary>
        public static Shape Circle(double x, double y, double radius) { return Make(2, x, y, 0, 0, 0, 0, radius, 0, 0); }
        /// <summary>A sphere (3D).</summary>
        public static Shape Sphere(double x, double y, double z, double radius) { return Make(2, x, y, z, 0, 0, 0, radius, 0, 0, 3); }
        /// <summary>A ring: inner &lt;= distance from the centre &lt;= outer.</summary>
        public static Shape Ring(double x, double y, double inner, double outer) { return Make(3, x, y, 0, 0, 0, 0, inner, outer, 0); }
        /// <summary>An ellipse with semi-axes rx, ry, rotated by angle (radians, counter-clockwise).</summary>
        public static Shape Ellipse(double x, double y, double rx, double ry, double angle) { return Make(4, x, y, 0, 0, 0, 0, rx, ry, angle); }
        /// <summary>A sector (a fan): apex, direction, radius and half angle in [0, pi] (pi/3 is a 120-degree fan).</summary>
        public static Shape Sector(double x, double y, double dx, double dy, double radius, double halfAngle)
        {
            return Make(5, x, y, 0, dx, dy, 0, radius, 0, halfAngle);
        }
        /// <summary>A rotated box: centre, half extents, angle (radians, counter-clockwise).</summary>
        public static Shape OrientedBox(double x, double y, double hx, double hy, double angle) { return Make(6, x, y, 0, 0, 0, 0, hx, hy, angle); }
        /// <summary>A convex polygon: x0, y0, x1, y1, ... (the array is read at each query).</summary>
        public static Shape Polygon(double[] xy)
        {
            if (xy == null || xy.Length % 2 != 0) throw new ArgumentException("quadrant: a polygon needs x, y pairs");
            Shape s = Make(7, 0, 0, 0, 0, 0, 0, 0, 0, 0);
            s.Points = xy;
            return s;
        }
        /// <summary>A 2D segment.</summary>
        public static Shape Segment(double x0, double y0, double x1, double y1) { return Make(8, x0, y0, 0, x1, y1, 0, 0, 0, 0); }
        /// <summary>A 3D segment.</summary>
        public static Shape Segment(double x0, double y0, double z0, double x1, double y1, double z1) { return Make(8, x0, y0, z0, x1, y1, z1, 0, 0, 0, 3); }
        /// <summary>A view frustum from the 16 numbers of a view-projection matrix (Unity: camera.projectionMatrix *
        /// camera.worldToCameraMatrix, read row by row with rowMajor true; OpenGL clip depth).</summary>
        public static Shape Frustum(double[] matrix16, bool rowMajor, bool clipZeroToOne)
        {
            if (matrix16 == null || matrix16.Length != 16) throw new ArgumentException("quadrant: a frustum needs the 16 numbers of a matrix");
            Shape s = Make(9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3);
            s.Points = matrix16;
            s.RowMajor = rowMajor ? 1 : 0;
            s.ClipZeroToOne = clipZeroToOne ? 1 : 0;
            return s;
        }

        // The native shape; a polygon's or frustum's numbers are pinned until the returned handle is freed (a
        // GCHandle is a table entry, not a managed allocation).
        internal GCHandle Pin(int dims, out Native.NativeShape n)
        {
            if (Dims != dims)
                throw new ArgumentException("quadrant: a " + Dims + "D shape given to a " + dims + "D index (a QuadTree and an AoiWorld take 2D shapes, an Octree 3D ones)");
            n = new Native.NativeShape();
            n.Kind = Kind; n.A0 = A0; n.A1 = A1; n.A2 = A2; n.B0 = B0; n.B1 = B1; n.B2 = B2; n.R0 = R0; n.R1 = R1; n.Angle = Angle;
            n.RowMajor = RowMajor; n.ClipZeroToOne = ClipZeroToOne;
            if (Points == null) return default(GCHandle);
            GCHandle pin = GCHandle.Alloc(Points, GCHandleType.Pinned);
            n.Points = pin.AddrOfPinnedObject();
            n.Count = (UIntPtr)(Kind == 7 ? Points.Length / 2 : Points.Length);
            return pin;
        }
        internal static void Unpin(GCHandle pin) { if (pin.IsAllocated) pin.Free(); }
    }

    /// <summary>A tree's node and memory counts.</summary>
    public struct TreeStats
    {
        /// <summary>Nodes in use.</summary>
        public long Nodes;
        /// <summary>Nodes without children.</summary>
        public long Leaves;
        /// <summary>Objects in the tree.</summary>
        public long Objects;
        /// <summary>Entries over all nodes (Leaves placement lists an object in each leaf it overlaps).</summary>
        public long References;
        /// <summary>Heap bytes the native tree holds.</summary>
        public long Bytes;
        /// <summary>Objects not inside the world box.</summary>
        public long OutsideWorld;
        /// <summary>Entries the root lists.</summary>
        public long RootEntries;
        /// <summary>The deepest level in use.</summary>
        public int Depth;
    }

    /// <summary>The part shared by QuadTree and Octree: objects with values of type T, in a native tree.</summary>
    public abstract class SpatialTree<T> : IDisposable
    {
        /// <summary>Every layer.</summary>
        public const uint AllLayers = 0xffffffffu;

        IntPtr tree;
        readonly int dims;
        // Values by slot; the native tree stores the slot as its 64-bit value.
        T[] values = new T[16];
        readonly Stack<int> freeSlots = new Stack<int>();
        int slotCount;
        // Query buffers, grown as needed and reused.
        ulong[] handleBuffer = new ulong[64];
        ulong[] valueBuffer = new ulong[64];
        readonly double[] min = new double[3], max = new double[3];

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
            Native.Check(Native.quadrant_tree_create(ref c, out tree));
        }

        /// <summary>Frees the native tree (also done by the finalizer). Further calls throw ObjectDisposedException.</summary>
        public void Dispose() { Free(); GC.SuppressFinalize(this); }
        /// <summary>Frees the native tree if Dispose was not called.</summary>
        ~SpatialTree() { Free(); }
        void Free()
        {
            if (tree != IntPtr.Zero) { Native.quadrant_tree_destroy(tree); tree = IntPtr.Zero; }
        }
        internal IntPtr Ptr
        {
            get
            {
                if (tree == IntPtr.Zero) throw new ObjectDisposedException("quadrant tree");
                return tree;
            }
        }

        /// <summary>Objects in the tree.</summary>
        public int Count { get { return (int)Native.quadrant_tree_size(Ptr); } }
        /// <summary>True when the handle names an object of this tree.</summary>
        public bool Contains(Handle h) { return Native.quadrant_tree_contains(Ptr, h.Value) != 0; }
        /// <summary>The object's value.</summary>
        public T Value(Handle h) { return values[Slot(h, "value")]; }
        /// <summary>Replaces the object's value.</summary>
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
            ulong v;
            if (Native.quadrant_tree_value(Ptr, h.Value, out v) != Native.Status.Ok)
                throw new ArgumentException("quadrant: " + what + ": the handle names no object of this tree (stale or foreign)");
            return (int)v;
        }

        internal Handle InsertAt(double[] lo, double[] hi, T value, uint layers)
        {
            int slot = freeSlots.Count > 0 ? freeSlots.Peek() : slotCount;
            ulong h;
            Native.Check(Native.quadrant_tree_insert(Ptr, lo, hi, (ulong)slot, layers, out h));
            if (freeSlots.Count > 0) freeSlots.Pop();
            else
            {
                if (slotCount == values.Length) Array.Resize(ref values, values.Length * 2);
                ++slotCount;
            }
            values[slot] = value;
            return new Handle(h);
        }
        internal void MoveTo(Handle h, double[] lo, double[] hi) { Native.Check(Native.quadrant_tree_move(Ptr, h.Value, lo, hi)); }
        internal void BoundsOf(Handle h, double[] lo, double[] hi) { Native.Check(Native.quadrant_tree_bounds(Ptr, h.Value, lo, hi)); }
        internal double[] Min { get { return min; } }
        internal double[] Max { get { return max; } }

        /// <summary>Removes the object; its handle goes stale.</summary>
        public void Erase(Handle h)
        {
            int slot = Slot(h, "erase");
            Native.Check(Native.quadrant_tree_erase(Ptr, h.Value));
            values[slot] = default(T);
            freeSlots.Push(slot);
        }
        /// <summary>Removes every object; every handle goes stale.</summary>
        public void Clear()
        {
            Native.Check(Native.quadrant_tree_clear(Ptr));
            Array.Clear(values, 0, slotCount);
            freeSlots.Clear();
            slotCount = 0;
        }

        /// <summary>Adds to results the value of every object in `layers` the shape touches (exact; touching
        /// counts) and returns how many; with handles not null, their handles too. Allocates nothing once warm.</summary>
        public int Query(Shape shape, List<T> results, List<Handle> handles = null, uint layers = AllLayers)
        {
            if (results == null) throw new ArgumentNullException("results");
            IntPtr t = Ptr;
            for (;;)
            {
                UIntPtr n;
                Native.NativeShape native;
                GCHandle pin = shape.Pin(dims, out native);
                try { Native.Check(Native.quadrant_tree_query_into(t, ref native, layers, handleBuffer, valueBuffer, (UIntPtr)handleBuffer.Length, out n)); }
                finally { Shape.Unpin(pin); }
                ulong count = (ulong)n;
                if (count <= (ulong)handleBuffer.Length)
                {
                    for (int i = 0; i < (int)count; ++i)
                    {
                        results.Add(values[(int)valueBuffer[i]]);
                        if (handles != null) handles.Add(new Handle(handleBuffer[i]));
                    }
                    return (int)count;
                }
                handleBuffer = new ulong[2 * (int)count];
                valueBuffer = new ulong[2 * (int)count];
            }
        }

        /// <summary>Adds every pair of objects in `layers` whose boxes overlap, once each, as (a, b) to results (a
        /// list of pairs of values) and returns how many.</summary>
        public int Pairs(List<KeyValuePair<T, T>> results, uint layers = AllLayers)
        {
            if (results == null) throw new ArgumentNullException("results");
            return RunPairs(results, null, layers);
        }

        /// <summary>Calls fn(a, b) for every pair of objects in `layers` whose boxes overlap, once each, from inside
        /// the native walk (no list); fn returning false stops. Returns how many pairs fn saw. fn may query the tree
        /// but not change it (that throws InvalidOperationException). An exception thrown by fn stops the walk and
        /// is rethrown from here, with its stack trace, once the native call has returned: it never unwinds through
        /// native code.</summary>
        public int ForEachPair(Func<T, T, bool> fn, uint layers = AllLayers)
        {
            if (fn == null) throw new ArgumentNullException("fn");
            return RunPairs(null, fn, layers);
        }

        int RunPairs(List<KeyValuePair<T, T>> results, Func<T, T, bool> fn, uint layers)
        {
            IntPtr t = Ptr;
            // A walk from inside another's callback gets a sink of its own.
            PairSink sink = pairSink != null && !pairSink.Busy ? pairSink : new PairSink(this);
            if (pairSink == null) pairSink = sink;
            sink.Results = results;
            sink.Fn = fn;
            sink.Count = 0;
            sink.Error = null;
            sink.Busy = true;
            GCHandle self = GCHandle.Alloc(sink);
            Native.Status status;
            try { status = Native.quadrant_tree_pairs(t, layers, Native.PairThunk, GCHandle.ToIntPtr(self)); }
            finally { self.Free(); sink.Results = null; sink.Fn = null; sink.Busy = false; }
            if (sink.Error != null)
            {
                ExceptionDispatchInfo error = sink.Error;
                sink.Error = null;
                error.Throw();
            }
            Native.Check(status);
            return sink.Count;
        }
        PairSink pairSink;
        sealed class PairSink : Native.IPairSink
        {
            readonly SpatialTree<T> tree;
            public List<KeyValuePair<T, T>> Results;
            public Func<T, T, bool> Fn;
            public int Count;
            public bool Busy;
            public ExceptionDispatchInfo Error { get; set; }
            public PairSink(SpatialTree<T> tree) { this.tree = tree; }
            public bool Pair(ulong a, ulong va, ulong b, ulong vb)
            {
                ++Count;
                if (Fn != null) return Fn(tree.values[(int)va], tree.values[(int)vb]);
                Results.Add(new KeyValuePair<T, T>(tree.values[(int)va], tree.values[(int)vb]));
                return true;
            }
        }

        /// <summary>The k objects in `layers` nearest to the point (distance to their boxes), nearest first, within
        /// maxDistance; adds their values and distances and returns how many.</summary>
        internal int NearestTo(double[] p, int k, List<T> results, List<double> distances, double maxDistance, uint layers)
        {
            if (k < 0) throw new ArgumentException("quadrant: nearest: k is negative");
            // No more results than objects: the buffers are sized by what the tree holds, not by what was asked.
            if (k > Count) k = Count;
            if (handleBuffer.Length < k) { handleBuffer = new ulong[k]; valueBuffer = new ulong[k]; }
            if (distanceBuffer.Length < k) distanceBuffer = new double[k];
            UIntPtr count;
            Native.Check(Native.quadrant_tree_nearest(Ptr, p, (UIntPtr)k, maxDistance, layers, handleBuffer, distanceBuffer, out count));
            for (int i = 0; i < (int)count; ++i)
            {
                results.Add(Value(new Handle(handleBuffer[i])));
                if (distances != null) distances.Add(distanceBuffer[i]);
            }
            return (int)count;
        }
        double[] distanceBuffer = new double[16];

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
        internal int Dims { get { return dims; } }
    }

    /// <summary>A quadtree of values of type T: boxes in 2D.</summary>
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
        /// <summary>The k nearest objects to (x, y); see SpatialTree.</summary>
        public int Nearest(double x, double y, int k, List<T> results, List<double> distances = null, double maxDistance = double.PositiveInfinity, uint layers = AllLayers)
        {
            Min[0] = x; Min[1] = y;
            return NearestTo(Min, k, results, distances, maxDistance, layers);
        }
    }

    /// <summary>An octree of values of type T: boxes in 3D.</summary>
    public sealed class Octree<T> : SpatialTree<T>
    {
        /// <summary>An empty octree over `world`; as QuadTree.</summary>
        public Octree(Box3 world, Scalar scalar = Scalar.Double, Placement placement = Placement.Loose, int maxDepth = -1, int splitThreshold = -1, double minNodeSize = 0)
            : base(3, new[] { world.MinX, world.MinY, world.MinZ }, new[] { world.MaxX, world.MaxY, world.MaxZ }, scalar, placement, maxDepth, splitThreshold, minNodeSize) { }

        void Put(Box3 b) { Min[0] = b.MinX; Min[1] = b.MinY; Min[2] = b.MinZ; Max[0] = b.MaxX; Max[1] = b.MaxY; Max[2] = b.MaxZ; }
        /// <summary>Stores value with the box in `layers`; returns its handle.</summary>
        public Handle Insert(Box3 box, T value, uint layers = AllLayers) { Put(box); return InsertAt(Min, Max, value, layers); }
        /// <summary>Gives the object a new box.</summary>
        public void Move(Handle h, Box3 box) { Put(box); MoveTo(h, Min, Max); }
        /// <summary>The object's box.</summary>
        public Box3 Bounds(Handle h) { BoundsOf(h, Min, Max); return new Box3(Min[0], Min[1], Min[2], Max[0], Max[1], Max[2]); }
        /// <summary>The k nearest objects to (x, y, z); see SpatialTree.</summary>
        public int Nearest(double x, double y, double z, int k, List<T> results, List<double> distances = null, double maxDistance = double.PositiveInfinity, uint layers = AllLayers)
        {
            Min[0] = x; Min[1] = y; Min[2] = z;
            return NearestTo(Min, k, results, distances, maxDistance, layers);
        }
    }

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
    /// per tick. Changes are recorded and take effect at the next Tick.</summary>
    public sealed class AoiWorld : IDisposable
    {
        /// <summary>Every layer.</summary>
        public const uint AllLayers = 0xffffffffu;
        IntPtr world;
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
            Native.Check(Native.quadrant_aoi_create(ref s, out this.world));
        }
        /// <summary>Frees the native world (also done by the finalizer).</summary>
        public void Dispose() { Free(); GC.SuppressFinalize(this); }
        /// <summary>Frees the native world if Dispose was not called.</summary>
        ~AoiWorld() { Free(); }
        void Free()
        {
            if (world != IntPtr.Zero) { Native.quadrant_aoi_destroy(world); world = IntPtr.Zero; }
        }
        IntPtr Ptr
        {
            get
            {
                if (world == IntPtr.Zero) throw new ObjectDisposedException("quadrant aoi world");
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
            Native.Check(Native.quadrant_aoi_move_many(Ptr, ids, xy, (UIntPtr)count));
        }
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

        delegate Native.Status IdRead(IntPtr world, ulong id, ulong[] ids, UIntPtr capacity, out UIntPtr count);
        int ReadIds(IdRead read, ulong id, List<ulong> results)
        {
            if (results == null) throw new ArgumentNullException("results");
            for (;;)
            {
                UIntPtr n;
                Native.Check(read(Ptr, id, ids, (UIntPtr)ids.Length, out n));
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
            IntPtr w = Ptr;
            for (;;)
            {
                UIntPtr n;
                Native.NativeShape native;
                GCHandle pin = shape.Pin(2, out native);
                try { Native.Check(Native.quadrant_aoi_query_into(w, ref native, layers, ids, (UIntPtr)ids.Length, out n)); }
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
            Native.Check(Native.quadrant_aoi_position(Ptr, id, xy));
            x = xy[0];
            y = xy[1];
        }
        readonly double[] xy = new double[2];
        /// <summary>Pairs (watcher sees target) as of the last tick.</summary>
        public long PairCount { get { return (long)Native.quadrant_aoi_pair_count(Ptr); } }
        /// <summary>Checks every invariant by brute force (O(N^2): for tests).</summary>
        public void Validate() { Native.Check(Native.quadrant_aoi_validate(Ptr)); }
    }

    /// <summary>The C API's declarations. Internal: the classes above are the binding.</summary>
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
        internal struct AoiSettings
        {
            public int Scalar;
            public double WorldMinX, WorldMinY, WorldMaxX, WorldMaxY, Hysteresis, Skin;
            public int MaxDepth, SplitThreshold;
        }

        // Pairs come back through one static callback (no delegate per call); `user` is a GCHandle to the sink.
        // An exception must not unwind through the native walk (its C++ frames would be skipped: undefined behaviour
        // under mono and IL2CPP): the thunk catches it, keeps it in the sink, stops the walk, and the caller rethrows.
        internal interface IPairSink
        {
            bool Pair(ulong a, ulong va, ulong b, ulong vb);
            ExceptionDispatchInfo Error { get; set; }
        }
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate int PairFn(IntPtr user, ulong a, ulong va, ulong b, ulong vb);
        internal static readonly PairFn PairThunk = OnPair;
        [MonoPInvokeCallback(typeof(PairFn))]
        static int OnPair(IntPtr user, ulong a, ulong va, ulong b, ulong vb)
        {
            IPairSink sink = (IPairSink)GCHandle.FromIntPtr(user).Target;
            try { return sink.Pair(a, va, b, vb) ? 1 : 0; }
            catch (Exception e) { sink.Error = ExceptionDispatchInfo.Capture(e); return 0; }
        }

        [DllImport(Lib)] internal static extern IntPtr quadrant_version();
        [DllImport(Lib)] internal static extern IntPtr quadrant_last_error();
        [DllImport(Lib)] internal static extern void quadrant_config_init(out Config c, int dims, int scalar);
        [DllImport(Lib)] internal static extern Status quadrant_tree_create(ref Config c, out IntPtr tree);
        [DllImport(Lib)] internal static extern void quadrant_tree_destroy(IntPtr tree);
        [DllImport(Lib)] internal static extern Status quadrant_tree_insert(IntPtr tree, double[] min, double[] max, ulong value, uint layers, out ulong handle);
        [DllImport(Lib)] internal static extern Status quadrant_tree_erase(IntPtr tree, ulong handle);
        [DllImport(Lib)] internal static extern Status quadrant_tree_move(IntPtr tree, ulong handle, double[] min, double[] max);
        [DllImport(Lib)] internal static extern Status quadrant_tree_set_layers(IntPtr tree, ulong handle, uint layers);
        [DllImport(Lib)] internal static extern Status quadrant_tree_clear(IntPtr tree);
        [DllImport(Lib)] internal static extern int quadrant_tree_contains(IntPtr tree, ulong handle);
        [DllImport(Lib)] internal static extern UIntPtr quadrant_tree_size(IntPtr tree);
        [DllImport(Lib)] internal static extern Status quadrant_tree_bounds(IntPtr tree, ulong handle, [Out] double[] min, [Out] double[] max);
        [DllImport(Lib)] internal static extern Status quadrant_tree_value(IntPtr tree, ulong handle, out ulong value);
        [DllImport(Lib)] internal static extern Status quadrant_tree_layers(IntPtr tree, ulong handle, out uint layers);
        [DllImport(Lib)] internal static extern Status quadrant_tree_query_into(IntPtr tree, ref NativeShape shape, uint layers, [Out] ulong[] handles, [Out] ulong[] values, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_tree_pairs(IntPtr tree, uint layers, PairFn fn, IntPtr user);
        [DllImport(Lib)] internal static extern Status quadrant_tree_nearest(IntPtr tree, double[] point, UIntPtr k, double maxDistance, uint layers, [Out] ulong[] handles, [Out] double[] distances, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_tree_stats(IntPtr tree, out Stats stats);
        [DllImport(Lib)] internal static extern Status quadrant_tree_validate(IntPtr tree);

        [DllImport(Lib)] internal static extern void quadrant_aoi_settings_init(out AoiSettings s, int scalar);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_create(ref AoiSettings s, out IntPtr world);
        [DllImport(Lib)] internal static extern void quadrant_aoi_destroy(IntPtr world);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_add(IntPtr world, ulong id, double x, double y, double viewRadius, int mode, uint layers, double bodyRadius);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_move(IntPtr world, ulong id, double x, double y);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_move_many(IntPtr world, ulong[] ids, double[] xy, UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_set_view_radius(IntPtr world, ulong id, double radius);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_set_layers(IntPtr world, ulong id, uint layers);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_remove(IntPtr world, ulong id);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_tick(IntPtr world, out IntPtr events, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_visible(IntPtr world, ulong id, [Out] ulong[] ids, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_watchers(IntPtr world, ulong id, [Out] ulong[] ids, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_query_into(IntPtr world, ref NativeShape shape, uint layers, [Out] ulong[] ids, UIntPtr capacity, out UIntPtr count);
        [DllImport(Lib)] internal static extern int quadrant_aoi_contains(IntPtr world, ulong id);
        [DllImport(Lib)] internal static extern UIntPtr quadrant_aoi_size(IntPtr world);
        [DllImport(Lib)] internal static extern UIntPtr quadrant_aoi_pair_count(IntPtr world);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_position(IntPtr world, ulong id, [Out] double[] xy);
        [DllImport(Lib)] internal static extern Status quadrant_aoi_validate(IntPtr world);
    }

    // Marks a static method called from native code. Unity's IL2CPP needs it (it matches by name) to compile the
    // pair callback ahead of time; mono and .NET ignore it. Internal, so that it never clashes with Unity's own
    // AOT.MonoPInvokeCallbackAttribute in the game's code.
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        /// <summary>The delegate type the method is passed as.</summary>
        public MonoPInvokeCallbackAttribute(Type type) { Type = type; }
        /// <summary>The delegate type the method is passed as.</summary>
        public Type Type { get; private set; }
    }

    /// <summary>The library's version.</summary>
    public static class Library
    {
        /// <summary>"major.minor.patch" of the native library.</summary>
        public static string Version { get { return Marshal.PtrToStringAnsi(Native.quadrant_version()); } }
    }
}
