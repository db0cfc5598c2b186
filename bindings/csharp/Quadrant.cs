// SPDX-License-Identifier: MIT
// quadrant for C#: quadtrees, octrees, the area of interest, streaming and contact events over the C API (P/Invoke
// into the quadrant_c library). Written for C# 7.2, so the same files build with mono's mcs and in Unity. This file:
// the value types (boxes, handles, shapes, nodes, hits, the layer matrix). The library is every Quadrant*.cs file:
// Quadrant.Tree.cs (QuadTree, Octree), Quadrant.Aoi.cs (AoiWorld), Quadrant.Streamer.cs (Streamer),
// Quadrant.Contacts.cs (ContactTracker), Quadrant.Native.cs (the C API), Quadrant.Numerics.cs (System.Numerics
// conversions), Quadrant.Unity.cs (UnityEngine conversions, under UNITY_5_3_OR_NEWER).
//
// Errors: a call the library refuses throws ArgumentException (bad input: NaN, min > max, a stale or foreign
// handle, an unknown id, a wrong-sized array or span), InvalidOperationException (misuse) or OutOfMemoryException,
// with the library's message; nothing changed. A disposed object throws ObjectDisposedException.
// Threads: one thread at a time per object (queries reuse the object's buffers, so even two concurrent reads of one
// tree need a lock); different objects may be used from different threads. The value types here are plain values
// (LayerMatrix is a small class: copy it with its constructor to share it between threads that change it).
using System;
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

    /// <summary>A 2D axis-aligned box, min to max (closed). Every member of the binding that takes a box's numbers
    /// takes them in this order: min x, min y, max x, max y.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public partial struct Box2
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

    /// <summary>A 3D axis-aligned box, min to max (closed); numbers in the order min x, min y, min z, max x, max y,
    /// max z.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public partial struct Box3
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
        /// <summary>True when the two boxes share a point (touching counts).</summary>
        public bool Overlaps(Box3 o)
        {
            return MinX <= o.MaxX && o.MinX <= MaxX && MinY <= o.MaxY && o.MinY <= MaxY && MinZ <= o.MaxZ && o.MinZ <= MaxZ;
        }
        /// <summary>The box's x and y: a quadtree's node as a NodeInfo gives it (z is 0 there).</summary>
        public Box2 XY { get { return new Box2(MinX, MinY, MaxX, MaxY); } }
        /// <summary>"[minX, minY, minZ; maxX, maxY, maxZ]".</summary>
        public override string ToString() { return "[" + MinX + ", " + MinY + ", " + MinZ + "; " + MaxX + ", " + MaxY + ", " + MaxZ + "]"; }
    }

    /// <summary>Names one object of one tree; default names nothing. Goes stale when its object is erased or the tree
    /// cleared or assigned; another tree refuses it (foreign).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Handle : IEquatable<Handle>
    {
        /// <summary>The C API's 64-bit handle (0: none).</summary>
        public readonly ulong Value;
        /// <summary>Wraps a C API handle.</summary>
        public Handle(ulong value) { Value = value; }
        /// <summary>True for the default handle.</summary>
        public bool IsNull { get { return Value == 0; } }
        /// <summary>The object's slot in its tree (the C API's low 32 bits minus 1): contacts are sorted by it.</summary>
        public int Slot { get { return (int)(uint)Value - 1; } }
        /// <summary>Same object.</summary>
        public bool Equals(Handle o) { return Value == o.Value; }
        /// <summary>Same object.</summary>
        public override bool Equals(object o) { return o is Handle && Equals((Handle)o); }
        /// <summary>A hash of the value.</summary>
        public override int GetHashCode() { return Value.GetHashCode(); }
        /// <summary>Same object.</summary>
        public static bool operator ==(Handle a, Handle b) { return a.Value == b.Value; }
        /// <summary>Different objects.</summary>
        public static bool operator !=(Handle a, Handle b) { return a.Value != b.Value; }
        /// <summary>The value in hexadecimal.</summary>
        public override string ToString() { return "Handle(0x" + Value.ToString("x") + ")"; }
    }

    /// <summary>A query shape. Build one with the static methods; 2D shapes go to a QuadTree or an AoiWorld, Box3,
    /// Sphere, Point3, Segment3 and Frustum to an Octree.</summary>
    public partial struct Shape
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
        /// <summary>A 2D box from its numbers: min x, min y, max x, max y.</summary>
        public static Shape Box(double minX, double minY, double maxX, double maxY) { return Make(0, minX, minY, 0, maxX, maxY, 0, 0, 0, 0); }
        /// <summary>A 3D box from its numbers: min x, min y, min z, max x, max y, max z.</summary>
        public static Shape Box(double minX, double minY, double minZ, double maxX, double maxY, double maxZ) { return Make(0, minX, minY, minZ, maxX, maxY, maxZ, 0, 0, 0, 3); }
        /// <summary>A 2D point.</summary>
        public static Shape Point(double x, double y) { return Make(1, x, y, 0, 0, 0, 0, 0, 0, 0); }
        /// <summary>A 3D point.</summary>
        public static Shape Point(double x, double y, double z) { return Make(1, x, y, z, 0, 0, 0, 0, 0, 0, 3); }
        /// <summary>A circle (2D).</summary>
        public static Shape Circle(double x, double y, double radius) { return Make(2, x, y, 0, 0, 0, 0, radius, 0, 0); }
        /// <summary>A sphere (3D).</summary>
        public static Shape Sphere(double x, double y, double z, double radius) { return Make(2, x, y, z, 0, 0, 0, radius, 0, 0, 3); }
        /// <summary>A ring: inner &lt;= distance from the center &lt;= outer.</summary>
        public static Shape Ring(double x, double y, double inner, double outer) { return Make(3, x, y, 0, 0, 0, 0, inner, outer, 0); }
        /// <summary>An ellipse with semi-axes rx, ry, rotated by angle (radians, counter-clockwise).</summary>
        public static Shape Ellipse(double x, double y, double rx, double ry, double angle) { return Make(4, x, y, 0, 0, 0, 0, rx, ry, angle); }
        /// <summary>A sector (a fan): apex, direction, radius and half angle in [0, pi] (pi/3 is a 120-degree fan).</summary>
        public static Shape Sector(double x, double y, double dx, double dy, double radius, double halfAngle)
        {
            return Make(5, x, y, 0, dx, dy, 0, radius, 0, halfAngle);
        }
        /// <summary>A rotated box: center, half extents, angle (radians, counter-clockwise).</summary>
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
        /// camera.worldToCameraMatrix, read row by row with rowMajor true; OpenGL clip depth; or Shape.Frustum(Matrix4x4)
        /// in Quadrant.Unity.cs). The array is read at each query.</summary>
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

    /// <summary>What one query, ray cast or nearest search did (the seeds' traversal counts).</summary>
    public struct QueryStats
    {
        /// <summary>Nodes the walk entered.</summary>
        public long NodesVisited;
        /// <summary>Object boxes tested against the shape.</summary>
        public long BoxTests;
        /// <summary>Objects found.</summary>
        public long Hits;
        /// <summary>True when the callback stopped the walk.</summary>
        public bool Stopped;
        internal static QueryStats From(Native.QueryStatsNative s)
        {
            QueryStats r;
            r.NodesVisited = (long)s.NodesVisited; r.BoxTests = (long)s.BoxTests; r.Hits = (long)s.Hits; r.Stopped = s.Stopped != 0;
            return r;
        }
    }

    /// <summary>One node of a tree, as QueryNodes, ForEachNode, Nodes and Locate give it (NodeView in C++, NodeInfo
    /// in JavaScript). A copy: it does not change when the tree does.</summary>
    public struct NodeInfo
    {
        /// <summary>The node's cell (children halve it); a quadtree's has z 0 (use Cell.XY).</summary>
        public Box3 Cell;
        /// <summary>What queries prune by (may be infinite: docs/placements.md); z 0 in a quadtree.</summary>
        public Box3 Bounds;
        /// <summary>Root = 0.</summary>
        public int Depth;
        /// <summary>True when the node has no children.</summary>
        public bool IsLeaf;
        /// <summary>The node's index (root = 0); reused after merges.</summary>
        public int Id;
        /// <summary>The parent's id; -1 for the root.</summary>
        public int Parent;
        /// <summary>Objects this node lists.</summary>
        public int Items;
        /// <summary>Objects listed in the whole subtree.</summary>
        public int Count;
        /// <summary>Union of the layer masks in the subtree.</summary>
        public uint Layers;
        internal static NodeInfo From(ref Native.Node n)
        {
            NodeInfo r;
            r.Cell = new Box3(n.CellMin0, n.CellMin1, n.CellMin2, n.CellMax0, n.CellMax1, n.CellMax2);
            r.Bounds = new Box3(n.BoundsMin0, n.BoundsMin1, n.BoundsMin2, n.BoundsMax0, n.BoundsMax1, n.BoundsMax2);
            r.Depth = n.Depth; r.IsLeaf = n.Leaf != 0; r.Id = (int)n.Id; r.Parent = n.Parent == 0xffffffffu ? -1 : (int)n.Parent;
            r.Items = (int)(ulong)n.Items; r.Count = (int)(ulong)n.Count; r.Layers = n.Layers;
            return r;
        }
    }

    /// <summary>One object a ray cast crossed.</summary>
    public struct RayHit<TValue>
    {
        /// <summary>The object's value.</summary>
        public TValue Value;
        /// <summary>The object's handle.</summary>
        public Handle Handle;
        /// <summary>Where the segment enters the object's box, as a fraction of the segment in [0, 1] (t in C++, C
        /// and JavaScript): the point is a + T * (b - a).</summary>
        public double T;
    }

    /// <summary>One result of a nearest search.</summary>
    public struct Neighbor<TValue>
    {
        /// <summary>The object's value.</summary>
        public TValue Value;
        /// <summary>The object's handle.</summary>
        public Handle Handle;
        /// <summary>From the point to the object's box (0 inside).</summary>
        public double Distance;
    }

    /// <summary>Two objects of one tree whose boxes overlap, as ContactTracker reports them: A has the lower slot.
    /// In an ended contact a handle may be stale (its object was erased: tree.Contains says so).</summary>
    public struct Contact : IEquatable<Contact>
    {
        /// <summary>The object with the lower slot.</summary>
        public Handle A;
        /// <summary>The other object.</summary>
        public Handle B;
        /// <summary>The pair (a, b).</summary>
        public Contact(Handle a, Handle b) { A = a; B = b; }
        /// <summary>Same two handles.</summary>
        public bool Equals(Contact o) { return A.Value == o.A.Value && B.Value == o.B.Value; }
        /// <summary>Same two handles.</summary>
        public override bool Equals(object o) { return o is Contact && Equals((Contact)o); }
        /// <summary>A hash of both handles.</summary>
        public override int GetHashCode() { return A.GetHashCode() * 31 + B.GetHashCode(); }
    }

    /// <summary>Which of the 32 layers collide with which, for pair walks and contacts (Unity's layer collision
    /// matrix; Box2D's category and mask bits): symmetric. Two objects make a pair when some layer of one collides
    /// with some layer of the other. A new matrix lets no pair through. Threads: a plain value; one thread changes
    /// it at a time, and not while a walk reads it.</summary>
    public sealed class LayerMatrix
    {
        internal readonly uint[] Partners = new uint[32];
        /// <summary>No layer collides with any.</summary>
        public LayerMatrix() { }
        /// <summary>A copy of another matrix.</summary>
        public LayerMatrix(LayerMatrix other)
        {
            if (other == null) throw new ArgumentNullException("other");
            Array.Copy(other.Partners, Partners, 32);
        }
        /// <summary>A matrix in which every layer collides with every layer (as a pair walk without a mask).</summary>
        public static LayerMatrix All() { return new LayerMatrix().Between(0xffffffffu, 0xffffffffu); }
        /// <summary>Makes every layer of mask a collide with every layer of mask b (and b with a), keeping what was
        /// set: "players against anything" is Between(Players, ~0u). Returns this matrix.</summary>
        public LayerMatrix Between(uint a, uint b) { Native.quadrant_layer_matrix_between(Partners, a, b); return this; }
        /// <summary>Makes layers a and b (0..31, may be equal) collide, or not, both ways. ArgumentException for a
        /// layer outside 0..31, with the matrix unchanged. Returns this matrix.</summary>
        public LayerMatrix Set(int a, int b, bool collide = true)
        {
            Native.Check(Native.quadrant_layer_matrix_set(Partners, a, b, collide ? 1 : 0));
            return this;
        }
        /// <summary>Whether layers a and b (0..31) collide; ArgumentException outside 0..31.</summary>
        public bool Collides(int a, int b)
        {
            if (a < 0 || a > 31 || b < 0 || b > 31) throw new ArgumentException("quadrant: layer matrix: a layer outside 0..31");
            return (Partners[a] >> b & 1u) != 0;
        }
        /// <summary>The layers that collide with some layer of mask.</summary>
        public uint PartnersOf(uint mask)
        {
            uint p = 0;
            for (int i = 0; i < 32; ++i) if ((mask >> i & 1u) != 0) p |= Partners[i];
            return p;
        }
        /// <summary>True when two objects with these layer masks make a pair.</summary>
        public bool Lets(uint layersA, uint layersB) { return (PartnersOf(layersA) & layersB) != 0; }
    }

    /// <summary>The library's version.</summary>
    public static class Library
    {
        /// <summary>"major.minor.patch" of the native library.</summary>
        public static string Version { get { return Marshal.PtrToStringAnsi(Native.quadrant_version()); } }
    }
}
