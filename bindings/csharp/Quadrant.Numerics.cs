// SPDX-License-Identifier: MIT
// quadrant for C#: conversions from System.Numerics' Vector2 and Vector3 (floats: exact as doubles). Needs a
// reference to System.Numerics (mono: -r:System.Numerics; .NET and Unity 2021.2+ have it); define
// QUADRANT_NO_NUMERICS to build without it.
#if !QUADRANT_NO_NUMERICS
using SysVector2 = System.Numerics.Vector2;
using SysVector3 = System.Numerics.Vector3;

namespace Quadrant
{
    public partial struct Box2
    {
        /// <summary>The box from min to max (System.Numerics).</summary>
        public Box2(SysVector2 min, SysVector2 max) { MinX = min.X; MinY = min.Y; MaxX = max.X; MaxY = max.Y; }
        /// <summary>The low corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector2 Min { get { return new SysVector2((float)MinX, (float)MinY); } }
        /// <summary>The high corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector2 Max { get { return new SysVector2((float)MaxX, (float)MaxY); } }
    }

    public partial struct Box3
    {
        /// <summary>The box from min to max (System.Numerics).</summary>
        public Box3(SysVector3 min, SysVector3 max) { MinX = min.X; MinY = min.Y; MinZ = min.Z; MaxX = max.X; MaxY = max.Y; MaxZ = max.Z; }
        /// <summary>The low corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector3 Min { get { return new SysVector3((float)MinX, (float)MinY, (float)MinZ); } }
        /// <summary>The high corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector3 Max { get { return new SysVector3((float)MaxX, (float)MaxY, (float)MaxZ); } }
    }

    public partial struct Shape
    {
        /// <summary>A 2D point (System.Numerics).</summary>
        public static Shape Point(SysVector2 p) { return Point(p.X, p.Y); }
        /// <summary>A 3D point (System.Numerics).</summary>
        public static Shape Point(SysVector3 p) { return Point(p.X, p.Y, p.Z); }
        /// <summary>A circle (System.Numerics center).</summary>
        public static Shape Circle(SysVector2 center, double radius) { return Circle(center.X, center.Y, radius); }
        /// <summary>A sphere (System.Numerics center).</summary>
        public static Shape Sphere(SysVector3 center, double radius) { return Sphere(center.X, center.Y, center.Z, radius); }
        /// <summary>A 2D segment from a to b (System.Numerics).</summary>
        public static Shape Segment(SysVector2 a, SysVector2 b) { return Segment(a.X, a.Y, b.X, b.Y); }
        /// <summary>A 3D segment from a to b (System.Numerics).</summary>
        public static Shape Segment(SysVector3 a, SysVector3 b) { return Segment(a.X, a.Y, a.Z, b.X, b.Y, b.Z); }
        /// <summary>The frustum of a System.Numerics view-projection matrix (view * projection: row vectors, as
        /// Matrix4x4.CreateLookAt and CreatePerspectiveFieldOfView make them, whose clip depth is 0..1: clipZeroToOne
        /// true), its 16 numbers written into `numbers` (16 long; read at each query) or into a new array when null.</summary>
        public static Shape Frustum(System.Numerics.Matrix4x4 viewProjection, bool clipZeroToOne, double[] numbers = null)
        {
            if (numbers == null) numbers = new double[16];
            if (numbers.Length != 16) throw new System.ArgumentException("quadrant: a frustum needs an array of 16 numbers");
            System.Numerics.Matrix4x4 m = viewProjection;
            // Row vectors: M's rows, one after the other, are the columns of the column-vector matrix (column-major).
            numbers[0] = m.M11; numbers[1] = m.M12; numbers[2] = m.M13; numbers[3] = m.M14;
            numbers[4] = m.M21; numbers[5] = m.M22; numbers[6] = m.M23; numbers[7] = m.M24;
            numbers[8] = m.M31; numbers[9] = m.M32; numbers[10] = m.M33; numbers[11] = m.M34;
            numbers[12] = m.M41; numbers[13] = m.M42; numbers[14] = m.M43; numbers[15] = m.M44;
            return Frustum(numbers, false, clipZeroToOne);
        }
    }

    public partial struct StreamSource
    {
        /// <summary>A position alone with its prefetch radius (System.Numerics).</summary>
        public static StreamSource Ball(SysVector3 position, double prefetchRadius) { return Ball(position.X, position.Y, position.Z, prefetchRadius); }
    }
}
#endif
